// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_evalset.c - where a fix lands in a buggy patch (rb_eval_locate(),
 * review/evalset.h): both diffs come from list mail, and the hunk
 * headers' function names are read from them. The input is the fix's
 * diff, a line "=====", and the buggy patch's diff. Every line found must
 * be a new-side line of a file of the buggy patch, in order, and a
 * finding on it a hit. Seeds: fuzz_evalset.seeds.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/diff.h"
#include "review/evalset.h"
#include "review/findings.h"
#include "util/banned.h"

#define SEP "\n=====\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *sep;
	struct rb_diff *fd = NULL, *bd = NULL;
	struct rb_eval_pair p = { 0 };
	char how[64], fn[128];
	bool touched;
	size_t i, k;

	sep = memmem(s, size, SEP, sizeof(SEP) - 1);
	if (!sep)
		return 0;
	if (rb_diff_parse(&fd, s, (size_t)(sep - s)) ||
	    rb_diff_parse(&bd, sep + sizeof(SEP) - 1,
			  size - (size_t)(sep - s) - (sizeof(SEP) - 1)))
		goto out;
	if (rb_eval_locate(&p, fd, bd, &touched))
		goto out;
	if (p.n_changed && !touched)
		abort();
	for (i = 0; i < p.n_changed; i++) {
		const struct rb_eval_changed *c = &p.changed[i];
		const struct rb_diff_file *f = rb_diff_find_file(bd, c->file);

		if (!f || (!c->n_lines && !c->n_functions))
			abort();
		for (k = 0; k < c->n_lines; k++) {
			struct rb_finding x = { 0 };

			if ((k && c->lines[k] <= c->lines[k - 1]) ||
			    !rb_diff_new_line(f, (uint32_t)c->lines[k]))
				abort();
			x.file = c->file;
			x.line = c->lines[k];
			if (!rb_eval_hit(&p, bd, &x, how, sizeof(how)))
				abort();
			rb_eval_function_at(bd, c->file, c->lines[k], fn,
					    sizeof(fn));
		}
		for (k = 0; k < c->n_functions; k++)
			if (!c->functions[k][0] ||
			    strlen(c->functions[k]) >= sizeof(fn))
				abort();
	}
out:
	rb_eval_pair_release(&p);
	rb_diff_free(fd);
	rb_diff_free(bd);
	return 0;
}
