// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_evalset.c - where a fix lands in a buggy patch (rb_eval_locate(),
 * review/eval/evalset.h): both diffs come from list mail, and the hunk
 * headers' function names are read from them. The input is the fix's
 * diff, a line "=====", and the buggy patch's diff. Every line found must
 * be a new-side line of a file of the buggy patch, in order, and a
 * finding on it a hit. Seeds: fuzz_evalset.seeds.sh.
 *
 * The fix's diff is also reversed (rb_eval_diff_reverse(), how eval
 * --inject puts a bug back): the reverse must parse, with as many files,
 * and its own reverse must give the same text as reversing the parse of
 * that text again.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/apply/diff.h"
#include "review/eval/eval_inject.h"
#include "review/eval/evalset.h"
#include "review/findings.h"
#include "util/buf.h"
#include "util/banned.h"

#define SEP "\n=====\n"

/* The reverse of @d parses, and reversing is stable from then on. */
static void check_reverse(const struct rb_diff *d)
{
	struct rb_buf a = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf c = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_diff *r = NULL, *rr = NULL;

	if (rb_eval_diff_reverse(&a, d))
		goto out;
	if (rb_diff_parse(&r, a.ptr, a.len) || r->n_files != d->n_files)
		abort();
	if (rb_eval_diff_reverse(&b, r) || rb_diff_parse(&rr, b.ptr, b.len) ||
	    rb_eval_diff_reverse(&c, rr) || a.len != c.len ||
	    memcmp(a.ptr, c.ptr, a.len))
		abort();
out:
	rb_diff_free(r);
	rb_diff_free(rr);
	rb_buf_release(&a);
	rb_buf_release(&b);
	rb_buf_release(&c);
}

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
	check_reverse(fd);
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
