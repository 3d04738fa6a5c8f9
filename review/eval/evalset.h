/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * evalset.h - the evaluation set of "reviewbot eval": known bugs found in
 * real list mail, and the rule that scores a finding against them.
 *
 * A patch mail whose Fixes: trailer quotes the subject of an earlier
 * patch mail of the same archive says that earlier patch had a bug. The
 * fix's diff says where: the lines it removed, or the lines around what
 * it inserted, found again in the buggy patch's new side, and the
 * functions its hunks are in. A finding on the buggy patch is a hit when
 * it names one of those files and lands within RB_EVAL_NEAR lines of one
 * of those lines, or inside one of those functions.
 *
 * How pairs are chosen, and which are left out and why, is in
 * docs/EVAL.md; every exclusion is kept in the set with its reason.
 */
#ifndef RB_REVIEW_EVALSET_H
#define RB_REVIEW_EVALSET_H

#include <stdbool.h>
#include <stddef.h>

struct rb_diff;
struct rb_finding;

#define RB_EVAL_NEAR 3 /* lines a finding may sit from a changed line */
#define RB_EVAL_SET_VERSION 1

/* One file of the buggy patch that the fix changed. */
struct rb_eval_changed {
	char *file; /* the path as the buggy patch names it */
	int *lines; /* new-side lines of the buggy patch, ascending */
	size_t n_lines;
	char **functions; /* functions the fix changed, that the patch has */
	size_t n_functions;
	/* A labelled set's: the finding's category must be one of these;
	 * none (the builder's sets): any category. */
	char **categories;
	size_t n_categories;
};

struct rb_eval_pair {
	int id; /* 1-based, in the order of the fixes in the archive */
	/* The buggy patch, with the context the pipeline gives the model. */
	char *buggy_msgid;
	char *buggy_subject;
	int buggy_version;
	int n_versions; /* patch mails with its subject before the fix */
	char *cover_title; /* or NULL */
	char **subjects; /* its series' titles by index; [index - 1] is it */
	size_t n_subjects;
	int index; /* 1-based index in the series (1 for a single patch) */
	char *commit_msg;
	char *patch;
	char *cover_body; /* the cover letter's body, or NULL */
	char *changelog; /* its notes after "---" ("v2: ..."), or NULL */
	/* Every part of its series as the review stage gives them: commit
	 * message, "---", diff; "" where the archive lacks a part.
	 * [n_subjects], or NULL. */
	char **series_patches;
	char **subsystems; /* MAINTAINERS sections, given by a labelled set */
	size_t n_subsystems;
	/* The fix. */
	char *fix_msgid;
	char *fix_subject;
	char *fixes; /* the Fixes: value as written */
	char *fix_patch; /* its diff */
	/* Each may be NULL (a set written before they were kept). */
	char *fix_commit_msg; /* the fix's commit message */
	char *buggy_from, *fix_from; /* "Name <addr>" of each mail's From: */
	struct rb_eval_changed *changed; /* none: a clean patch */
	size_t n_changed;
};

struct rb_eval_excluded {
	char *fix_msgid;
	char *fix_subject;
	char *named; /* the subject the Fixes: line quotes */
	char *reason;
};

struct rb_eval_set {
	char *source; /* the archive's file name */
	/* What the archive held. */
	size_t messages, patch_mails, fixes_trailers, fixes_named;
	struct rb_eval_pair *pairs;
	size_t n_pairs;
	struct rb_eval_excluded *excluded;
	size_t n_excluded;
};

/*
 * Builds the set from the archive at @path (mbox, .xz mbox, Maildir; see
 * mail/mbox.h), reading it twice. 0, -RB_ENOTFOUND / -RB_EIO for the
 * archive, -RB_ENOMEM.
 */
int rb_eval_build(struct rb_eval_set *out, const char *path);

/* The set as JSON (pairs with everything above, and the exclusions). */
int rb_eval_set_save(const struct rb_eval_set *s, const char *path);
/*
 * Reads a set saved by rb_eval_set_save(), or written by hand: a pair's
 * "buggy" may give "mail", a patch mail file (relative to the set's
 * directory) instead of "commit_msg" and "patch", and "subsystems"; a
 * "changed" entry may give "categories"; "changed" may be empty (a clean
 * patch: every finding on it is a miss). -RB_EPARSE naming the field.
 */
int rb_eval_set_load(struct rb_eval_set *out, const char *path);
void rb_eval_set_release(struct rb_eval_set *s);

/*
 * Where fix @fix landed in buggy patch @buggy (both parsed): appends to
 * @p->changed each file of @buggy the fix changed, with the lines and
 * functions (evalset.c says how). *touched when the fix changes any file
 * of @buggy at all. 0 or -RB_ENOMEM. For the builder and the fuzzer.
 */
