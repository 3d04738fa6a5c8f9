/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_reports.h - the read-only figures of the store (store.h), for
 * `reviewbot stats` (bot/web/stats.c), /metrics (bot/web/metrics.c) and the
 * dashboard pages (bot/web/http.c). Nothing here writes.
 *
 * Rows come through callbacks; their strings are borrowed for the call
 * only (copy what you keep), and may be NULL where the column is. A
 * callback returns 0 to go on, 1 to stop early (not an error), or a
 * negative error, which the walk returns.
 *
 * A finding's verdict is the latest authorised one given on it (by its
 * review's Message-ID and its Fn); "valid" and "fixed" both count as
 * valid, "false_positive" as not.
 */
#ifndef RB_BOT_STORE_REPORTS_H
#define RB_BOT_STORE_REPORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_store;

/* --- reviewbot stats --- */

enum rb_report_count {
	RB_COUNT_MESSAGES, /* messages by state */
	RB_COUNT_SERIES, /* series by state */
	RB_COUNT_MAILS, /* our mails (reviews) by kind */
	RB_COUNT_OUTBOX, /* the outbox by state */
	RB_COUNT_FINDINGS, /* findings by state */
};

/* @key is "" for NULL and "?" for a key that is not text. */
typedef int (*rb_report_count_fn)(const char *key, int64_t n, void *payload);
/* Calls @fn for each (key, count) of @what, by key. */
int rb_store_report_counts(struct rb_store *st, enum rb_report_count what,
			   rb_report_count_fn fn, void *payload);

/* Raised findings: how many, how many were judged, how many valid. */
struct rb_report_precision {
	int64_t raised, judged, valid;
};

enum rb_report_group {
	RB_GROUP_CHECKER,
	RB_GROUP_CATEGORY,
	RB_GROUP_SUBSYSTEM, /* of the review's policy */
	RB_GROUP_MODEL, /* the model's name; "" for other checkers */
	RB_GROUP_RULE, /* "checker/category" */
	RB_GROUP_PROMPT, /* the prompt set's version; "" for other checkers */
};

/* Over every raised finding. */
int rb_store_report_precision(struct rb_store *st,
			      struct rb_report_precision *out);
/* The same by @group, each group once ("" for none), by name. */
int rb_store_report_precision_by(struct rb_store *st,
				 enum rb_report_group group,
				 int (*fn)(const char *group,
					   const struct rb_report_precision *p,
					   void *payload),
				 void *payload);

/* Reviews with a judged finding, and those none of whose judged findings
 * was a false positive. */
int rb_store_report_review_precision(struct rb_store *st, int64_t *judged,
				     int64_t *precise);

/* The review mails (kind "review"). */
struct rb_report_mails {
	int64_t count;
	int64_t words; /* of commentary, summed */
	int64_t latency_sum, latency_max; /* seconds from the last patch */
	int64_t tokens_in, tokens_out;
	int64_t cost_micro; /* micro-dollars */
};
int rb_store_report_mails(struct rb_store *st, struct rb_report_mails *out);
/* Each review mail's latency in seconds, oldest review first. */
int rb_store_report_latencies(struct rb_store *st,
			      int (*fn)(int64_t seconds, void *payload),
			      void *payload);
/* Mails whose recipients max_recipients trimmed, and the people trimmed. */
int rb_store_report_capped(struct rb_store *st, int64_t *mails,
			   int64_t *people);
/* Series that applied on no base, among those that reached a base. */
int rb_store_report_apply_failures(struct rb_store *st, int64_t *failed,
				   int64_t *attempted);

/* --- reviewbot run --once: the closing summary --- */

enum rb_report_summary {
	/* (state, why, n, 0): series by state; why sorts "skipped" out
	 * ("not for these trees", "policy off", "stable review",
	 * "skip_authors") and is "" otherwise */
	RB_SUM_SERIES,
	/* (state, job kind, n, first due): series still waiting
	 * ("waiting": parts missing, job "incomplete"; "apply_waiting": a
	 * tree's next fetch, job "review") and when the first goes on */
	RB_SUM_WAITING,
	/* (state, why, n, last due): mail not sent yet ("held": embargo;
	 * "queued" with a reason: a rate limit or a failed try) */
	RB_SUM_UNSENT,
	/* (kind, state, n, 0): our mails by kind and outbox state */
	RB_SUM_MAILS,
};

