/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * apply.h - applies a patch series to a tree in memory with libgit2, with
 * the results of "git apply" (DESIGN.md fact 4): no worktree and no index
 * of the whole tree. Each touched blob is read, every hunk is located with
 * git's offset search (apply.c find_pos/match_fragment: the nearest exact
 * match of the preimage, searching outward from the line the header
 * names; hunks without leading/trailing context must match at the
 * beginning/end), new blobs are written and only the trees along the
 * touched paths are rebuilt (git_treebuilder). When a file does not apply
 * and its "index" line names a preimage blob that the repository holds, a
 * 3-way merge (git_merge_file) is tried.
 *
 * A series becomes a chain of commits on the base: author and date from
 * the mail, committer "reviewbot" with the same date, so that applying the
 * same series twice gives the same commit ids.
 *
 * The repository is never written. Whoever sends a patch knows the ids of
 * the objects an apply makes, so objects left in a configured tree would
 * let a later mail name them (as a base, as a preimage). Every blob, tree
 * and commit goes to an object store in memory that the result owns; the
 * tree's object directories are read-only alternates of it, and not even
 * their mtimes are touched. "reviewbot apply --write-tree" copies the
 * objects into the repository with rb_apply_result_write(), on request.
 *
 * Safety (the patched tree belongs to whoever sent the patch): paths with
 * "..", ".git" or a leading "/" are refused, and so are writes through a
 * symlink or a file (a path whose parent in the tree is not a directory).
 * Size limits are options; a mode with setuid/setgid is flagged (the tree
 * stores it as 100755, as git does).
 */
#ifndef RB_REVIEW_APPLY_H
#define RB_REVIEW_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <git2.h>

struct rb_apply_mem;

struct rb_apply_patch {
	const char *patch; /* borrowed: the diff text (or a whole mail body) */
	size_t len;
	const char *author_name; /* borrowed; NULL: "unknown" */
	const char *author_email; /* borrowed; NULL: "unknown@invalid" */
	int64_t date; /* seconds since the epoch */
	int tz_offset; /* minutes east of UTC */
	const char *message; /* borrowed; the commit message; NULL: "patch N" */
};

struct rb_apply_opts {
	/*
	 * -1 (default): context must match exactly, like git apply. n >= 0:
	 * like "git apply -C<n>": leading and trailing context may be
	 * dropped down to n lines each to find a place for a hunk.
	 */
	int fuzz;
	bool three_way; /* fall back to git_merge_file (default true) */
	bool commit; /* make a commit per patch (default true) */
	/*
	 * The size of the review. A series over max_lines or max_files is
	 * not applied at all: the result says so (RB_APPLY_FAIL_LIMIT,
	 * the reason starting with RB_APPLY_TOO_BIG).
	 */
	size_t max_lines; /* added + removed over the series; 0: no limit */
	size_t max_files; /* file sections over the series; 0: no limit */
	/*
	 * Budgets that hold inside the apply's loops, so that a small mail
	 * cannot make it take memory or time out of proportion (a binary
	 * delta of 300 bytes makes a 64 MiB blob; a hunk with a wrong line
	 * number searches the whole file). Each one hit fails the series
	 * with RB_APPLY_FAIL_LIMIT and a reason that names it.
	 *
	 * max_bytes: bytes of the blobs the apply makes (text, binary
	 * literal and delta results), over the series on one base, checked
	 * before the memory is taken: a binary section against the size it
	 * declares. 0: no limit.
	 *
	 * max_file_lines: lines of a file the apply reads to place hunks
	 * (a file of more is not patched). 0: no limit.
	 *
	 * max_work: the apply's time budget, in work units rather than
	 * seconds, so that a series gets the same answer on a busy machine:
	 * one unit is a line compared while a hunk is placed, a line moved
	 * when a hunk goes in, or a line (and every 64 bytes) read into a
	 * file's lines. RB_APPLY_WORK_PER_SECOND units take about a second
	 * of one core (650 million were measured on the project's machine:
	 * docs/SECURITY.md). 0: no limit. @work, when not NULL, is
	 * the work of earlier calls for the same series (every base it is
	 * tried on), updated as this one works: the budget is then the
	 * series', not the call's.
	 */
	size_t max_bytes;
	size_t max_file_lines;
	uint64_t max_work;
	uint64_t *work; /* borrowed; NULL: this call counts alone */
};

#define RB_APPLY_MAX_LINES 10000 /* as Sashiko skips */
#define RB_APPLY_MAX_FILES 200
#define RB_APPLY_MAX_BYTES ((size_t)128 << 20)
/* The largest file of linux 6.1 has 222,893 lines. */
#define RB_APPLY_MAX_FILE_LINES 2000000
#define RB_APPLY_WORK_PER_SECOND 500000000ull
#define RB_APPLY_MAX_WORK (4 * RB_APPLY_WORK_PER_SECOND)
/* How the reason of a series over max_lines or max_files starts. */
#define RB_APPLY_TOO_BIG "the series is too big to review"
#define RB_APPLY_OPTS_INIT                                     \
	{                                                      \
		.fuzz = -1, .three_way = true, .commit = true, \
		.max_lines = RB_APPLY_MAX_LINES,               \
		.max_files = RB_APPLY_MAX_FILES,               \
		.max_bytes = RB_APPLY_MAX_BYTES,               \
		.max_file_lines = RB_APPLY_MAX_FILE_LINES,     \
		.max_work = RB_APPLY_MAX_WORK                  \
	}