int rb_eval_locate(struct rb_eval_pair *p, const struct rb_diff *fix,
		   const struct rb_diff *buggy, bool *touched);
/* Frees what @p holds and zeroes it. */
void rb_eval_pair_release(struct rb_eval_pair *p);

/*
 * The function around new-side line @line of @file in the diff @d: the
 * nearest function definition above it in its hunk, else the function the
 * hunk header names. NULL when none is known. Returned in @buf.
 */
const char *rb_eval_function_at(const struct rb_diff *d, const char *file,
				int line, char *buf, size_t size);

/*
 * Add @x to the @n ints of *@v unless it is there already: at the end, or
 * where it keeps them ascending when @sorted.
 */
int rb_eval_int_add(int **v, size_t *n, int x, bool sorted);

/* Add a copy of @name to @c's functions unless it is there already. */
int rb_eval_add_function(struct rb_eval_changed *c, const char *name);

/*
 * Does the C line @text (@len bytes, no newline) open a function
 * definition: at column 0, an identifier first, a "(" with no ";" or "="
 * before it, not ending in ";"? Its name into @buf (for SYSCALL_DEFINEn,
 * the system call's name).
 */
bool rb_eval_def_name(const char *text, size_t len, char *buf, size_t size);

/*
 * Is @f (a finding on @p's buggy patch, parsed in @d) a hit? @how gets
 * "line N" or "function F" (a static or @buf string), or NULL.
 */
bool rb_eval_hit(const struct rb_eval_pair *p, const struct rb_diff *d,
		 const struct rb_finding *f, char *how, size_t how_size);

/* ---- hand labels and the strict scorer ---- */

/*
 * A finding a hand label accepts beside those the rule does: in @file,
 * in @function (when given) or quoting @code (when given), with one of
 * @categories (none: any).
 */
struct rb_eval_accept {
	char *file;
	char *function; /* or NULL */
	char *code; /* a substring of the finding's quoted code, or NULL */
	char **categories;
	size_t n_categories;
};

/* What a person said about one pair, found by the fix's Message-ID. */
struct rb_eval_label {
	char *fix_msgid;
	char **categories; /* the categories that fit the bug; none: any */
	size_t n_categories;
	int mm; /* 1: an mm bug, 0: not, -1: not said (then by its paths) */
	struct rb_eval_accept *accept;
	size_t n_accept;
};

struct rb_eval_labels {
	struct rb_eval_label *v;
	size_t n;
};

/*
 * Reads the "labels" array of a JSON file (tests/data/eval/labelled.json:
 * [{"fix_message_id", "categories", "mm", "accept": [{"file",
 * "function", "code", "categories"}]}]). A file without one gives no
 * labels. -RB_EPARSE naming the field (or the file, when it cannot be
 * read or is not JSON), -RB_ENOMEM.
 */
int rb_eval_labels_load(struct rb_eval_labels *out, const char *path);
void rb_eval_labels_release(struct rb_eval_labels *l);
/* The label of @p, or NULL. */
const struct rb_eval_label *rb_eval_label_of(const struct rb_eval_labels *l,
					     const struct rb_eval_pair *p);

/*
 * Is @p an mm bug? The label says, else: a file it changed is under mm/
 * or include/linux/mm*, or its subsystems name MEMORY MANAGEMENT.
 */
bool rb_eval_pair_is_mm(const struct rb_eval_pair *p,
			const struct rb_eval_label *lab);

/*
 * The strict scorer: @f is a hit when it names a file of @changed and
 * lands within RB_EVAL_NEAR lines of one of its lines, with a category
 * that fits the bug (one of the entry's categories and the label's; none
 * given: any), or when @lab accepts it (@fn: the function around the
 * finding's line, or NULL). Findings on the commit message never hit.
 * @how gets "line N", "label" or "".
 */
bool rb_eval_hit_strict(const struct rb_eval_changed *changed, size_t n,
			const struct rb_eval_label *lab,
			const struct rb_finding *f, const char *fn, char *how,
			size_t how_size);

/* Line @line (from 1) of @text (@len bytes) and its length in *n, or
 * NULL past the end. */
const char *rb_eval_line_at(const char *text, size_t len, int line, size_t *n);

/* Trimmed [*s, *s + *n); false when it has fewer than 3 word characters,
 * like "}" or "break;", which are everywhere. */
bool rb_eval_telling(const char **s, size_t *n);

/* Does @cat fit the bug: in the entry's and the label's lists (if any)? */
bool rb_eval_category_fits(const struct rb_eval_changed *c,
			   const struct rb_eval_label *lab, const char *cat);

#endif
