/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_tools.h - the read-only tools the model may call while it reviews
 * one patch: a file range at the base or at the series tip, a search of
 * the tree (git grep semantics), a symbol's definition and its callers,
 * another patch of the series, the cover letter, the review of the
 * previous version, and the history of the base: a path's log, the blame
 * of lines, a commit (a Fixes: target) and a pickaxe search (-S/-G).
 * History tools read only the base commit and its ancestors.
 *
 * Everything here reads; nothing writes. A tool's arguments come from the
 * model, which read hostile mail: paths are tree paths looked up through
 * libgit2 only (never the file system), patterns are fixed strings or
 * bounded, and every result is capped. Each review pass (a finder's
 * focus, the verifier) has its own tools object with its own limits
 * (calls, bytes returned, wall time), and may draw on a pool shared with
 * other passes and threads: the series' total, or the verifier's reserve
 * carved out of it, which no finder can spend.
 *
 * The tool definitions are provider-neutral JSON; model_provider.c turns
 * them into OpenAI "tools", Anthropic "tools" or the command protocol.
 */
#ifndef RB_REVIEW_MODEL_TOOLS_H
#define RB_REVIEW_MODEL_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

struct rb_apply_patch_result;
struct rb_buf;
struct rb_model_tools;

/* What the tools can see. Everything is borrowed for the tools' life. */
struct rb_model_tools_ctx {
	git_repository *repo; /* the tree the series applied to, or NULL */
	const git_oid *base_tree; /* the tree before the series, or NULL */
	const git_oid *tip_tree; /* the tree after the whole series, or NULL */
	const git_oid *base_commit; /* for path history, or NULL */
	const char *const *patches; /* every part: commit message + diff */
	size_t n_patches;
	int index; /* 1-based: the patch under review */
	const char *cover; /* the cover letter body, or NULL */
	const char *prev_review; /* what was said on v(n-1), or NULL */
	/*
	 * Each part's apply ([n_patches], NULL gaps), or NULL: show_patch
	 * numbers a part's hunks as the tree (model_diff.h).
	 */
	const struct rb_apply_patch_result *const *applied;
};

/* Limits of one tools object (one review pass); 0 takes the default. */
struct rb_model_tool_limits {
	int max_calls; /* tool calls, default 24 */
	size_t max_bytes; /* bytes returned over all calls, default 200 KiB */
	size_t max_result; /* bytes of one result, default 16 KiB */
	int max_seconds; /* wall time from the first call, default 300 */
};

struct rb_model_tools_usage {
	int calls; /* calls answered */
	int refused; /* calls refused by a limit */
	size_t bytes; /* bytes returned */
};

/*
 * A budget of tool calls and bytes that several tools objects draw on,
 * from any thread (a mutex inside): a series' total. A call takes one
 * call and room for its result from the pool before it runs and gives
 * back the room it did not use, so the pool never goes over, whatever
 * the threads do. Which of two passes racing for the last calls gets
 * them depends on timing: a pool is a ceiling, sized so that reviews
 * rarely reach it.
 */
struct rb_model_tools_pool;

/*
 * A pool of @max_calls calls and @max_bytes bytes (0: no limit of that
 * kind); @what names it in the refusal the model reads ("this series").
 * -RB_ENOMEM.
 */
int rb_model_tools_pool_new(struct rb_model_tools_pool **out, int max_calls,
			    size_t max_bytes, const char *what);

/*
 * Carves a reserve out of @parent: @calls and @bytes, or what @parent
 * has left when that is less. What is carved is taken from @parent at
 * once, so no other user of @parent can spend it (the verifier's
 * reserve, out of the series' pool). Freeing the reserve gives back what
 * was not spent. The reserve must be freed before @parent. -RB_ENOMEM.
 */
int rb_model_tools_pool_carve(struct rb_model_tools_pool **out,
			      struct rb_model_tools_pool *parent, int calls,
			      size_t bytes, const char *what);
void rb_model_tools_pool_free(struct rb_model_tools_pool *p);

/* What was spent through @p (and the reserves carved out of it). */
void rb_model_tools_pool_get_usage(struct rb_model_tools_pool *p,
				   struct rb_model_tools_usage *u);

