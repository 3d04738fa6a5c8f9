// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_diff.c - libFuzzer target for the unified-diff parser
 * (review/diff.h): any input parses or fails with -RB_EPARSE, and every
 * parsed line lies inside the parser's copy of the text.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/diff.h"
#include "util/err.h"
#include "util/banned.h"

static int check_line(const struct rb_diff_hunk *h, size_t hunk_no,
		      const struct rb_diff_line *l, void *payload)
{
	const struct rb_diff *d = payload;

	(void)h;
	(void)hunk_no;
	if (l->len &&
	    (l->text < d->text || l->text + l->len > d->text + d->len))
		abort();
	if (l->origin != ' ' && l->origin != '-' && l->origin != '+')
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_diff *d = NULL;
	size_t i, j;
	int ret;

	ret = rb_diff_parse(&d, (const char *)data, size);
	if (ret) {
		if (ret != -RB_EPARSE && ret != -RB_ENOMEM &&
		    ret != -RB_ETOOBIG)
			abort();
		if (d)
			abort();
		return 0;
	}
	for (i = 0; i < d->n_files; i++) {
		const struct rb_diff_file *f = &d->files[i];

		if (!rb_diff_file_path(f))
			abort();
		rb_diff_foreach_line(f, check_line, d);
		for (j = 0; j < f->n_hunks; j++)
			rb_diff_new_line(f, f->hunks[j].new_start);
		rb_diff_find_file(d, rb_diff_file_path(f));
	}
	rb_diff_free(d);
	return 0;
}