struct rb_apply_hunk_result {
	uint32_t line; /* 1-based line where the hunk went in */
	int32_t offset; /* from the line its header names, like git */
	uint32_t context_dropped; /* lines of context ignored (fuzz) */
};

struct rb_apply_file_result {
	char *path; /* the path after the patch (old path if deleted) */
	bool merged; /* applied with the 3-way fallback */
	struct rb_apply_hunk_result *hunks; /* NULL when merged or binary */
	size_t n_hunks;
};

struct rb_apply_patch_result {
	bool applied;
	git_oid tree; /* the tree after this patch, when applied */
	git_oid commit; /* when applied and opts.commit */
	struct rb_apply_file_result *files;
	size_t n_files;
};

enum rb_apply_fail {
	RB_APPLY_OK = 0,
	RB_APPLY_FAIL_PARSE, /* the patch text is corrupt */
	RB_APPLY_FAIL_HUNK, /* a hunk does not match */
	RB_APPLY_FAIL_FILE, /* missing / already existing file, wrong type */
	RB_APPLY_FAIL_UNSAFE, /* a refused path */
	RB_APPLY_FAIL_LIMIT, /* over a size limit or budget of the options */
	RB_APPLY_FAIL_BINARY, /* a binary patch that cannot be applied */
	RB_APPLY_FAIL_MERGE, /* the 3-way fallback had conflicts */
};

struct rb_apply_result {
	bool ok; /* every patch applied */
	git_oid base; /* the base commit */
	git_oid tree; /* the final tree (base tree when nothing applied) */
	git_oid commit; /* the final commit (base when nothing applied) */
	struct rb_apply_patch_result *patches; /* n_patches entries */
	size_t n_patches;
	size_t n_applied;

	/* The first failure; all zero/NULL when ok. */
	enum rb_apply_fail fail;
	size_t failed_patch; /* 1-based */
	char *failed_file; /* NULL when no file is to blame */
	size_t failed_hunk; /* 1-based, 0 when no hunk is to blame */
	char *reason; /* "hunk #2 of mm/x.c does not match at line 12 ..." */

	bool setuid; /* some patch sets a setuid/setgid mode */
	char *setuid_path; /* the first such path */
	bool merged; /* some file needed the 3-way fallback */
	bool fuzzed; /* some hunk needed fuzz */

	/*
	 * Where the ids above can be read: the tree opened again over the
	 * result's in-memory store (struct rb_apply_mem, owned, counted).
	 * @repo is owned by the result and freed with it; like every libgit2
	 * object it is for the thread that called rb_apply_series(). Another
	 * thread (a checker) opens its own with rb_apply_repo_open().
	 */
	git_repository *repo;
	struct rb_apply_mem *mem;
};

/*
 * Applies @n patches in order on @base_commit of @repo (borrowed, only
 * read: its path is opened again, see above). Returns
 * 0 when it ran, whatever the outcome (read *out, owned by the caller,
 * rb_apply_result_free()); a negative code for an infrastructure failure:
 * -RB_ENOTFOUND when the base commit is not in the repository, -RB_EIO
 * when libgit2 failed to read or write, -RB_ENOMEM.
 */
int rb_apply_series(struct rb_apply_result **out, git_repository *repo,
		    const git_oid *base_commit,
		    const struct rb_apply_patch *patches, size_t n,
		    const struct rb_apply_opts *opts);
void rb_apply_result_free(struct rb_apply_result *r);

/*
 * Frees the objects @r made (its repository and in-memory store) and
 * keeps the rest: what a caller reports of an attempt that failed. The
 * ids in @r then name objects nobody can read; rb_apply_repo_open()
 * refuses.
 */
void rb_apply_result_drop_objects(struct rb_apply_result *r);

/*
 * Opens another repository that reads the objects of @r (and the tree's),
 * for use from another thread. *out is owned by the caller
 * (git_repository_free()); it holds its own reference on the store, so it
 * stays valid after rb_apply_result_free(@r). Objects written through it
 * land in the same store, never on disk. 0, -RB_EIO, -RB_ENOMEM.
 */
int rb_apply_repo_open(git_repository **out, const struct rb_apply_result *r);

/*
 * Copies every object the apply made into @repo's object database: only
 * for "reviewbot apply --write-tree", where the user asked for it. 0 or
 * -RB_EIO.
 */
int rb_apply_result_write(const struct rb_apply_result *r,
			  git_repository *repo);

/* Short name of a failure class: "hunk", "file", "unsafe", ... */
const char *rb_apply_fail_name(enum rb_apply_fail f);

#endif
