// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_code_c.c - the C recogniser (review/code/code_c.h) against
 * universal-ctags: reads ctags' tags on stdin (run in the tree, with
 * --kinds-C=f --fields=+ne -o -) and, for each function ctags finds,
 * asks rb_c_func_at() about its name line: found (a function whose head
 * starts there or above), and ending on the same line as ctags says.
 * BENCH_CODE_C_SHOW=1 prints each disagreement.
 *
 *   cd linux-6.1 && ctags --language-force=C --kinds-C=f --fields=+ne \
 *	-o - mm/*.c kernel/*.c include/linux/mm.h | bench_code_c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review/code/code_c.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/banned.h"

int main(void)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_c_lines l = { 0 };
	char line[16384], prev[4096] = "";
	bool show = getenv("BENCH_CODE_C_SHOW") != NULL, have = false;
	int tot = 0, found = 0, same_end = 0;

	while (fgets(line, sizeof(line), stdin)) {
		char *t1 = strchr(line, '\t'), *t2, *ln, *en;
		struct rb_c_func fn;
		long no, end;

		ln = strstr(line, "\tline:");
		en = strstr(line, "\tend:");
		if (!t1 || !ln || !en)
			continue;
		t2 = strchr(t1 + 1, '\t');
		if (!t2 || (size_t)(t2 - t1 - 1) >= sizeof(prev))
			continue;
		*t2 = 0;
		no = strtol(ln + 6, NULL, 10);
		end = strtol(en + 5, NULL, 10);
		if (strcmp(t1 + 1, prev)) {
			snprintf(prev, sizeof(prev), "%s", t1 + 1);
			rb_c_lines_release(&l);
			rb_buf_reset(&b);
			have = !rb_read_file(&b, prev) &&
			       !rb_c_lines_split(&l, b.ptr, b.len);
		}
		if (!have || no < 1)
			continue;
		tot++;
		if (rb_c_func_at(&fn, &l, (size_t)no - 1) &&
		    fn.start <= (size_t)no - 1) {
			found++;
			if (fn.end + 1 == (size_t)end)
				same_end++;
			else if (show)
				printf("end %s:%ld: ctags %ld, code_c %zu\n",
				       prev, no, end, fn.end + 1);
		} else if (show) {
			printf("not found %s:%ld\n", prev, no);
		}
	}
	printf("%d functions ctags finds; code_c finds %d (%.1f%%), %d ending "
	       "on the same line (%.1f%%)\n",
	       tot, found, tot ? 100.0 * found / tot : 0, same_end,
	       tot ? 100.0 * same_end / tot : 0);
	rb_c_lines_release(&l);
	rb_buf_release(&b);
	return 0;
}
