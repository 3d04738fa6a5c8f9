// SPDX-License-Identifier: GPL-2.0-only
/*
 * code_regex.c - a regular expression from hostile input, matched under
 * bounds (code_regex.h).
 */
#include <stdio.h>
#include <string.h>

#include "review/code/code_regex.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/*
 * PCRE2's limits for one line: steps of its backtracking matcher, depth,
 * KiB of memory; and the nesting of the pattern.
 */
#define REGEX_STEPS 200000
#define REGEX_DEPTH 2000
#define REGEX_HEAP_KIB 4096
#define REGEX_NEST 64

void rb_code_regex_free(struct rb_code_regex *g)
{
	pcre2_match_data_free(g->md);
	pcre2_match_context_free(g->mc);
	pcre2_code_free(g->code);
	memset(g, 0, sizeof(*g));
}

/* 0, -RB_EINVAL with the reason in @err, or -RB_ENOMEM. */
int rb_code_regex_compile(struct rb_code_regex *g, const char *pat, size_t len,
			  struct rb_buf *err)
{
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE at = 0;
	int code = 0, ret = 0;

	memset(g, 0, sizeof(*g));
	if (!cc)
		return rb_err(RB_ENOMEM, "regex: out of memory");
	pcre2_set_max_pattern_length(cc, RB_CODE_REGEX_MAX_PATTERN);
	pcre2_set_parens_nest_limit(cc, REGEX_NEST);
	g->code = pcre2_compile((PCRE2_SPTR)pat, len,
				PCRE2_NEVER_UTF | PCRE2_NEVER_UCP |
					PCRE2_NEVER_BACKSLASH_C,
				&code, &at, cc);
	pcre2_compile_context_free(cc);
	if (!g->code) {
		if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
			snprintf((char *)msg, sizeof(msg), "error %d", code);
		ret = rb_buf_printf(err,
				    "error: not a regex (PCRE2, Perl syntax): "
				    "%s at offset %zu\n",
				    (char *)msg, (size_t)at) ?:
			      -RB_EINVAL;
		rb_code_regex_free(g);
		return ret;
	}
	g->md = pcre2_match_data_create(1, NULL);
	g->mc = pcre2_match_context_create(NULL);
	if (!g->md || !g->mc) {
		rb_code_regex_free(g);
		return rb_err(RB_ENOMEM, "regex: out of memory");
	}
	pcre2_set_match_limit(g->mc, REGEX_STEPS);
	pcre2_set_depth_limit(g->mc, REGEX_DEPTH);
	pcre2_set_heap_limit(g->mc, REGEX_HEAP_KIB);
	return 0;
}

/* Does the line @s[0..@n) match? A line over a limit is no match. */
bool rb_code_regex_match(struct rb_code_regex *g, const char *s, size_t n)
{
	int rc = pcre2_match(g->code, (PCRE2_SPTR)s, n, 0, 0, g->md, g->mc);

	if (rc >= 0)
		return true;
	if (rc != PCRE2_ERROR_NOMATCH && rc != PCRE2_ERROR_PARTIAL)
		g->costly++; /* MATCHLIMIT, DEPTHLIMIT, HEAPLIMIT, NOMEMORY */
	return false;
}
