// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_model_tools.c - the model's read-only tools (review/model/model_tools.h)
 * on a small real git repository built with libgit2 in a temporary
 * directory, with the tip made by the real in-memory apply
 * (review/apply/apply.h): each tool at the base and at the tip, paths that
 * leave the tree refused, hostile arguments, hostile tree text, the
 * limits, and the evidence check.
 */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <git2.h>
#include <jansson.h>

#include "review/apply/apply.h"
#include "review/model/model_tools.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "tests/testlib.h"
#include "util/banned.h"

struct fx {
	char dir[64];
	git_repository *repo;
	git_oid c1, c2, c3; /* c3 is the base */
	git_oid base_tree;
	struct rb_apply_result *ar;
	struct rb_model_tools *t;
	struct rb_buf out;
};

static const char a_c_old[] = "// SPDX-License-Identifier: GPL-2.0\n"
			      "int a_count = 1;\n";

static const char a_c[] = "// SPDX-License-Identifier: GPL-2.0\n" /* 1 */
			  "#include \"b.h\"\n"
			  "\n"
			  "#define A_MAX 16\n"
			  "\n" /* 5 */
			  "int a_count = 0;\n"
			  "static DEFINE_SPINLOCK(a_lock);\n"
			  "\n"
			  "struct a_state {\n"
			  "\tint n;\n" /* 10 */
			  "};\n"
			  "\n"
			  "static int a_helper(int x)\n"
			  "{\n"
			  "\treturn x + 1;\n" /* 15 */
			  "}\n"
			  "\n"
			  "int a_main(struct a_state *s)\n"
			  "{\n"
			  "\tspin_lock(&a_lock);\n" /* 20 */
			  "\ts->n = a_helper(s->n);\n"
			  "\tspin_unlock(&a_lock);\n"
			  "\treturn 0;\n"
			  "}\n";

static const char b_h[] = "#ifndef B_H\n"
			  "#define B_H\n"
			  "typedef unsigned long b_flags_t;\n"
			  "struct a_state;\n"
			  "int a_main(struct a_state *s);\n"
			  "extern int a_count;\n"
			  "static inline __alloc_size(1) void *b_alloc(int n)\n"
			  "{\n"
			  "\treturn 0;\n"
			  "}\n"
			  "#endif\n";

/* Tree text from whoever sent a patch: bad UTF-8, escapes, BiDi. */
static const char weird_c[] = "int weird_marker = 1; /* \xff\x1b[31m */\n"
			      "/* weird_marker \xe2\x80\xae reversed */\n";

static const char bin[] = "\x00\x01\x02 a_helper \x00";

static const char patch[] = "diff --git a/mm/a.c b/mm/a.c\n"
			    "--- a/mm/a.c\n"
			    "+++ b/mm/a.c\n"
			    "@@ -22,3 +22,8 @@ int a_main(struct a_state *s)\n"
			    " \tspin_unlock(&a_lock);\n"
			    " \treturn 0;\n"
			    " }\n"
			    "+\n"
			    "+int a_extra(void)\n"
			    "+{\n"
			    "+\treturn a_helper(2);\n"
			    "+}\n"
			    "diff --git a/mm/new.c b/mm/new.c\n"
			    "new file mode 100644\n"
			    "--- /dev/null\n"
			    "+++ b/mm/new.c\n"
			    "@@ -0,0 +1,4 @@\n"
			    "+int new_fn(void)\n"
			    "+{\n"
			    "+\treturn a_helper(3);\n"
			    "+}\n";

static const char *patches[] = { "patch one: mm: a_extra\n\n---\n" /* ... */,
				 "patch two: the second part\n" };

