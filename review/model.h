/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model.h - the model review of one patch: a finder call that must quote
 * the code it talks about, validators in C that drop what the patch does
 * not show, a verifier call in a fresh context, and the policy (severity
 * floor, at most N findings and W words per patch, uncertain ones dropped
 * unless asked for).
 *
 * Providers sit behind struct rb_model_provider_ops: "openai" (Chat
 * Completions, which vLLM, llama.cpp and Ollama also speak), "anthropic"
 * (Messages API), "command" (the prompt on a program's stdin, the JSON
 * answer on its stdout) and "replay" (answers from recorded exchanges,
 * found by the hash of the request). Every exchange can be recorded into
 * a directory, one JSON file per exchange named after the request hash,
 * which "replay" reads back.
 *
 * Everything the model says is hostile input: its JSON is parsed with caps,
 * a finding survives only when the code it quotes is in the patch on the
 * side and near the line it names, and messages lose any line that looks
 * like a review trailer. The model never chooses recipients: findings are
 * all it can produce.
 */
#ifndef RB_REVIEW_MODEL_H
#define RB_REVIEW_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

#include "review/findings.h"

struct rb_buf;
struct rb_model;

/* Plain values, filled by the bot from struct rb_model_config. */
struct rb_model_opts {
	const char *provider; /* openai, anthropic, command, replay, none */
	const char *url; /* the endpoint (openai, anthropic) */
	const char *name; /* the model name */
	const char *api_key; /* never logged, never recorded */
	const char *command; /* provider command */
	const char *max_tokens_field; /* max_tokens / max_completion_tokens */
	const char *anthropic_version; /* default "2023-06-01" */
	int max_tokens; /* per answer */
	int timeout_seconds; /* per request */
	int concurrency; /* requests at once, over all threads */
	int max_retries;
	int retry_base_ms; /* first backoff step, default 1000 */
	double cost_per_mtok_in, cost_per_mtok_out;
	bool keep_uncertain;
	int max_findings; /* per patch */
	int max_words; /* per patch */
	enum rb_fsev min_severity; /* findings below are dropped */
	int near_lines; /* a quote may sit this far from its line (5) */
	int prompt_tokens; /* the budget of one prompt (~4 bytes a token) */
	size_t max_reply; /* bytes of one reply, default 1 MiB */
	const char *guides_dir; /* default: RB_GUIDES_DIR */
	const char *record_dir; /* record every exchange here, or NULL */
	const char *replay_dir; /* provider "replay": recordings to serve */
};

#define RB_MODEL_OPTS_INIT                                                    \
	{                                                                     \
		.provider = "none", .max_tokens_field = "max_tokens",         \
		.max_tokens = 4096, .timeout_seconds = 120, .concurrency = 2, \
		.max_retries = 3, .retry_base_ms = 1000, .max_findings = 3,   \
		.max_words = 400, .min_severity = RB_FSEV_LOW,                \
		.near_lines = 5, .prompt_tokens = 24000,                      \
		.max_reply = 1u << 20,                                        \
	}

/* Counters of one review; rb_model_review_patch() adds to them. */
struct rb_model_usage {
	long calls; /* exchanges that got an answer */
	long retries;
	long tokens_in, tokens_out;
	double cost; /* from the configured prices */
	int proposed; /* findings the finder returned */
	int malformed; /* dropped: a field missing or of the wrong type */
	int hallucinated; /* dropped: the quote is not in the patch there */
	int off_scope; /* dropped: file not in the patch, category refused */
	int duplicates;
	int confirmed, rejected, uncertain;
	int below_floor; /* dropped by the severity floor */
	int capped; /* dropped by max_findings or max_words */
	int kept;
	int words; /* words of commentary kept */
	int clipped; /* prompts whose budget clipped something */
};

/* One patch and what is around it. Everything is borrowed. */
struct rb_model_patch_ctx {
	const char *cover_title; /* or NULL */
	const char *const *subjects; /* every patch's title, in order */
	size_t n_subjects;
	int index; /* 1-based index of this patch */
	const char *commit_msg; /* its commit message, or NULL */
	const char *patch; /* the unified diff */
	size_t patch_len;
	git_repository *repo; /* the tree it applied to, or NULL */
	const git_oid *tree; /* the tree after this patch, or NULL */
	const char *const *subsystems; /* MAINTAINERS section names */
	size_t n_subsystems;
};

/*
 * Creates the stage from @opts (copied). Returns 0; -RB_ECONFIG for an
 * unknown provider or a missing url/name/command; -RB_ENOMEM. Provider
 * "none" gives *out == NULL and 0: the stage is off.
 */
int rb_model_new(struct rb_model **out, const struct rb_model_opts *opts);
void rb_model_free(struct rb_model *m);

/* The model name findings carry as checker_version. */
const char *rb_model_name(const struct rb_model *m);
/* The options it was made with (strings owned by @m). */
const struct rb_model_opts *rb_model_get_opts(const struct rb_model *m);

