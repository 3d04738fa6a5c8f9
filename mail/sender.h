/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sender.h - where composed mail goes: an SMTP server through libcurl
 * (sender_smtp.h), or a Maildir outbox (sender_maildir.h, the embedded
 * default), behind one table of operations.
 *
 * A sender hands over bytes exactly as given: it never rewrites the
 * message, so a resend is byte-identical (DESIGN.md fact 7). The envelope
 * addresses are checked with rb_addr_valid() before anything else sees
 * them (libcurl 7.88 does not check them).
 */
#ifndef RB_MAIL_SENDER_H
#define RB_MAIL_SENDER_H

#include <stddef.h>

struct rb_sender;

struct rb_sender_ops {
	const char *name; /* "smtp", "maildir" */
	/*
	 * Hands @msg (RFC 5322 bytes, CRLF) to the server or the outbox,
	 * for the envelope @env_from / @rcpts (bare addresses). One
	 * transaction: all recipients or none. Returns 0 when the message
	 * was accepted (the server's 250 to the end of DATA, or the file is
	 * durable); -RB_EAGAIN for a temporary failure (connection refused
	 * or lost, timeout, a 4xx reply): retry later, the same bytes;
	 * -RB_EFAIL for a permanent one (a 5xx reply) with the server's
	 * reply text in rb_errmsg(); -RB_ECONFIG when sending cannot work
	 * until the configuration changes (authentication refused, TLS
	 * required but not offered, certificate not trusted); -RB_EINVAL
	 * for a bad envelope address (nothing was sent); -RB_EIO (Maildir).
	 */
	int (*send)(struct rb_sender *s, const char *env_from,
		    const char *const *rcpts, size_t n_rcpts, const char *msg,
		    size_t len);
	void (*free)(struct rb_sender *s);
};

/* Each implementation embeds this as its first member. */
struct rb_sender {
	const struct rb_sender_ops *ops;
};

/* s->ops->send, after checking the envelope (same returns). */
int rb_sender_send(struct rb_sender *s, const char *env_from,
		   const char *const *rcpts, size_t n_rcpts, const char *msg,
		   size_t len);
/* rb_sender_free(NULL) does nothing. */
void rb_sender_free(struct rb_sender *s);

/*
 * Checks an envelope: both addresses rb_addr_valid(), 1 to
 * RB_ADDR_LIST_MAX recipients, a non-empty message. 0 or -RB_EINVAL.
 */
int rb_sender_check_envelope(const char *env_from, const char *const *rcpts,
			     size_t n_rcpts, const char *msg, size_t len);

#endif
