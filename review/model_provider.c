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

#include "review/model.h"
#include "review/model_provider.h"
#include "review/sandbox.h"
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
	 * One attempt. Returns 0 when something came back (read @a), or a
	 * negative code for a failure that is not worth a retry.
	 */
	int (*attempt)(struct rb_model *m, const struct rb_model_request *rq,
		       struct attempt *a);
	/* Turns a 2xx body into the answer text and the token counts. */
	int (*parse)(struct rb_model_reply *out, const char *body, size_t len);
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

void rb_model_request_hash(char out[65], const struct rb_model_request *rq)
{
	struct rb_sha256 *h = rb_sha256_new();

	if (!h) {
		memset(out, '0', 64);
		out[64] = 0;
		return;
	}
	hash_str(h, rq->kind, NULL);
	hash_str(h, rq->schema, NULL);
	hash_str(h, rq->system, rq->nonce);
	hash_str(h, rq->user, rq->nonce);
	rb_sha256_final_hex(h, out);
}

/* One exchange as a JSON file, DIR/<hash>.json; the key is never in it. */
static void record(struct rb_model *m, const struct rb_model_request *rq,
		   const struct rb_model_reply *rep, int err)
{
	char hash[65], path[4096];
	json_t *o = NULL;
	char *text = NULL;

	if (!m->o.record_dir)
		return;
	rb_model_request_hash(hash, rq);
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
	if (!err && rep && rep->text)
		json_object_set_new(
			o, "response",
			json_pack("{s:s, s:I, s:I, s:i}", "text", rep->text,
				  "tokens_in", (json_int_t)rep->tokens_in,
				  "tokens_out", (json_int_t)rep->tokens_out,
				  "retries", rep->retries));
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

static int openai_attempt(struct rb_model *m, const struct rb_model_request *rq,
			  struct attempt *a)
{
	json_t *body;

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
	return post_with_key(m, body, NULL, "Authorization: Bearer", a);
}

static int anthropic_attempt(struct rb_model *m,
			     const struct rb_model_request *rq,
			     struct attempt *a)
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

/* The token counts of the reply's "usage" object. */
static void reply_usage(struct rb_model_reply *out, json_t *j, const char *in,
			const char *outk)
{
	json_t *usage = json_object_get(j, "usage");

	out->tokens_in = (long)json_integer_value(json_object_get(usage, in));
	out->tokens_out =
		(long)json_integer_value(json_object_get(usage, outk));
}

static int openai_parse(struct rb_model_reply *out, const char *body,
			size_t len)
{
	json_t *j, *msg, *content, *choice;
	int ret = reply_json(&j, body, len);

	if (ret)
		return ret;
	choice = json_array_get(json_object_get(j, "choices"), 0);
	msg = json_object_get(choice, "message");
	content = json_object_get(msg, "content");
	if (!json_is_string(content)) {
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
	out->text = strdup(json_string_value(content));
	if (!out->text)
		ret = rb_err(RB_ENOMEM, "out of memory");
out:
	json_decref(j);
	return ret;
}

static int anthropic_parse(struct rb_model_reply *out, const char *body,
			   size_t len)
{
	json_t *j, *content, *it;
	struct rb_buf t = RB_BUF_INIT(RB_BUF_NOLIMIT);
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
		json_t *tx = json_object_get(it, "text");

		if (type && !strcmp(type, "text") && json_is_string(tx))
			ret = rb_buf_puts(&t, json_string_value(tx));
		if (ret)
			goto out;
	}
	ret = cut_short(json_object_get(j, "stop_reason"), "max_tokens");
	if (ret)
		goto out;
	reply_usage(out, j, "input_tokens", "output_tokens");
	out->text = rb_buf_detach(&t, NULL);
	if (!out->text)
		ret = rb_err(RB_ENOMEM, "out of memory");
out:
	rb_buf_release(&t);
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

static int command_attempt(struct rb_model *m,
			   const struct rb_model_request *rq, struct attempt *a)
{
	struct rb_buf in = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_proc_opts po = RB_PROC_OPTS_INIT;
	struct rb_proc_result res;
	char *copy = NULL, **argv = NULL;
	sigset_t pipe_set, old;
	struct timespec zero = { 0, 0 };
	int ret;

	if (rb_buf_printf(&in, "%s\n\n%s\n", rq->system, rq->user))
		return rb_err(RB_ENOMEM, "out of memory");
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

static int text_parse(struct rb_model_reply *out, const char *body, size_t len)
{
	out->text = strndup(body, len);
	out->tokens_in = out->tokens_out = 0;
	return out->text ? 0 : rb_err(RB_ENOMEM, "out of memory");
}

/* ---- replay ---- */

static int replay_attempt(struct rb_model *m, const struct rb_model_request *rq,
			  struct attempt *a)
{
	char hash[65], path[4096];
	struct rb_buf f = RB_BUF_INIT(64u << 20);
	json_t *j = NULL, *resp;
	int ret;

	rb_model_request_hash(hash, rq);
	snprintf(path, sizeof(path), "%s/%s.json", m->o.replay_dir, hash);
	ret = rb_read_file(&f, path);
	if (ret) {
		ret = rb_err(RB_ENOTFOUND,
			     "model: replay: no recorded %s exchange %s in %s",
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

static int replay_parse(struct rb_model_reply *out, const char *body,
			size_t len)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	int ret = 0;

	if (!j)
		return rb_err(RB_EPARSE, "model: replay: bad recording");
	out->text = strdup(json_string_value(json_object_get(j, "text")));
	out->tokens_in =
		(long)json_integer_value(json_object_get(j, "tokens_in"));
	out->tokens_out =
		(long)json_integer_value(json_object_get(j, "tokens_out"));
	if (!out->text)
		ret = rb_err(RB_ENOMEM, "out of memory");
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

static int call_locked(struct rb_model_reply *out, struct rb_model *m,
		       const struct rb_model_request *rq)
{
	struct attempt a;
	int ret = 0, tries;

	for (tries = 0;; tries++) {
		char msg[512], type[128];
		long delay;

		memset(&a, 0, sizeof(a));
		rb_buf_init(&a.body, m->o.max_reply);
		a.retry_after_ms = -1;
		ret = m->ops->attempt(m, rq, &a);
		if (ret)
			break;
		if (!a.err && a.status >= 200 && a.status < 300) {
			ret = m->ops->parse(out, a.body.ptr, a.body.len);
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

int rb_model_call(struct rb_model_reply *out, struct rb_model *m,
		  const struct rb_model_request *rq)
{
	struct rb_model_reply r = { 0 };
	int ret;

	limit_enter(m);
	ret = call_locked(&r, m, rq);
	limit_leave(m);
	record(m, rq, ret ? NULL : &r, ret);
	if (ret) {
		rb_model_reply_release(&r);
		return ret;
	}
	*out = r;
	return 0;
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
