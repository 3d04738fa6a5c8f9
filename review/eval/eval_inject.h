/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eval_inject.h - the cases of "reviewbot eval --inject": a known bug put
 * back into a real tree, and its clean control (docs/EVAL.md).
 *
 * A pair of the evaluation set (evalset.h) is a buggy patch and the fix
 * that a later mail made. When the fix is already in a tree (every line it
 * adds is in the tree's file), the fix reversed and applied to the tree
 * puts the bug back into real code: that is an INJECTED case, framed by
 * the buggy patch's commit message. When the buggy patch itself applies
 * to the tree, it is a FORWARD case. Either way:
 *
 *   tree --(case patch)--> buggy code --(control patch = the fix)--> fixed
 *
 * The case patch is reviewed on the tree; the control, the fix itself, is
 * reviewed on the buggy code, the same way: a correct patch over the same
 * lines, whose result is the code as it is in the tree (injected) or as
 * it should have been (forward). A finding on a control is a false
 * positive on real code.
 *
 * Both patches are made again by libgit2 from the trees the apply gives
 * (review/apply/apply.h, in memory: the tree is never written), so that they
 * apply exactly and their line numbers are those of the real files. The
 * lines the fix changed are then known by position: the lines of the
 * buggy code that the control removes, and those around what it inserts.
 */
#ifndef RB_REVIEW_EVAL_INJECT_H
#define RB_REVIEW_EVAL_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

#include "review/eval/evalset.h"

struct rb_buf;
struct rb_diff;

enum rb_eval_case_kind {
	RB_EVAL_INJECTED, /* the fix reversed on a tree that has it */
	RB_EVAL_FORWARD, /* the buggy patch applied on a tree */
};

struct rb_eval_case {
	enum rb_eval_case_kind kind;
	const struct rb_eval_pair *pair; /* borrowed */
	char *tree; /* the name of the tree it applies to */
	int fuzz; /* -1: exact; n: context cut to n lines (git apply -Cn) */
	char *patch; /* the case: a diff from the tree to the buggy code */
	char *commit_msg; /* its framing: the buggy patch's message */
	char *control; /* the control: the fix, from buggy code to fixed */
	char *control_msg; /* the fix's message (else its subject) */
	/*
	 * The fix's lines in the buggy code (new-side lines of @patch), per
	 * file, with the functions around them (functions: from the file).
	 */
	struct rb_eval_changed *changed;
	size_t n_changed;
};

/* A tree to make cases on. Borrowed. */
struct rb_eval_tree {
	const char *name;
	git_repository *repo;
	git_oid commit;
};

/*
 * @d reversed, as diff text appended to @out: '+' and '-' swapped, the
 * hunk ranges swapped, an added file deleted and a deleted one added, the
 * index line's ids swapped. -RB_EINVAL (reason in rb_errmsg()) for what
 * has no text reverse here: a binary file, a rename or copy, a mode
 * change alone, a path that would need quoting, a NUL byte in a line;
 * -RB_ENOMEM.
 */
int rb_eval_diff_reverse(struct rb_buf *out, const struct rb_diff *d);

/*
 * The blob at @path in @tree of @repo; *@out NULL when there is none or it
 * is not a file.
 */
int rb_eval_tree_blob(git_blob **out, git_repository *repo, git_tree *tree,
		      const char *path);

/*
 * Is the fix @fix in @t: does every file it modifies or adds hold every
 * line it adds, and is every file it deletes gone? *why gets the first
 * line missing when it is not. 0, -RB_EIO, -RB_ENOMEM.
 */
int rb_eval_fix_present(bool *present, char *why, size_t why_size,
			const struct rb_eval_tree *t,
			const struct rb_diff *fix);

/*
 * Makes the @kind case of @p on @t into @out. INJECTED: the fix must be
 * in @t (rb_eval_fix_present()) and its reverse must apply, exactly or
 * with the context cut to 2, then 1 line; FORWARD: the buggy patch and
 * then the fix must apply exactly. 0; -RB_ENOTFOUND with the reason in
 * @why when there is no such case; -RB_EIO, -RB_ENOMEM.
 */
int rb_eval_case_make(struct rb_eval_case *out, const struct rb_eval_pair *p,
		      enum rb_eval_case_kind kind, const struct rb_eval_tree *t,
		      char *why, size_t why_size);
void rb_eval_case_release(struct rb_eval_case *c);

/* "injected" or "forward". */
const char *rb_eval_case_kind_name(enum rb_eval_case_kind k);

/*
 * The function around 1-based line @line of the C text @text: the nearest
 * definition line (rb_eval_def_name()) above it, not past a "}" at column
 * 0, and the first "}" at column 0 after that. Its name into @name, its
 * lines into *start and *end. false when @line is in no function.
 */
bool rb_eval_func_span(const char *text, size_t len, int line, char *name,
		       size_t name_size, int *start, int *end);

#endif
