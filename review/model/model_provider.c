// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_provider.c - the model providers and one exchange with them.
 *
 *  - "openai": OpenAI Chat Completions (POST url, "Authorization: Bearer",
 *    max_tokens or max_completion_tokens, response_format json_schema).
 *  - "anthropic": the Messages API (x-api-key, anthropic-version,
 *    max_tokens, a top-level system prompt).
 *  - "command": the prompt on a program's stdin, the answer on its stdout;
 *    run with /bin/sh -c when the command holds shell syntax, else split
 *    at blanks and executed directly.
 *  - "replay": the answer recorded for the same request hash.
 *
 * A request with tools runs a loop of turns (docs/MODEL-TOOLS.md): the
 * tools go out in the provider's own format (OpenAI "tools" and
 * "tool_calls" answered by "role: tool" messages; Anthropic "tools" and
 * "tool_use" blocks answered by "tool_result" blocks; the command
 * provider's JSON protocol), the calls are answered through the
 * toolset's callback, and the next turn carries the results, until the
 * model answers in text. The conversation is kept in one neutral form
 * (the command protocol's "messages") and turned into each provider's
 * format per request, so recording and replay do not depend on the
 * provider that was used.
 *
 * Retries (RFC 9110 15.5.9 408, 15.5.10 409, RFC 6585 429, 5xx, and 529,
 * Anthropic's "overloaded"): exponential backoff with full jitter, or the
 * server's Retry-After (seconds or an HTTP date, RFC 9110 10.2.3) and
 * OpenAI's retry-after-ms when given. Quota and spend-limit errors are
 * never retried: they will not heal in seconds and retrying costs money.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <curl/curl.h>
#include <jansson.h>

#include "review/model/model.h"
#include "review/model/model_provider.h"
#include "review/checks/sandbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/banned.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#ifndef RB_GUIDES_DIR
#define RB_GUIDES_DIR "review/guides"
#endif

/*
 * Caps on a model's tool calls, whose output is as hostile as the mail it
 * read. Our tools take a path, a pattern or a number: 16 KiB of arguments
 * is far more than any honest call. Eight calls a turn is more than the
 * models we tried ask for at once (they ask for 1-4), and 64 turns bound
 * a loop whose max_rounds is set too high.
 */
#define TOOL_MAX_CALLS 8 /* calls answered per turn; the rest dropped */
#define TOOL_MAX_ARGS 16384 /* bytes of one call's arguments */
#define TOOL_MAX_NAME 64 /* bytes of a tool name and of a call id */
#define TOOL_MAX_ROUNDS 64 /* tool turns, whatever max_rounds says */
#define TOOL_DEFAULT_ROUNDS 12
/* A result the callback writes is capped by the tools; this is the floor. */
#define TOOL_MAX_RESULT (1u << 20)

static const char tools_over[] =
	"The tools are over: no more tool calls will be answered. Give your "
	"final answer now, in the format asked for, from what you have read.";

/*
 * The conversation of a tool-using request after its first user message,
 * in the neutral form the command protocol shows (docs/MODEL-TOOLS.md):
 *   {"role": "assistant", "content": TEXT, "tool_calls": [CALL, ...]}
 *   {"role": "tool", "tool_call_id": ID, "name": NAME, "content": TEXT}
 *   {"role": "user", "content": TEXT}      (only: the tools are over)
 * with CALL = {"id": ID, "name": NAME, "arguments": JSON-TEXT}.
 */
struct conv {
	json_t *tools; /* the toolset's definitions, parsed */
	json_t *msgs;
	bool final; /* tools are over: the answer is demanded */
	int round, max_rounds;
};

/* The tool calls of one reply, with the caps applied (turn_add()). */
struct turn {
	json_t *calls; /* [CALL, ...]; a CALL may hold "refused": why */
	int dropped; /* calls past TOOL_MAX_CALLS */
};

/* What one attempt brought back. */
struct attempt {
	long status; /* HTTP status; 0 for none */
	struct rb_buf body;
	long retry_after_ms; /* -1 when the server did not say */
	int err; /* 0, or a negative code when the transport failed */
	bool retryable;
};

struct rb_model_provider_ops {
	const char *name;
	/*
	 * One attempt, with the conversation @cv when the request has tools
	 * (else NULL). Returns 0 when something came back (read @a), or a
	 * negative code for a failure that is not worth a retry.
	 */
	int (*attempt)(struct rb_model *m, const struct rb_model_request *rq,
		       const struct conv *cv, struct attempt *a);
	/*
	 * Turns a 2xx body into the answer text and the token counts, and,
	 * when @t is not NULL (tools were offered), the tool calls into @t.
	 */
	int (*parse)(struct rb_model_reply *out, struct turn *t,
		     const char *body, size_t len);
};

struct rb_model {
	struct rb_model_opts o;
	char *strs[10]; /* the copies behind o's strings */
	const struct rb_model_provider_ops *ops;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int busy;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

void rb_model_reply_release(struct rb_model_reply *r)
{
	free(r->text);
	memset(r, 0, sizeof(*r));
}

const char *rb_model_name(const struct rb_model *m)
{
	return m->o.name ? m->o.name : m->o.provider;
}

const struct rb_model_opts *rb_model_get_opts(const struct rb_model *m)
{
	return &m->o;
}

/* ---- request hash and recording ---- */

static void hash_str(struct rb_sha256 *h, const char *s, const char *nonce)
{
	size_t nl = nonce ? strlen(nonce) : 0;
	const char *p;

	if (!s)
		s = "";
	while (nl && (p = strstr(s, nonce))) {
		rb_sha256_update(h, s, (size_t)(p - s));
		rb_sha256_update(h, "NONCE", 5);
		s = p + nl;
	}
	rb_sha256_update(h, s, strlen(s) + 1);
}

/*
 * The hash of one turn: the request's, and with tools, the tool
 * definitions and the conversation so far (tool calls and results), the
 * nonce replaced as in the prompt.
 */
static void turn_hash(char out[65], const struct rb_model_request *rq,
		      const struct conv *cv)
{
	struct rb_sha256 *h = rb_sha256_new();
	char *conv;

	if (!h) {
		memset(out, '0', 64);
		out[64] = 0;
		return;
	}
	hash_str(h, rq->kind, NULL);
	hash_str(h, rq->schema, NULL);
	hash_str(h, rq->system, rq->nonce);
	hash_str(h, rq->user, rq->nonce);
	if (cv) {
		hash_str(h, "tools", NULL);
		hash_str(h, rq->tools ? rq->tools->defs : NULL, NULL);
		conv = json_dumps(cv->msgs, JSON_COMPACT | JSON_SORT_KEYS);
		/* Out of memory: a hash no recording has, so replay misses. */
		hash_str(h, conv ? conv : "\x01", rq->nonce);
		free(conv);
	}
	rb_sha256_final_hex(h, out);
}

void rb_model_request_hash(char out[65], const struct rb_model_request *rq)
{
	turn_hash(out, rq, NULL);
}

/* The response part of a recording. */
static json_t *recorded_response(const struct rb_model_reply *rep,
				 const struct turn *t)
{
	json_t *r = json_pack("{s:s, s:I, s:I, s:i}", "text",
			      rep->text ? rep->text : "", "tokens_in",
			      (json_int_t)rep->tokens_in, "tokens_out",
			      (json_int_t)rep->tokens_out, "retries",
			      rep->retries);

	if (r && rep->cache_read)
		json_object_set_new(r, "cache_read",
				    json_integer(rep->cache_read));
	if (r && rep->cache_written)
		json_object_set_new(r, "cache_written",
				    json_integer(rep->cache_written));

	if (r && t && json_array_size(t->calls))
		json_object_set(r, "tool_calls", t->calls);
	if (r && t && t->dropped)
		json_object_set_new(r, "dropped_calls",
				    json_integer(t->dropped));
	return r;
}

/*
 * One exchange as a JSON file, DIR/<hash>.json; the key is never in it.
 * With tools, one file per turn: the request holds the tool definitions
 * and the conversation so far, every call and result, for the audit and
 * for replay.
 */
static void record(struct rb_model *m, const struct rb_model_request *rq,
		   const struct conv *cv, const struct rb_model_reply *rep,
		   const struct turn *t, int err)
{
	char hash[65], path[4096];
	json_t *o = NULL, *req;
	char *text = NULL;

	if (!m->o.record_dir)
		return;
	turn_hash(hash, rq, cv);
	if (rb_mkdirs(m->o.record_dir))
		goto fail;
	snprintf(path, sizeof(path), "%s/%s.json", m->o.record_dir, hash);
	o = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s}}", "hash", hash,
		      "kind", rq->kind, "provider", m->o.provider, "model",
		      rb_model_name(m), "request", "system",
		      rq->system ? rq->system : "", "user",
		      rq->user ? rq->user : "", "schema",
		      rq->schema ? rq->schema : "");
	if (!o)
		goto fail;
	if (cv) {
		req = json_object_get(o, "request");
		json_object_set_new(o, "turn", json_integer(cv->round));
		json_object_set(req, "tools", cv->tools);
		json_object_set(req, "messages", cv->msgs);
		json_object_set_new(req, "final", json_boolean(cv->final));
	}
	if (!err && rep && rep->text)
		json_object_set_new(o, "response", recorded_response(rep, t));
	else
		json_object_set_new(o, "error", json_string(rb_errmsg()));
	text = json_dumps(o, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!text || rb_write_file_atomic(path, text, strlen(text), 0600))
		goto fail;
	goto out;
fail:
	rb_log(RB_LOG_WARN, "model.record_failed", "dir", m->o.record_dir,
	       NULL);
out:
	free(text);
	json_decref(o);
}

