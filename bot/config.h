/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config.h - the validated configuration, loaded from YAML with libyaml.
 * config.yaml at the top of the project is the commented reference of
 * every key, its values the embedded defaults (tests/test_config.c). An unknown key, a wrong type or a bad value is
 * reported as "FILE:LINE:COL: <key path>: message"; all errors are
 * collected, not only the first. Secrets come only from *_file or *_env keys; the config keeps
 * the secret's value in memory but never logs or prints it.
 */
#ifndef RB_BOT_CONFIG_H
#define RB_BOT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "mail/mode.h"
#include "mail/sender_smtp.h"
#include "review/checks/checks.h"
#include "review/model/model_provider.h"
#include "review/findings.h"

/* Where a value stood in the config file: 1-based; 0 when not known. */
struct rb_config_pos {
	int line, col;
};

enum rb_source_type {
	RB_SRC_IMAP,
	RB_SRC_NNTP,
	RB_SRC_MBOX,
	RB_SRC_MAILDIR,
	RB_SRC_EML,
	RB_SRC_STDIN
};

struct rb_source_config {
	enum rb_source_type type;
	char *name; /* defaults to "<type><index>" */
	char *url; /* imap://, imaps://, nntp://, nntps:// */
	char *user;
	char *password; /* read from password_file; never logged */
	char **mailboxes; /* IMAP */
	size_t n_mailboxes;
	char **groups; /* NNTP */
	size_t n_groups;
	char *path; /* mbox, maildir, eml */
	bool tls_verify; /* default true */
	bool starttls; /* "required" (true, default) or "off" */
	char *ca_file;
	int poll_seconds; /* default 300 */
	/* NNTP: on first contact read the whole group ("start: all"), or
	 * only what arrives from now on ("start: new", the default), so that
	 * subscribing to a lore group does not review years of archive. */
	bool start_all;
	struct rb_config_pos pos, path_pos; /* the entry, its path */
};

struct rb_tree_config {
	char *name; /* "mm-unstable", "linux-next", "mainline" */
	char *path; /* a local git repository */
	char *url; /* where to fetch it from, or NULL */
	char *branch; /* the ref to review on; default HEAD */
	int fetch_minutes; /* default 60; 0: never fetch */
	int fetch_timeout_seconds; /* one fetch at most; default 300 */
	struct rb_config_pos pos, path_pos, branch_pos;
};

/* What an incomplete series gets after its wait (policy "incomplete"),
 * from the one that sends the least. */
enum rb_incomplete {
	RB_INC_IGNORE, /* nothing */
	RB_INC_NOTIFY, /* a notice to the author naming the missing parts */
	RB_INC_REVIEW_PREFIX, /* a review of the parts before the first gap */
};

/* Who is told that a series applies nowhere (policy
 * "report_apply_failures"), from the one that sends the least. */
enum rb_apply_notice {
	RB_AF_OFF, /* nobody: the dashboard shows it */
	RB_AF_ADMINS, /* the admins (the default): the trees are theirs */
	RB_AF_AUTHOR, /* the poster too: a section that opted in */
};

/* Who gets a section's shadow mail (policy "shadow_to", issue 36). */
enum rb_shadow_to {
	RB_SHADOW_ADMINS, /* the admins (the default) */
	RB_SHADOW_MAINTAINERS, /* the home section's M: and R: people */
};

/* What mail a person gets (top-level "people", issue 36), from the
 * most to the least. */
enum rb_person_mail {
	RB_PERSON_ALL, /* as MAINTAINERS and the policy say (the default) */
	RB_PERSON_SHADOW, /* never on a public mail; a private copy instead */
	RB_PERSON_NONE, /* never on any mail */
};

enum rb_recipient {
	RB_RCPT_AUTHOR = 1 << 0,
	RB_RCPT_MAINTAINERS = 1 << 1,
	RB_RCPT_LIST = 1 << 2,
};

/* What a finding on a line someone already quoted gets (policy
 * "already_quoted"), from the one that sends the least. */
enum rb_already_quoted {
	RB_AQ_DROP, /* not said again */
	RB_AQ_MARK, /* said, marked as also raised */
};