static void tools_new(struct fx *f, const struct rb_model_tool_limits *lim)
{
	struct rb_model_tools_ctx ctx = {
		.repo = f->ar->repo,
		.base_tree = &f->base_tree,
		.tip_tree = &f->ar->tree,
		.base_commit = &f->c3,
		.patches = patches,
		.n_patches = 2,
		.index = 1,
		.cover = "The cover letter of the series.\n",
		.prev_review = NULL,
	};

	rb_model_tools_free(f->t);
	f->t = NULL;
	assert_int_equal(rb_model_tools_new(&f->t, &ctx, lim), 0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct rb_test_file v1[] = {
		{ "mm/a.c", a_c_old },
		{ "Documentation/notes.txt", "a_helper is documented here\n" },
	};
	struct rb_test_file v2[] = {
		{ "mm/a.c", a_c_old },
		{ "Documentation/notes.txt", "a_helper, second take\n" },
	};
	struct rb_test_file v3[] = {
		{ "mm/a.c", a_c },
		{ "mm/b.h", b_h },
		{ "mm/weird.c", weird_c },
		{ "mm/num.c", "u64 y = 0x10ULL;\nint z = 3dnow_init(y);\n" },
		{ "Documentation/notes.txt", "a_helper, second take\n" },
		{ "Documentation/fake.h", "#define A_MAX 99\n" },
		{ "bin.dat", bin, 0, sizeof(bin) - 1 },
		{ "link", "mm/a.c", 0120000 },
	};
	struct rb_apply_patch p = { .patch = patch,
				    .len = sizeof(patch) - 1,
				    .message = "mm: a_extra" };
	struct rb_apply_opts o = RB_APPLY_OPTS_INIT;
	git_commit *c = NULL;

	assert_non_null(f);
	rb_test_repo_new(&f->repo, f->dir, sizeof(f->dir),
			 "/tmp/rb-test-tools.XXXXXX");
	rb_log_set_quiet(1);
	rb_test_commit(&f->c1, f->repo, NULL, v1, 2, 1000, "mm: first\n");
	rb_test_commit(&f->c2, f->repo, &f->c1, v2, 2, 2000,
		       "docs: notes\n\nSay it twice.\n\n"
		       "Signed-off-by: Some One <some@example.org>\n");
	rb_test_commit(&f->c3, f->repo, &f->c2, v3, 8, 3000,
		       "mm: a_main and friends\n");
	assert_int_equal(git_commit_lookup(&c, f->repo, &f->c3), 0);
	git_oid_cpy(&f->base_tree, git_commit_tree_id(c));
	git_commit_free(c);
	assert_int_equal(rb_apply_series(&f->ar, f->repo, &f->c3, &p, 1, &o),
			 0);
	assert_true(f->ar->ok);
	rb_buf_init(&f->out, RB_BUF_NOLIMIT);
	tools_new(f, NULL);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	rb_model_tools_free(f->t);
	rb_apply_result_free(f->ar);
	rb_buf_release(&f->out);
	rb_test_repo_free(f->repo, f->dir);
	free(f);
	return 0;
}

/* Calls @name with @args; the result text in f->out (reset first). */
static int call(struct fx *f, const char *name, const char *args)
{
	int ret;

	rb_buf_reset(&f->out);
	ret = rb_model_tools_call(f->t, name, args, args ? strlen(args) : 0,
				  &f->out);
	/* RB_SHOW_TOOLS=1: every call and its answer, to read them. */
	if (getenv("RB_SHOW_TOOLS"))
		fprintf(stderr, "== %s %s\n%s\n", name, args ? args : "",
			f->out.ptr);
	return ret;
}

#define has(f, s)                                                          \
	do {                                                               \
		if (!strstr((f)->out.ptr, (s)))                            \
			fail_msg("\"%s\" not in:\n%s", (s), (f)->out.ptr); \
	} while (0)
#define hasnt(f, s)                                                    \
	do {                                                           \
		if (strstr((f)->out.ptr, (s)))                         \
			fail_msg("\"%s\" in:\n%s", (s), (f)->out.ptr); \
	} while (0)

static void test_defs(void **state)
{
	static const char *names[] = {
		"read_file",	   "grep",	   "find_definition",
		"find_callers",	   "show_patch",   "cover_letter",
		"previous_review", "path_history", "blame",
		"show_commit",	   "log",
	};
	json_t *j = json_loads(rb_model_tools_defs(), 0, NULL);
	size_t i;

	(void)state;
	assert_non_null(j);
	assert_true(json_is_array(j));
	assert_int_equal(json_array_size(j), 11);
	for (i = 0; i < 11; i++) {
		json_t *d = json_array_get(j, i);

		assert_string_equal(
			json_string_value(json_object_get(d, "name")),
			names[i]);
		assert_true(json_is_string(json_object_get(d, "description")));
		assert_string_equal(
			json_string_value(json_object_get(
				json_object_get(d, "parameters"), "type")),
			"object");
	}
	json_decref(j);
}

static void test_read_file(void **state)
{
	struct fx *f = *state;

	assert_int_equal(call(f, "read_file",
			      "{\"path\": \"mm/a.c\", \"start\": 13, "
			      "\"end\": 15}"),
			 0);
	has(f, "mm/a.c at tip, lines 13-15 of 29:\n"
	       "13\tstatic int a_helper(int x)\n14\t{\n15\t\treturn x + 1;\n");
	hasnt(f, "16\t");
	/* The base does not have a_extra; the tip does. */
	assert_int_equal(call(f, "read_file",
			      "{\"path\": \"mm/a.c\", \"side\": \"base\", "
			      "\"start\": 26}"),
			 0);
	has(f, "mm/a.c at base has 24 lines");
	assert_int_equal(call(f, "read_file",
			      "{\"path\": \"mm/a.c\", \"start\": 26}"),
			 0);
	has(f, "26\tint a_extra(void)\n");
	/* Only at the tip. */
	assert_int_equal(call(f, "read_file",
			      "{\"path\": \"mm/new.c\", \"side\": \"base\"}"),
			 0);
	has(f, "error: no such file at base: mm/new.c");
	assert_int_equal(call(f, "read_file", "{\"path\": \"mm/new.c\"}"), 0);
	has(f, "1\tint new_fn(void)\n");
	/* Directories, symlinks, binaries, bad ranges. */
	assert_int_equal(call(f, "read_file", "{\"path\": \"mm\"}"), 0);
	has(f, "error: a directory");
	assert_int_equal(call(f, "read_file", "{\"path\": \"link\"}"), 0);
	has(f, "error: a symbolic link (not followed)");
	assert_int_equal(call(f, "read_file", "{\"path\": \"bin.dat\"}"), 0);
	has(f, "error: a binary file");
	assert_int_equal(call(f, "read_file",
			      "{\"path\": \"mm/a.c\", \"start\": 5, "
			      "\"end\": 2}"),
			 0);
	has(f, "error: end is before start");
	assert_int_equal(call(f, "read_file",
			      "{\"path\": \"mm/a.c\", \"start\": -1}"),
			 0);
	has(f, "error: argument \"start\" must be an integer");
	assert_int_equal(call(f, "read_file",
			      "{\"path\": \"mm/a.c\", \"side\": \"middle\"}"),
			 0);
	has(f, "error: side must be");
	assert_int_equal(call(f, "read_file", "{}"), 0);
	has(f, "error: argument \"path\" is missing");
}

static void test_traversal(void **state)
{
	static const char *bad[] = {
		"{\"path\": \"../a.c\"}",
		"{\"path\": \"/etc/passwd\"}",
		"{\"path\": \"mm/../mm/a.c\"}",
		"{\"path\": \"mm/./a.c\"}",
		"{\"path\": \"mm//a.c\"}",
		"{\"path\": \"mm/a.c/\"}",
		"{\"path\": \"mm/a.c\\u0000x\"}",
		"{\"path\": \"..\"}",
		"{\"path\": \".\"}",
		"{\"path\": \"mm/\\n/a.c\"}",
		"{\"path\": \"\"}",
		"{\"path\": 7}",
		"{\"path\": [\"mm/a.c\"]}",
	};
	struct fx *f = *state;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(call(f, "read_file", bad[i]), 0);
		if (strncmp(f->out.ptr, "error: ", 7))
			fail_msg("%s: %s", bad[i], f->out.ptr);
		hasnt(f, "SPDX");
	}
	assert_int_equal(call(f, "grep",
			      "{\"pattern\": \"a\", \"path_prefix\": "
			      "\"../\"}"),
			 0);
	has(f, "error: path_prefix");
	assert_int_equal(call(f, "path_history", "{\"path\": \"/mm\"}"), 0);
	has(f, "error: path must be");
	/* quote_at refuses the same paths. */
	assert_int_equal(rb_model_tools_quote_at(f->t, "../mm/a.c", true, 15,
						 "return x + 1;", 0),
			 -RB_ENOTFOUND);
	assert_int_equal(rb_model_tools_quote_at(f->t, "/mm/a.c", true, 15,
						 "return x + 1;", 0),
			 -RB_ENOTFOUND);
}

