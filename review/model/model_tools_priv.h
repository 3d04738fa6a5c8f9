/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_tools_priv.h - internal to the model's tools, what their files
 * share:
 *
 *   model_tools.c         the tools object, arguments, limits and pools,
 *                         one call, read_file, the series tools and the
 *                         evidence check
 *   model_tools_search.c  grep, find_definition, find_callers
 *   model_tools_git.c     path_history, blame, show_commit, log
 *
 * The tree's blobs (review/code/code_tree.h), the bounded regex
 * (code_regex.h), the C recogniser (code_c.h) and the word index
 * (code_index.h) are review/code/'s: they know nothing of the model.
 */
#ifndef RB_REVIEW_MODEL_TOOLS_PRIV_H
#define RB_REVIEW_MODEL_TOOLS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <git2.h>
#include <jansson.h>

#include "review/code/code_index.h"
#include "review/code/code_regex.h"
#include "review/code/code_tree.h"
#include "review/model/model_tools.h"

struct rb_buf;
struct rb_c_lines;

#define MAX_PATH 1024
#define MAX_PATTERN RB_CODE_REGEX_MAX_PATTERN
#define REGEX_LINE RB_CODE_REGEX_LINE
#define REGEX_COSTLY RB_CODE_REGEX_COSTLY
#define BLOB_MAX RB_CODE_INDEX_BLOB_MAX /* bigger blobs are not searched */
#define LINE_MAX_OUT 240 /* bytes of one line in a search row */
#define CALL_SECONDS 60 /* one search, whatever is left of the budget */
#define WORK_MAX (1u << 20) /* a tool's text before the result cap */

struct rb_model_tools {
	struct rb_model_tools_ctx ctx;
	git_oid base_tree, tip_tree, base_commit;
	struct rb_model_tool_limits lim;
	struct rb_model_tools_usage use;
	struct timespec start;
	bool started;
	const char *stop; /* the limit reached, or NULL */
	struct rb_model_tools_pool *pool; /* borrowed, or NULL */
	struct rb_code_tree sides[2]; /* 0: base, 1: tip */
	struct rb_code_index *wi; /* the base tree's, shared (search) */
	bool wi_failed; /* building it failed: search without it */
};

/* One call's arguments, and where its "error: ..." line goes. */
struct mt_args {
	json_t *root;
	struct rb_buf *err;
};

/* The monotonic clock, in seconds. */
double mt_now(void);
/* This call's deadline: CALL_SECONDS, within the tools' max_seconds. */
double mt_call_deadline(const struct rb_model_tools *t);

/*
 * Appends @s[0..@len) as text the model may read: valid UTF-8, no
 * control characters but tab (and newline with @nl), hidden Unicode
 * escaped. mt_put_text: many lines; mt_put_line: one, capped.
 */
int mt_put_text_nl(struct rb_buf *b, const char *s, size_t len, bool nl);
int mt_put_text(struct rb_buf *b, const char *s, size_t len);
int mt_put_line(struct rb_buf *b, const char *s, size_t len);

/* Is @p (@len bytes) a tree path the model may name? @dir: a prefix. */
bool mt_path_ok(const char *p, size_t len, bool dir);

/*
 * The arguments: 0, or -RB_EINVAL with the reason as a line in a->err.
 * A string is NULL (with *len 0) when absent and not @need.
 */
int mt_arg_str(struct mt_args *a, const char *key, bool need, const char **out,
	       size_t *len, size_t max);
int mt_arg_int(struct mt_args *a, const char *key, long long def, long long lo,
	       long long hi, long long *out);
int mt_arg_bool(struct mt_args *a, const char *key, bool *out);
/* side: "base" or "tip" (default). *out: 0 base, 1 tip. */
int mt_arg_side(struct rb_model_tools *t, struct mt_args *a, int *out);

const char *mt_side_name(int side);
const git_oid *mt_side_tree(const struct rb_model_tools *t, int side);
/* The blobs of tree @side, listed once per tools object. */
int mt_side_load(struct rb_model_tools *t, int side);
/*
 * The blob at @path of tree @side: 0, or -RB_ENOTFOUND with the reason
 * as a line in @err (no such file, a directory, a symlink ...).
 */
int mt_blob_at(git_blob **out, const struct rb_model_tools *t, int side,
	       const char *path, struct rb_buf *err);
/*
 * The text file at @path of tree @side, its blob into *@blob (owned by
 * the caller, even on failure) and its lines into @l: 0, -RB_ENOTFOUND
 * or -RB_EINVAL (a binary file) with the reason in @err, or -RB_ENOMEM.
 */
int mt_text_at(git_blob **blob, struct rb_c_lines *l,
	       const struct rb_model_tools *t, int side, const char *path,
	       struct rb_buf *err);

/* The tools of the other files: the result into @out, see mt_arg_str(). */
int mt_tool_grep(struct rb_model_tools *t, struct mt_args *a,
		 struct rb_buf *out);
int mt_tool_find_definition(struct rb_model_tools *t, struct mt_args *a,
			    struct rb_buf *out);
int mt_tool_find_callers(struct rb_model_tools *t, struct mt_args *a,
			 struct rb_buf *out);
int mt_tool_path_history(struct rb_model_tools *t, struct mt_args *a,
			 struct rb_buf *out);
int mt_tool_blame(struct rb_model_tools *t, struct mt_args *a,
		  struct rb_buf *out);
int mt_tool_show_commit(struct rb_model_tools *t, struct mt_args *a,
			struct rb_buf *out);
int mt_tool_log(struct rb_model_tools *t, struct mt_args *a,
		struct rb_buf *out);

#endif