/* -RB_ENOMEM only; a NULL repo leaves just the series tools. */
int rb_model_tools_new(struct rb_model_tools **out,
		       const struct rb_model_tools_ctx *ctx,
		       const struct rb_model_tool_limits *lim);
void rb_model_tools_free(struct rb_model_tools *t);

/*
 * Makes every call of @t draw on @pool (borrowed: it outlives @t) as
 * well as on @t's own limits: a call runs only when both have room.
 */
void rb_model_tools_set_pool(struct rb_model_tools *t,
			     struct rb_model_tools_pool *pool);

/*
 * The tool definitions as a JSON array text:
 * [{"name": ..., "description": ..., "parameters": {JSON schema}}, ...].
 * Static; the same for every patch, so recordings stay comparable.
 */
const char *rb_model_tools_defs(void);

/*
 * Runs tool @name with the JSON object text @args (as the model sent it)
 * and appends the result text to @out. A bad argument, an unknown tool or
 * a missing file is a result the model reads ("error: no such file
 * mm/x.c at tip"), not a failure: 0. A limit reached appends the reason
 * and returns -RB_ETOOBIG, after which every call is refused. -RB_ENOMEM.
 */
int rb_model_tools_call(struct rb_model_tools *t, const char *name,
			const char *args, size_t args_len, struct rb_buf *out);

void rb_model_tools_get_usage(const struct rb_model_tools *t,
			      struct rb_model_tools_usage *u);

/*
 * The search tools read the base tree's word index (review/code/code_index.h),
 * a file per tree that the process keeps open for the next patch on it.
 * This closes those nothing uses (rb_code_index_drop()); tools objects
 * that hold one keep it until rb_model_tools_free().
 */
void rb_model_tools_drop_index(void);

/* A definition rb_model_tools_find_defs() found. */
struct rb_model_tools_def {
	char *path; /* owned */
	size_t line; /* 1-based: the line find_definition names */
	const char *kind; /* "function", "macro", "struct", ... (static) */
	int rank; /* 0 the kernel's own, 1 arch/, 2 tools/ and the like */
	size_t order; /* found in tree order */
};

/*
 * The definitions of the C identifier @sym that find_definition would
 * show, in the base tree (@base) or at the tip, best ranked first, at
 * most 64: for the prompt, which fetches code before the review
 * (model_prefetch.h). Uses the shared word index; not counted in
 * the tools' usage, but it starts their clock like a call. *out is owned
 * by the caller (rb_model_tools_defs_free()); none found is 0 with *n 0.
 * 0, -RB_ENOMEM, -RB_EIO (a tree that cannot be read).
 */
int rb_model_tools_find_defs(struct rb_model_tools_def **out, size_t *n,
			     struct rb_model_tools *t, const char *sym,
			     bool base);
void rb_model_tools_defs_free(struct rb_model_tools_def *v, size_t n);

/*
 * How many blobs of the base tree hold the word @word, through the word
 * index (built on first use): what a search for it would read. 0 for a
 * word no blob holds or one the index leaves out (under 3 bytes, a
 * number); SIZE_MAX without an index (no base tree, or it failed).
 */
size_t rb_model_tools_word_blobs(struct rb_model_tools *t, const char *word);

/*
 * Appends tree text (@len bytes, one line) as the tools return it: valid
 * UTF-8 (other bytes '?'), control characters but tab as '?', hidden
 * Unicode escaped. 0 or -RB_ENOMEM.
 */
int rb_model_tools_put_text(struct rb_buf *b, const char *s, size_t len);

/*
 * The evidence check: is every line of @quote (one or more lines,
 * compared with surrounding white space trimmed) in @path of the tree at
 * the base (@base_side) or at the tip, consecutive, starting within
 * @near lines of @line? 0 when it is; -RB_ENOTFOUND (no such file) or
 * -RB_EINVAL (not there) otherwise.
 */
int rb_model_tools_quote_at(const struct rb_model_tools *t, const char *path,
			    bool base_side, int line, const char *quote,
			    int near);

#endif
