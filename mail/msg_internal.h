/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * msg_internal.h - helpers shared by message.c, msg_decode.c, msg_body.c
 * and subject.c, and by dkim.c, which must read From: as message.c does.
 * Not a public header: only those files of mail/ include it.
 */
#ifndef RB_MAIL_MSG_INTERNAL_H
#define RB_MAIL_MSG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

struct rb_buf;
struct rb_message;

/*
 * Appends @in (@len bytes in @charset, NULL meaning "unstated") to @out as
 * UTF-8. Bytes that cannot be converted become U+FFFD and set *bad; text
 * without a charset is taken as UTF-8 when it is valid, else as Latin-1
 * (git mailinfo does the same). 0, -RB_ENOMEM or -RB_ETOOBIG.
 */
int rb_msg_to_utf8(struct rb_buf *out, const char *charset, const char *in,
		   size_t len, bool *bad);

/*
 * Appends the unstructured header value @in (RFC 5322 2.2.3 unfolding,
 * RFC 2047 encoded words of any charset) to @out as UTF-8. *bad is set
 * when some charset could not be converted.
 */
int rb_msg_decode_words(struct rb_buf *out, const char *in, size_t len,
			bool *bad);

/* True when @s[0..len) is valid UTF-8. */
bool rb_utf8_valid(const char *s, size_t len);

/*
 * Records a problem: sets @bit in m->problems and appends one line to
 * m->problem_text. 0 or -RB_ENOMEM.
 */
int rb_msg_problem(struct rb_message *m, unsigned int bit, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct rb_addr_list;
/*
 * Adds the addresses of the unfolded address-list @v to @out (RFC 5322
 * 3.4). @slow_only skips the fast path and uses mailimf alone (for the
 * test that checks that both agree).
 */
int rb_msg_parse_addrs(struct rb_addr_list *out, const char *v, size_t n,
		       bool slow_only);

/*
 * Splits m->body as git mailinfo and git am do: commit_msg, trailers,
 * diffstat, notes and patch. Notes whitespace damage in m->problems.
 */
int rb_msg_split_body(struct rb_message *m);

#endif