static void test_grep(void **state)
{
	struct fx *f = *state;

	assert_int_equal(call(f, "grep", "{\"pattern\": \"a_helper(\"}"), 0);
	has(f, "mm/a.c:13:static int a_helper(int x)\n");
	has(f, "mm/a.c:21:\ts->n = a_helper(s->n);\n");
	has(f, "mm/a.c:28:\treturn a_helper(2);\n");
	has(f, "mm/new.c:3:\treturn a_helper(3);\n");
	hasnt(f, "bin.dat");
	assert_int_equal(call(f, "grep",
			      "{\"pattern\": \"a_helper(\", \"side\": "
			      "\"base\"}"),
			 0);
	hasnt(f, "mm/new.c");
	hasnt(f, ":28:");
	/* A fragment of a word matches, as in git grep. */
	assert_int_equal(call(f, "grep", "{\"pattern\": \"_help\"}"), 0);
	has(f, "Documentation/notes.txt:1:a_helper, second take\n");
	assert_int_equal(call(f, "grep",
			      "{\"pattern\": \"a_helper\", \"path_prefix\": "
			      "\"mm/\"}"),
			 0);
	hasnt(f, "Documentation");
	has(f, "mm/new.c:3:");
	assert_int_equal(call(f, "grep",
			      "{\"pattern\": \"^[a-z]+ a_[a-z]+\\\\(\", "
			      "\"regex\": true}"),
			 0);
	has(f, "mm/a.c:18:int a_main(struct a_state *s)\n");
	has(f, "mm/b.h:5:int a_main(struct a_state *s);\n");
	has(f, "mm/a.c:26:int a_extra(void)\n");
	hasnt(f, "a_helper");
	/* PCRE2 under its limits: back-references and intervals are fine. */
	assert_int_equal(call(f, "grep",
			      "{\"pattern\": \"(_h)elper\\\\(\\\\d\\\\)\", "
			      "\"regex\": true}"),
			 0);
	has(f, "mm/a.c:28:\treturn a_helper(2);\n");
	hasnt(f, "error:");
	assert_int_equal(call(f, "grep",
			      "{\"pattern\": \"(a{1,100}){1,100}_helper\", "
			      "\"regex\": true}"),
			 0);
	has(f, "mm/a.c:13:");
	/* What made glibc's regcomp take 40 s (found by fuzz_tools_call). */
	assert_int_equal(call(f, "grep",
			      "{\"pattern\": \"(a*+)*++++++++++b\", "
			      "\"regex\": true}"),
			 0);
	has(f, "error: not a regex (PCRE2, Perl syntax): quantifier does not "
	       "follow a repeatable item at offset");
	/* In a bracket expression they are plain characters. */
	assert_int_equal(call(f, "grep",
			      "{\"pattern\": \"a_[*+?{]+x\", \"regex\": true}"),
			 0);
	hasnt(f, "error:");
	assert_int_equal(
		call(f, "grep", "{\"pattern\": \"(\", \"regex\": true}"), 0);
	has(f, "error: not a regex (PCRE2, Perl syntax): missing closing "
	       "parenthesis at offset 1");
	/* Only bytes: UTF-8 mode (and \\C) cannot be asked for. */
	assert_int_equal(call(f, "grep",
			      "{\"pattern\": \"(*UTF)a\", \"regex\": true}"),
			 0);
	has(f, "error: not a regex");
	assert_int_equal(call(f, "grep", "{\"pattern\": \"nowhere_at_all\"}"),
			 0);
	has(f, "no match\n");
	assert_int_equal(call(f, "grep", "{\"pattern\": \"\"}"), 0);
	has(f, "error: the pattern must be one line");
	/* Pieces of words the index holds only in part, or not at all. */
	assert_int_equal(call(f, "grep", "{\"pattern\": \"10ULL;\"}"), 0);
	has(f, "mm/num.c:1:u64 y = 0x10ULL;\n");
	assert_int_equal(call(f, "grep", "{\"pattern\": \"ULL;\"}"), 0);
	has(f, "mm/num.c:1:");
	assert_int_equal(call(f, "grep", "{\"pattern\": \"now_init(y\"}"), 0);
	has(f, "mm/num.c:2:int z = 3dnow_init(y);\n");
	assert_int_equal(call(f, "grep", "{\"pattern\": \"z = 3dnow\"}"), 0);
	has(f, "mm/num.c:2:");
	assert_int_equal(call(f, "grep", "{\"pattern\": \" y = 0x1\"}"), 0);
	has(f, "mm/num.c:1:");
	assert_int_equal(call(f, "grep", "{\"pattern\": \"elper, sec\"}"), 0);
	has(f, "Documentation/notes.txt:1:");
	assert_int_equal(call(f, "grep", "{\"pattern\": \"a_helper, first\"}"),
			 0);
	has(f, "no match\n");
	/* Punctuation only: every blob is read. */
	assert_int_equal(call(f, "grep", "{\"pattern\": \"};\"}"), 0);
	has(f, "mm/a.c:11:};\n");
}