/* ---- tool calls ---- */

/*
 * @s as a JSON string. Bytes that are not UTF-8 become '?': a file of the
 * tree may be Latin-1, and jansson takes UTF-8 only.
 */
static json_t *json_text(const char *s, size_t len)
{
	json_t *j = json_stringn(s, len);
	const unsigned char *u = (const unsigned char *)s;
	char *c;
	size_t i, k, n;

	if (j)
		return j;
	c = malloc(len + 1);
	if (!c)
		return NULL;
	for (i = 0; i < len;) {
		unsigned char b = u[i], lo = 0x80, hi = 0xbf;

		n = b < 0x80		   ? 1 :
		    b >= 0xc2 && b <= 0xdf ? 2 :
		    b >= 0xe0 && b <= 0xef ? 3 :
		    b >= 0xf0 && b <= 0xf4 ? 4 :
					     0;
		if (b == 0xe0)
			lo = 0xa0;
		else if (b == 0xed)
			hi = 0x9f;
		else if (b == 0xf0)
			lo = 0x90;
		else if (b == 0xf4)
			hi = 0x8f;
		for (k = 1; n && k < n; k++)
			if (i + k >= len || u[i + k] < (k == 1 ? lo : 0x80) ||
			    u[i + k] > (k == 1 ? hi : 0xbf))
				n = 0;
		if (!n) {
			c[i++] = '?';
			continue;
		}
		memcpy(c + i, s + i, n);
		i += n;
	}
	j = json_stringn(c, len);
	free(c);
	return j;
}

static bool name_ok(const char *s)
{
	size_t n = s ? strspn(s, "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") :
		       0;

	return n && n <= TOOL_MAX_NAME && !s[n];
}

static bool id_used(const json_t *calls, const char *id)
{
	const json_t *c;
	size_t i;

	json_array_foreach(calls, i, c)
	{
		if (!strcmp(json_string_value(json_object_get(c, "id")), id))
			return true;
	}
	return false;
}

/*
 * Adds one call the model asked for to @t, with the caps applied. An id
 * that is missing, odd or already used in this turn is replaced, so each
 * result pairs with its call; a name that no tool of ours could have is
 * kept out of the next request and the call refused; arguments (a JSON
 * text, or an object as Anthropic and the command protocol give them)
 * over TOOL_MAX_ARGS become {} and the call is refused. Past
 * TOOL_MAX_CALLS a call is dropped. 0 or -RB_ENOMEM.
 */
static int turn_add(struct turn *t, json_t *id, json_t *name, json_t *args,
		    const char *refused)
{
	size_t n = json_array_size(t->calls), al;
	const char *ids = json_string_value(id), *as;
	const char *names = json_string_value(name);
	char idbuf[32], *dump = NULL;
	json_t *c;
	int k, ret = 0;

	if (n >= TOOL_MAX_CALLS) {
		t->dropped++;
		return 0;
	}
	if (!name_ok(ids) || id_used(t->calls, ids)) {
		k = (int)n;
		do
			snprintf(idbuf, sizeof(idbuf), "rb_call_%d", k++);
		while (id_used(t->calls, idbuf));
		ids = idbuf;
	}
	if (!name_ok(names)) {
		names = "invalid_name";
		refused = "error: no tool has that name";
	}
	if (json_is_string(args)) {
		as = json_string_value(args);
		al = json_string_length(args);
	} else if (!args || json_is_null(args)) {
		as = "{}";
		al = 2;
	} else {
		dump = json_dumps(args, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!dump)
			return rb_err(RB_ENOMEM, "out of memory");
		as = dump;
		al = strlen(dump);
	}
	if (al > TOOL_MAX_ARGS) {
		as = "{}";
		al = 2;
		refused = "error: the arguments are over 16384 bytes; the "
			  "call was not run";
	}
	c = json_pack("{s:s, s:s, s:o}", "id", ids, "name", names, "arguments",
		      json_text(as, al));
	if (c && refused)
		json_object_set_new(c, "refused", json_string(refused));
	if (!c || json_array_append_new(t->calls, c))
		ret = rb_err(RB_ENOMEM, "out of memory");
	free(dump);
	return ret;
}

static int json_push(json_t *arr, json_t *v)
{
	if (!v || json_array_append_new(arr, v))
		return rb_err(RB_ENOMEM, "model: cannot build the request");
	return 0;
}

/* ---- HTTP providers ---- */

static size_t on_body(char *ptr, size_t size, size_t n, void *ud)
{
	struct attempt *a = ud;

	if (rb_buf_add(&a->body, ptr, size * n))
		return 0; /* over the cap: curl stops with a write error */
	return size * n;
}

