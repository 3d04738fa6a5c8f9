// SPDX-License-Identifier: GPL-2.0-only
/*
 * fixes.c - the value of a Fixes: trailer. See fixes.h.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/fixes.h"
#include "util/err.h"
#include "util/banned.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* [s, e) with blanks collapsed to one space and trimmed, capped. */
static char *collapse(const char *s, const char *e)
{
	size_t n = (size_t)(e - s), k = 0;
	char *out;
	bool blank = false;

	if (n > RB_FIXES_MAX_SUBJECT)
		n = RB_FIXES_MAX_SUBJECT;
	out = malloc(n + 1);
	if (!out)
		return NULL;
	for (e = s + n; s < e; s++) {
		if (is_blank(*s)) {
			blank = k > 0;
			continue;
		}
		if (blank)
			out[k++] = ' ';
		blank = false;
		out[k++] = *s;
	}
	out[k] = '\0';
	return out;
}

int rb_fixes_parse(struct rb_fixes *out, const char *v)
{
	const char *s, *e, *q;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	if (!v)
		return 0;
	while (is_blank(*v))
		v++;
	if (!strncasecmp(v, "commit", 6) && is_blank(v[6]))
		for (v += 6; is_blank(*v);)
			v++;
	while (isxdigit((unsigned char)v[n]) && n < 41)
		n++;
	/* An id is 4 to 40 hex digits followed by a blank, "(" or the end. */
	if (n >= 4 && n <= 40 && (!v[n] || is_blank(v[n]) || v[n] == '(')) {
		memcpy(out->sha, v, n);
		out->sha[n] = '\0';
		for (v += n; is_blank(*v);)
			v++;
	}
	if (*v == '(') {
		/* ("subject"): up to the last '")', else the last ')'. */
		s = v + 1;
		e = NULL;
		for (q = s; (q = strstr(q, "\")")); q++)
			e = q;
		if (*s == '"' && e && e > s) {
			s++;
		} else {
			e = strrchr(s, ')');
			if (!e)
				e = s + strlen(s);
			/* ("cut short: the quote is not the subject's. */
			if (*s == '"' && s < e)
				s++;
		}
	} else if (*v == '"') {
		s = v + 1;
		e = strrchr(s, '"');
		if (!e)
			e = s + strlen(s);
	} else {
		/* An id alone, or words we cannot tell from a subject. */
		return 0;
	}
	while (s < e && is_blank(*s))
		s++;
	if (s >= e)
		return 0;
	out->subject = collapse(s, e);
	if (!out->subject)
		return rb_err(RB_ENOMEM, "out of memory");
	if (!out->subject[0]) {
		free(out->subject);
		out->subject = NULL;
	}
	return 0;
}

void rb_fixes_release(struct rb_fixes *f)
{
	free(f->subject);
	f->subject = NULL;
}
