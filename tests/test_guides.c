// SPDX-License-Identifier: GPL-2.0-only
/* test_guides.c - choosing subsystem guides (review/guides.h) and the
 * prompt set's version (review/model_prompt.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "review/guides.h"
#include "review/model_prompt.h"
#include "util/err.h"
#include "util/banned.h"

static char *src_path(const char *rel)
{
	const char *src = getenv("RB_SRC");
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", src ? src : "..", rel);
	return buf;
}

static const struct rb_guide *find(const struct rb_guides *g, const char *n)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].name, n))
			return &g->v[i];
	fail_msg("no guide %s", n);
	return NULL;
}

static const char pte_patch[] =
	"diff --git a/mm/madvise.c b/mm/madvise.c\n"
	"--- a/mm/madvise.c\n"
	"+++ b/mm/madvise.c\n"
	"@@ -10,3 +10,3 @@ static int f(void)\n"
	" \tint x;\n"
	"-\tpte = pte_offset_map(pmd, addr);\n"
	"+\tpte = pte_offset_map_lock(mm, pmd, addr, &ptl);\n"
	" \treturn 0;\n";

/* The guides of the tree load, and each applies by what it names. */
static void test_choose(void **state)
{
	static const char *const mm[] = { "MEMORY MANAGEMENT - CORE" };
	static const char *const net[] = { "NETWORKING [GENERAL]" };
	static const char *const hpath[] = { "mm/hugetlb.c" };
	static const char *const other[] = { "drivers/gpu/x.c" };
	struct rb_guides g;
	const char *why = NULL;
	struct rb_guides_query q = { 0 };

	(void)state;
	assert_int_equal(rb_guides_load(&g, src_path("review/guides")), 0);
	assert_true(g.n >= 8);

	/* By section: MAINTAINERS names are prefixes of the guide's. */
	q.sections = mm;
	q.n_sections = 1;
	assert_true(rb_guide_applies(find(&g, "mm"), &q, &why));
	assert_string_equal(why, "MEMORY MANAGEMENT");
	assert_false(rb_guide_applies(find(&g, "net"), &q, NULL));
	q.sections = net;
	assert_true(rb_guide_applies(find(&g, "net"), &q, NULL));
	assert_false(rb_guide_applies(find(&g, "mm"), &q, NULL));

	/* By path. */
	q.n_sections = 0;
	q.paths = hpath;
	q.n_paths = 1;
	assert_true(rb_guide_applies(find(&g, "mm-hugetlb"), &q, &why));
	assert_string_equal(why, "mm/hugetlb.c");
	assert_true(rb_guide_applies(find(&g, "mm"), &q, NULL));
	q.paths = other;
	assert_false(rb_guide_applies(find(&g, "mm-hugetlb"), &q, NULL));

	/* By symbol, in changed lines only. */
	q.patch = pte_patch;
	q.patch_len = strlen(pte_patch);
	assert_true(rb_guide_applies(find(&g, "mm-pgtable"), &q, &why));
	assert_string_equal(why, "pte_offset_map");
	assert_false(rb_guide_applies(find(&g, "mm-gup"), &q, NULL));
	{
		/* Only in context: not a trigger. */
		static const char ctx_only[] =
			"--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n"
			" \tpin_user_pages(a);\n-\tb();\n+\tc();\n";

		q.patch = ctx_only;
		q.patch_len = strlen(ctx_only);
		assert_false(rb_guide_applies(find(&g, "mm-gup"), &q, NULL));
	}
	{
		/* Only moved or re-indented: not a trigger either. */
		static const char moved[] =
			"--- a/x.c\n+++ b/x.c\n@@ -1,4 +1,4 @@\n"
			"-\t\tpin_user_pages(a);\n-\tb();\n"
			"+\tpin_user_pages(a);  \n+\tc();\n";
		static const char changed[] =
			"--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n"
			"-\tpin_user_pages(a);\n+\tpin_user_pages(b);\n";

		q.patch = moved;
		q.patch_len = strlen(moved);
		assert_false(rb_guide_applies(find(&g, "mm-gup"), &q, NULL));
		q.patch = changed;
		q.patch_len = strlen(changed);
		assert_true(rb_guide_applies(find(&g, "mm-gup"), &q, &why));
		assert_string_equal(why, "pin_user_pages");
	}
	rb_guides_release(&g);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A guide without a header is an error naming the file; the version
 * changes with any guide's text. */
static void test_bad_and_version(void **state)
{
	char dir[] = "/tmp/rb-guides-XXXXXX";
	char path[4200], v1[13], v2[13];
	struct rb_guides g;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.md", dir);
	write_file(path, "Paths: x/\nRule one.\n");
	assert_int_equal(rb_guides_load(&g, dir), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.v[0].body, "Rule one.\n");
	rb_guides_release(&g);
	assert_int_equal(rb_model_prompt_version(v1, dir, NULL, 0), 0);
	assert_int_equal(strlen(v1), 12);

	write_file(path, "Paths: x/\nRule one, changed.\n");
	assert_int_equal(rb_model_prompt_version(v2, dir, NULL, 0), 0);
	assert_string_not_equal(v1, v2);
	{
		const char *const t[] = { "a finder text" };

		assert_int_equal(rb_model_prompt_version(v1, dir, t, 1), 0);
		assert_string_not_equal(v1, v2);
	}

	snprintf(path, sizeof(path), "%s/b.md", dir);
	write_file(path, "No header here.\n");
	assert_int_equal(rb_guides_load(&g, dir), -RB_EPARSE);
	assert_non_null(strstr(rb_errmsg(), "b.md:1"));
	assert_int_equal(g.n, 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a.md", dir);
	unlink(path);
	rmdir(dir);

	/* No directory: no guides, not an error. */
	assert_int_equal(rb_guides_load(&g, "/nonexistent/guides"), 0);
	assert_int_equal(g.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_bad_and_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
