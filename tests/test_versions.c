// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_versions.c - bot/stages/versions.h: b4's "Link to vN:" line of a cover
 * letter, as b4 0.14 writes it (the ext4 tune2fs v2 cover of the
 * linux-api archive, tests/data/versions/), and hostile variants; the
 * interdiff of a changed part (issue 37) and its budgets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <git2.h>

#include "bot/stages/versions.h"
#include "util/buf.h"
#include "util/err.h"

static const char *link_of(const char *text, char *out, size_t size)
{
	rb_versions_b4_link(out, size, text, strlen(text));
	return out;
}

static void test_b4_link(void **state)
{
	char out[128], tiny[8];

	(void)state;
	assert_string_equal(
		link_of("Changes in v2:\n"
			"- add the ability to set the encoding\n"
			"- Link to v1: https://lore.kernel.org/r/"
			"20250908-tune2fs-v1-0-e3a6929f3355@mit.edu\n\n"
			"---\nTheodore Ts'o (3):\n",
			out, sizeof(out)),
		"20250908-tune2fs-v1-0-e3a6929f3355@mit.edu");
	/* v3's cover names v2 first, then v1: the newest. */
	assert_string_equal(
		link_of("- Link to v2: https://lore.kernel.org/all/b@x.org/\r\n"
			"- Link to v1: https://lore.kernel.org/r/a@x.org\n",
			out, sizeof(out)),
		"b@x.org");
	/* Another host, no id, no '@', too long for @out: nothing. */
	assert_string_equal(link_of("- Link to v1: https://evil.example/r/"
				    "a@x.org\n",
				    out, sizeof(out)),
			    "");
	assert_string_equal(link_of("- Link to v1: https://lore.kernel.org/\n",
				    out, sizeof(out)),
			    "");
	assert_string_equal(link_of("- Link to v1: https://lore.kernel.org/r/"
				    "no-at-sign\n",
				    out, sizeof(out)),
			    "");
	assert_string_equal(link_of("- Link to v1: https://lore.kernel.org/r/"
				    "20250908-tune2fs@mit.edu\n",
				    tiny, sizeof(tiny)),
			    "");
	/* The text may end anywhere. */
	assert_string_equal(link_of("Link to v", out, sizeof(out)), "");
	assert_string_equal(link_of("Link to v1: lore.kernel.org/r/a@b", out,
				    sizeof(out)),
			    "a@b");
}

/* Part 1 of v1 and of v2: v2 changes one line and adds one. */
static const char v1_patch[] = "diff --git a/mm/x.c b/mm/x.c\n"
			       "index 1111111..2222222 100644\n"
			       "--- a/mm/x.c\n"
			       "+++ b/mm/x.c\n"
			       "@@ -10,3 +10,5 @@ int f(void)\n"
			       " \tint a;\n"
			       "+\tint b = 1;\n"
			       "+\treturn a + b;\n"
			       " }\n";
static const char v2_patch[] = "diff --git a/mm/x.c b/mm/x.c\n"
			       "index 1111111..3333333 100644\n"
			       "--- a/mm/x.c\n"
			       "+++ b/mm/x.c\n"
			       "@@ -12,3 +12,6 @@ int f(void)\n"
			       " \tint a;\n"
			       "+\tint b = 2;\n"
			       "+\tWARN_ON(!b);\n"
			       "+\treturn a + b;\n"
			       " }\n";

struct two_versions {
	struct rb_versions v;
	enum rb_part_change change[2];
	int prev_idx[2];
	char *patches[2], *prev_patches[2];
};

static void two_versions(struct two_versions *t, const char *now,
			 const char *before)
{
	memset(t, 0, sizeof(*t));
	t->v.version = 2;
	t->v.total = 1;
	t->v.prev_id = "v1@x";
	t->v.prev_version = 1;
	t->v.prev_total = 1;
	t->change[1] = RB_PART_CHANGED;
	t->prev_idx[1] = 1;
	t->patches[1] = (char *)now;
	t->prev_patches[1] = (char *)before;
	t->v.change = t->change;
	t->v.prev_idx = t->prev_idx;
	t->v.patches = t->patches;
	t->v.prev_patches = t->prev_patches;
}

static void test_interdiff(void **state)
{
	struct rb_buf out = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct two_versions t;

	(void)state;
	two_versions(&t, v2_patch, v1_patch);
	/* Only the changes: the index and hunk numbers moved, not code. */
	assert_int_equal(rb_versions_interdiff(&t.v, 1, 0, 100, &out), 0);
	assert_string_equal(out.ptr, "-+\tint b = 1;\n"
				     "++\tint b = 2;\n"
				     "++\tWARN_ON(!b);\n");
	/* At most two lines, then how many more. */
	rb_buf_reset(&out);
	assert_int_equal(rb_versions_interdiff(&t.v, 1, 0, 2, &out), 0);
	assert_string_equal(out.ptr, "-+\tint b = 1;\n"
				     "++\tint b = 2;\n"
				     "(1 more lines)\n");
	/* A part unchanged, new, out of range, or without v(n): nothing. */
	rb_buf_reset(&out);
	t.change[1] = RB_PART_UNCHANGED;
	assert_int_equal(rb_versions_interdiff(&t.v, 1, 0, 100, &out), 0);
	t.change[1] = RB_PART_CHANGED;
	assert_int_equal(rb_versions_interdiff(&t.v, 0, 0, 100, &out), 0);
	assert_int_equal(rb_versions_interdiff(&t.v, 2, 0, 100, &out), 0);
	t.prev_idx[1] = 0;
	assert_int_equal(rb_versions_interdiff(&t.v, 1, 0, 100, &out), 0);
	t.prev_idx[1] = 1;
	t.v.prev_id = NULL;
	assert_int_equal(rb_versions_interdiff(&t.v, 1, 0, 100, &out), 0);
	assert_int_equal(out.len, 0);
	rb_buf_release(&out);
}

/* The buffer's cap is a budget: lines that do not fit whole are counted,
 * never cut in the middle, and the count always fits. */
static void test_interdiff_cap(void **state)
{
	struct rb_buf out = RB_BUF_INIT(80);
	struct rb_buf big = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct two_versions t;
	char *now;
	int i;

	(void)state;
	assert_int_equal(rb_buf_puts(&big, v1_patch), 0);
	big.len -= strlen(" }\n");
	for (i = 0; i < 50; i++)
		assert_int_equal(
			rb_buf_printf(&big, "+\tx%d = %0300d;\n", i, i), 0);
	assert_int_equal(rb_buf_puts(&big, " }\n"), 0);
	now = big.ptr;
	two_versions(&t, now, v1_patch);
	assert_int_equal(rb_versions_interdiff(&t.v, 1, 0, 1000, &out), 0);
	assert_true(out.len <= 80);
	/* no line fits whole (each is cut at 200 bytes, over 80) */
	assert_string_equal(out.ptr, "(50 more lines)\n");
	rb_err_clear();
	rb_buf_release(&out);
	rb_buf_release(&big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_b4_link),
		cmocka_unit_test(test_interdiff),
		cmocka_unit_test(test_interdiff_cap),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
