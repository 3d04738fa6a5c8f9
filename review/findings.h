/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * findings.h - the findings model shared by every checker and by the model
 * review. A finding points at new-side code in one patch of a series and
 * carries a fingerprint that survives line shifts between versions, so a
 * verdict given on v2 applies to v3.
 */
#ifndef RB_REVIEW_FINDINGS_H
#define RB_REVIEW_FINDINGS_H

#include <stddef.h>

/* Same order and names as enum rb_severity in bot/config.h. */
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
};

struct rb_findings {
	struct rb_finding *v;
	size_t n;
};

/*
 * Appends a finding; strings are copied, NULL allowed except checker,
 * category and message. Computes the fingerprint. Returns 0 or -RB_ENOMEM.
 */
int rb_findings_add(struct rb_findings *fs, const char *checker,
		    const char *checker_version, const char *category,
		    enum rb_fsev sev, const char *file, int line,
		    const char *code, const char *message, int patch_index);
void rb_findings_release(struct rb_findings *fs);

/*
 * The fingerprint: the first 16 hex digits of SHA-256 over checker, file,
 * category and the code with whitespace collapsed and numbers that look
 * like line numbers left as they are. Independent of line and patch index.
 */
void rb_finding_fingerprint(const struct rb_finding *f, char out[17]);

const char *rb_fsev_name(enum rb_fsev s);
/* -1 when unknown. */
int rb_fsev_parse(const char *s);

#endif
