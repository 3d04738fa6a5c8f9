/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compose.h - a review reply turned into RFC 5322 bytes (RFC 5322, RFC
 * 2045/2046 MIME, RFC 2047 encoded words, RFC 3834 Auto-Submitted), ready
 * for a sender (mail/sender.h).
 *
 * The output depends on the struct rb_reply only: the same reply composes
 * to the same bytes and the same Message-ID, so a resend after a crash is
 * byte-identical and public-inbox drops the duplicate (DESIGN.md fact 7).
 */
#ifndef RB_MAIL_COMPOSE_H
#define RB_MAIL_COMPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "mail/mode.h"

struct rb_buf;

/* Everything is borrowed; strings are UTF-8 and NUL-terminated. */
struct rb_reply {
	const char *from; /* "reviewbot <bot@example.org>" */
	const char *const *to; /* mailboxes as rb_addr_parse() takes them */
	size_t n_to; /* at least 1 */
	const char *const *cc;
	size_t n_cc; /* n_to + n_cc <= RB_ADDR_LIST_MAX */
	const char *subject; /* the ORIGINAL decoded subject */
	const char *in_reply_to; /* a Message-ID, with or without <> */
	const char *const *references; /* oldest first, with or without <> */
	size_t n_references;
	int64_t date; /* seconds since the epoch; written in UTC */
	enum rb_mode policy; /* advisory, blocking or shadow; never off */
	const char *series_id; /* X-Reviewbot-Series: printable ASCII */
	const char *body; /* UTF-8, LF (or CRLF) line ends, already wrapped */
	const char *extra_headers; /* optional "Name: value" lines, or NULL */
};

/*
 * Appends the complete message to @out (CRLF line ends throughout):
 * From, To, Cc, Subject ("Re: " once, folded, RFC 2047 when it is not
 * plain ASCII; CR, LF and tabs in the decoded subject become single
 * spaces, so the subject can never start a new header), Date (RFC 5322
 * 3.3, UTC), Message-ID, In-Reply-To, References (the whole chain, with
 * in_reply_to appended when missing, folded), MIME-Version, Content-Type
 * text/plain; charset=utf-8, Content-Transfer-Encoding 8bit (or
 * quoted-printable when a body line is longer than 998 bytes),
 * Auto-Submitted: auto-replied, X-Reviewbot-Policy, X-Reviewbot-Series,
 * the extra headers, then the body.
 *
 * The Message-ID is "<rb-SHA256HEX@DOMAIN>", the hash over in_reply_to,
 * the recipients, the subject and the body, DOMAIN the from address's
 * domain. When @message_id is not NULL, *message_id receives it
 * (malloc'd, with the angle brackets) on success.
 *
 * Returns 0; -RB_EINVAL (reason in rb_errmsg(), @out unchanged) for a bad
 * address, a header value with a control character, a body that is not
 * UTF-8 or holds a control character other than tab and form feed, or a
 * body line that starts with a Reviewed-by:, Acked-by: or Tested-by:
 * trailer (reviewbot never gives one, DESIGN.md fact 7); -RB_ETOOBIG for
 * too many recipients or past out's cap; -RB_ENOMEM.
 */
int rb_compose(struct rb_buf *out, char **message_id, const struct rb_reply *r);

/*
 * The SMTP envelope of a reply: *env_from is the bare address of r->from,
 * *rcpts the bare addresses of To and Cc, duplicates removed (as
 * rb_addr_list_dedup() does). All malloc'd; free *env_from with free() and
 * *rcpts with rb_addr_list_free(). -RB_EINVAL for a bad address.
 */
int rb_compose_envelope(char **env_from, char ***rcpts, size_t *n_rcpts,
			const struct rb_reply *r);

#endif
