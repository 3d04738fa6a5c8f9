// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_quotes.c - hostile reply bodies through the two parsers of a
 * reply's own words (issue 37): rb_quotes_parse() (the patch lines a
 * reply comments on) and rb_prose_parse() (the answers under [Fn], and
 * their guessed verdicts). The input is not NUL-terminated, so a read
 * past its end shows up in ASan. rb_quotes_same_squeezed() is checked
 * against rb_quotes_same() on the lines of the input. Seeds: real reply bodies of the
 * linux-api corpus (fuzz_quotes.seeds.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail/prose.h"
#include "mail/quotes.h"
#include "util/err.h"
#include "util/banned.h"

/*
 * rb_quotes_same_squeezed() of @line squeezed against each of the first
 * 64 lines of @body, and against @line itself, is rb_quotes_same().
 */
static void same_as_squeezed(const char *line, const char *body, size_t size)
{
	char sq[RB_QUOTES_MAX_LINE + 1];
	size_t sqn, n = strlen(line), k;
	const char *p = body, *e, *end = body + size;

	sqn = rb_quotes_squeeze(sq, sizeof(sq), line, n);
	if (!rb_quotes_same_squeezed(sq, sqn, line, n))
		abort();
	for (k = 0; k < 64 && p < end; k++, p = e + 1) {
		e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		if (rb_quotes_same(line, n, p, (size_t)(e - p)) !=
		    rb_quotes_same_squeezed(sq, sqn, p, (size_t)(e - p)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_quotes q = { 0 };
	struct rb_prose p = { 0 };
	char *copy = malloc(size ? size : 1), *para = NULL;
	size_t i;
	int ret;

	if (!copy)
		return 0;
	if (size)
		memcpy(copy, data, size);
	ret = rb_quotes_parse(&q, copy, size);
	if (ret && ret != -RB_ENOMEM)
		abort();
	if (q.n > RB_QUOTES_MAX)
		abort();
	for (i = 0; i < q.n; i++) {
		const struct rb_quote_comment *c = &q.v[i];

		if (!c->line || strlen(c->line) > RB_QUOTES_MAX_LINE ||
		    c->comment_off + c->comment_len > size || c->reply_line < 1)
			abort();
		if (c->file && strlen(c->file) > RB_QUOTES_MAX_LINE)
			abort();
		/* the one-pass comparison is rb_quotes_same() */
		if (i < 4)
			same_as_squeezed(c->line, copy, size);
	}
	rb_quotes_release(&q);
	ret = rb_prose_parse(&p, copy, size);
	if (ret && ret != -RB_ENOMEM)
		abort();
	if (p.n > RB_PROSE_MAX)
		abort();
	for (i = 0; i < p.n; i++) {
		if (p.v[i].id < 1 || p.v[i].id > RB_VERDICT_MAX_ID ||
		    !p.v[i].text || strlen(p.v[i].text) > RB_PROSE_MAX_TEXT)
			abort();
		if (p.v[i].guess != rb_prose_guess(p.v[i].text))
			abort();
	}
	if (p.n && !rb_prose_paragraph(&para, copy, size, p.v[0].line) &&
	    para && strlen(para) > RB_PROSE_MAX_TEXT)
		abort();
	free(para);
	rb_prose_release(&p);
	free(copy);
	return 0;
}