struct rb_policy {
	char *name; /* "default" or a MAINTAINERS section name or a list id */
	enum rb_mode mode;
	char **bases; /* tree names, in order */
	size_t n_bases;
	unsigned recipients; /* enum rb_recipient bits */
	int embargo_minutes;
	enum rb_fsev min_severity; /* review/findings.h */
	int max_findings; /* per patch */
	bool send_when_empty;
	/* who gets the apply-failure notice; default RB_AF_ADMINS */
	enum rb_apply_notice report_apply_failures;
	char **skip_authors;
	size_t n_skip_authors;
	char **checkpatch_ignore; /* checkpatch types to drop */
	size_t n_checkpatch_ignore;
	/* The checkers the review runs, RB_CHECKER_BIT()s of the registry
	 * (review/checks/checks.h); default RB_CHECKERS_DEFAULT, commit-msg
	 * and checkpatch (the rest opt-in). */
	unsigned int checkers;
	/* The section's build: its config target (replaces checkers.
	 * build_config; "i386_defconfig" for a 32-bit build) and options
	 * added after checkers.build_options ("TRANSPARENT_HUGEPAGE=n"). */
	char *build_config;
	char **build_options;
	size_t n_build_options;
	enum rb_incomplete incomplete; /* default review-prefix */
	/* Rule switches (review/checks/rules.h), in order: rule_names[i] is on
	 * when rule_on[i]; NULL: the shipped defaults. */
	char **rule_names;
	bool *rule_on;
	size_t n_rules;
	char *blocking_text; /* what "blocking" means for this subsystem */
	int suppress_similar; /* N rejected like it: suppress; 0 = off */
	bool require_dkim; /* verdict replies must pass DKIM */
	/* A finding on a line a reply in the thread had quoted (issue 37):
	 * dropped (the default), or kept and marked as also raised. */
	enum rb_already_quoted already_quoted;
	char *templates_dir; /* per-subsystem template overrides, or NULL */
	/* Issue 36, sub-maintainers decide: */
	enum rb_shadow_to shadow_to; /* who gets shadow mail */
	char **cc; /* a static Cc of every public review and forward */
	size_t n_cc;
	/* Subject prefixes ("RFC", "mm-hotfixes"), each with the mode a
	 * series whose subject tags hold it gets; the first that matches. */
	char **prefix_tags;
	enum rb_mode *prefix_modes;
	size_t n_prefixes;
	struct rb_config_pos pos; /* its key under policy.subsystems */
};

/* One entry of the top-level "people" map. */
struct rb_person {
	char *addr; /* bare */
	enum rb_person_mail mail;
};

/*
 * model.tools: the read-only tools the model may call (review/
 * model_tools.h), with their limits per pass, the verifier's reserve per
 * patch and the totals per series (docs/MODEL-TOOLS.md).
 */
struct rb_model_tools_config {
	/* default: on for openai and anthropic, off for command, whose
	 * program must speak the JSON protocol first */
	bool enabled;
	bool enabled_set; /* the config said enabled: */
	int max_calls; /* tool calls per finder pass, default 12 */
	int max_bytes; /* bytes returned per finder pass, default 96 KiB */
	int verifier_calls; /* the verifier's reserve per patch, default 16 */
	int verifier_bytes; /* its bytes, default 128 KiB */
	int series_calls; /* every pass of a series, default 300 */
	int series_bytes; /* their bytes, default 6 MiB */
	int max_result; /* bytes of one result, default 16 KiB */
	int max_seconds; /* wall time per pass, default 300 */
	int max_rounds; /* tool turns per request, default 12 */
	int max_tokens; /* tokens of one request's loop; 0: no limit */
};

struct rb_model_config {
	/*
	 * model.*: the model's own options (review/model/model_provider.h),
	 * its defaults RB_MODEL_OPTS_INIT, filled in place. The config owns
	 * the strings in it (provider, url, name, api_key, command,
	 * max_tokens_field); api_key comes from api_key_env or
	 * api_key_file and is never logged. blind_focuses is read into its
	 * bits. The bot sets the rest (record_dir, replay_dir, tools and
	 * their limits, from tools below: bot/stages/model_setup.c).
	 */
	struct rb_model_opts opts;
	struct rb_model_tools_config tools;
	/* The finder's focuses, one call each (review/model/model.h); none: all */
	char **focuses;
	size_t n_focuses;
	/* The code index's files (review/code/code_index.h); NULL: the default */
	char *index_dir;
};

struct rb_config {
	char *file; /* the path loaded, or NULL for the embedded defaults */

