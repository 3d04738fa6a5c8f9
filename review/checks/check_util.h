/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_util.h - what the tree checkers share (kernel-doc, coccinelle,
 * build): tools taken from the configured branch tip, the files a series
 * changes, one file of a commit written out, the patch that changed a
 * file, and "FILE:LINE: message" diagnostics compared with the base's.
 */
#ifndef RB_REVIEW_CHECK_UTIL_H
#define RB_REVIEW_CHECK_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "review/checks/checks.h"
#include "review/checks/sandbox.h"
#include "review/findings.h"

struct git_repository;

/*
 * Writes @rel (a file, or a directory and all its files) of the tools
 * commit @tools under @dir, directories 0755 and files 0755 (the sandbox's
 * uid reads and runs them). -RB_ENOTFOUND when the commit has no @rel.
 */
int rb_check_tool_extract(struct git_repository *repo, const git_oid *tools,
			  const char *rel, const char *dir);

/* True for a path of kernel sources that is safe in a shell word. */
bool rb_check_plain_path(const char *p);

/*
 * The files the series adds or changes (not deleted), whose names end in
 * one of @exts (",c,h" style: ".c" and ".h"), that are plain paths and
 * not under tools/ or a selftests/ directory; at most @max. *out is an
 * array of strings the caller frees with rb_check_files_free().
 */
int rb_check_changed_files(char ***out, size_t *n, struct git_repository *repo,
			   const struct rb_check_ctx *ctx,
			   const char *const *exts, size_t max);
void rb_check_files_free(char **v, size_t n);

/*
 * Writes @path of @commit as @dir/@path (0644; parents 0755). Returns 1
 * when written, 0 when the commit has no such file, or a negative code.
 */
int rb_check_write_file(struct git_repository *repo, const git_oid *commit,
			const char *path, const char *dir);

/*
 * The working directory of a checker that runs a tool of the tree in the
 * sandbox over the files a series changes (kernel-doc, coccinelle):
 * @dir/tools (bound as /tools), @dir/src (the sandbox's /src) with the
 * base's files under src/b and the applied tree's under src/a.
 */
struct rb_check_work {
	struct git_repository *repo;
	char **files; /* the changed files, n of them */
	size_t n;
	bool *in_base, *in_applied; /* n each: the file exists there */
	bool any_applied; /* some file exists in the applied tree */
	char *dir; /* the private directory, NULL until made */
	char tools[4200], src[4200], bdir[4200], adir[4200];
	char tmpl[64];
	const char *name; /* the checker, for messages */
	struct rb_findings base, now; /* the tool's findings on each tree */
	struct rb_proc_result res; /* of rb_check_work_run() */
	bool have_res;
};

/*
 * For the checker @name, which needs the base, the applied tree and the
 * configured tip (whose tools it runs: never a base a mail names): opens
 * the repository and lists the changed files whose names end in one of
 * @exts, at most @max (rb_check_changed_files()). w->n == 0 when there
 * are none: nothing to do. Release @w with rb_check_work_release()
 * whatever this returns.
 */
int rb_check_work_open(struct rb_check_work *w, const struct rb_check_ctx *ctx,
		       const char *name, const char *const *exts, size_t max);

/*
 * Makes the directory /tmp/rb-@name-XXXXXX (0755: read by uid 65534 in
 * the sandbox when we are root) and its tools/, src/a and src/b, takes
 * @tools[0] (required) and each further path of the NULL-terminated
 * @tools (optional: newer or older trees) from the configured branch tip
 * into tools/, and writes each changed file of the base and of the
 * applied tree, setting w->in_base, w->in_applied and w->any_applied.
 */
int rb_check_work_fill(struct rb_check_work *w, const struct rb_check_ctx *ctx,
		       const char *name, const char *const *tools);

/*
 * Runs @script in the sandbox with @so's limits and variables, tools/
 * bound at /tools and src/ at /src (the working directory), into w->res.
 * An error when it could not run or did not finish in time.
 */
int rb_check_work_run(struct rb_check_work *w, struct rb_sandbox_opts *so,
		      const char *script);

/* Removes the directory and frees what @w holds; @w can be opened again. */
void rb_check_work_release(struct rb_check_work *w);

/* The last patch (1-based) whose diff writes "+++ b/@file", or 0. */
int rb_check_patch_of(const struct rb_check_ctx *ctx, const char *file);

/* Line @line (from 1) of @text, malloc'd without its newline, or NULL. */
char *rb_check_nth_line(const char *text, int line);

/* @a and @b equal once digits are dropped from both. */
bool rb_check_same_but_digits(const char *a, const char *b);

/* Line @line of @dir/@file (a file we wrote), or NULL. */
char *rb_check_line_of(const char *dir, const char *file, int line);

/*
 * "FILE:LINE[:COL[-COL]]: MESSAGE" into its parts (the line is
 * changed); false when it is not such a line, names no plain relative
 * path, or has no message. "./" and "/src/x/" prefixes are dropped
 * (@strip: a prefix such as "/src/a/" to drop, or NULL).
 */
bool rb_check_parse_loc(char *s, const char *strip, const char **file,
			int *line, const char **msg);

/*
 * Whether @f (file, code) is one of @base's, taking each of @base once:
 * @used marks those taken (base->n entries). The code is compared with
 * digits removed, so a line shift inside a message does not make it new.
 */
bool rb_check_in_base(const struct rb_findings *base, bool *used,
		      const struct rb_finding *f);

#endif