static size_t on_header(char *ptr, size_t size, size_t n, void *ud)
{
	struct attempt *a = ud;
	size_t len = size * n;
	char v[128];
	size_t k, vl;

	for (k = 0; k < len && ptr[k] != ':'; k++)
		;
	if (k == len)
		return len;
	vl = len - k - 1;
	if (vl >= sizeof(v))
		vl = sizeof(v) - 1;
	memcpy(v, ptr + k + 1, vl);
	v[vl] = 0;
	if (k == 14 && !strncasecmp(ptr, "retry-after-ms", 14)) {
		a->retry_after_ms = strtol(v, NULL, 10);
	} else if (k == 11 && !strncasecmp(ptr, "retry-after", 11) &&
		   a->retry_after_ms < 0) {
		char *end;
		long s = strtol(v, &end, 10);

		if (end != v && s >= 0) {
			a->retry_after_ms = s * 1000;
		} else {
			time_t t = curl_getdate(v, NULL);

			if (t > 0)
				a->retry_after_ms =
					t > time(NULL) ?
						(long)(t - time(NULL)) * 1000 :
						0;
		}
	}
	return len;
}

static int http_post(struct rb_model *m, struct curl_slist *hdrs,
		     const char *json, struct attempt *a)
{
	CURL *c = curl_easy_init();
	CURLcode rc;
	int ret = 0;

	if (!c)
		return rb_err(RB_ENOMEM, "model: curl_easy_init failed");
	curl_easy_setopt(c, CURLOPT_URL, m->o.url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, a);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)m->o.timeout_seconds);
	curl_easy_setopt(
		c, CURLOPT_CONNECTTIMEOUT,
		(long)(m->o.timeout_seconds < 30 ? m->o.timeout_seconds : 30));
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "reviewbot");
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a->status);
	switch (rc) {
	case CURLE_OK:
		break;
	case CURLE_WRITE_ERROR:
		ret = rb_err(RB_ETOOBIG, "model: %s: reply over %zu bytes",
			     m->o.url, m->o.max_reply);
		break;
	case CURLE_OPERATION_TIMEDOUT:
		a->err = rb_err(RB_ETIMEOUT, "model: %s: no reply within %d s",
				m->o.url, m->o.timeout_seconds);
		a->retryable = true;
		break;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		a->err = rb_err(RB_EAGAIN, "model: %s: %s", m->o.url,
				curl_easy_strerror(rc));
		a->retryable = true;
		break;
	default:
		ret = rb_err(RB_EIO, "model: %s: %s", m->o.url,
			     curl_easy_strerror(rc));
	}
	curl_easy_cleanup(c);
	return ret;
}

static json_t *schema_json(const struct rb_model_request *rq)
{
	json_t *s = rq->schema ? json_loads(rq->schema, 0, NULL) : NULL;

	return s ? s : json_object();
}

static int post_json(struct rb_model *m, struct curl_slist *h, json_t *body,
		     struct attempt *a)
{
	char *json = json_dumps(body, JSON_COMPACT);
	int ret;

	if (!json)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = http_post(m, h, json, a);
	free(json);
	return ret;
}

/*
 * POSTs @body (taken) as JSON with the header line @extra (or NULL) and,
 * when an API key is set, "@key_header KEY".
 */
static int post_with_key(struct rb_model *m, json_t *body, const char *extra,
			 const char *key_header, struct attempt *a)
{
	struct curl_slist *h = NULL;
	struct rb_buf hv = RB_BUF_INIT(8192);
	int ret;

	h = curl_slist_append(h, "Content-Type: application/json");
	if (extra)
		h = curl_slist_append(h, extra);
	if (m->o.api_key && *m->o.api_key) {
		rb_buf_printf(&hv, "%s %s", key_header, m->o.api_key);
		h = curl_slist_append(h, hv.ptr);
	}
	ret = post_json(m, h, body, a);
	curl_slist_free_all(h);
	rb_buf_release(&hv);
	json_decref(body);
	return ret;
}

/*
 * The tool definitions in a provider's format, as @body's "tools":
 * OpenAI's {type: function, function: {name, description, parameters}}
 * or Anthropic's {name, description, input_schema}.
 */
static int add_tool_defs(json_t *body, const struct conv *cv, bool openai)
{
	json_t *tools = json_array(), *d, *name, *desc, *params;
	size_t i;
	int ret = 0;

	if (!tools)
		return rb_err(RB_ENOMEM, "out of memory");
	json_array_foreach(cv->tools, i, d)
	{
		name = json_object_get(d, "name");
		desc = json_object_get(d, "description");
		params = json_object_get(d, "parameters");
		if (openai)
			ret = json_push(
				tools, json_pack("{s:s, s:{s:O, s:O*, s:O*}}",
						 "type", "function", "function",
						 "name", name, "description",
						 desc, "parameters", params));
		else
			ret = json_push(tools,
					json_pack("{s:O, s:O*, s:O*}", "name",
						  name, "description", desc,
						  "input_schema", params));
		if (ret) {
			json_decref(tools);
			return ret;
		}
	}
	return json_object_set_new(body, "tools", tools) ?
		       rb_err(RB_ENOMEM, "out of memory") :
		       0;
}

/* How one provider writes the turns of a conversation. */
struct conv_fmt {
	bool openai; /* the tool definitions' and tool_choice's format */
	int (*assistant)(json_t *msgs, json_t *it);
	int (*result)(json_t *msgs, json_t *it);
	int (*user)(json_t *msgs, json_t *it);
};

/* The conversation so far and the tools into @body, in @f's format. */
static int add_conv(json_t *body, const struct conv *cv,
		    const struct conv_fmt *f)
{
	json_t *msgs = json_object_get(body, "messages"), *it;
	const char *role;
	size_t i;
	int ret;

	ret = add_tool_defs(body, cv, f->openai);
	if (ret)
		return ret;
	/* The last request: the model may not call, it must answer. */
	if (cv->final)
		json_object_set_new(body, "tool_choice",
				    f->openai ?
					    json_string("none") :
					    json_pack("{s:s}", "type", "none"));
	json_array_foreach(cv->msgs, i, it)
	{
		role = json_string_value(json_object_get(it, "role"));
		if (!strcmp(role, "assistant"))
			ret = f->assistant(msgs, it);
		else if (!strcmp(role, "tool"))
			ret = f->result(msgs, it);
		else
			ret = f->user(msgs, it);
		if (ret)
			return ret;
	}
	return 0;
}

/* An assistant turn in OpenAI's format: its text and tool_calls. */
static int openai_assistant(json_t *msgs, json_t *it)
{
	json_t *tc = json_array(), *c, *content;
	const char *text;
	size_t k;
	int ret = 0;

	json_array_foreach(json_object_get(it, "tool_calls"), k, c)
	{
		ret = json_push(tc, json_pack("{s:O, s:s, s:{s:O, s:O}}", "id",
					      json_object_get(c, "id"), "type",
					      "function", "function", "name",
					      json_object_get(c, "name"),
					      "arguments",
					      json_object_get(c, "arguments")));
		if (ret)
			break;
	}
	text = json_string_value(json_object_get(it, "content"));
	content = text && *text ? json_string(text) : json_null();
	return ret   ?:
		       json_push(msgs, json_pack("{s:s, s:o, s:o}", "role",
						 "assistant", "content",
						 content, "tool_calls", tc));
}