/*
 * Reviews one patch. Appends the surviving findings (checker "model",
 * checker_version the model name, code the quoted line, message the
 * question and its trigger) to @out and adds to @usage. Thread-safe: the
 * concurrency limit is shared by every caller of @m.
 *
 * Returns 0; -RB_EQUOTA (quota or spend limit: not retried), -RB_EAGAIN
 * (retries used up), -RB_ETIMEOUT, -RB_ETOOBIG (reply over the cap),
 * -RB_EPARSE (the finder's answer breaks the schema), -RB_ENOTFOUND
 * (replay: no recording for this request), -RB_ENOMEM; the reason in
 * rb_errmsg(). The verifier failing is not an error: its findings are
 * then uncertain.
 */
int rb_model_review_patch(struct rb_findings *out, struct rb_model_usage *usage,
			  struct rb_model *m,
			  const struct rb_model_patch_ctx *ctx);

/*
 * One line for the review mail (render's model_line) saying what the
 * stage did: "Model review (NAME): 1 finding kept of 4 proposed; 2
 * dropped for quoting code not in the patch, 1 rejected on a second
 * look." When @err is not 0 (what rb_model_review_patch() returned), the
 * line says the model stage failed and why, in plain words (quota,
 * timeout, ...), and that the checker findings stand alone.
 */
int rb_model_status_line(struct rb_buf *out, const struct rb_model *m,
			 const struct rb_model_usage *u, int err);

/* ---- lower layers, for tests, the fuzzer and bench/model-eval ---- */

/* One request to a provider. */
struct rb_model_request {
	const char *kind; /* "finder" or "verifier" */
	const char *system;
	const char *user;
	const char *schema_name;
	const char *schema; /* JSON schema text of the answer */
	const char *nonce; /* left out of the request hash */
};

struct rb_model_reply {
	char *text; /* the answer, malloc'd */
	long tokens_in, tokens_out;
	int retries;
};

void rb_model_reply_release(struct rb_model_reply *r);

/*
 * The request hash: SHA-256 hex over kind, schema, system and user with
 * the nonce replaced, so a replay finds the same exchange.
 */
void rb_model_request_hash(char out[65], const struct rb_model_request *rq);

/* One exchange with the model, with retries, recording and the limit. */
int rb_model_call(struct rb_model_reply *out, struct rb_model *m,
		  const struct rb_model_request *rq);

/* A finding as the finder proposes it. */
struct rb_model_raw_finding {
	char *file;
	bool old_side;
	int line;
	char *quoted_code;
	char *category;
	enum rb_fsev severity;
	double confidence;
	bool introduced_by_patch;
	char *trigger_scenario;
	char *question;
};

struct rb_model_raw_findings {
	struct rb_model_raw_finding *v;
	size_t n;
	int malformed; /* entries dropped for a missing or bad field */
};

/*
 * Parses the finder's answer: {"findings": [...]} with every field
 * required (a JSON object may be wrapped in a ```json fence). Entries that
 * break the schema are counted in ->malformed and skipped; an answer that
 * is not such an object is -RB_EPARSE. Caps: 64 findings, 4 KiB a field.
 */
int rb_model_parse_findings(struct rb_model_raw_findings *out, const char *text,
			    size_t len);
void rb_model_raw_findings_release(struct rb_model_raw_findings *f);

enum rb_model_verdict {
	RB_MODEL_UNCERTAIN,
	RB_MODEL_CONFIRMED,
	RB_MODEL_REJECTED
};

/*
 * Parses the verifier's answer {"verdicts": [{"id": N, "verdict": "...",
 * "reason": "..."}]} into @out[0..n) (ids are 1-based); ids not judged
 * stay uncertain. -RB_EPARSE when the answer is not such an object.
 */
int rb_model_parse_verdicts(enum rb_model_verdict *out, size_t n,
			    const char *text, size_t len);

struct rb_diff;
/*
 * The validators for one proposed finding: the category is allowed and
 * the patch introduces it, the file is in the patch (else -RB_ENOTFOUND),
 * and every line of the quote is on its side within @near lines of the
 * line named (for file "COMMIT_MSG", in @commit_msg), else -RB_EINVAL: a
 * hallucination. *out gets the path as the diff names it (NULL for the
 * commit message; borrowed from @d).
 */
int rb_model_validate(const char **out, const struct rb_diff *d,
		      const char *commit_msg,
		      const struct rb_model_raw_finding *f, int near);

/* Is @category one the finder may report? */
bool rb_model_category_allowed(const char *category);

/*
 * Builds the finder's prompt for @ctx into @system and @user, with
 * @nonce marking untrusted data. @coverage (may be NULL) gets the note on
 * what the budget clipped, "" when nothing was.
 */
int rb_model_prompt_build(struct rb_buf *system, struct rb_buf *user,
			  struct rb_buf *coverage,
			  const struct rb_model_opts *opts,
			  const struct rb_model_patch_ctx *ctx,
			  const char *nonce);

/* A fresh random nonce, 16 hex digits. */
void rb_model_nonce(char out[17]);

/* The commit message with identity trailers (Signed-off-by, ...) left out. */
int rb_model_strip_trailers(struct rb_buf *out, const char *msg);

/* Removes the colon of review trailers anywhere in @s (in place). */
void rb_model_neutralise(char *s);

#endif