	char *store_path; /* SQLite; default ./reviewbot.db */
	char *store_url; /* postgresql://..., or NULL */

	struct rb_source_config *sources;
	size_t n_sources;
	struct rb_tree_config *trees;
	size_t n_trees;

	/*
	 * smtp.*: the SMTP sender's options (mail/sender_smtp.h), its
	 * defaults RB_SMTP_OPTS_INIT, filled in place; the config owns the
	 * strings (url: NULL writes to the Maildir outbox; password from
	 * password_file, never logged).
	 */
	struct rb_smtp_opts smtp;
	char *smtp_from; /* also used as From: in the Maildir outbox */
	char *outbox_maildir; /* default ./outbox */
	char *kill_switch_file; /* sending stops while this file exists */
	int rate_per_hour; /* global send limit, default 60 */
	/* default 10: each person a poster chose (the author, the patch's
	 * own To/Cc; bot/stages/outbox.c), not maintainers or lists */
	int rate_per_recipient_hour;
	int rate_per_list_hour; /* each mailing list, default 60 */
	int max_recipients; /* people; default 20 */
	int max_lists; /* mailing lists on one mail; default 10 */

	struct rb_model_config model;

	struct rb_policy policy_default;
	struct rb_policy *policies; /* policy.subsystems.<name> */
	size_t n_policies;

	char **admins;
	size_t n_admins;
	/* people: who asked for less mail (issue 36); others get all */
	struct rb_person *people;
	size_t n_people;
	char **list_ids; /* the List-Id allow-list; empty: accept all */
	size_t n_list_ids;
	char **known_bots; /* sender addresses never reacted to */
	size_t n_known_bots;
	char *http_listen; /* default 127.0.0.1:8080; NULL: off */
	/* http.thread_url: where the dashboard links a thread, the
	 * Message-ID appended URL-escaped; a link only, never fetched. */
	char *http_thread_url; /* default https://lore.kernel.org/r/ */
	bool http_public; /* hide shadow reviews and held mail (http.h) */
	/* bot/stages/retention.h; 0: kept for ever (the default) */
	int retention_raw_days, retention_exchanges_days;
	/* policy.resolve: whose policy a series gets (bot/stages/scope.h). */
	bool policy_strictest; /* "strictest": every touched section's */
	/* policy.catch_all: sections that never decide; NULL: the built-in
	 * list (THE REST, generic headers, selftests, documentation). */
	char **catch_all;
	size_t n_catch_all;

	size_t max_message_size; /* default 4 MiB (RB_MSG_DEFAULT_MAX) */
	/* The apply's budgets for one series (review/apply/apply.h): bytes of
	 * the blobs it makes (default 128 MiB), lines of a file it reads
	 * (default 2,000,000) and its time, in seconds of one core counted
	 * as work units (default 4). */
	size_t max_apply_bytes;
	int max_file_lines;
	double apply_seconds;
	/* A job whose worker died this many times while it ran (a crash,
	 * an OOM kill, a lease run out) is quarantined: its series gets one
	 * "could not be reviewed" notice and the queue moves on (default 3). */
	int max_job_attempts;
	int incomplete_wait_minutes; /* default 60 */
	/* A public-inbox inbox to fetch a series' missing parts from before
	 * any "incomplete" notice (https://lore.kernel.org/all/), or NULL. */
	char *fetch_url;
	int fetch_timeout_seconds; /* default 30 */
	bool review_stable; /* review stable review series; default false */
	bool ack_verdicts; /* default false */
	bool reply_to_cover; /* one summary reply to the cover letter */
	/* review.earlier_replies: list in v(n+1)'s review the lines a
	 * reply on v(n) commented on that v(n+1) keeps; default true */
	bool earlier_replies;
	/* feedback.prose_model: a prose answer the phrases leave unclear is
	 * classified by the model (recorded and replayable); default false */
	bool prose_model;
	/* review.apply_retry_minutes: how long a series that applies
	 * nowhere waits, after the trees were fetched, before its
	 * apply-failure notice is sent; -1 (the default): one more fetch
	 * cycle, the longest fetch_minutes of the fetchable trees tried. */
	int apply_retry_minutes;
	/* review.parallel_series: series "reviewbot run" reviews at once,
	 * each on a thread with its own store connection and repositories;
	 * the model's requests (model.concurrency) and the checkers
	 * (checkers.parallel) keep their own limits over all of them.
	 * Default 4, 1..64. */
	int parallel_series;
	/*
	 * checkers.*: the runner's options (review/checks/checks.h), its
	 * defaults RB_CHECK_OPTS_INIT, filled in place. The config owns
	 * the strings and lists in it (build_config, build_options,
	 * build_cache_dir, external_cmd, external_name); the policy's
	 * fields (checkpatch_ignore, section_*) are the review's to set.
	 */
	struct rb_check_opts check;
};