/* A tool's result in OpenAI's format: a "tool" message. */
static int openai_result(json_t *msgs, json_t *it)
{
	return json_push(msgs,
			 json_pack("{s:s, s:O, s:O}", "role", "tool",
				   "tool_call_id",
				   json_object_get(it, "tool_call_id"),
				   "content", json_object_get(it, "content")));
}

static int openai_user(json_t *msgs, json_t *it)
{
	return json_push(msgs,
			 json_pack("{s:s, s:O}", "role", "user", "content",
				   json_object_get(it, "content")));
}

static const struct conv_fmt openai_fmt = {
	.openai = true,
	.assistant = openai_assistant,
	.result = openai_result,
	.user = openai_user,
};

static int openai_attempt(struct rb_model *m, const struct rb_model_request *rq,
			  const struct conv *cv, struct attempt *a)
{
	json_t *body;
	int ret;

	body = json_pack("{s:s, s:[{s:s, s:s}, {s:s, s:s}], s:i, s:i}", "model",
			 m->o.name, "messages", "role", "system", "content",
			 rq->system, "role", "user", "content", rq->user,
			 m->o.max_tokens_field, m->o.max_tokens, "temperature",
			 0);
	if (!body)
		return rb_err(RB_ENOMEM, "model: cannot build the request");
	json_object_set_new(body, "response_format",
			    json_pack("{s:s, s:{s:s, s:b, s:o}}", "type",
				      "json_schema", "json_schema", "name",
				      rq->schema_name, "strict", 1, "schema",
				      schema_json(rq)));
	if (cv) {
		ret = add_conv(body, cv, &openai_fmt);
		if (ret) {
			json_decref(body);
			return ret;
		}
	}
	return post_with_key(m, body, NULL, "Authorization: Bearer", a);
}

/*
 * The user message that follows an assistant turn: its content array,
 * which takes the tool_result blocks of that turn and, on the last
 * request, the text that says the tools are over (Anthropic wants one
 * user message there, not two).
 */
static json_t *anthropic_user_blocks(json_t *msgs)
{
	json_t *last = json_array_get(msgs, json_array_size(msgs) - 1);
	json_t *blocks;

	if (last &&
	    !strcmp(json_string_value(json_object_get(last, "role")), "user") &&
	    json_is_array(json_object_get(last, "content")))
		return json_object_get(last, "content");
	blocks = json_array();
	if (json_push(msgs, json_pack("{s:s, s:o}", "role", "user", "content",
				      blocks)))
		return NULL;
	return blocks;
}

/* An assistant turn in Anthropic's format: text and tool_use blocks. */
static int anthropic_assistant(json_t *msgs, json_t *it)
{
	json_t *blocks = json_array(), *c, *input;
	const char *text, *args;
	size_t k;
	int ret = 0;

	text = json_string_value(json_object_get(it, "content"));
	if (text && *text)
		ret = json_push(blocks, json_pack("{s:s, s:s}", "type", "text",
						  "text", text));
	json_array_foreach(json_object_get(it, "tool_calls"), k, c)
	{
		/* tool_use takes an object, as it came. */
		args = json_string_value(json_object_get(c, "arguments"));
		input = json_loads(args, JSON_DECODE_ANY, NULL);
		if (!json_is_object(input)) {
			json_decref(input);
			input = json_object();
		}
		ret = ret   ?:
			      json_push(blocks,
					json_pack("{s:s, s:O, s:O, s:o}",
						  "type", "tool_use", "id",
						  json_object_get(c, "id"),
						  "name",
						  json_object_get(c, "name"),
						  "input", input));
	}
	return ret   ?:
		       json_push(msgs,
				 json_pack("{s:s, s:o}", "role", "assistant",
					   "content", blocks));
}

/* A tool's result in Anthropic's format: a tool_result block. */
/* Adds @block (a new reference) to the user message after the turn. */
static int anthropic_to_user(json_t *msgs, json_t *block)
{
	json_t *blocks = anthropic_user_blocks(msgs);

	if (!blocks) {
		json_decref(block);
		return rb_err(RB_ENOMEM, "model: cannot build the request");
	}
	return json_push(blocks, block);
}

static int anthropic_result(json_t *msgs, json_t *it)
{
	return anthropic_to_user(
		msgs,
		json_pack("{s:s, s:O, s:O}", "type", "tool_result",
			  "tool_use_id", json_object_get(it, "tool_call_id"),
			  "content", json_object_get(it, "content")));
}

static int anthropic_user(json_t *msgs, json_t *it)
{
	return anthropic_to_user(msgs,
				 json_pack("{s:s, s:O}", "type", "text", "text",
					   json_object_get(it, "content")));
}

static const struct conv_fmt anthropic_fmt = {
	.assistant = anthropic_assistant,
	.result = anthropic_result,
	.user = anthropic_user,
};

/*
 * @text cut at @cuts[0..n) into text blocks, each block that ends at a
 * cut marked cache_control ephemeral (Anthropic prompt caching: the
 * prefix up to and with a marked block is cached). NULL: out of memory.
 */
static json_t *cached_blocks(const char *text, const size_t *cuts, size_t n)
{
	json_t *blocks = json_array(), *b;
	size_t len = strlen(text), at = 0, i;

	for (i = 0; blocks && i <= n; i++) {
		size_t end = i < n ? cuts[i] : len;

		if (end > len)
			end = len;
		if (end <= at)
			continue;
		b = json_pack("{s:s, s:o}", "type", "text", "text",
			      json_stringn(text + at, end - at));
		if (b && i < n)
			json_object_set_new(b, "cache_control",
					    json_pack("{s:s}", "type",
						      "ephemeral"));
		if (json_push(blocks, b)) {
			json_decref(blocks);
			return NULL;
		}
		at = end;
	}
	return blocks;
}

/*
 * The request's shared prefix as cached blocks: the system prompt and
 * the first user message; in a tool loop also the last block of the
 * conversation, so that a turn reads what the turn before wrote.
 */
static int anthropic_cache(json_t *body, const struct rb_model_request *rq,
			   const struct conv *cv)
{
	json_t *msgs = json_object_get(body, "messages"), *sys, *user, *last;
	json_t *content;
	size_t cut = rq->system_shared;

	sys = cached_blocks(rq->system, &cut, rq->system_shared ? 1 : 0);
	user = cached_blocks(rq->user, rq->user_shared,
			     rq->n_user_shared > 2 ? 2 : rq->n_user_shared);
	if (!sys || !user || json_object_set_new(body, "system", sys) ||
	    json_object_set_new(json_array_get(msgs, 0), "content", user))
		return rb_err(RB_ENOMEM, "model: cannot build the request");
	if (!cv || json_array_size(msgs) < 2)
		return 0;
	content = json_object_get(
		json_array_get(msgs, json_array_size(msgs) - 1), "content");
	last = json_array_get(content, json_array_size(content) - 1);
	if (json_is_object(last))
		json_object_set_new(last, "cache_control",
				    json_pack("{s:s}", "type", "ephemeral"));
	return 0;
}

