/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_provider.h - the model's providers, behind struct
 * rb_model_provider_ops: "openai" (Chat Completions, which vLLM,
 * llama.cpp and Ollama also speak), "anthropic" (Messages API), "command"
 * (the prompt on a program's stdin, the JSON answer on its stdout) and
 * "replay" (answers from recorded exchanges, found by the hash of the
 * request). Every exchange can be recorded into a directory, one JSON
 * file per exchange named after the request hash, which "replay" reads
 * back. One exchange at a time per slot of the concurrency limit, with
 * retries and the spend limit.
 */
#ifndef RB_REVIEW_MODEL_PROVIDER_H
#define RB_REVIEW_MODEL_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>

#include "review/findings.h"
#include "review/model/model_tools.h"

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
	/* Bytes of tree context the prompt carries (model_prefetch.h),
	 * within prompt_tokens; 0: none. */
	size_t prefetch_bytes;
	size_t max_reply; /* bytes of one reply, default 1 MiB */
	const char *guides_dir; /* default: RB_GUIDES_DIR */
	const char *record_dir; /* record every exchange here, or NULL */
	const char *replay_dir; /* provider "replay": recordings to serve */
	/*
	 * model.tools: whether the review offers the read-only tools, their
	 * limits per patch, and the tool turns of one request before the
	 * answer is demanded when the toolset's max_rounds is 0 (default 12).
	 */
	bool tools;
	struct rb_model_tool_limits tool_limits; /* each finder pass */
	/* The verifier's reserve per patch: calls and bytes no finder can
	 * spend (max_result and max_seconds as tool_limits'). */
	struct rb_model_tool_limits verifier_tool_limits;
	/* Every pass of every patch of a series together; 0: default. */
	int series_tool_calls;
	size_t series_tool_bytes;
	int tool_rounds;
	/* Tokens (in + out, summed over the turns) of one request's loop;
	 * once past, the next turn is the last. 0: no such limit. */
	long tool_tokens;
	/*
	 * The finder passes: which focuses see the diff without the commit
	 * message (bit i: rb_model_focus_names()[i]; model.blind_focuses),
	 * whether the planner leaves out the focuses with nothing to look
	 * at (model.focus_planner), and whether requests mark their shared
	 * prefix for the provider's cache and one pass of each prompt goes
	 * first to write it (model.prompt_cache).
	 */
	unsigned int blind_focuses;
	bool focus_planner;
	bool prompt_cache;
};

/*
 * The prompt's budget holds the prefetch (100 KiB of the code around the
 * patch, model_prefetch.h), the diff, the rules and the series context.
 */
#define RB_MODEL_PROMPT_TOKENS 48000
#define RB_MODEL_PREFETCH_BYTES (100 * 1024)

#define RB_MODEL_OPTS_INIT                                                    \
	{                                                                     \
		.provider = "none", .max_tokens_field = "max_tokens",         \
		.max_tokens = 4096, .timeout_seconds = 120, .concurrency = 4, \
		.max_retries = 3, .retry_base_ms = 1000, .max_findings = 3,   \
		.max_words = 400, .min_severity = RB_FSEV_LOW,                \
		.near_lines = 5, .prompt_tokens = RB_MODEL_PROMPT_TOKENS,     \
		.prefetch_bytes = RB_MODEL_PREFETCH_BYTES,                    \
		.max_reply = 1u << 20, .blind_focuses = 0x5,                  \
		.focus_planner = true, .prompt_cache = true,                  \
	}

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

struct rb_buf;

/*
 * Tools offered with one request (model_tools.h gives them). When a
 * request has tools, rb_model_call() runs the loop: the model's tool
 * calls are answered through @call, turn by turn, until it gives its
 * answer or @max_rounds turns have passed (then the answer is demanded
 * without tools). Every turn, with its calls and results, is recorded.
 * @call returns 0, or -RB_ETOOBIG when a limit is reached (the result
 * text says so and the model is told to answer now), or -RB_ENOMEM.
 */
struct rb_model_toolset {
	const char *defs; /* JSON array: rb_model_tools_defs() */
	int (*call)(void *arg, const char *name, const char *args,
		    size_t args_len, struct rb_buf *out);
	void *arg;
	int max_rounds; /* default 12 */
};

/* One request to a provider. */
struct rb_model_request {
	const char *kind; /* "finder" or "verifier" */
	const char *system;
	const char *user;
	const char *schema_name;
	const char *schema; /* JSON schema text of the answer */
	const char *nonce; /* left out of the request hash */
	const struct rb_model_toolset *tools; /* or NULL: one exchange */
	/*
	 * Prompt caching: where the prefix that other requests repeat ends.
	 * With @cache, the Anthropic provider sends @system and @user as
	 * text blocks cut at @system_shared (0: no cut) and at each
	 * user_shared[] offset (ascending, inside @user), and marks each
	 * block that ends at a cut cache_control ephemeral; in a tool loop
	 * the last block of the conversation is marked too, so each turn
	 * reads the one before (at most 4 marks, as the API allows). The
	 * text sent is the same either way, and so is the request hash. An
	 * OpenAI-compatible server caches a byte-identical prefix by itself:
	 * the caller puts what differs last.
	 */
	bool cache;
	size_t system_shared;
	size_t user_shared[2];
	size_t n_user_shared;
};

struct rb_model_reply {
	char *text; /* the answer, malloc'd */
	long tokens_in, tokens_out; /* tokens_in: every input token */
	long cache_read; /* of tokens_in: read from the provider's cache */
	long cache_written; /* of tokens_in: written to it (Anthropic) */
	int retries;
};

void rb_model_reply_release(struct rb_model_reply *r);

/*
 * The request hash: SHA-256 hex over kind, schema, system and user with
 * the nonce replaced, so a replay finds the same exchange. A request
 * with tools is recorded turn by turn; each turn's hash also covers the
 * tool definitions and the conversation so far (docs/MODEL-TOOLS.md),
 * and its first turn's hash is not this one.
 */
void rb_model_request_hash(char out[65], const struct rb_model_request *rq);

/*
 * One exchange with the model, with retries, recording and the limit;
 * with rq->tools, the whole tool loop under one slot of the limit, the
 * tokens and retries of every turn summed into *out.
 */
int rb_model_call(struct rb_model_reply *out, struct rb_model *m,
		  const struct rb_model_request *rq);

/*
 * For the fuzz target and the tests: parses one reply @body of provider
 * @provider ("openai", "anthropic", "command" or "replay") as a turn of
 * the tool loop, with the caps on hostile output applied. *ncalls gets
 * the number of tool calls kept; out->text the text (may be empty when
 * there are calls). 0, -RB_EPARSE, -RB_ETOOBIG (cut at max_tokens),
 * -RB_EINVAL (unknown provider), -RB_ENOMEM.
 */
int rb_model_parse_tool_reply(struct rb_model_reply *out, size_t *ncalls,
			      const char *provider, const char *body,
			      size_t len);

#endif
