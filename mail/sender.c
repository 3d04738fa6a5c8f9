// SPDX-License-Identifier: GPL-2.0-only
/*
 * sender.c - what every sender shares: the envelope check, and
 * rb_sender_send() / rb_sender_free() over the ops table.
 */
#include <stddef.h>

#include "mail/addr.h"
#include "mail/sender.h"
#include "util/err.h"
#include "util/banned.h"

int rb_sender_check_envelope(const char *env_from, const char *const *rcpts,
			     size_t n_rcpts, const char *msg, size_t len)
{
	size_t i;

	if (!rb_addr_valid(env_from))
		return rb_err(RB_EINVAL,
			      "envelope sender is not an RFC 5321 address");
	if (!n_rcpts || n_rcpts > RB_ADDR_LIST_MAX)
		return rb_err(RB_EINVAL, "%zu envelope recipients, 1 to %d",
			      n_rcpts, RB_ADDR_LIST_MAX);
	for (i = 0; i < n_rcpts; i++)
		if (!rb_addr_valid(rcpts[i]))
			return rb_err(
				RB_EINVAL,
				"envelope recipient %zu is not an RFC 5321 address",
				i + 1);
	if (!msg || !len)
		return rb_err(RB_EINVAL, "empty message");
	return 0;
}

int rb_sender_send(struct rb_sender *s, const char *env_from,
		   const char *const *rcpts, size_t n_rcpts, const char *msg,
		   size_t len)
{
	int ret = rb_sender_check_envelope(env_from, rcpts, n_rcpts, msg, len);

	if (ret)
		return ret;
	return s->ops->send(s, env_from, rcpts, n_rcpts, msg, len);
}

void rb_sender_free(struct rb_sender *s)
{
	if (s)
		s->ops->free(s);
}