static int anthropic_attempt(struct rb_model *m,
			     const struct rb_model_request *rq,
			     const struct conv *cv, struct attempt *a)
{
	struct rb_buf v = RB_BUF_INIT(8192);
	json_t *body;
	int ret;

	body = json_pack("{s:s, s:i, s:s, s:[{s:s, s:s}], s:i}", "model",
			 m->o.name, "max_tokens", m->o.max_tokens, "system",
			 rq->system, "messages", "role", "user", "content",
			 rq->user, "temperature", 0);
	if (!body)
		return rb_err(RB_ENOMEM, "model: cannot build the request");
	ret = cv ? add_conv(body, cv, &anthropic_fmt) : 0;
	if (!ret && rq->cache)
		ret = anthropic_cache(body, rq, cv);
	if (ret) {
		json_decref(body);
		return ret;
	}
	rb_buf_printf(&v, "anthropic-version: %s",
		      m->o.anthropic_version ? m->o.anthropic_version :
					       "2023-06-01");
	ret = post_with_key(m, body, v.ptr, "x-api-key:", a);
	rb_buf_release(&v);
	return ret;
}

/* A provider's reply as JSON into *out, or -RB_EPARSE. */
static int reply_json(json_t **out, const char *body, size_t len)
{
	json_error_t e;

	*out = json_loadb(body, len, 0, &e);
	if (!*out)
		return rb_err(RB_EPARSE,
			      "model: reply is not JSON: %s (line %d)", e.text,
			      e.line);
	return 0;
}

/* -RB_ETOOBIG when the reply stopped for @why (@cut: at max_tokens). */
static int cut_short(json_t *why, const char *cut)
{
	if (strcmp(json_string_value(why) ?: "", cut))
		return 0;
	return rb_err(RB_ETOOBIG, "model: the answer was cut at "
				  "max_tokens; raise model.max_tokens");
}

/* A count of the reply's "usage" object: 0 when absent or absurd. */
static long usage_count(json_t *o, const char *k)
{
	json_int_t v = json_integer_value(json_object_get(o, k));

	return v > 0 && v < (json_int_t)1 << 40 ? (long)v : 0;
}

/*
 * The token counts of the reply's "usage" object. OpenAI's prompt_tokens
 * hold the cached ones (prompt_tokens_details.cached_tokens); Anthropic's
 * input_tokens do not: what was read from or written to the cache
 * (cache_read_input_tokens, cache_creation_input_tokens) is added, so
 * tokens_in counts every input token either way.
 */
static void reply_usage(struct rb_model_reply *out, json_t *j, const char *in,
			const char *outk)
{
	json_t *usage = json_object_get(j, "usage");

	out->tokens_in = usage_count(usage, in);
	out->tokens_out = usage_count(usage, outk);
	out->cache_read =
		usage_count(json_object_get(usage, "prompt_tokens_details"),
			    "cached_tokens");
	if (!out->cache_read) {
		out->cache_read = usage_count(usage, "cache_read_input_tokens");
		out->cache_written =
			usage_count(usage, "cache_creation_input_tokens");
		out->tokens_in += out->cache_read + out->cache_written;
	}
}

static int openai_parse(struct rb_model_reply *out, struct turn *t,
			const char *body, size_t len)
{
	json_t *j, *msg, *content, *choice, *tc, *c, *fn;
	size_t i;
	int ret = reply_json(&j, body, len);

	if (ret)
		return ret;
	choice = json_array_get(json_object_get(j, "choices"), 0);
	msg = json_object_get(choice, "message");
	content = json_object_get(msg, "content");
	tc = t ? json_object_get(msg, "tool_calls") : NULL;
	if (json_array_size(tc)) {
		json_array_foreach(tc, i, c)
		{
			fn = json_object_get(c, "function");
			ret = turn_add(t, json_object_get(c, "id"),
				       json_object_get(fn, "name"),
				       json_object_get(fn, "arguments"), NULL);
			if (ret)
				goto out;
		}
	} else if (!json_is_string(content)) {
		json_t *refusal = json_object_get(msg, "refusal");

		ret = rb_err(
			RB_EPARSE, "model: reply has no %s%s",
			json_is_string(refusal) ? "content, refusal: " :
						  "choices[0].message.content",
			json_is_string(refusal) ? json_string_value(refusal) :
						  "");
		goto out;
	}
	ret = cut_short(json_object_get(choice, "finish_reason"), "length");
	if (ret)
		goto out;
	reply_usage(out, j, "prompt_tokens", "completion_tokens");
	out->text = strdup(json_string_value(content) ?: "");
	if (!out->text)
		ret = rb_err(RB_ENOMEM, "out of memory");
out:
	json_decref(j);
	return ret;
}

static int anthropic_parse(struct rb_model_reply *out, struct turn *t,
			   const char *body, size_t len)
{
	json_t *j, *content, *it;
	struct rb_buf tx = RB_BUF_INIT(RB_BUF_NOLIMIT);
	size_t i;
	int ret = reply_json(&j, body, len);

	if (ret)
		return ret;
	content = json_object_get(j, "content");
	if (!json_is_array(content)) {
		ret = rb_err(RB_EPARSE, "model: reply has no content array");
		goto out;
	}
	json_array_foreach(content, i, it)
	{
		const char *type =
			json_string_value(json_object_get(it, "type"));
		json_t *s = json_object_get(it, "text");

		if (type && !strcmp(type, "text") && json_is_string(s))
			ret = rb_buf_puts(&tx, json_string_value(s));
		else if (t && type && !strcmp(type, "tool_use"))
			ret = turn_add(t, json_object_get(it, "id"),
				       json_object_get(it, "name"),
				       json_object_get(it, "input"), NULL);
		if (ret)
			goto out;
	}
	ret = cut_short(json_object_get(j, "stop_reason"), "max_tokens");
	if (ret)
		goto out;
	reply_usage(out, j, "input_tokens", "output_tokens");
	out->text = rb_buf_detach(&tx, NULL);
	if (!out->text)
		ret = rb_err(RB_ENOMEM, "out of memory");
out:
	rb_buf_release(&tx);
	json_decref(j);
	return ret;
}

/* ---- command provider ---- */

static bool needs_shell(const char *cmd)
{
	return strpbrk(cmd, "|&;<>()$`\\\"'*?[]#~=%{}\n") != NULL;
}

/* argv for the command: split at blanks, or /bin/sh -c. */
static char **command_argv(const char *cmd, char **copy)
{
	char **argv = calloc(strlen(cmd) / 2 + 4, sizeof(*argv));
	char *p, *s;
	size_t n = 0;

	*copy = strdup(cmd);
	if (!argv || !*copy) {
		free(argv);
		free(*copy);
		*copy = NULL;
		return NULL;
	}
	if (needs_shell(cmd)) {
		argv[0] = "/bin/sh";
		argv[1] = "-c";
		argv[2] = *copy;
		return argv;
	}
	for (p = *copy; *p;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		s = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		argv[n++] = s;
	}
	return argv;
}

/*
 * The command protocol's input with tools (docs/MODEL-TOOLS.md): one JSON
 * object on stdin, the whole conversation in it, since the program is
 * spawned once per turn and keeps nothing between turns.
 */