typedef int (*rb_report_summary_fn)(const char *a, const char *b, int64_t n,
				    int64_t when, void *payload);
/* Calls @fn for each row of @what, in order. */
int rb_store_report_summary(struct rb_store *st, enum rb_report_summary what,
			    rb_report_summary_fn fn, void *payload);

/* --- /metrics --- */

/* One row of table workers. */
struct rb_report_worker {
	const char *name, *role, *host, *state;
	int64_t claimed, done, failed, lease_expiries;
	int64_t seen_at;
};
/* Calls @fn for each known worker, by name. */
int rb_store_report_workers(struct rb_store *st,
			    int (*fn)(const struct rb_report_worker *w,
				      void *payload),
			    void *payload);
/* Calls @fn for the number of jobs of each (kind, state), by kind and
 * state. */
int rb_store_report_jobs(struct rb_store *st,
			 int (*fn)(const char *kind, const char *state,
				   int64_t n, void *payload),
			 void *payload);

/* --- the dashboard --- */

/* A series as the pages show it. */
struct rb_report_series {
	const char *id, *title, *author;
	int64_t version;
	const char *state, *detail; /* detail: for one series only */
	const char *base_name, *base_commit; /* where it applied, or NULL */
	const char *subsystem;
	int64_t updated_at;
	int64_t sent; /* its mails sent */
	int64_t findings; /* raised findings with an Fn: for the list only */
	/* When the series arrived: its newest part's Date:, but never later
	 * than when the store first saw it (a forged Date: cannot pin a
	 * series to the top of the list). */
	int64_t date;
	const char *mode; /* the policy mode of its mails, or NULL */
	const char *previous; /* the previous version's id: one series only */
	const char *applied_commit; /* one series only */
};

/*
 * The dashboard's filter of the series list; NULL or "" means any. @q
 * matches a title or author substring (case-insensitive) or a
 * Message-ID of the series (with or without <>); @section the policy
 * name the series was decided by (series.subsystem: the home MAINTAINERS
 * section, else the list or "default"); @state a series state; @mode a
 * policy mode of its mails.
 */
/*
 * Reports as the public may see them (the dashboard's http.public): no
 * series that had a shadow review; of a series, only the mails sent and
 * not shadow, and only the findings of those mails. Held mail (an
 * embargo, a rate limit) and shadow reviews stay private.
 */
void rb_store_report_public(struct rb_store *st, bool on);

struct rb_report_filter {
	const char *q, *section, *state, *mode;
	bool has_findings; /* only series with a raised finding in a mail */
	bool public_only; /* set from the store's public view */
	int64_t offset, limit;
};
#define RB_REPORT_FILTER_INIT \
	{                     \
		.limit = 50   \
	}

/* The series that pass @f, newest (rb_report_series.date) first,
 * @f->limit from @f->offset; *total gets how many pass. */
int rb_store_report_series_page(
	struct rb_store *st, const struct rb_report_filter *f, int64_t *total,
	int (*fn)(const struct rb_report_series *s, void *payload),
	void *payload);
/* Each value of series.subsystem with its number of series, by name. */
int rb_store_report_sections(struct rb_store *st, rb_report_count_fn fn,
			     void *payload);
/* The later versions of series @id (those naming it as previous). */
int rb_store_report_next_versions(struct rb_store *st, const char *id,
				  int (*fn)(const char *id, int64_t version,
					    void *payload),
				  void *payload);

struct rb_report_patch {
	int64_t idx; /* 0: the cover letter */
	const char *message_id, *subject; /* subject NULL: not stored */
	int64_t date, received_at;
};
/* Series @id's parts, by index. */
int rb_store_report_patches(struct rb_store *st, const char *id,
			    int (*fn)(const struct rb_report_patch *p,
				      void *payload),
			    void *payload);

