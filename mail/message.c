// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until the mail issue lands: fails visibly. */
#include <stdlib.h>
#include <string.h>

#include "mail/message.h"
#include "util/err.h"
#include "util/banned.h"

int rb_subject_parse(struct rb_subject *out, const char *subject)
{
	memset(out, 0, sizeof(*out));
	out->title = strdup(subject);
	out->version = 1;
	return out->title ? 0 : -RB_ENOMEM;
}

void rb_subject_release(struct rb_subject *s)
{
	free(s->title);
	free(s->tags);
	free(s->subsystem);
}

int rb_message_parse(struct rb_message **out, const char *raw, size_t len,
		     const struct rb_parse_opts *opts)
{
	(void)out;
	(void)raw;
	(void)len;
	(void)opts;
	return rb_err(RB_EPARSE, "message parsing is not implemented yet");
}

void rb_message_free(struct rb_message *m)
{
	free(m);
}

const char *rb_message_trailer(const struct rb_message *m, const char *key)
{
	(void)m;
	(void)key;
	return NULL;
}