/*
 * Issue 33: a regex the model is asked for in a patch's commit message.
 * ".*a" and 20 dots took glibc 144 s and 669 MiB on one line; PCRE2
 * matches it at once. "(a+)+$" backtracks exponentially on a line of
 * a's that ends otherwise: each line stops at the step limit, and the
 * search after REGEX_COSTLY such lines, saying so. No timing is
 * asserted: the limits are steps and lines.
 */
static void test_grep_redos(void **state)
{
	char dir[64], *text;
	git_repository *repo = NULL;
	struct rb_model_tools *t = NULL;
	struct rb_buf out = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_test_file files[1] = { { "lib/hostile.txt", NULL } };
	struct rb_model_tools_ctx ctx = { 0 };
	const char *args;
	git_commit *c = NULL;
	git_oid commit, tree;
	int i, k;

	(void)state;
	for (i = 0; i < 40; i++) {
		for (k = 0; k < 2000; k++)
			rb_buf_putc(&b, 'a');
		rb_buf_puts(&b, "!\n");
	}
	text = rb_buf_detach(&b, NULL);
	files[0].content = text;
	rb_test_repo_new(&repo, dir, sizeof(dir), "/tmp/rb-test-redos.XXXXXX");
	rb_test_commit(&commit, repo, NULL, files, 1, 1000, "hostile\n");
	assert_int_equal(git_commit_lookup(&c, repo, &commit), 0);
	git_oid_cpy(&tree, git_commit_tree_id(c));
	git_commit_free(c);
	ctx.repo = repo;
	ctx.base_tree = &tree;
	ctx.tip_tree = &tree;
	ctx.base_commit = &commit;
	assert_int_equal(rb_model_tools_new(&t, &ctx, NULL), 0);

	args = "{\"pattern\": \".*a....................\", \"regex\": true}";
	assert_int_equal(
		rb_model_tools_call(t, "grep", args, strlen(args), &out), 0);
	if (!strstr(out.ptr, "lib/hostile.txt:40:aaaa"))
		fail_msg("the issue's pattern: %s", out.ptr);

	rb_buf_reset(&out);
	args = "{\"pattern\": \"(a+)+$\", \"regex\": true}";
	assert_int_equal(
		rb_model_tools_call(t, "grep", args, strlen(args), &out), 0);
	if (!strstr(out.ptr, "no match\n[the regex is too costly: it hit its "
			     "step or memory limit on 8 lines"))
		fail_msg("(a+)+$: %s", out.ptr);

	rb_model_tools_free(t);
	rb_buf_release(&out);
	free(text);
	rb_test_repo_free(repo, dir);
}

static void test_hostile_text(void **state)
{
	struct fx *f = *state;
	json_t *s;

	assert_int_equal(call(f, "grep", "{\"pattern\": \"weird_marker\"}"), 0);
	has(f, "mm/weird.c:1:int weird_marker = 1; /* ??[31m */\n");
	has(f, "mm/weird.c:2:/* weird_marker <U+202E> reversed */\n");
	/* What the provider puts in JSON must be valid UTF-8. */
	s = json_stringn(f->out.ptr, f->out.len);
	assert_non_null(s);
	json_decref(s);
	assert_int_equal(call(f, "read_file", "{\"path\": \"mm/weird.c\"}"), 0);
	s = json_stringn(f->out.ptr, f->out.len);
	assert_non_null(s);
	json_decref(s);
}

static void test_find_definition(void **state)
{
	struct fx *f = *state;

	assert_int_equal(call(f, "find_definition", "{\"symbol\": \"a_main\"}"),
			 0);
	has(f, "mm/a.c:18: function\n18\tint a_main(struct a_state *s)\n"
	       "19\t{\n20\t\tspin_lock(&a_lock);\n");
	has(f, "24\t}\n");
	hasnt(f, "mm/b.h"); /* a prototype is not a definition */
	assert_int_equal(call(f, "find_definition", "{\"symbol\": \"A_MAX\"}"),
			 0);
	has(f, "mm/a.c:4: macro\n4\t#define A_MAX 16\n");
	/* The kernel's own definition before a copy in Documentation/. */
	has(f, "Documentation/fake.h:1: macro\n");
	assert_true(strstr(f->out.ptr, "mm/a.c:4:") <
		    strstr(f->out.ptr, "Documentation/fake.h:1:"));
	assert_int_equal(
		call(f, "find_definition", "{\"symbol\": \"b_alloc\"}"), 0);
	has(f, "mm/b.h:7: function\n");
	assert_int_equal(
		call(f, "find_definition", "{\"symbol\": \"a_state\"}"), 0);
	has(f, "mm/a.c:9: struct\n9\tstruct a_state {\n10\t\tint n;\n11\t};\n");
	hasnt(f, "mm/b.h"); /* a forward declaration neither */
	assert_int_equal(
		call(f, "find_definition", "{\"symbol\": \"b_flags_t\"}"), 0);
	has(f, "mm/b.h:3: typedef\n");
	assert_int_equal(
		call(f, "find_definition", "{\"symbol\": \"a_count\"}"), 0);
	has(f, "mm/a.c:6: variable\n6\tint a_count = 0;\n");
	hasnt(f, "extern");
	assert_int_equal(call(f, "find_definition", "{\"symbol\": \"a_lock\"}"),
			 0);
	has(f, "mm/a.c:7: variable\n");
	/* Base and tip. */
	assert_int_equal(call(f, "find_definition", "{\"symbol\": \"new_fn\"}"),
			 0);
	has(f, "mm/new.c:1: function\n");
	assert_int_equal(call(f, "find_definition",
			      "{\"symbol\": \"new_fn\", \"side\": \"base\"}"),
			 0);
	has(f, "no definition found\n");
	assert_int_equal(call(f, "find_definition",
			      "{\"symbol\": \"a_main; rm -rf /\"}"),
			 0);
	has(f, "error: symbol must be a C identifier");
}

