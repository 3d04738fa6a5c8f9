/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * checks.h - checkers: commit-message rules, checkpatch, a sandboxed
 * incremental build and external commands, behind one table of operations,
 * and the runner that runs them in parallel and turns their results into
 * findings (review/findings.h).
 *
 * Whoever sends a patch controls the patched tree (DESIGN.md fact 5), and
 * a mail names the base. So every tool (checkpatch.pl and the files it
 * reads, scripts/config for the build) is taken from the configured
 * branch tip (ctx->tools), never from the base or the applied tree, and
 * runs in the bubblewrap sandbox (review/checks/sandbox.h) like the build does;
 * when no sandbox can be made the checker does not run and says so (a
 * "checker-problem" finding). The configured tree is only read.
 */
#ifndef RB_REVIEW_CHECKS_H
#define RB_REVIEW_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include <git2/oid.h>

#include "review/findings.h"

struct rb_message;

/* One patch of the series, in series order. */
struct rb_check_patch {
	const struct rb_message *msg; /* borrowed; NULL: did not parse */
	const char *raw; /* borrowed: the mail as received */
	size_t raw_len;
	const char *origin; /* borrowed: "FILE" or "FILE:N", for messages */
};

struct rb_check_opts {
	/* Series rules (commit-msg). */
	int max_patches; /* a bigger series is reported; default 30 */
	int subject_max; /* characters of the title; default 75 */
	bool require_cover; /* a cover letter for 3 or more; default true */

	/* checkpatch. */
	bool checkpatch_strict;
	bool checkpatch_codespell; /* only when codespell is installed */
	char **checkpatch_ignore; /* borrowed: types to drop */
	size_t n_checkpatch_ignore;

	/*
	 * build: DIR keeps the base sources and build output between runs.
	 * NULL: $RB_BUILD_CACHE, else $XDG_CACHE_HOME/reviewbot/build, else
	 * ~/.cache/reviewbot/build. It must be a private directory: made
	 * 0700 when missing, refused when it is a symlink or not ours.
	 */
	const char *build_cache_dir;
	const char *build_config; /* make target; default "defconfig" */
	char **build_options; /* borrowed: CONFIG_ names to enable */
	size_t n_build_options;
	/* The governing section's (policy build_config, build_options):
	 * its config replaces build_config, its options come after. */
	const char *section_build_config;
	char **section_build_options;
	size_t n_section_build_options;
	int build_jobs; /* make -j; default 2 */
	bool build_sparse; /* C=1 (needs sparse): the build also says what
			    * sparse says, as the "sparse" checker */
	bool build_each; /* build every patch in turn; default true */
	/* W=1 runs kernel-doc too: off (cmd_checkdoc=true) when the
	 * kernel-doc checker runs, so that it is said once */
	bool build_no_kdoc;
	long build_mem_mb; /* sandbox address-space limit; default 4096 */
	long build_tmpfs_mb; /* the sandbox's /tmp; default 512 */
	int build_nproc; /* processes of the sandbox's uid; default 1024 */

	/* external: a command run with the mbox and the applied tree. */
	const char *external_name; /* default "external" */
	const char *external_cmd; /* run by /bin/sh -c; NULL: none */

	/* cc-maintainers: also the people of a Fixes: target; default true */
	bool maint_fixes;

	int timeout_seconds; /* per checker; default 600 */
	/* Every checker of one series stops by then; 0: no budget. A checker
	 * that has not started when it runs out does not run (a
	 * "checker-problem"); one that runs stops at it. */
	int series_budget_seconds;
	int parallel; /* checkers at once; default 2 */
};
#define RB_CHECK_OPTS_INIT                                                    \
	{                                                                     \
		.max_patches = 30, .subject_max = 75, .require_cover = true,  \
		.build_jobs = 2, .build_mem_mb = 4096, .build_tmpfs_mb = 512, \
		.build_nproc = 1024, .timeout_seconds = 600, .parallel = 2,   \
		.build_each = true, .maint_fixes = true                       \
	}

struct rb_apply_result;
struct git_repository;

/* What a checker gets. Everything is borrowed. */
struct rb_check_ctx {
	const struct rb_message *cover; /* or NULL */
	const struct rb_check_patch *patches; /* [i] is patch i + 1 */
	size_t n_patches;
	/* The configured tree's git directory (only read), or NULL: no tree
	 * checks. */
	const char *repo_path;
	/*
	 * The series applied in memory (review/apply/apply.h): the applied commits
	 * exist only there, so a checker reads objects through a repository
	 * of its own from rb_check_repo_open(). NULL: @applied (if any) is
	 * in repo_path itself.
	 */
	const struct rb_apply_result *apply;
	git_oid base; /* the commit the series applies to */
	bool has_base;
	git_oid applied; /* the commit with the whole series applied */
	bool has_applied;
	/*
	 * The configured branch tip of the tree: checkpatch.pl, its data
	 * files and the build's scripts/config come from its tree. Without
	 * it those checkers do not run (a base named by mail is not a
	 * source of tools).
	 */
	git_oid tools;
	bool has_tools;
	/*
	 * The commit after each patch (patch_commits[i] after patch i + 1),
	 * as the apply made them; NULL: only the whole series is built, not
	 * each patch in turn.
	 */
	const git_oid *patch_commits;
	size_t n_patch_commits;
	const char *mbox_path; /* the series as an mbox file, or NULL */
	const struct rb_check_opts *opts;
	/* Set by the runner: CLOCK_MONOTONIC milliseconds, 0 = none. */
	long long deadline_ms;
};

