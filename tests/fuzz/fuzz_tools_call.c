// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_tools_call.c - libFuzzer target for the model's tool calls as the
 * tools answer them (review/model/model_tools.h rb_model_tools_call()): a tool
 * name and JSON arguments as a hostile model sends them, on a small tree
 * held in memory (libgit2 mempack: a base tree, a tip tree that differs,
 * two commits, the base and its parent, for blame, show_commit and log)
 * or with no tree at all. (fuzz_model_tools.c fuzzes the
 * providers' parsers of the replies that carry these calls.)
 *
 * Input: one byte, then the arguments.
 *   bits 0-3: the tool (0-10 the known ones; 11-15: the name is the
 *             arguments' text up to the first NUL, the rest the arguments)
 *   bit 4:    no tree (a NULL repository)
 *   bit 5:    also check the arguments as a quote with quote_at()
 * In the arguments, "COMMIT1" and "COMMIT0" become the first 7 hex
 * digits of the base commit and of its parent, so that seeds can name
 * commits the tree has. Every result must be valid UTF-8 (jansson refuses
 * anything else), and the limits must hold.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/repository.h>
#include <jansson.h>

#include "review/model/model_tools.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

static git_repository *repo;
static git_oid base_tree, tip_tree, base_commit, first_commit;
static git_oid first_tree;
static const char *const patches[] = { "mm: one\n\ndiff --git a/a.c b/a.c\n",
				       NULL, "mm: three \xe2\x80\xae\n" };

static const char *const names[] = {
	"read_file",	   "grep",	   "find_definition",
	"find_callers",	   "show_patch",   "cover_letter",
	"previous_review", "path_history", "blame",
	"show_commit",	   "log",
};
#define N_NAMES (sizeof(names) / sizeof(*names))

static void blob(git_treebuilder *tb, const char *name, const char *text,
		 git_filemode_t mode)
{
	git_oid id;

	if (git_blob_create_from_buffer(&id, repo, text, strlen(text)) ||
	    git_treebuilder_insert(NULL, tb, name, &id, mode))
		abort();
}

/*
 * A tree of a few C files (@tip: one changed, one added; @first: the
 * base's parent, one line less), in memory.
 */
static void make_tree(git_oid *out, bool tip, bool first)
{
	git_treebuilder *mm = NULL, *root = NULL;
	git_oid sub;

	if (git_treebuilder_new(&mm, repo, NULL) ||
	    git_treebuilder_new(&root, repo, NULL))
		abort();
	blob(mm, "a.c",
	     tip   ? "#define A_MAX 2\nstruct s {\n\tint n;\n};\n"
		     "int a(int x)\n{\n\treturn b(x) + 1;\n}\n" :
	     first ? "#define A_MAX 1\nstruct s {\n};\n"
		     "int a(int x)\n{\n\treturn b(x);\n}\n" :
		     "#define A_MAX 1\nstruct s {\n\tint n;\n};\n"
		     "int a(int x)\n{\n\treturn b(x);\n}\n",
	     GIT_FILEMODE_BLOB);
	blob(mm, "b.h", "typedef int t_t;\nint b(int);\nextern int g;\n",
	     GIT_FILEMODE_BLOB);
	blob(mm, "bin", "\x00\x01\x02", GIT_FILEMODE_BLOB);
	blob(mm, "odd.c", "int odd = 1; /* \xff\xfe\x1b[0m \xe2\x80\x8b */\n",
	     GIT_FILEMODE_BLOB);
	if (tip)
		blob(mm, "new.c",
		     "int g = 3;\nint c(void)\n{\n\treturn a(g);\n}\n",
		     GIT_FILEMODE_BLOB);
	if (git_treebuilder_write(&sub, mm) ||
	    git_treebuilder_insert(NULL, root, "mm", &sub, GIT_FILEMODE_TREE))
		abort();
	blob(root, "link", "mm/a.c", GIT_FILEMODE_LINK);
	blob(root, "README", "b(x) is documented here\n", GIT_FILEMODE_BLOB);
	if (git_treebuilder_write(out, root))
		abort();
	git_treebuilder_free(mm);
	git_treebuilder_free(root);
}

static void setup(void)
{
	git_odb_backend *mp = NULL;
	git_odb *odb = NULL;
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_commit *parent = NULL;

	git_libgit2_init();
	rb_log_set_quiet(1);
	if (git_repository_new(&repo) || git_odb_new(&odb) ||
	    git_mempack_new(&mp) || git_odb_add_backend(odb, mp, 1))
		abort();
	git_repository_set_odb(repo, odb);
	make_tree(&first_tree, false, true);
	make_tree(&base_tree, false, false);
	make_tree(&tip_tree, true, false);
	if (git_signature_new(&sig, "T", "t@example.org", 1000, 0) ||
	    git_tree_lookup(&tree, repo, &first_tree) ||
	    git_commit_create(&first_commit, repo, NULL, sig, sig, NULL,
			      "mm: first\n\nSigned-off-by: T <t@example.org>\n",
			      tree, 0, NULL))
		abort();
	git_tree_free(tree);
	tree = NULL;
	if (git_tree_lookup(&tree, repo, &base_tree) ||
	    git_commit_lookup(&parent, repo, &first_commit) ||
	    git_commit_create(&base_commit, repo, NULL, sig, sig, NULL,
			      "mm: the base\n", tree, 1,
			      (const git_commit **)&parent))
		abort();
	git_commit_free(parent);
	git_tree_free(tree);
	git_signature_free(sig);
	git_odb_free(odb);
}

static void check_text(const struct rb_buf *b)
{
	json_t *s = json_stringn(b->ptr, b->len);

	if (!s)
		abort();
	json_decref(s);
}

/* "COMMIT1", "COMMIT0" in @s (@n bytes) become real commits' ids. */
static void name_commits(char *s, size_t n)
{
	char hex[GIT_OID_HEXSZ + 1];
	char *p;

	while ((p = memmem(s, n, "COMMIT", 6)) && p + 7 <= s + n &&
	       (p[6] == '0' || p[6] == '1')) {
		git_oid_tostr(hex, sizeof(hex),
			      p[6] == '1' ? &base_commit : &first_commit);
		memcpy(p, hex, 7);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_model_tool_limits lim = { .max_calls = 3,
					    .max_bytes = 8192,
					    .max_result = 2048,
					    .max_seconds = 5 };
	struct rb_model_tools_ctx ctx = {
		.patches = patches,
		.n_patches = 3,
		.index = 1,
		.cover = "cover \x01 letter",
	};
	struct rb_buf out = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_model_tools *t = NULL;
	struct rb_model_tools_usage u;
	const char *name, *args;
	size_t alen, i;
	char *copy;
	int ret;

	if (!repo)
		setup();
	if (!size)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = 0;
	name_commits(copy, size - 1);
	args = copy;
	alen = size - 1;
	if ((data[0] & 15) < N_NAMES) {
		name = names[data[0] & 15];
	} else {
		name = copy;
		args = copy + strlen(copy);
		if (args < copy + alen)
			args++;
		alen -= (size_t)(args - copy);
	}
	if (!(data[0] & 16)) {
		ctx.repo = repo;
		ctx.base_tree = &base_tree;
		ctx.tip_tree = &tip_tree;
		ctx.base_commit = &base_commit;
	}
	if (rb_model_tools_new(&t, &ctx, &lim))
		abort();
	/* The same call until the limits refuse it. */
	for (i = 0; i < 5; i++) {
		rb_buf_reset(&out);
		ret = rb_model_tools_call(t, name, args, alen, &out);
		if (ret && ret != -RB_ETOOBIG)
			abort();
		if (out.len > lim.max_result || (i >= 3 && ret != -RB_ETOOBIG))
			abort();
		check_text(&out);
	}
	rb_model_tools_get_usage(t, &u);
	if (u.calls > lim.max_calls || u.bytes > lim.max_bytes)
		abort();
	if (data[0] & 32) {
		ret = rb_model_tools_quote_at(t, "mm/a.c", false, 5, copy, 3);
		if (ret && ret != -RB_EINVAL && ret != -RB_ENOTFOUND)
			abort();
		ret = rb_model_tools_quote_at(t, copy, true, 1, "int", 2);
		if (ret && ret != -RB_EINVAL && ret != -RB_ENOTFOUND)
			abort();
	}
	rb_model_tools_free(t);
	rb_buf_release(&out);
	free(copy);
	rb_err_clear();
	return 0;
}