static void test_find_callers(void **state)
{
	struct fx *f = *state;

	assert_int_equal(call(f, "find_callers", "{\"symbol\": \"a_helper\"}"),
			 0);
	has(f, "mm/a.c:21: [a_main()] \ts->n = a_helper(s->n);\n");
	has(f, "mm/a.c:28: [a_extra()] \treturn a_helper(2);\n");
	has(f, "mm/new.c:3: [new_fn()] \treturn a_helper(3);\n");
	hasnt(f, ":13:"); /* the definition */
	hasnt(f, "notes.txt"); /* only C files */
	assert_int_equal(call(f, "find_callers",
			      "{\"symbol\": \"a_helper\", \"side\": "
			      "\"base\"}"),
			 0);
	has(f, "mm/a.c:21: [a_main()]");
	hasnt(f, "a_extra");
	hasnt(f, "new_fn");
	assert_int_equal(call(f, "find_callers", "{\"symbol\": \"a_lock\"}"),
			 0);
	has(f, "mm/a.c:20: [a_main()] \tspin_lock(&a_lock);\n");
	assert_int_equal(call(f, "find_callers",
			      "{\"symbol\": \"a_helper\", \"path_prefix\": "
			      "\"mm/new\"}"),
			 0);
	has(f, "mm/new.c:3:");
	hasnt(f, "mm/a.c");
	assert_int_equal(call(f, "find_callers", "{\"symbol\": \"nobody\"}"),
			 0);
	has(f, "no callers found\n");
}

static void test_series(void **state)
{
	struct fx *f = *state;

	assert_int_equal(call(f, "show_patch", "{\"index\": 2}"), 0);
	has(f, "patch 2/2:\npatch two: the second part\n");
	assert_int_equal(call(f, "show_patch", "{\"index\": 1}"), 0);
	has(f, "patch 1/2 (the one under review):\n");
	assert_int_equal(call(f, "show_patch", "{\"index\": 3}"), 0);
	has(f, "error: argument \"index\" must be an integer from 1 to 2");
	assert_int_equal(call(f, "show_patch", "{}"), 0);
	has(f, "error: argument \"index\" is missing");
	assert_int_equal(call(f, "cover_letter", NULL), 0);
	has(f, "The cover letter of the series.\n");
	assert_int_equal(call(f, "previous_review", "{}"), 0);
	has(f, "no review of a previous version\n");
}

static void test_path_history(void **state)
{
	struct fx *f = *state;

	assert_int_equal(call(f, "path_history", "{\"path\": \"mm/a.c\"}"), 0);
	has(f, "mm: a_main and friends\n");
	has(f, "mm: first\n");
	hasnt(f, "docs: notes");
	assert_true(strstr(f->out.ptr, "a_main and friends") <
		    strstr(f->out.ptr, "mm: first"));
	/* A row is "0123456789ab subject": no date, unlike log's. */
	{
		const char *r = strstr(f->out.ptr, "mm: first\n");

		assert_true(r && r - f->out.ptr >= 13 && r[-1] == ' ');
		assert_true(strspn(r - 13, "0123456789abcdef") == 12);
		assert_true(r - 13 == f->out.ptr || r[-14] == '\n');
	}
	assert_int_equal(call(f, "path_history",
			      "{\"path\": \"Documentation/notes.txt\", "
			      "\"max\": 1}"),
			 0);
	has(f, "docs: notes\n");
	hasnt(f, "mm: first");
	hasnt(f, "a_main");
	assert_int_equal(call(f, "path_history", "{\"path\": \"mm/b.h\"}"), 0);
	has(f, "mm: a_main and friends\n");
	hasnt(f, "mm: first");
	assert_int_equal(call(f, "path_history", "{\"path\": \"no/such\"}"), 0);
	has(f, "no commit changes this path in the 3 commits walked");
	/* A directory: changed by c3 (fake.h) and c2. */
	assert_int_equal(
		call(f, "path_history", "{\"path\": \"Documentation/\"}"), 0);
	has(f, "mm: a_main and friends\n");
	has(f, "docs: notes\n");
}

static const char *hex12(const git_oid *id, char b[13])
{
	return git_oid_tostr(b, 13, id);
}

