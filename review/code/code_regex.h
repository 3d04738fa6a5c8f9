/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * code_regex.h - a regular expression from hostile input (the model's
 * grep), matched line by line under bounds.
 *
 * glibc's regexec() has no bound: ".*a" and 20 dots (issue 33) took one
 * call 144 s and 669 MiB. PCRE2's backtracking matcher runs here under a
 * step limit, a depth limit and a heap limit for each line (the pattern's
 * own (*LIMIT_...) can only lower them); a line that hits one counts as
 * no match and as costly, and the caller stops after as many costly lines
 * as it allows. Bytes, not UTF-8: tree text may be anything, and (*UTF) is
 * refused.
 */
#ifndef RB_REVIEW_CODE_REGEX_H
#define RB_REVIEW_CODE_REGEX_H

#include <stdbool.h>
#include <stddef.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

struct rb_buf;

#define RB_CODE_REGEX_MAX_PATTERN 256 /* bytes of a pattern */
#define RB_CODE_REGEX_LINE 4096 /* bytes of a line a regex is matched against */
#define RB_CODE_REGEX_COSTLY 8 /* costly lines after which a search stops */

struct rb_code_regex {
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	size_t costly; /* lines whose match hit a limit */
};

/*
 * Compiles @pat (@len bytes, Perl syntax) into @g: 0, -RB_EINVAL with
 * "error: ..." as a line in @err, or -RB_ENOMEM. Released with
 * rb_code_regex_free(), also on failure.
 */
int rb_code_regex_compile(struct rb_code_regex *g, const char *pat, size_t len,
			  struct rb_buf *err);
void rb_code_regex_free(struct rb_code_regex *g);

/* Does the line @s[0..@n) match? A line over a limit is no match and
 * counts in g->costly. */
bool rb_code_regex_match(struct rb_code_regex *g, const char *s, size_t n);

#endif
