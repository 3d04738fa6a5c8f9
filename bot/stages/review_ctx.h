/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * review_ctx.h - the review of one series, shared by its three files
 * (private to bot/stages): review_stage.c, the order of a review (load,
 * scope, apply, checkers, findings, results); review_model.c, the model
 * step; review_mail.c, the mails (rendered, composed by reply.h, put in
 * the outbox). Each step keeps what it leaves for the others in a group
 * of its own: view (series_view.h), model, summary, mail.
 */
#ifndef RB_BOT_REVIEW_CTX_H
#define RB_BOT_REVIEW_CTX_H

#include <stdbool.h>
#include <stdint.h>
#include <git2.h>

#include "bot/stages/prereq.h"
#include "bot/stages/reply.h"
#include "bot/stages/series_view.h"
#include "review/apply/base.h"
#include "review/checks/rules.h"
#include "review/findings.h"
#include "review/model/model.h"
#include "util/buf.h"
/* v(n+1) of a stored series (issue 18), after the review/ headers. */
#include "bot/stages/versions.h"

#ifndef RB_TEMPLATES_DIR
#define RB_TEMPLATES_DIR "templates"
#endif

/* The interdiff of one part in its prompt (versions.h). */
#define MODEL_INTERDIFF_LINES 200
#define MODEL_INTERDIFF_BYTES (16 * 1024)
/* The admin's notes in one prompt, all sections together (issue 37). */
#define MODEL_NOTES_BYTES 4096
/* The interdiff of one part in the cover's summary: its changed lines. */
#define COVER_INTERDIFF_LINES 8

struct tree {
	const char *name;
	const char *path;
	const char *ref;
	git_repository *repo;
	const struct rb_tree_config *cfg; /* NULL: the command line's */
};

/* One mail to queue, with the findings it shows. */
struct outgoing {
	struct rb_reply_mail mail; /* bot/stages/reply.h */
	const char *kind;
	int patch_idx;
	int words;
	int capped; /* people the recipient cap trimmed */
	bool skip; /* nobody to send it to: not queued */
	size_t *finding_idx; /* indices into the series' findings */
	int *ids; /* their Fn */
	size_t n;
	/* Issue 36: the people ("people": shadow) left off this public
	 * review, for a private copy of it (queue_copies()), and its body;
	 * a copy names the review whose findings it carries. */
	char **private_to;
	size_t n_private;
	bool private_trusted;
	char *body;
	char *copy_of;
	int idx; /* the part it answers */
};

struct series_ctx {
	struct rb_pipeline *p;
	const struct rb_job *job;
	/* The series: row, raws and parts ([0] the cover, NULL missing). */
	struct rb_series_view view;
	struct rb_message *first; /* the first part we have */
	bool *foreign; /* [total + 1]: a part for another project, left out */
	int first_idx; /* its index: 0 the cover, else the first patch */
	int n_parts; /* patches under review: 1..n_parts (a prefix, or all) */
	/* The home policy's rule switches over the defaults (rules.h). */
	struct rb_rule_switch *rule_sw;
	struct rb_rules rules;

	struct tree *trees;
	size_t n_trees;

	struct rb_prereq prereq; /* applied first on every base */
	bool prereq_done; /* resolved (once, before the first apply) */
	int64_t defer_until; /* the job waits until then (a tree's fetch) */
	struct rb_base_report *base;
	const struct tree *base_tree;
	git_oid base_oid, applied_oid;
	bool applied;
	/* The apply's work for this series, over every base and the try
	 * after a fetch (review/apply/apply.h max_work): one budget a run. */
	uint64_t apply_work;

	struct rb_findings findings;
	char **states; /* per finding: raised, suppressed, dropped */
	struct rb_versions versions; /* what changed since v(n) */
	/* What the model step (review_model.c) leaves for the mails. */
	struct {
		struct rb_model_usage *usage; /* [total + 1]: per patch */
		char prompt[13]; /* the prompt set, "" without the model */
		struct rb_buf notes; /* the admin's notes (issue 37) */
		int err; /* what the model stage returned, 0 if it ran */
		struct rb_buf line; /* its status line in the cover */
	} model;
	/* Lines every mail of the series says (add_summary()). */
	struct {
		struct rb_buf buf; /* lines, NUL-separated */
		const char *v[8];
		size_t n;
		bool fixed; /* v holds pointers (rb_review_fix_summary()) */
	} summary;
	/* The mails (review_mail.c), queued by write_results(). */
	struct {
		struct outgoing *out;
		size_t n_out;
	} mail;
	const char *series_state;
	char detail[512];
	const char *job_error; /* the job ends as failed with it, or NULL */
};

/* review_stage.c */
void rb_review_fix_summary(struct series_ctx *c);

/* review_model.c: the model stage, made once per pipeline; run on the
 * applied series (with findings moved into c->findings). */
int rb_review_ensure_model(struct rb_pipeline *p);
int rb_review_run_model(struct series_ctx *c);

/* review_mail.c: each kind of mail rendered and composed into c->mail,
 * the private copies of the public reviews, and one mail queued. */
int rb_review_render_reviews(struct series_ctx *c);
int rb_review_render_apply_failure(struct series_ctx *c);
int rb_review_render_incomplete(struct series_ctx *c);
int rb_review_render_not_reviewed(struct series_ctx *c, int tries);
int rb_review_queue_copies(struct series_ctx *c);
int rb_review_write_outmail(struct series_ctx *c, struct outgoing *o,
			    int64_t now);
const char *rb_review_attempt_name(const struct rb_base_attempt *a);

#endif
