/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_plan.h - which finder passes a patch gets: the focuses that have
 * something to look at, and why the others were left out. A pure
 * function of the diff and the commit message, so the same patch gets
 * the same passes every time (replay and the mails stay byte-identical).
 */
#ifndef RB_REVIEW_MODEL_PLAN_H
#define RB_REVIEW_MODEL_PLAN_H

#include <stddef.h>

struct rb_diff;

#define RB_MODEL_PLAN_MAX 8 /* focuses a plan holds */

struct rb_model_plan {
	/*
	 * The passes to run, in the order of the focuses asked for; a NULL
	 * entry is the one pass without a focus (no focuses configured).
	 */
	const char *run[RB_MODEL_PLAN_MAX];
	size_t n_run;
	/* The focuses left out ("review" for the pass without one), why. */
	const char *skipped[RB_MODEL_PLAN_MAX];
	const char *why[RB_MODEL_PLAN_MAX];
	size_t n_skipped;
	/* What the patch changes: "code", "documentation", "selftests". */
	const char *kind;
};

/*
 * Plans the finder passes of patch @d over @focuses[0..@n) (NULL: one
 * pass without a focus; at most RB_MODEL_PLAN_MAX are looked at). The
 * rules, on the paths the patch changes and the words of its hunks (the
 * changed lines, their context and the hunk headers):
 *  - documentation only (Documentation/, *.rst, *.txt, *.md, README,
 *    MAINTAINERS, LICENSES/, ...) or binary files only: no pass at all;
 *  - selftests only (tools/testing/, with or without documentation): the
 *    correctness pass alone;
 *  - locking: only when a hunk names a lock, atomic, RCU, per-CPU or
 *    memory-ordering primitive (spin_lock, mutex_, rcu_, atomic_,
 *    this_cpu_, READ_ONCE, smp_mb, ...);
 *  - api: only when the patch touches a uapi header or a hunk names an
 *    ioctl, a system call, sysfs, procfs, netlink, a module parameter,
 *    user memory (__user, copy_to_user) or an exported symbol;
 *  - memory: only when C, assembly or Rust code changes;
 *  - claims: only when the commit message says something besides its
 *    trailers (@commit_msg may be NULL).
 * Focuses the rules do not name always run on code.
 */
void rb_model_plan_focuses(struct rb_model_plan *out, const struct rb_diff *d,
			   const char *commit_msg, const char *const *focuses,
			   size_t n);

#endif