/* blame at the base: each line's commit; the root is a boundary. */
static void test_blame(void **state)
{
	struct fx *f = *state;
	char c1[13], c3[13], want[128];

	hex12(&f->c1, c1);
	hex12(&f->c3, c3);
	assert_int_equal(call(f, "blame",
			      "{\"path\": \"mm/a.c\", \"start\": 1, "
			      "\"end\": 3}"),
			 0);
	has(f, "mm/a.c at base, lines 1-3 of 24:");
	/* Line 1 is as old as c1, the root: "^", the history's end. */
	snprintf(want, sizeof(want),
		 "1\t^%s 1970-01-01\t// SPDX-License-Identifier: GPL-2.0\n",
		 c1);
	has(f, want);
	snprintf(want, sizeof(want), "2\t%s 1970-01-01\t#include \"b.h\"\n",
		 c3);
	has(f, want);
	hasnt(f, "4\t");
	has(f, "commits:\n");
	snprintf(want, sizeof(want), "%s 1970-01-01 mm: a_main and friends\n",
		 c3);
	has(f, want);
	/* At most 100 lines; past the end; no such file; outside. */
	assert_int_equal(call(f, "blame",
			      "{\"path\": \"mm/a.c\", \"end\": "
			      "1000}"),
			 0);
	has(f, "lines 1-24 of 24");
	assert_int_equal(
		call(f, "blame", "{\"path\": \"mm/a.c\", \"start\": 500}"), 0);
	has(f, "mm/a.c at base has 24 lines");
	assert_int_equal(call(f, "blame", "{\"path\": \"mm/new.c\"}"), 0);
	has(f, "error: no such file at base: mm/new.c");
	assert_int_equal(call(f, "blame", "{\"path\": \"../mm/a.c\"}"), 0);
	has(f, "error: path must be a relative path");
	assert_int_equal(call(f, "blame", "{\"path\": \"bin.dat\"}"), 0);
	has(f, "error: a binary file");
	assert_int_equal(call(f, "blame", "{\"path\": \"link\"}"), 0);
	has(f, "symbolic link");
}

/* show_commit: a commit of the base's history, never one of the apply. */
static void test_show_commit(void **state)
{
	struct fx *f = *state;
	char c1[13], c2[GIT_OID_HEXSZ + 1], tip[GIT_OID_HEXSZ + 1];
	char args[128], want[128];

	hex12(&f->c1, c1);
	git_oid_tostr(c2, sizeof(c2), &f->c2);
	git_oid_tostr(tip, sizeof(tip), &f->ar->commit);
	snprintf(args, sizeof(args), "{\"commit\": \"%.12s\"}", c2);
	assert_int_equal(call(f, "show_commit", args), 0);
	snprintf(want, sizeof(want), "commit %s\nDate: 1970-01-01\n", c2);
	has(f, want);
	snprintf(want, sizeof(want), "Parents: %s\n", c1);
	has(f, want);
	has(f, "    docs: notes\n");
	has(f, "    Say it twice.\n");
	/* Who signed it is not the model's business. */
	hasnt(f, "Signed-off-by");
	hasnt(f, "some@example.org");
	has(f, "1 file changed\n M Documentation/notes.txt | +1 -1\n");
	has(f, "-a_helper is documented here\n+a_helper, second take\n");
	/* The root: everything added. */
	snprintf(args, sizeof(args), "{\"commit\": \"%s\"}", c1);
	assert_int_equal(call(f, "show_commit", args), 0);
	has(f, "2 files changed\n");
	has(f, " A mm/a.c | +2 -0\n");
	/* One path of it. */
	snprintf(args, sizeof(args),
		 "{\"commit\": \"%s\", \"path\": \"Documentation\"}", c1);
	assert_int_equal(call(f, "show_commit", args), 0);
	has(f, "1 file changed\n A Documentation/notes.txt");
	hasnt(f, "mm/a.c");
	/* The commit the apply made is no commit of the tree's history. */
	snprintf(args, sizeof(args), "{\"commit\": \"%s\"}", tip);
	assert_int_equal(call(f, "show_commit", args), 0);
	has(f, "is not in the history of the base commit");
	hasnt(f, "a_extra");
	/* Nor is the tree of the base, nor a made-up id. */
	git_oid_tostr(tip, sizeof(tip), &f->base_tree);
	snprintf(args, sizeof(args), "{\"commit\": \"%s\"}", tip);
	assert_int_equal(call(f, "show_commit", args), 0);
	has(f, "error: no commit");
	assert_int_equal(call(f, "show_commit",
			      "{\"commit\": \"0000000000000000\"}"),
			 0);
	has(f, "error: no commit 0000000000000000 in the tree");
	assert_int_equal(call(f, "show_commit", "{\"commit\": \"abc\"}"), 0);
	has(f, "error: commit must be 7 to 40 hex digits");
	assert_int_equal(call(f, "show_commit", "{\"commit\": \"HEAD~1\"}"), 0);
	has(f, "error: commit must be 7 to 40 hex digits");
	assert_int_equal(call(f, "show_commit", "{}"), 0);
	has(f, "error: argument \"commit\" is missing");
}