/* One problem found in a config file. */
struct rb_config_error {
	int line, col; /* 1-based; 0 when not known */
	char *msg; /* "policy.subsystems.MM.mdoe: unknown key" */
};

struct rb_config_errors {
	struct rb_config_error *v;
	size_t n;
};

/* The embedded defaults: no sources, SQLite, the Maildir outbox. */
int rb_config_defaults(struct rb_config **out);

/*
 * What commands other than check-config call: loads @path_or_null when it
 * is given; otherwise ./config.yaml when that file exists, else the
 * embedded defaults (cfg->file is then NULL). Errors as rb_config_load().
 */
int rb_config_load_or_defaults(struct rb_config **out, const char *path_or_null,
			       struct rb_config_errors *errs);

/*
 * Prints each error as "FILE:LINE:COL: message" (or "FILE: message" when
 * the position is not known), one per line, in file order.
 */
void rb_config_errors_print(const struct rb_config_errors *e, const char *file,
			    FILE *f);

/*
 * Loads and validates @path. On success *out is owned by the caller. On
 * failure returns -RB_ECONFIG and, when @errs is not NULL, fills it with
 * every error found (free with rb_config_errors_release()).
 */
int rb_config_load(struct rb_config **out, const char *path,
		   struct rb_config_errors *errs);
/* Same, from memory; @name is used in messages. */
int rb_config_load_mem(struct rb_config **out, const char *name,
		       const char *yaml, size_t len,
		       struct rb_config_errors *errs);
void rb_config_free(struct rb_config *cfg);
void rb_config_errors_release(struct rb_config_errors *errs);

/*
 * What check-config adds to rb_config_load(): a look at what a loaded
 * config names on this machine. Each tree's path exists and is a git
 * repository holding the branch; each mbox, Maildir or eml source's path
 * exists; each policy.subsystems key is a MAINTAINERS section of the
 * trees (read from each tree's branch through review/maint/maintainers.h) or
 * one of list_ids, with "did you mean" for a close name (sections are
 * checked only when some tree has a MAINTAINERS file). The problems are
 * appended to @errs as FILE:LINE:COL: key.path: message, sorted by line.
 * Returns 0 when there is none, -RB_ECONFIG when there is one, or
 * -RB_ENOMEM.
 */
int rb_config_check_system(const struct rb_config *cfg,
			   struct rb_config_errors *errs);

/*
 * Whether the policy.subsystems entry @name is a list's (a List-Id of
 * list_ids; with none, any name shaped like one: a dot and no blank)
 * rather than a MAINTAINERS section's.
 */
bool rb_config_is_list_policy(const struct rb_config *cfg, const char *name);

/*
 * The key tables as data. rb_config_each_key() calls @fn with the path of
 * every key the loader knows, in table order ("model.tools.max_calls";
 * the keys of each entry of a list as "sources[].url").
 * rb_config_diff() calls @fn (may be NULL) with the path of each key
 * whose value differs between @a and @b, and returns how many do; a list
 * of entries (sources, trees, subsystems, people, rules, prefixes) is
 * compared by its count.
 */
void rb_config_each_key(void (*fn)(const char *path, void *arg), void *arg);
size_t rb_config_diff(const struct rb_config *a, const struct rb_config *b,
		      void (*fn)(const char *path, void *arg), void *arg);

/* The policy for a subsystem or list name, else the default. Borrowed. */
const struct rb_policy *rb_config_policy(const struct rb_config *cfg,
					 const char *name);
const struct rb_tree_config *rb_config_tree(const struct rb_config *cfg,
					    const char *name);

/* What mail the person at @addr (a bare address or a mailbox) asked for
 * in "people"; RB_PERSON_ALL when not named. */
enum rb_person_mail rb_config_person_mail(const struct rb_config *cfg,
					  const char *addr);

const char *rb_source_type_name(enum rb_source_type t);

#endif
