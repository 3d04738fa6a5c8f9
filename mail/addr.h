/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * addr.h - mail addresses on the way out: RFC 5321 section 4.1.2 syntax
 * for envelope addresses (libcurl 7.88 checks nothing, DESIGN.md fact 7),
 * RFC 5322 section 3.4 "Name <addr>" mailboxes, and recipient lists with
 * duplicates removed and a cap on their length.
 *
 * Only ASCII addresses are accepted (no SMTPUTF8, RFC 6531): every address
 * reviewbot writes to is a kernel developer's or a list's, and an address
 * that needs SMTPUTF8 cannot be sent through a relay that lacks it.
 *
 * struct rb_addr (name + addr) is the one in mail/message.h, so that an
 * address parsed from a list mail and one parsed here are the same type.
 */
#ifndef RB_MAIL_ADDR_H
#define RB_MAIL_ADDR_H

#include <stdbool.h>
#include <stddef.h>

#include "mail/message.h"

#define RB_ADDR_MAX 254 /* RFC 5321 4.5.3.1.3: path 256 with the <> */
#define RB_ADDR_LOCAL_MAX 64 /* RFC 5321 4.5.3.1.1 */
#define RB_ADDR_NAME_MAX 256 /* display name, bytes of UTF-8 */
/*
 * The most recipients one mail may have, To and Cc together. RFC 5321
 * 4.5.3.1.8 makes servers accept at least 100 RCPT commands, so one SMTP
 * transaction can always carry the whole list: a mail is never split, so it
 * goes out exactly once or not at all.
 */
#define RB_ADDR_LIST_MAX 100

struct rb_buf;

/*
 * True when @addr is a bare RFC 5321 Mailbox: Local-part "@" (Domain /
 * address-literal), the local part a Dot-string or a Quoted-string, the
 * domain LDH labels (each at most 63) or [IPv4] / [IPv6:...], no control
 * character anywhere, at most RB_ADDR_MAX bytes and a local part of at most
 * RB_ADDR_LOCAL_MAX. No angle brackets, no display name.
 */
bool rb_addr_valid(const char *addr);

/*
 * True when mail to the valid address @addr can reach anybody: its domain
 * is a name with a dot (not a bare host name such as "localhost", not an
 * address literal), and not in a name space that never resolves on the
 * Internet: "localhost" and "*.localhost", "*.invalid" (RFC 6761 6.3,
 * 6.4), "*.local" (multicast DNS, RFC 6762). A patch sent from a
 * machine that was never configured ("caritas@localhost") names such an
 * author; a reply to it would bounce, or stay on the bot's own host.
 */
bool rb_addr_deliverable(const char *addr);

/*
 * Parses one mailbox: "Name <local@domain>", "\"Name, Jr.\" <a@b>",
 * "<a@b>", "a@b" or the old "a@b (Name)". The display name is UTF-8
 * text: quotes and backslash escapes are removed, and RFC 2047 encoded
 * words outside quotes are decoded, so that rb_addr_format()'s output
 * parses back to the same name (never encoded twice). After that it must
 * hold no control character (an encoded CR/LF is refused) and be valid
 * UTF-8.
 * Fills *out (both strings malloc'd, name NULL when absent) on success;
 * free with rb_addr_release(). -RB_EINVAL (reason in rb_errmsg()) for a
 * bad address or name, -RB_ENOMEM.
 */
int rb_addr_parse(struct rb_addr *out, const char *mailbox);
void rb_addr_release(struct rb_addr *a);

/*
 * Appends @a as an RFC 5322 mailbox to @out: the bare address when there
 * is no name, the name as atoms when it is plain ASCII words, as a quoted
 * string when it holds specials, and as RFC 2047 encoded words (UTF-8)
 * when it holds anything else. Encoded words are separated by spaces, so
 * a header writer may fold between them. -RB_EINVAL for a bad address or
 * name, -RB_ETOOBIG past out's cap.
 */
int rb_addr_format(struct rb_buf *out, const struct rb_addr *a);

/*
 * Compares the addr-spec parts of two mailboxes (or bare addresses) the
 * way reviewbot removes duplicates: case-insensitively on the domain AND
 * on the local part. RFC 5321 lets a server treat the local part as
 * case-sensitive, but no two kernel people differ by case only, and mailing
 * one person twice is the worse mistake. Returns true when equal; an entry
 * that does not parse equals nothing.
 */
bool rb_addr_same(const char *a, const char *b);

/*
 * Removes duplicates from @in (mailboxes as rb_addr_parse() takes them),
 * keeping the first occurrence and the order; entries that do not parse
 * are dropped and logged, and so are those past @max unique ones (max 0
 * means RB_ADDR_LIST_MAX). *out is a malloc'd array of malloc'd copies of
 * the kept entries, as written in @in; free with rb_addr_list_free().
 * *n_out may be 0. Returns 0, or -RB_ENOMEM.
 */
int rb_addr_list_dedup(char ***out, size_t *n_out, const char *const *in,
		       size_t n_in, size_t max);
void rb_addr_list_free(char **v, size_t n);

/*
 * RFC 2047 encoding of UTF-8 @text (valid UTF-8, no control character) as
 * encoded words "=?utf-8?q?...?=" or "=?utf-8?b?...?=" (B only when it
 * is a third shorter than Q: Q stays readable), each at most 75 bytes
 * and never splitting a character, separated by single spaces (RFC 2047 section 2: a header writer may fold
 * there). Q uses only the characters section 5 (3) allows in a phrase, so
 * the result is safe in a Subject and in a display name alike. Appends to
 * @out; -RB_EINVAL for invalid UTF-8 or a control character.
 */
int rb_rfc2047_encode(struct rb_buf *out, const char *text, size_t len);

/* True when @s[0..len) is valid UTF-8 (RFC 3629: no overlong, no surrogate). */
bool rb_utf8_valid(const char *s, size_t len);

#endif