/*
 * Each mail the bot sent, oldest first: seconds from the receipt of its
 * series' newest part (messages.received_at: when the store took it, not
 * its Date:) to the mail leaving the outbox (sent_at).
 */
int rb_store_report_send_latencies(struct rb_store *st,
				   int (*fn)(int64_t seconds, void *payload),
				   void *payload);
/* Mails the bot wrote, by the day (days since the epoch) their series
 * arrived (rb_report_series.date), oldest first. */
int rb_store_report_mails_by_series_day(struct rb_store *st,
					int (*fn)(int64_t day, int64_t n,
						  void *payload),
					void *payload);
/* Series @id: @fn is called once, or not at all when there is none. */
int rb_store_report_series(struct rb_store *st, const char *id,
			   int (*fn)(const struct rb_report_series *s,
				     void *payload),
			   void *payload);

struct rb_report_attempt {
	const char *base_name, *base_commit;
	int64_t ok;
	int64_t failed_patch;
	const char *failed_file;
	int64_t failed_hunk;
	const char *reason;
};
/* Series @id's apply attempts, in order. */
int rb_store_report_attempts(struct rb_store *st, const char *id,
			     int (*fn)(const struct rb_report_attempt *a,
				       void *payload),
			     void *payload);

struct rb_report_finding {
	const char *fid; /* "-" when not in a mail */
	const char *checker, *category, *severity;
	const char *file; /* NULL: the commit message */
	int64_t line;
	const char *state, *message;
	const char *code; /* the quoted code, or NULL */
	int64_t patch_idx;
	/*
	 * What became of a raised finding in a mail: "false_positive",
	 * "valid" or "fixed" (its latest authorised verdict), else
	 * "fixed_later" when a later version changed or removed its line
	 * (findings.outcome, bot/store/store_versions.h), else "open"; NULL for
	 * findings that never reached a mail.
	 */
	const char *outcome;
	int64_t fixed_version; /* the version that fixed it, or 0 */
	/* A model finding's why: the finder's severity reasoning and the
	 * verifier's reason (review/findings.h), or NULL. */
	const char *severity_reason, *verifier_reason;
	/* A reply in the thread had quoted its line (issue 37): "reviewer",
	 * "bot", or NULL. */
	const char *quoted;
};
/* Series @id's findings, mail by mail. */
int rb_store_report_findings(struct rb_store *st, const char *id,
			     int (*fn)(const struct rb_report_finding *f,
				       void *payload),
			     void *payload);

struct rb_report_verdict {
	const char *fid, *verdict, *judge;
	int64_t authorised;
	const char *reason;
	int64_t created_at;
	/* Issue 37: the reply's own words about the finding, or NULL; 0 an
	 * explicit verdict, 1 guessed from prose and awaiting an admin, 2
	 * confirmed, 3 rejected; its id (for reviewbot verdicts/notes). */
	const char *comment;
	int64_t proposed, id;
};
/* The verdicts on series @id's mails, oldest first. */
int rb_store_report_verdicts(struct rb_store *st, const char *id,
			     int (*fn)(const struct rb_report_verdict *v,
				       void *payload),
			     void *payload);

struct rb_report_mail {
	const char *message_id, *kind;
	int64_t patch_idx, words, findings, created_at;
	const char *state; /* in the outbox, or NULL */
	const char *bytes; /* as sent, or NULL */
	size_t len;
};
/* Series @id's mails, oldest first. */
int rb_store_report_mails_of(struct rb_store *st, const char *id,
			     int (*fn)(const struct rb_report_mail *m,
				       void *payload),
			     void *payload);

/*
 * Precision over time: the first and last day (days since the epoch)
 * an authorised verdict was given on a finding (0 and 0 when none), and
 * per subsystem and day, the verdicts given and how many were valid.
 */
int rb_store_report_verdict_days(struct rb_store *st, int64_t *first,
				 int64_t *last);
int rb_store_report_precision_days(struct rb_store *st,
				   int (*fn)(const char *subsystem, int64_t day,
					     int64_t judged, int64_t valid,
					     void *payload),
				   void *payload);

#endif
