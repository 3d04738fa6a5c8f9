/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * quotes.h - the lines of a patch that a reply comments on (issue 37).
 * A reviewer quotes part of the patch ("> +	ret = foo();") and writes
 * under it; the line commented on is the last quoted diff line before
 * the unquoted text. The body of the reply is hostile input.
 *
 * What counts, line by line of the body (LF or CRLF, not NUL-terminated):
 *  - a quoted line of depth 1 ("> ", ">", "> " then a diff line: "+..."
 *    added, "-..." removed, " ..." context, "@@" a hunk header; "+++ b/P"
 *    and "diff --git a/P b/Q" name the file); deeper quotes ("> > +")
 *    are what someone else quoted and never count;
 *  - unquoted text after such a run whose last diff line is an added
 *    line: a comment on that line (on the last non-blank added line
 *    before it when that line is blank), unless the text says nothing of its
 *    own: only trailers ("Reviewed-by: ..."), an attribution ("... wrote:"),
 *    a snip mark ("[...]", "<snip>") or words of assent ("Thanks!",
 *    "LGTM", "ok").
 * Parsing stops at the signature separator "-- ". At most
 * RB_QUOTES_MAX comments are read from one reply; each copied string is
 * capped (RB_QUOTES_MAX_LINE bytes).
 */
#ifndef RB_MAIL_QUOTES_H
#define RB_MAIL_QUOTES_H

#include <stdbool.h>
#include <stddef.h>

#define RB_QUOTES_MAX 64 /* comments read from one reply */
#define RB_QUOTES_MAX_LINE 512 /* bytes kept of a quoted line or path */
#define RB_QUOTES_CTX 2 /* quoted new-side lines kept before the line */

/* One comment on an added line of the patch a reply quotes. */
struct rb_quote_comment {
	char *line; /* the added line's text, without "+" */
	char *file; /* from a quoted "+++ b/" or "diff --git", or NULL */
	/* the new-side lines ('+' or ' ') quoted just before it, oldest
	 * first, in the same run; NULL where there is none */
	char *before[RB_QUOTES_CTX];
	int reply_line; /* 1-based line of the body where the comment starts */
	size_t comment_off, comment_len; /* the comment's text in the body */
};

struct rb_quotes {
	struct rb_quote_comment *v;
	size_t n;
};

/*
 * Reads the comments of @body (@len bytes). On success *out (owned by the
 * caller, rb_quotes_release()) holds zero or more. Fails only with
 * -RB_ENOMEM.
 */
int rb_quotes_parse(struct rb_quotes *out, const char *body, size_t len);
void rb_quotes_release(struct rb_quotes *q);

/*
 * @s (@n bytes) squeezed for comparison into @out (@size bytes): blanks
 * at both ends dropped, every run of blanks inside one space. Mail
 * clients turn tabs into spaces and drop trailing blanks; code that
 * differs only so is the same line. Returns the length written (cut at
 * @size - 1).
 */
size_t rb_quotes_squeeze(char *out, size_t size, const char *s, size_t n);

/* Do @a and @b (@an, @bn bytes) squeeze to the same text? */
bool rb_quotes_same(const char *a, size_t an, const char *b, size_t bn);

/*
 * rb_quotes_same() of a text already squeezed into @sq (@sqn bytes, by
 * rb_quotes_squeeze() with @size RB_QUOTES_MAX_LINE + 1) and of @s (@n
 * bytes), squeezing @s as it goes and stopping at the first difference:
 * for matching one quote against every line of a patch.
 */
bool rb_quotes_same_squeezed(const char *sq, size_t sqn, const char *s,
			     size_t n);

#endif