/* log -S / -G over a path's history. */
static void test_log(void **state)
{
	struct fx *f = *state;
	char c1[13], c2[13], c3[13], want[128];

	hex12(&f->c1, c1);
	hex12(&f->c2, c2);
	hex12(&f->c3, c3);
	/* -S: commits that change how many times the string is there. */
	assert_int_equal(call(f, "log",
			      "{\"path\": \"mm/a.c\", \"S\": \"a_count\"}"),
			 0);
	snprintf(want, sizeof(want), "%s 1970-01-01 mm: first\n", c1);
	has(f, want);
	hasnt(f, c3); /* "a_count = 1" to "a_count = 0": not -S */
	assert_int_equal(
		call(f, "log", "{\"path\": \"mm/\", \"S\": \"a_helper\"}"), 0);
	snprintf(want, sizeof(want), "%s 1970-01-01 mm: a_main and friends\n",
		 c3);
	has(f, want);
	hasnt(f, c1);
	/* -G: a regex over the lines added and removed. */
	assert_int_equal(call(f, "log",
			      "{\"path\": \"mm/a.c\", \"G\": "
			      "\"a_count = [01]\"}"),
			 0);
	has(f, c1);
	has(f, c3);
	assert_true(strstr(f->out.ptr, c3) < strstr(f->out.ptr, c1));
	assert_int_equal(call(f, "log",
			      "{\"path\": \"Documentation/notes.txt\", "
			      "\"G\": \"second\"}"),
			 0);
	has(f, c2);
	hasnt(f, c1);
	assert_int_equal(call(f, "log",
			      "{\"path\": \"mm/a.c\", \"S\": \"a_count\", "
			      "\"max\": 1}"),
			 0);
	has(f, c1);
	assert_int_equal(call(f, "log",
			      "{\"path\": \"mm/a.c\", \"S\": \"nowhere\"}"),
			 0);
	has(f, "no commit in the 3 walked adds or removes it there");
	/* One of S and G; the grep tool's bounds on a regex. */
	assert_int_equal(call(f, "log", "{\"path\": \"mm/a.c\"}"), 0);
	has(f, "error: give one of S (a string) or G (a regex)");
	assert_int_equal(call(f, "log",
			      "{\"path\": \"mm/a.c\", \"S\": \"a\", "
			      "\"G\": \"b\"}"),
			 0);
	has(f, "error: give one of S");
	assert_int_equal(call(f, "log",
			      "{\"path\": \"mm/a.c\", \"G\": \"(a\"}"),
			 0);
	has(f, "error: not a regex (PCRE2, Perl syntax)");
	/* The grep tool's limits hold: an explosive regex ends the walk. */
	assert_int_equal(call(f, "log",
			      "{\"path\": \"mm/a.c\", \"G\": "
			      "\"(a|aa)*(a|aa)*(a|aa)*(a|aa)*b\"}"),
			 0);
	assert_int_equal(
		call(f, "log", "{\"path\": \"../x\", \"S\": \"a_count\"}"), 0);
	has(f, "error: path must be a relative path");
}

/* What the prompt's prefetch asks: definitions, ranked, structured. */
static void test_find_defs(void **state)
{
	struct fx *f = *state;
	struct rb_model_tools_def *v = NULL;
	size_t n = 0;

	assert_int_equal(
		rb_model_tools_find_defs(&v, &n, f->t, "a_helper", true), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].path, "mm/a.c");
	assert_int_equal(v[0].line, 13);
	assert_string_equal(v[0].kind, "function");
	rb_model_tools_defs_free(v, n);
	/* The kernel's own first, the copy under Documentation/ after. */
	assert_int_equal(rb_model_tools_find_defs(&v, &n, f->t, "A_MAX", true),
			 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].path, "mm/a.c");
	assert_string_equal(v[0].kind, "macro");
	assert_string_equal(v[1].path, "Documentation/fake.h");
	rb_model_tools_defs_free(v, n);
	/* Only at the tip. */
	assert_int_equal(
		rb_model_tools_find_defs(&v, &n, f->t, "a_extra", true), 0);
	assert_int_equal(n, 0);
	rb_model_tools_defs_free(v, n);
	assert_int_equal(
		rb_model_tools_find_defs(&v, &n, f->t, "a_extra", false), 0);
	assert_int_equal(n, 1);
	rb_model_tools_defs_free(v, n);
	/* Not an identifier: nothing, and no error. */
	assert_int_equal(rb_model_tools_find_defs(&v, &n, f->t, "a->b", true),
			 0);
	assert_int_equal(n, 0);
	/* How many files a search for a word would read. */
	assert_int_equal(rb_model_tools_word_blobs(f->t, "a_helper"), 2);
	assert_int_equal(rb_model_tools_word_blobs(f->t, "no_such_word"), 0);
	/* Not counted as the model's calls. */
	{
		struct rb_model_tools_usage u;

		rb_model_tools_get_usage(f->t, &u);
		assert_int_equal(u.calls, 0);
	}
}

static void test_bad_calls(void **state)
{
	struct fx *f = *state;
	char big[8192];

	assert_int_equal(call(f, "rm", "{}"), 0);
	has(f, "error: no tool has that name");
	assert_int_equal(call(f, NULL, "{}"), 0);
	has(f, "error: no tool has that name");
	assert_int_equal(call(f, "read_file", "[\"mm/a.c\"]"), 0);
	has(f, "error: the arguments must be a JSON object");
	assert_int_equal(call(f, "read_file", "{\"path\": "), 0);
	has(f, "error: the arguments must be a JSON object");
	assert_int_equal(call(f, "read_file",
			      "{\"path\": \"mm/a.c\", \"path\": \"x\"}"),
			 0);
	has(f, "error: the arguments must be a JSON object");
	memset(big, ' ', sizeof(big) - 3);
	big[0] = '{';
	big[sizeof(big) - 3] = '}';
	big[sizeof(big) - 2] = 0;
	assert_int_equal(call(f, "cover_letter", big), 0);
	has(f, "error: arguments over");
}

static void test_no_repo(void **state)
{
	struct rb_model_tools_ctx ctx = { .patches = patches,
					  .n_patches = 2,
					  .index = 2 };
	struct rb_model_tools *t = NULL;
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);

	(void)state;
	assert_int_equal(rb_model_tools_new(&t, &ctx, NULL), 0);
	assert_int_equal(rb_model_tools_call(t, "read_file",
					     "{\"path\": \"a\"}",
					     strlen("{\"path\": \"a\"}"), &b),
			 0);
	assert_non_null(strstr(b.ptr, "error: no tree to read"));
	rb_buf_reset(&b);
	assert_int_equal(rb_model_tools_call(t, "grep", "{\"pattern\": \"a\"}",
					     strlen("{\"pattern\": \"a\"}"),
					     &b),
			 0);
	assert_non_null(strstr(b.ptr, "error: no tree to read"));
	rb_buf_reset(&b);
	assert_int_equal(rb_model_tools_call(t, "show_patch", "{\"index\": 2}",
					     strlen("{\"index\": 2}"), &b),
			 0);
	assert_non_null(strstr(b.ptr, "(the one under review)"));
	rb_buf_reset(&b);
	assert_int_equal(rb_model_tools_call(t, "path_history",
					     "{\"path\": \"a\"}",
					     strlen("{\"path\": \"a\"}"), &b),
			 0);
	assert_non_null(strstr(b.ptr, "no history"));
	assert_int_equal(rb_model_tools_quote_at(t, "a", true, 1, "x", 3),
			 -RB_ENOTFOUND);
	rb_model_tools_free(t);
	rb_model_tools_free(NULL);
	rb_buf_release(&b);
}

