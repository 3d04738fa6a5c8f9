/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * findings.h - the findings model shared by every checker and by the model
 * review. A finding points at new-side code in one patch of a series and
 * carries a fingerprint that survives line shifts between versions, so a
 * verdict given on v2 applies to v3.
 */
#ifndef RB_REVIEW_FINDINGS_H
#define RB_REVIEW_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * How bad a finding is: the one severity of reviewbot, for findings, the
 * policy's min_severity and the config (names in rb_fsev_names).
 */
enum rb_fsev {
	RB_FSEV_INFO,
	RB_FSEV_LOW,
	RB_FSEV_MEDIUM,
	RB_FSEV_HIGH,
	RB_FSEV_CRITICAL
};

struct rb_finding {
	char *checker; /* "checkpatch", "commit-msg", "build", "model" */
	char *checker_version; /* "6.1.192", "1", a model name */
	char *category; /* checkpatch type, "fixes-tag", "use-after-free"... */
	enum rb_fsev severity;
	char *file; /* path in the tree, or NULL for the commit message */
	int line; /* new-side line, 0 when none */
	char *code; /* the quoted code or text, as in the patch; may be NULL */
	char *message; /* what a reviewer would write: a question, plainly */
	int patch_index; /* 1-based index of the patch in the series; 0 cover */
	char fingerprint[17]; /* 16 hex digits, see rb_finding_fingerprint() */
	char prompt[13]; /* the prompt set's version (model), else "" */
	/*
	 * A model finding's reasoning, for the dashboard, never mailed:
	 * why the finder gave its severity, and what the verifier said.
	 * Owned, may be NULL; rb_findings_add() leaves them NULL.
	 */
	char *severity_reason;
	char *verifier_reason;
};

struct rb_findings {
	struct rb_finding *v;
	size_t n;
};

/*
 * What a checker says of one place: the fields of struct rb_finding that
 * it chooses, all borrowed. Give them by name; those left out are NULL
 * or 0 (no version, the commit message, no line, no code, the cover).
 */
struct rb_finding_spec {
	const char *checker; /* required */
	const char *checker_version;
	const char *category; /* required */
	enum rb_fsev severity;
	const char *file;
	int line;
	const char *code;
	const char *message; /* required */
	int patch_index;
};

/*
 * Appends a finding made of @f; its strings are copied, NULL allowed
 * except checker, category and message. Computes the fingerprint.
 * Returns 0 or -RB_ENOMEM.
 */
int rb_findings_add(struct rb_findings *fs, const struct rb_finding_spec *f);
/*
 * Appends a copy of @f as rb_findings_add() would make it (the model's
 * reasons are not copied). Returns 0 or -RB_ENOMEM.
 */
int rb_findings_add_copy(struct rb_findings *fs, const struct rb_finding *f);
void rb_findings_release(struct rb_findings *fs);
/* Frees and removes the findings with @gone[i] set; the order of the
 * others is kept. */
void rb_findings_remove(struct rb_findings *fs, const bool *gone);

/*
 * The fingerprint: the first 16 hex digits of SHA-256 over checker, file,
 * category and the code with whitespace collapsed and numbers that look
 * like line numbers left as they are. Independent of line and patch index.
 */
void rb_finding_fingerprint(const struct rb_finding *f, char out[17]);

/*
 * Post-processing of one series' findings, after every checker ran and
 * before the policy's floor and cap (bot/stages/review_stage.c), so that one
 * problem is said once:
 *
 *  1. rules: findings of rules that are off (review/checks/rules.h, with the
 *     subsystem's switches in @rules) go, unless @all_rules;
 *  2. the same problem twice: a checkpatch report that says what a
 *     commit-msg finding of the same patch says (MISSING_SIGN_OFF and
 *     signed-off-by, NO_AUTHOR_SIGN_OFF and author-signoff, BAD_FIXES_TAG
 *     and fixes-format, ...) goes, the commit-msg one says it plainly;
 *     so does LEADING_SPACE next to CODE_INDENT in the same file;
 *  3. repeated lines: the same complaint in one file of one patch is
 *     one finding, the first, whose message gains "And N more like it:
 *     lines a, b.". For a rule (review/checks/rules.h) the complaint is its
 *     type, anywhere in the file; for other checkers (build, model) it is
 *     the same message on the same line, the next lines (within 3) or
 *     the same quoted code;
 *  4. series nits (subject-length, subject-prefix): those whose
 *     fingerprint is in @seen (raised on an earlier version, so the
 *     title did not change) go, and the rest are one finding for the
 *     series, on the first patch, "And N more like it: patches 3 and 5."
 *
 * Order is kept. Returns 0 or -RB_ENOMEM (then @fs is unchanged or
 * partly processed, and still valid for rb_findings_release()).
 */
struct rb_rules;
struct rb_findings_post {
	const struct rb_rules *rules; /* borrowed; NULL: the defaults */
	bool all_rules; /* keep rules that are off (measurement) */
	/* Fingerprints raised on earlier versions of the series, borrowed. */
	const char *const *seen;
	size_t n_seen;
};
#define RB_FINDINGS_POST_INIT \
	{                     \
		0             \
	}

int rb_findings_postprocess(struct rb_findings *fs,
			    const struct rb_findings_post *o);

/* "info" .. "critical", NULL-terminated, in enum order. */
extern const char *const rb_fsev_names[];
const char *rb_fsev_name(enum rb_fsev s);
/* -1 when unknown. */
int rb_fsev_parse(const char *s);

#endif