struct rb_checker_ops {
	const char *name; /* "commit-msg", "checkpatch", "build", ... */
	/* How a review's summary names it: "commit message", "Cc of the
	 * maintainers", ... */
	const char *label;
	const char *version;
	/*
	 * Appends findings to @out. Returns 0 when the check ran (whatever it
	 * found), or a negative code with rb_err() when it could not run;
	 * the runner reports that as a problem, never as a fatal error.
	 */
	int (*run)(const struct rb_check_ctx *ctx, struct rb_findings *out);
	/* Runs in the process, no child, in milliseconds: not held by the
	 * process-wide limit of opts->parallel (checks.c). */
	bool light;
	/* Reads the applied series (a tree checker): runs only when the
	 * series applied somewhere. */
	bool tree;
};

/*
 * The registry: every checker, in the order a review names them and
 * runs them. rb_checkers[id] for each enum rb_checker_id; a set of
 * checkers is a mask of RB_CHECKER_BIT(id), which is what the config
 * reads a policy's "checkers" into and what the review runs.
 */
enum rb_checker_id {
	RB_CHECKER_COMMIT, /* commit-msg */
	RB_CHECKER_CHECKPATCH, /* checkpatch */
	RB_CHECKER_BUILD, /* build, in the sandbox */
	RB_CHECKER_SPARSE, /* sparse: C=1 on the changed objects */
	RB_CHECKER_KDOC, /* kernel-doc on the changed files */
	RB_CHECKER_COCCI, /* scripts/coccinelle, report mode */
	RB_CHECKER_MAINT, /* cc-maintainers */
	RB_CHECKER_EXTERNAL, /* checkers.external_command */
	RB_N_CHECKERS
};
#define RB_CHECKER_BIT(id) (1u << (id))
/* What a policy runs when it names none. */
#define RB_CHECKERS_DEFAULT                  \
	(RB_CHECKER_BIT(RB_CHECKER_COMMIT) | \
	 RB_CHECKER_BIT(RB_CHECKER_CHECKPATCH))

extern const struct rb_checker_ops *const rb_checkers[RB_N_CHECKERS];
extern const size_t rb_n_checkers;

/* The checker named @name, or NULL. */
const struct rb_checker_ops *rb_checker_find(const char *name);

/* The id of the checker named @name, or -1. */
int rb_checker_id(const char *name);

/*
 * "commit-msg, checkpatch, ..., external": every name, for a message
 * that lists what may be named. Static storage.
 */
const char *rb_checker_names(void);

/*
 * Runs the checkers named in @names (a comma-separated list; NULL means
 * "commit-msg,checkpatch", plus "external" when one is configured) on
 * @ctx, at most opts->parallel at once over every call in the process
 * (the light ones aside), each with its own deadline of
 * opts->timeout_seconds. Findings are appended to @out in the order of
 * @names. A checker that fails or times out adds one finding of category
 * "checker-problem" (severity info) and the others go on. Returns 0, or
 * -RB_EINVAL for an unknown checker name, -RB_ENOMEM.
 */
int rb_checks_run(struct rb_findings *out, const struct rb_check_ctx *ctx,
		  const char *names);

/* Same, for the set @set of RB_CHECKER_BIT()s, in registry order. */
int rb_checks_run_set(struct rb_findings *out, const struct rb_check_ctx *ctx,
		      unsigned int set);

/*
 * Opens a repository that reads the base, the applied commits and the
 * tools commit of @ctx: over ctx->apply's store when there is one, else
 * ctx->repo_path. For the calling thread; *out is the caller's
 * (git_repository_free()). 0, -RB_EINVAL (no tree), -RB_EIO.
 */
int rb_check_repo_open(struct git_repository **out,
		       const struct rb_check_ctx *ctx);

/* Milliseconds left before ctx->deadline_ms (at least 1), or @dflt. */
int rb_check_time_left_ms(const struct rb_check_ctx *ctx, int dflt);

/*
 * Prints one finding as a JSON object on one line (checker, version,
 * severity, category, file, line, code, message, patch, fingerprint)
 * into @b. Returns 0 or -RB_ENOMEM / -RB_ETOOBIG.
 */
struct rb_buf;
int rb_finding_to_json(struct rb_buf *b, const struct rb_finding *f);

#endif