static void test_limit_calls(void **state)
{
	struct fx *f = *state;
	struct rb_model_tool_limits lim = { .max_calls = 3 };
	struct rb_model_tools_usage u;

	tools_new(f, &lim);
	assert_int_equal(call(f, "cover_letter", "{}"), 0);
	assert_int_equal(call(f, "nosuch", "{}"), 0); /* counts as well */
	assert_int_equal(call(f, "read_file", "{\"path\": \"mm/b.h\"}"), 0);
	assert_int_equal(call(f, "cover_letter", "{}"), -RB_ETOOBIG);
	has(f, "error: refused: the limit of tool calls for this review "
	       "pass");
	assert_int_equal(call(f, "grep", "{\"pattern\": \"a\"}"), -RB_ETOOBIG);
	rb_model_tools_get_usage(f->t, &u);
	assert_int_equal(u.calls, 3);
	assert_int_equal(u.refused, 2);
	/* The evidence check is not a call: it still works. */
	assert_int_equal(rb_model_tools_quote_at(f->t, "mm/a.c", true, 15,
						 "return x + 1;", 0),
			 0);
	tools_new(f, NULL);
}

static void test_limit_bytes(void **state)
{
	struct fx *f = *state;
	struct rb_model_tool_limits lim = { .max_bytes = 1000,
					    .max_result = 300 };
	struct rb_model_tools_usage u;
	size_t total = 0;

	tools_new(f, &lim);
	/* One result: cut at max_result, with a note. */
	assert_int_equal(call(f, "read_file", "{\"path\": \"mm/a.c\"}"), 0);
	assert_true(f->out.len <= 300);
	has(f, "[result cut at ");
	has(f, "1\t// SPDX");
	total += f->out.len;
	while (call(f, "read_file", "{\"path\": \"mm/a.c\"}") == 0)
		total += f->out.len;
	has(f, "error: refused: the limit of bytes the tools return");
	rb_model_tools_get_usage(f->t, &u);
	assert_int_equal(u.bytes, total);
	assert_true(u.bytes <= 1000);
	assert_int_equal(u.refused, 1);
	tools_new(f, NULL);
}

static void test_quote_at(void **state)
{
	struct fx *f = *state;
	const struct rb_model_tools *t = f->t;

	/* One line, white space around it trimmed. */
	assert_int_equal(rb_model_tools_quote_at(t, "mm/a.c", true, 15,
						 "  return x + 1;  ", 0),
			 0);
	/* Consecutive lines, starting near the line named. */
	assert_int_equal(rb_model_tools_quote_at(t, "mm/a.c", true, 18,
						 "\n{\n\tspin_lock(&a_lock);\n"
						 "\ts->n = a_helper(s->n);\n",
						 3),
			 0);
	assert_int_equal(rb_model_tools_quote_at(t, "mm/a.c", true, 22,
						 "spin_lock(&a_lock);", 2),
			 0);
	/* Too far from the line named. */
	assert_int_equal(rb_model_tools_quote_at(t, "mm/a.c", true, 23,
						 "spin_lock(&a_lock);", 2),
			 -RB_EINVAL);
	/* Not consecutive. */
	assert_int_equal(rb_model_tools_quote_at(t, "mm/a.c", true, 20,
						 "spin_lock(&a_lock);\n"
						 "spin_unlock(&a_lock);",
						 3),
			 -RB_EINVAL);
	/* Not the whole line. */
	assert_int_equal(rb_model_tools_quote_at(t, "mm/a.c", true, 15,
						 "return x", 0),
			 -RB_EINVAL);
	assert_int_equal(rb_model_tools_quote_at(t, "mm/a.c", true, 15, "\n \n",
						 5),
			 -RB_EINVAL);
	/* Base and tip. */
	assert_int_equal(rb_model_tools_quote_at(t, "mm/a.c", false, 28,
						 "return a_helper(2);", 0),
			 0);
	assert_int_equal(rb_model_tools_quote_at(t, "mm/a.c", true, 28,
						 "return a_helper(2);", 5),
			 -RB_EINVAL);
	assert_int_equal(rb_model_tools_quote_at(t, "mm/new.c", false, 1,
						 "int new_fn(void)", 0),
			 0);
	assert_int_equal(rb_model_tools_quote_at(t, "mm/new.c", true, 1,
						 "int new_fn(void)", 0),
			 -RB_ENOTFOUND);
	assert_int_equal(rb_model_tools_quote_at(t, "mm", true, 1, "x", 0),
			 -RB_ENOTFOUND);
	assert_int_equal(rb_model_tools_quote_at(t, "mm/a.c", true, 0,
						 "// SPDX-License-Identifier: "
						 "GPL-2.0",
						 1),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defs),
		cmocka_unit_test_setup_teardown(test_read_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_traversal, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_grep, setup, teardown),
		cmocka_unit_test(test_grep_redos),
		cmocka_unit_test_setup_teardown(test_hostile_text, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_find_definition, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_find_callers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_series, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_history, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_blame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_commit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_defs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_calls, setup,
						teardown),
		cmocka_unit_test(test_no_repo),
		cmocka_unit_test_setup_teardown(test_limit_calls, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_limit_bytes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_quote_at, setup, teardown),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
