// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_code_c.c - libFuzzer target for the C recogniser (review/code/code_c.h)
 * over tree text, which whoever sent the patch controls: for every line,
 * the function and the block around it, the definitions of a symbol, a
 * head's name. The answers must stay inside the text and be consistent
 * (a function holds the line asked about, its head before its body
 * before its end), and no scan may read past a line.
 *
 * Input: the first byte is the length of a symbol taken from the next
 * bytes (at most 32), the rest is the text.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/code/code_c.h"
#include "util/err.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_c_lines l;
	struct rb_c_func f;
	size_t sl, i, n, s, e, nl;
	const char *text, *sym, *kind, *name, *line;
	char *copy;

	if (!size)
		return 0;
	sl = data[0] % 33;
	if (sl + 1 > size)
		sl = size - 1;
	/* A copy of its own size: ASan sees any read past the text. */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	sym = copy;
	text = copy + sl;
	if (rb_c_lines_split(&l, text, size - 1 - sl)) {
		free(copy);
		return 0;
	}
	for (i = 0; i < l.n; i++) {
		if (rb_c_func_at(&f, &l, i)) {
			if (f.start > i || f.end < i || f.body < f.start ||
			    f.body > f.end || f.end >= l.n)
				abort();
			if (f.name && (f.name < text ||
				       f.name + f.name_len > text + l.len))
				abort();
		}
		if (rb_c_block_at(&l, i, &s, &e, &kind, &name, &nl)) {
			if (s > i || e < i || e >= l.n)
				abort();
			if (name && (name < text || name + nl > text + l.len))
				abort();
		}
		kind = sl ? rb_c_def_kind(&l, i, sym, sl) : NULL;
		if (kind && rb_c_def_span(&l, i, kind, 60) > 60)
			abort();
		line = rb_c_line(&l, i, &n);
		if (rb_c_fn_header(line, n, &name, &nl) &&
		    (name < line || name + nl > line + n))
			abort();
		if (sl && rb_c_find_word(line, n, sym, sl) >= (long)n)
			abort();
	}
	rb_c_lines_release(&l);
	free(copy);
	rb_err_clear();
	return 0;
}
