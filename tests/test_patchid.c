// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_patchid.c - review/apply/patchid.h: the patch-id is git patch-id
 * --stable's (the expected ids below are what git 2.39 prints for the
 * demo series of scripts/demo.sh), whitespace and offsets do not change
 * it, and the look-ahead finds the later patch that changes a line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <git2.h>

#include "review/apply/diff.h"
#include "review/apply/patchid.h"
#include "util/err.h"

/* Patch 1/3 of the demo series, with its commit message. */
static const char p1[] =
	"Callers open-code head - tail to learn how many slots are in use.\n"
	"\n"
	"---\n"
	" include/ring.h | 1 +\n"
	"\n"
	"diff --git a/include/ring.h b/include/ring.h\n"
	"index 2849763..9de7579 100644\n"
	"--- a/include/ring.h\n"
	"+++ b/include/ring.h\n"
	"@@ -12,5 +12,6 @@ struct ring {\n"
	" int ring_init(struct ring *r, unsigned int size);\n"
	" int ring_push(struct ring *r, int v);\n"
	" int ring_pop(struct ring *r, int *v);\n"
	"+unsigned int ring_count(const struct ring *r);\n"
	" \n"
	" #endif\n"
	"diff --git a/lib/ring.c b/lib/ring.c\n"
	"index db6aeef..24107b7 100644\n"
	"--- a/lib/ring.c\n"
	"+++ b/lib/ring.c\n"
	"@@ -30,3 +30,8 @@ int ring_pop(struct ring *r, int *v)\n"
	" \tr->tail++;\n"
	" \treturn 0;\n"
	" }\n"
	"+\n"
	"+unsigned int ring_count(const struct ring *r)\n"
	"+{\n"
	"+\treturn r->head - r->tail;\n"
	"+}\n"
	"-- \n"
	"2.39.5\n";

static void test_git_patch_id(void **state)
{
	char id[RB_PATCH_ID_HEX], id2[RB_PATCH_ID_HEX];
	char buf[sizeof(p1) + 64], *q;

	(void)state;
	assert_int_equal(rb_patch_id(id, p1, strlen(p1)), 0);
	/* git patch-id --stable < 0001-ring-add-ring_count.patch */
	assert_string_equal(id, "7a55445fbf72c19bba742ee6789c1dd2dad77cc0");

	/* Whitespace inside a line, and other hunk offsets: the same id. */
	memcpy(buf, p1, sizeof(p1));
	q = strstr(buf, "\treturn r->head");
	assert_non_null(q);
	q[0] = ' ';
	q = strstr(buf, "@@ -30,3 +30,8");
	memcpy(q, "@@ -40,3 +41,8", 14);
	assert_int_equal(rb_patch_id(id2, buf, strlen(buf)), 0);
	assert_string_equal(id, id2);

	/* A changed line: another id. */
	q = strstr(buf, "r->head - r->tail");
	q[0] = 'x';
	assert_int_equal(rb_patch_id(id2, buf, strlen(buf)), 0);
	assert_string_not_equal(id, id2);

	assert_int_equal(rb_patch_id(id2, "no diff\n", 8), -RB_EINVAL);
}

static struct rb_diff *parse(const char *text)
{
	struct rb_diff *d = NULL;

	assert_int_equal(rb_diff_parse(&d, text, strlen(text)), 0);
	return d;
}

static void test_later_change(void **state)
{
	/* Patch 2 inserts 2 lines above line 10 and rewrites old line 20. */
	struct rb_diff *d = parse("--- a/f.c\n+++ b/f.c\n"
				  "@@ -5,2 +5,4 @@\n a\n+b\n+c\n d\n"
				  "@@ -20,3 +22,3 @@\n x\n-\tfoo(p);\n"
				  "+\tfoo(p);  \n y\n");
	struct rb_diff *e = parse("--- a/f.c\n+++ b/f.c\n"
				  "@@ -22,3 +22,3 @@\n x\n-\tfoo(p);\n"
				  "+\tbar(p);\n y\n");
	const struct rb_diff *later[2] = { d, e };
	bool kept = true;

	(void)state;
	/* Line 21 after patch 1 is what patch 2 (index 0) rewrites, with
	 * the same code: kept. */
	assert_int_equal(rb_patch_later_change(later, 1, "f.c", 21, "foo(p);",
					       &kept),
			 0);
	assert_true(kept);
	/* Line 3: above every hunk, untouched. */
	assert_int_equal(rb_patch_later_change(later, 2, "f.c", 3, "a", &kept),
			 -1);
	/* Patch 2 keeps the line (then line 23 ... after its insertion:
	 * old 20 is new 22); patch 3 rewrites new 23 = old 21. */
	assert_int_equal(rb_patch_later_change(later + 1, 1, "f.c", 23,
					       "foo(p);", &kept),
			 0);
	assert_false(kept);
	/* Another file: nothing. */
	assert_int_equal(rb_patch_later_change(later, 2, "g.c", 21, "x", NULL),
			 -1);
	assert_true(rb_patch_adds_code(e, "f.c", "bar(p);"));
	assert_false(rb_patch_adds_code(e, "f.c", "foo(p);"));
	rb_diff_free(d);
	rb_diff_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_git_patch_id),
		cmocka_unit_test(test_later_change),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