static int command_input(struct rb_buf *in, const struct rb_model_request *rq,
			 const struct conv *cv)
{
	json_t *o;
	char *text;
	int ret;

	o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:o, s:O, s:O, s:b, s:i, s:i}",
		      "protocol", 1, "kind", rq->kind ? rq->kind : "", "system",
		      rq->system ? rq->system : "", "user",
		      rq->user ? rq->user : "", "schema_name",
		      rq->schema_name ? rq->schema_name : "", "schema",
		      schema_json(rq), "tools", cv->tools, "messages", cv->msgs,
		      "final", cv->final, "round", cv->round, "max_rounds",
		      cv->max_rounds);
	if (!o)
		return rb_err(RB_ENOMEM, "model: cannot build the request");
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!text)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = rb_buf_puts(in, text) ?: rb_buf_putc(in, '\n');
	free(text);
	return ret;
}

static int command_attempt(struct rb_model *m,
			   const struct rb_model_request *rq,
			   const struct conv *cv, struct attempt *a)
{
	struct rb_buf in = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_proc_opts po = RB_PROC_OPTS_INIT;
	struct rb_proc_result res;
	char *copy = NULL, **argv = NULL;
	sigset_t pipe_set, old;
	struct timespec zero = { 0, 0 };
	int ret;

	if (cv)
		ret = command_input(&in, rq, cv);
	else if (rb_buf_printf(&in, "%s\n\n%s\n", rq->system, rq->user))
		ret = rb_err(RB_ENOMEM, "out of memory");
	else
		ret = 0;
	if (ret) {
		rb_buf_release(&in);
		return ret;
	}
	argv = command_argv(m->o.command, &copy);
	if (!argv || !argv[0]) {
		ret = rb_err(RB_ECONFIG, "model: empty command");
		goto out;
	}
	po.argv = (const char *const *)argv;
	po.input = in.ptr;
	po.input_len = in.len;
	po.timeout_ms = m->o.timeout_seconds * 1000;
	po.max_output = m->o.max_reply;
	/* A program that stops reading gives EPIPE here, not SIGPIPE. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	ret = rb_proc_run(&res, &po);
	while (sigtimedwait(&pipe_set, NULL, &zero) > 0)
		;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		goto out;
	if (res.timed_out) {
		a->err = rb_err(RB_ETIMEOUT,
				"model: command %s: no answer within %d s",
				argv[0], m->o.timeout_seconds);
		a->retryable = true;
	} else if (res.truncated) {
		ret = rb_err(RB_ETOOBIG,
			     "model: command %s: answer over %zu bytes",
			     argv[0], m->o.max_reply);
	} else if (res.exit_code) {
		ret = rb_err(RB_EFAIL, "model: command %s: exit %d: %.200s",
			     argv[0], res.exit_code, res.err.ptr);
	} else {
		a->status = 200;
		ret = rb_buf_add(&a->body, res.out.ptr, res.out.len);
	}
	rb_proc_result_release(&res);
out:
	free(argv);
	free(copy);
	rb_buf_release(&in);
	return ret;
}

/*
 * The program's answer: with tools, a JSON object with a "tool_calls"
 * array asks for calls ("content" is optional text beside them); any
 * other output is the answer, as without tools.
 */
static int text_parse(struct rb_model_reply *out, struct turn *t,
		      const char *body, size_t len)
{
	json_t *j = t ? json_loadb(body, len, 0, NULL) : NULL;
	json_t *calls = json_object_get(j, "tool_calls"), *c;
	const char *text = json_string_value(json_object_get(j, "content"));
	size_t i;
	int ret = 0;

	out->tokens_in = out->tokens_out = 0;
	if (!json_array_size(calls)) {
		json_decref(j);
		out->text = strndup(body, len);
		return out->text ? 0 : rb_err(RB_ENOMEM, "out of memory");
	}
	json_array_foreach(calls, i, c)
	{
		ret = turn_add(t, json_object_get(c, "id"),
			       json_object_get(c, "name"),
			       json_object_get(c, "arguments"), NULL);
		if (ret)
			break;
	}
	out->text = ret ? NULL : strdup(text ? text : "");
	if (!ret && !out->text)
		ret = rb_err(RB_ENOMEM, "out of memory");
	json_decref(j);
	return ret;
}

/* ---- replay ---- */

static int replay_attempt(struct rb_model *m, const struct rb_model_request *rq,
			  const struct conv *cv, struct attempt *a)
{
	char hash[65], path[4096];
	struct rb_buf f = RB_BUF_INIT(64u << 20);
	json_t *j = NULL, *resp;
	int ret;

	turn_hash(hash, rq, cv);
	snprintf(path, sizeof(path), "%s/%s.json", m->o.replay_dir, hash);
	ret = rb_read_file(&f, path);
	if (ret) {
		if (cv)
			ret = rb_err(RB_ENOTFOUND,
				     "model: replay: no recorded %s exchange "
				     "%s (tool turn %d) in %s",
				     rq->kind, hash, cv->round,
				     m->o.replay_dir);
		else
			ret = rb_err(RB_ENOTFOUND,
				     "model: replay: no recorded %s exchange "
				     "%s in %s",
				     rq->kind, hash, m->o.replay_dir);
		goto out;
	}
	j = json_loadb(f.ptr, f.len, 0, NULL);
	resp = json_object_get(j, "response");
	if (!json_is_string(json_object_get(resp, "text"))) {
		ret = rb_err(RB_ENOTFOUND, "model: replay: %s holds no answer",
			     path);
		goto out;
	}
	a->status = 200;
	/* The attempt body is the recorded response object. */
	{
		char *s = json_dumps(resp, JSON_COMPACT);

		ret = s ? rb_buf_puts(&a->body, s) :
			  rb_err(RB_ENOMEM, "out of memory");
		free(s);
	}
out:
	json_decref(j);
	rb_buf_release(&f);
	return ret;
}

static int replay_parse(struct rb_model_reply *out, struct turn *t,
			const char *body, size_t len)
{
	json_t *j = json_loadb(body, len, 0, NULL), *c;
	size_t i;
	int ret = 0;

	if (!j)
		return rb_err(RB_EPARSE, "model: replay: bad recording");
	if (!json_is_string(json_object_get(j, "text"))) {
		json_decref(j);
		return rb_err(RB_EPARSE, "model: replay: no text recorded");
	}
	out->text = strdup(json_string_value(json_object_get(j, "text")));
	out->tokens_in =
		(long)json_integer_value(json_object_get(j, "tokens_in"));
	out->tokens_out =
		(long)json_integer_value(json_object_get(j, "tokens_out"));
	out->cache_read =
		(long)json_integer_value(json_object_get(j, "cache_read"));
	out->cache_written =
		(long)json_integer_value(json_object_get(j, "cache_written"));
	if (!out->text)
		ret = rb_err(RB_ENOMEM, "out of memory");
	/* The calls as recorded, refusals kept, so the turn runs again. */
	json_array_foreach(t ? json_object_get(j, "tool_calls") : NULL, i, c)
	{
		if (ret)
			break;
		ret = turn_add(
			t, json_object_get(c, "id"), json_object_get(c, "name"),
			json_object_get(c, "arguments"),
			json_string_value(json_object_get(c, "refused")));
	}
	if (t && !ret) {
		json_int_t d =
			json_integer_value(json_object_get(j, "dropped_calls"));

		t->dropped = d > 0 && d < 1000000 ? (int)d : 0;
	}
	json_decref(j);
	return ret;
}

static const struct rb_model_provider_ops providers[] = {
	{ "openai", openai_attempt, openai_parse },
	{ "anthropic", anthropic_attempt, anthropic_parse },
	{ "command", command_attempt, text_parse },
	{ "replay", replay_attempt, replay_parse },
};

/* ---- errors, retries, the limit ---- */

/* The provider's error text: error.message, error.type/code. */
static void error_info(const struct attempt *a, char *msg, size_t msz,
		       char *type, size_t tsz)
{
	json_t *j = json_loadb(a->body.ptr, a->body.len, 0, NULL);
	json_t *e = json_object_get(j, "error");
	const char *s;

	snprintf(msg, msz, "%.*s", (int)(a->body.len > 200 ? 200 : a->body.len),
		 a->body.ptr);
	type[0] = 0;
	if (json_is_string(e)) {
		snprintf(msg, msz, "%s", json_string_value(e));
	} else if (json_is_object(e)) {
		s = json_string_value(json_object_get(e, "message"));
		if (s)
			snprintf(msg, msz, "%s", s);
		s = json_string_value(json_object_get(e, "code"));
		if (!s)
			s = json_string_value(json_object_get(e, "type"));
		if (s)
			snprintf(type, tsz, "%s", s);
	}
	json_decref(j);
}

static bool is_quota(const char *type, const char *msg)
{
	static const char *const words[] = {
		"insufficient_quota", "billing_hard_limit",
		"spend limit",	      "spending limit",
		"credit balance",     "exceeded your current quota"
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strcasestr(type, words[i]) || strcasestr(msg, words[i]))
			return true;
	return false;
}

static bool status_retryable(long s)
{
	return s == 408 || s == 409 || s == 429 || (s >= 500 && s <= 599);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void limit_enter(struct rb_model *m)
{
	pthread_mutex_lock(&m->lock);
	while (m->busy >= m->o.concurrency)
		pthread_cond_wait(&m->cond, &m->lock);
	m->busy++;
	pthread_mutex_unlock(&m->lock);
}

static void limit_leave(struct rb_model *m)
{
	pthread_mutex_lock(&m->lock);
	m->busy--;
	pthread_cond_signal(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

/* The longest we wait for a Retry-After before giving up for now. */
#define MAX_RETRY_AFTER_MS (5L * 60 * 1000)

/* One turn, with its retries; @t and @cv are NULL without tools. */
static int call_locked(struct rb_model_reply *out, struct turn *t,
		       struct rb_model *m, const struct rb_model_request *rq,
		       const struct conv *cv)
{
	struct attempt a;
	int ret = 0, tries;

	for (tries = 0;; tries++) {
		char msg[512], type[128];
		long delay;

		memset(&a, 0, sizeof(a));
		rb_buf_init(&a.body, m->o.max_reply);
		a.retry_after_ms = -1;
		ret = m->ops->attempt(m, rq, cv, &a);
		if (ret)
			break;
		if (!a.err && a.status >= 200 && a.status < 300) {
			ret = m->ops->parse(out, t, a.body.ptr, a.body.len);
			out->retries = tries;
			break;
		}
		if (a.err) {
			ret = a.err;
		} else {
			error_info(&a, msg, sizeof(msg), type, sizeof(type));
			if (is_quota(type, msg)) {
				ret = rb_err(RB_EQUOTA,
					     "model: %s: quota or spend limit "
					     "reached (HTTP %ld%s%s): %s",
					     m->o.provider, a.status,
					     type[0] ? ", " : "", type, msg);
				break;
			}
			a.retryable = status_retryable(a.status);
			ret = rb_err(a.retryable ? RB_EAGAIN : RB_EFAIL,
				     "model: %s: HTTP %ld%s%s: %s",
				     m->o.provider, a.status,
				     type[0] ? ", " : "", type, msg);
		}
		if (!a.retryable || tries >= m->o.max_retries)
			break;
		if (a.retry_after_ms >= 0) {
			delay = a.retry_after_ms;
			if (delay > MAX_RETRY_AFTER_MS)
				break;
		} else {
			/* Full jitter (AWS architecture blog, 2015). */
			long cap = (long)m->o.retry_base_ms
				   << (tries < 10 ? tries : 10);

			if (cap > 60000)
				cap = 60000;
			delay = cap > 0 ? (long)arc4random_uniform(
						  (uint32_t)cap + 1) :
					  0;
		}
		rb_log(RB_LOG_INFO, "model.retry", "provider", m->o.provider,
		       "reason", rb_errmsg(), NULL);
		rb_buf_release(&a.body);
		sleep_ms(delay);
	}
	rb_buf_release(&a.body);
	if (!ret && out)
		out->retries = tries;
	return ret;
}

/*
 * Answers the calls of one turn through the toolset and adds the turn and
 * its results to the conversation. A callback's -RB_ETOOBIG (a limit of
 * the tools) sets *stop: the next request is the last one.
 */
static int run_calls(struct conv *cv, const struct rb_model_toolset *ts,
		     const char *text, const struct turn *t, bool *stop)
{
	struct rb_buf res = RB_BUF_INIT(TOOL_MAX_RESULT);
	const char *name, *args, *refused;
	size_t i, n = json_array_size(t->calls);
	json_t *c;
	int ret;

	ret = json_push(cv->msgs,
			json_pack("{s:s, s:s, s:O}", "role", "assistant",
				  "content", text ? text : "", "tool_calls",
				  t->calls));
	json_array_foreach(t->calls, i, c)
	{
		if (ret)
			break;
		rb_buf_reset(&res);
		name = json_string_value(json_object_get(c, "name"));
		args = json_string_value(json_object_get(c, "arguments"));
		refused = json_string_value(json_object_get(c, "refused"));
		if (refused) {
			ret = rb_buf_puts(&res, refused);
		} else {
			ret = ts->call(ts->arg, name, args,
				       json_string_length(
					       json_object_get(c, "arguments")),
				       &res);
			if (ret == -RB_ETOOBIG) {
				if (!*stop)
					rb_log(RB_LOG_INFO, "model.tool_limit",
					       "reason",
					       res.len ? res.ptr : rb_errmsg(),
					       NULL);
				*stop = true;
				ret = res.len ?
					      0 :
					      rb_buf_puts(&res,
							  "error: a tool "
							  "limit was reached");
			}
		}
		if (!ret && i + 1 == n && t->dropped)
			ret = rb_buf_printf(&res,
					    "\n\nnote: %d more tool calls of "
					    "that turn were dropped: at most "
					    "%d are answered in one turn",
					    t->dropped, TOOL_MAX_CALLS);
		if (ret == -RB_ETOOBIG)
			ret = 0; /* our own floor: the text stays cut */
		if (!ret)
			ret = json_push(cv->msgs,
					json_pack("{s:s, s:O, s:s, s:o}",
						  "role", "tool",
						  "tool_call_id",
						  json_object_get(c, "id"),
						  "name", name, "content",
						  json_text(res.ptr, res.len)));
	}
	rb_buf_release(&res);
	return ret;
}

/*
 * The tool loop: turn after turn until the model answers in text. After
 * max_rounds turns with calls, or when a limit of the tools is reached,
 * one last request says the tools are over and demands the answer.
 */
static int tool_loop(struct rb_model_reply *out, struct rb_model *m,
		     const struct rb_model_request *rq)
{
	const struct rb_model_toolset *ts = rq->tools;
	struct conv cv = { 0 };
	bool stop = false, done = false;
	int ret = 0;

	cv.tools = json_loads(ts->defs ? ts->defs : "[]", 0, NULL);
	cv.msgs = json_array();
	if (!json_is_array(cv.tools) || !cv.msgs || !ts->call) {
		ret = rb_err(RB_EINVAL, "model: the tools offered are not a "
					"JSON array with a callback");
		goto out;
	}
	cv.max_rounds = ts->max_rounds > 0   ? ts->max_rounds :
			m->o.tool_rounds > 0 ? m->o.tool_rounds :
					       TOOL_DEFAULT_ROUNDS;
	if (cv.max_rounds > TOOL_MAX_ROUNDS)
		cv.max_rounds = TOOL_MAX_ROUNDS;
	for (cv.round = 0; !ret && !done; cv.round++) {
		struct rb_model_reply r = { 0 };
		struct turn t = { 0 };

		if (!cv.final && (stop || cv.round >= cv.max_rounds)) {
			cv.final = true;
			ret = json_push(cv.msgs,
					json_pack("{s:s, s:s}", "role", "user",
						  "content", tools_over));
			if (ret)
				break;
		}
		t.calls = json_array();
		if (!t.calls) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			break;
		}
		ret = call_locked(&r, &t, m, rq, &cv);
		record(m, rq, &cv, ret ? NULL : &r, &t, ret);
		if (!ret) {
			out->tokens_in += r.tokens_in;
			out->tokens_out += r.tokens_out;
			out->cache_read += r.cache_read;
			out->cache_written += r.cache_written;
			out->retries += r.retries;
			/* Each turn resends the conversation: cost grows. */
			if (m->o.tool_tokens > 0 && !stop &&
			    out->tokens_in + out->tokens_out >=
				    m->o.tool_tokens) {
				rb_log(RB_LOG_INFO, "model.tool_limit",
				       "reason",
				       "the tokens of the loop are spent",
				       NULL);
				stop = true;
			}
		}
		if (!ret && !json_array_size(t.calls)) {
			out->text = r.text;
			r.text = NULL;
			done = true;
		} else if (!ret && cv.final) {
			ret = rb_err(RB_EPARSE, "model: tool calls after the "
						"tools were over");
		} else if (!ret) {
			ret = run_calls(&cv, ts, r.text, &t, &stop);
		}
		rb_model_reply_release(&r);
		json_decref(t.calls);
	}
out:
	json_decref(cv.tools);
	json_decref(cv.msgs);
	return ret;
}

int rb_model_call(struct rb_model_reply *out, struct rb_model *m,
		  const struct rb_model_request *rq)
{
	struct rb_model_reply r = { 0 };
	int ret;

	limit_enter(m);
	if (rq->tools) {
		/* The slot is held over the whole loop, tools included. */
		ret = tool_loop(&r, m, rq);
		limit_leave(m);
	} else {
		ret = call_locked(&r, NULL, m, rq, NULL);
		limit_leave(m);
		record(m, rq, NULL, ret ? NULL : &r, NULL, ret);
	}
	if (ret) {
		rb_model_reply_release(&r);
		return ret;
	}
	*out = r;
	return 0;
}

int rb_model_parse_tool_reply(struct rb_model_reply *out, size_t *ncalls,
			      const char *provider, const char *body,
			      size_t len)
{
	struct rb_model_reply r = { 0 };
	struct turn t = { 0 };
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(providers); i++)
		if (!strcmp(providers[i].name, provider))
			break;
	if (i == ARRAY_SIZE(providers))
		return rb_err(RB_EINVAL, "model: no provider %s", provider);
	t.calls = json_array();
	if (!t.calls)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = providers[i].parse(&r, &t, body, len);
	if (!ret) {
		*ncalls = json_array_size(t.calls);
		*out = r;
	} else {
		rb_model_reply_release(&r);
	}
	json_decref(t.calls);
	return ret;
}

/* ---- lifecycle ---- */

static const char *keep(struct rb_model *m, int i, const char *s)
{
	if (!s)
		return NULL;
	m->strs[i] = strdup(s);
	return m->strs[i];
}

int rb_model_new(struct rb_model **out, const struct rb_model_opts *opts)
{
	struct rb_model *m;
	const char *p = opts->provider ? opts->provider : "none";
	size_t i;

	if (!strcmp(p, "none")) {
		*out = NULL;
		return 0;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return rb_err(RB_ENOMEM, "out of memory");
	m->o = *opts;
	for (i = 0; i < ARRAY_SIZE(providers); i++)
		if (!strcmp(providers[i].name, p))
			m->ops = &providers[i];
	if (!m->ops) {
		free(m);
		return rb_err(RB_ECONFIG, "model.provider: unknown provider %s",
			      p);
	}
	if ((!strcmp(p, "openai") || !strcmp(p, "anthropic")) &&
	    (!opts->url || !opts->name)) {
		free(m);
		return rb_err(RB_ECONFIG,
			      "model: provider %s needs url and name", p);
	}
	if (!strcmp(p, "command") && (!opts->command || !*opts->command)) {
		free(m);
		return rb_err(RB_ECONFIG,
			      "model: provider command needs command");
	}
	if (!strcmp(p, "replay") && !opts->replay_dir) {
		free(m);
		return rb_err(RB_ECONFIG,
			      "model: provider replay needs a directory");
	}
	m->o.provider = keep(m, 0, p);
	m->o.url = keep(m, 1, opts->url);
	m->o.name = keep(m, 2, opts->name);
	m->o.api_key = keep(m, 3, opts->api_key);
	m->o.command = keep(m, 4, opts->command);
	m->o.max_tokens_field = keep(
		m, 5,
		opts->max_tokens_field ? opts->max_tokens_field : "max_tokens");
	m->o.anthropic_version = keep(m, 6, opts->anthropic_version);
	m->o.guides_dir =
		keep(m, 7, opts->guides_dir ? opts->guides_dir : RB_GUIDES_DIR);
	m->o.record_dir = keep(m, 8, opts->record_dir);
	m->o.replay_dir = keep(m, 9, opts->replay_dir);
	if (m->o.concurrency < 1)
		m->o.concurrency = 1;
	if (m->o.timeout_seconds < 1)
		m->o.timeout_seconds = 1;
	if (m->o.max_retries < 0)
		m->o.max_retries = 0;
	if (!m->o.max_reply)
		m->o.max_reply = 1u << 20;
	if (m->o.max_tokens < 1)
		m->o.max_tokens = 4096;
	if (m->o.prompt_tokens < 1000)
		m->o.prompt_tokens = 1000;
	if (m->o.near_lines < 0)
		m->o.near_lines = 0;
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cond, NULL);
	pthread_once(&curl_once, curl_init_once);
	*out = m;
	return 0;
}

void rb_model_free(struct rb_model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < ARRAY_SIZE(m->strs); i++) {
		if (i == 3)
			rb_free_secret(m->strs[i]);
		else
			free(m->strs[i]);
	}
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->cond);
	free(m);
}
