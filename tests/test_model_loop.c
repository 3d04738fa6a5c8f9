// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_model_loop.c - the tool-calling loop of review/model/model_provider.c
 * against tests/model_server.py on a free loopback port: OpenAI
 * "tool_calls" and Anthropic "tool_use", the command provider's JSON
 * protocol (a small Python program as the model), the limits (max_rounds,
 * the toolset's -RB_ETOOBIG, the caps on hostile calls), and record and
 * replay of a tool-using exchange with the server stopped. The tools are
 * a fake callback: the loop is tested here, the tools in their own test.
 */
#include <ctype.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <jansson.h>

#include "review/model/model_provider.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "tests/testlib.h"
#include "util/banned.h"

static struct rb_test_server srv;

static const char defs[] =
	"[{\"name\": \"read_file\", \"description\": \"Lines of a file.\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": {\"path\": "
	"{\"type\": \"string\"}, \"start\": {\"type\": \"integer\"}}, "
	"\"required\": [\"path\"]}}, "
	"{\"name\": \"grep\", \"description\": \"Search the tree.\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": "
	"{\"pattern\": {\"type\": \"string\"}}}}]";

static int setup(void **state)
{
	(void)state;
	return rb_test_server_setup(&srv, "/tmp/rb-loop.XXXXXX");
}

static int teardown(void **state)
{
	(void)state;
	rb_test_server_teardown(&srv);
	return 0;
}

/* The request log, one JSON object a line. */
static json_t *log_entries(void)
{
	struct rb_buf b = RB_BUF_INIT(64u << 20);
	json_t *arr = json_array();
	char *line, *save = NULL;

	assert_int_equal(rb_read_file(&b, srv.log), 0);
	for (line = strtok_r(b.ptr, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		json_array_append_new(arr, json_loads(line, 0, NULL));
	rb_buf_release(&b);
	return arr;
}

/* ---- the fake tools ---- */

struct fake {
	int calls;
	int toobig_at; /* the call (1-based) that reaches a limit, or 0 */
	char last_name[64];
	char last_args[256];
	size_t max_args_len;
};

static int fake_call(void *arg, const char *name, const char *args,
		     size_t args_len, struct rb_buf *out)
{
	struct fake *f = arg;

	f->calls++;
	snprintf(f->last_name, sizeof(f->last_name), "%s", name);
	snprintf(f->last_args, sizeof(f->last_args), "%.*s", (int)args_len,
		 args);
	if (args_len > f->max_args_len)
		f->max_args_len = args_len;
	if (f->toobig_at && f->calls >= f->toobig_at) {
		rb_buf_puts(out, "error: the limit of tool calls is reached");
		return -RB_ETOOBIG;
	}
	/* Latin-1 bytes, as a file of the tree may hold. */
	return rb_buf_printf(out, "RESULT:%s:%.*s caf\xe9", name, (int)args_len,
			     args);
}

struct loop {
	const char *provider; /* "openai" by default */
	const char *command;
	const char *record_dir, *replay_dir;
	const char *nonce; /* NONCE123 by default */
	int max_rounds, max_retries;
	long tool_tokens;
	struct fake f;
	/* out */
	struct rb_model_reply rep;
};

static int run_loop(struct loop *l)
{
	struct rb_model_opts o = RB_MODEL_OPTS_INIT;
	struct rb_model_toolset ts = { .defs = defs, .call = fake_call };
	struct rb_model_request rq = {
		.kind = "finder",
		.schema_name = "findings",
		.schema = "{\"type\": \"object\"}",
	};
	struct rb_model *m = NULL;
	char url[128], sys[128], user[128];
	int ret;

	/* The nonce changes from run to run; the hash leaves it out. */
	rq.nonce = l->nonce ? l->nonce : "NONCE123";
	snprintf(sys, sizeof(sys), "You review patches. Marker %s.", rq.nonce);
	snprintf(user, sizeof(user), "Review: mm/foo.c, between %s markers.",
		 rq.nonce);
	rq.system = sys;
	rq.user = user;

	o.provider = l->provider ? l->provider : "openai";
	rb_test_server_url(&srv, o.provider, url, sizeof(url));
	o.url = url;
	o.name = "test-model";
	o.command = l->command;
	o.record_dir = l->record_dir;
	o.replay_dir = l->replay_dir;
	o.max_retries = l->max_retries;
	o.tool_tokens = l->tool_tokens;
	o.retry_base_ms = 10;
	o.timeout_seconds = 30;
	ts.arg = &l->f;
	ts.max_rounds = l->max_rounds;
	rq.tools = &ts;
	assert_int_equal(rb_model_new(&m, &o), 0);
	ret = rb_model_call(&l->rep, m, &rq);
	rb_model_free(m);
	return ret;
}

static const char *str_at(json_t *j, const char *path)
{
	char key[64];
	const char *p = path, *dot;

	while (j && (dot = strchr(p, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - p), p);
		j = isdigit((unsigned char)key[0]) ?
			    json_array_get(j, (size_t)atoi(key)) :
			    json_object_get(j, key);
		p = dot + 1;
	}
	j = j && isdigit((unsigned char)p[0]) ?
		    json_array_get(j, (size_t)atoi(p)) :
		    json_object_get(j, p);
	return json_string_value(j);
}

/* ---- the cases ---- */

static const char one_call[] =
	"{\"steps\": [{\"tool_calls\": [{\"name\": \"read_file\", "
	"\"arguments\": {\"path\": \"mm/foo.c\", \"start\": 10}}], "
	"\"answer\": \"Let me read it.\", \"usage\": [100, 10]}, "
	"{\"match_result\": \"RESULT:read_file:\", \"answer\": "
	"\"{\\\"findings\\\": []}\", \"usage\": [200, 20]}, "
	"{\"answer\": \"wrong: no result came back\"}]}";

static void check_one_call(const char *provider)
{
	struct loop l = { .provider = provider };
	json_t *log;
	bool anthropic = !strcmp(provider, "anthropic");

	rb_test_server_script(&srv, one_call);
	assert_int_equal(run_loop(&l), 0);
	assert_string_equal(l.rep.text, "{\"findings\": []}");
	assert_int_equal(l.rep.tokens_in, 300);
	assert_int_equal(l.rep.tokens_out, 30);
	assert_int_equal(l.f.calls, 1);
	assert_string_equal(l.f.last_name, "read_file");
	assert_non_null(strstr(l.f.last_args, "\"mm/foo.c\""));

	log = log_entries();
	assert_int_equal(json_array_size(log), 2);
	/* The tools went out in the provider's own shape. */
	if (anthropic) {
		assert_string_equal(str_at(log, "0.body.tools.0.name"),
				    "read_file");
		assert_string_equal(str_at(log,
					   "0.body.tools.0.input_schema.type"),
				    "object");
		assert_string_equal(str_at(log,
					   "1.body.messages.1.content.1.type"),
				    "tool_use");
		assert_string_equal(str_at(log,
					   "1.body.messages.2.content.0.type"),
				    "tool_result");
	} else {
		assert_string_equal(str_at(log, "0.body.tools.0.type"),
				    "function");
		assert_string_equal(str_at(log, "0.body.tools.0.function.name"),
				    "read_file");
		assert_string_equal(str_at(log, "1.body.messages.2.role"),
				    "assistant");
		assert_string_equal(str_at(log, "1.body.messages.3.role"),
				    "tool");
		assert_string_equal(
			str_at(log, "1.body.messages.3.tool_call_id"),
			str_at(log, "1.body.messages.2.tool_calls.0.id"));
	}
	assert_null(str_at(log, "1.bad"));
	/* The result, its Latin-1 byte made '?', went back. */
	assert_non_null(strstr(str_at(log, "1.tool_results.0.content"),
			       "RESULT:read_file:"));
	assert_non_null(
		strstr(str_at(log, "1.tool_results.0.content"), "caf?"));
	json_decref(log);
	rb_model_reply_release(&l.rep);
}

static void test_openai_loop(void **state)
{
	(void)state;
	check_one_call("openai");
}

static void test_anthropic_loop(void **state)
{
	(void)state;
	check_one_call("anthropic");
}

/* A model that never stops calling gets max_rounds turns, then none. */
static void check_max_rounds(const char *provider)
{
	struct loop l = { .provider = provider, .max_rounds = 3 };
	json_t *log, *last;

	rb_test_server_script(
		&srv, "{\"steps\": [{\"tool_calls\": [{\"name\": \"grep\", "
		      "\"arguments\": {\"pattern\": \"foo\"}}], \"repeat\": "
		      "true}, {\"no_tools\": true, \"answer\": \"final\"}]}");
	assert_int_equal(run_loop(&l), 0);
	assert_string_equal(l.rep.text, "final");
	assert_int_equal(l.f.calls, 3);
	log = log_entries();
	assert_int_equal(json_array_size(log), 4);
	last = json_object_get(json_array_get(log, 3), "body");
	if (!strcmp(provider, "anthropic"))
		assert_string_equal(
			json_string_value(json_object_get(
				json_object_get(last, "tool_choice"), "type")),
			"none");
	else
		assert_string_equal(
			json_string_value(json_object_get(last, "tool_choice")),
			"none");
	assert_int_equal(json_array_size(json_object_get(json_array_get(log, 3),
							 "tool_results")),
			 3);
	json_decref(log);
	rb_model_reply_release(&l.rep);
}

static void test_max_rounds(void **state)
{
	(void)state;
	check_max_rounds("openai");
	check_max_rounds("anthropic");
}

/* The toolset's -RB_ETOOBIG ends the tools: the next turn is the last. */
static void test_tools_limit(void **state)
{
	struct loop l = { .f.toobig_at = 2 };
	json_t *log;

	(void)state;
	rb_test_server_script(
		&srv, "{\"steps\": [{\"tool_calls\": [{\"name\": \"grep\", "
		      "\"arguments\": {\"pattern\": \"foo\"}}], \"repeat\": "
		      "true}, {\"no_tools\": true, \"answer\": \"done\"}]}");
	assert_int_equal(run_loop(&l), 0);
	assert_string_equal(l.rep.text, "done");
	assert_int_equal(l.f.calls, 2);
	log = log_entries();
	assert_int_equal(json_array_size(log), 3);
	assert_non_null(strstr(str_at(log, "2.tool_results.1.content"),
			       "limit of tool calls"));
	assert_string_equal(str_at(log, "2.body.tool_choice"), "none");
	json_decref(log);
	rb_model_reply_release(&l.rep);
}

/*
 * A hostile turn: 20 calls, one with 20000 bytes of arguments, one with
 * a name no tool has, two with the same id. Eight are answered.
 */
static void test_hostile_calls(void **state)
{
	struct rb_buf s = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct loop l = { 0 };
	json_t *log;
	char *big = malloc(20001);
	int i;

	(void)state;
	memset(big, 'a', 20000);
	big[20000] = 0;
	rb_buf_printf(&s,
		      "{\"steps\": [{\"tool_calls\": ["
		      "{\"name\": \"grep\", \"arguments\": \"%s\"}, "
		      "{\"name\": \"bad name!\", \"arguments\": {}}, "
		      "{\"id\": \"same\", \"name\": \"grep\"}, "
		      "{\"id\": \"same\", \"name\": \"grep\"}",
		      big);
	for (i = 0; i < 16; i++)
		rb_buf_printf(&s,
			      ", {\"name\": \"grep\", \"arguments\": "
			      "{\"pattern\": \"p%d\"}}",
			      i);
	rb_buf_puts(&s, "]}, {\"answer\": \"ok\"}]}");
	rb_test_server_script(&srv, s.ptr);
	assert_int_equal(run_loop(&l), 0);
	assert_string_equal(l.rep.text, "ok");
	/* 8 kept: the big one and the bad name refused, 6 run. */
	assert_int_equal(l.f.calls, 6);
	assert_true(l.f.max_args_len <= 16384);
	log = log_entries();
	assert_int_equal(json_array_size(json_object_get(json_array_get(log, 1),
							 "tool_results")),
			 8);
	assert_null(str_at(log, "1.bad"));
	assert_non_null(
		strstr(str_at(log, "1.tool_results.0.content"), "over 16384"));
	assert_non_null(
		strstr(str_at(log, "1.tool_results.1.content"), "no tool"));
	assert_non_null(
		strstr(str_at(log, "1.tool_results.7.content"), "12 more"));
	json_decref(log);
	rb_model_reply_release(&l.rep);
	rb_buf_release(&s);
	free(big);
}

/* A program as the model, speaking docs/MODEL-TOOLS.md on stdin/stdout. */
static const char command_model[] =
	"import json, sys\n"
	"req = json.load(sys.stdin)\n"
	"with open(sys.argv[1], 'a') as f:\n"
	"    f.write(json.dumps(req) + '\\n')\n"
	"assert req['protocol'] == 1 and req['kind'] == 'finder'\n"
	"assert req['tools'][0]['name'] == 'read_file'\n"
	"res = [m for m in req['messages'] if m['role'] == 'tool']\n"
	"if not res:\n"
	"    print(json.dumps({'tool_calls': [{'id': 'c1', 'name': "
	"'read_file', 'arguments': {'path': 'mm/foo.c'}}]}))\n"
	"else:\n"
	"    print(json.dumps({'findings': [], 'saw': res[0]['content']}))\n";

static void test_command_protocol(void **state)
{
	struct loop l = { .provider = "command" };
	char prog[600], log[600], cmd[1400];
	struct rb_buf b = RB_BUF_INIT(16u << 20);
	json_t *first, *second;
	char *nl;

	(void)state;
	snprintf(prog, sizeof(prog), "%s/model.py", srv.dir);
	snprintf(log, sizeof(log), "%s/command.log", srv.dir);
	assert_int_equal(rb_write_file_atomic(prog, command_model,
					      strlen(command_model), 0600),
			 0);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s %s", prog, log);
	l.command = cmd;
	assert_int_equal(run_loop(&l), 0);
	assert_int_equal(l.f.calls, 1);
	assert_non_null(strstr(l.rep.text, "RESULT:read_file:"));
	assert_non_null(strstr(l.rep.text, "\"findings\": []"));

	/* Two turns: the second carries the call and its result. */
	assert_int_equal(rb_read_file(&b, log), 0);
	nl = strchr(b.ptr, '\n');
	assert_non_null(nl);
	*nl = 0;
	first = json_loads(b.ptr, 0, NULL);
	second = json_loads(nl + 1, 0, NULL);
	assert_non_null(first);
	assert_non_null(second);
	assert_int_equal(json_array_size(json_object_get(first, "messages")),
			 0);
	assert_string_equal(str_at(second, "messages.0.tool_calls.0.id"), "c1");
	assert_string_equal(str_at(second, "messages.1.tool_call_id"), "c1");
	assert_false(json_is_true(json_object_get(second, "final")));
	json_decref(first);
	json_decref(second);
	rb_buf_release(&b);
	rb_model_reply_release(&l.rep);
}

static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Recorded turn by turn; replayed with the server gone. */
static void test_record_replay(void **state)
{
	struct loop r = { .provider = "anthropic" },
		    q = { .provider = "replay" };
	char dir[512], path[1024], *last = NULL;
	struct rb_buf b = RB_BUF_INIT(16u << 20);
	DIR *d;
	struct dirent *e;
	int turns = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/exchanges", srv.dir);
	r.record_dir = dir;
	r.max_rounds = 2;
	rb_test_server_script(
		&srv,
		"{\"steps\": [{\"tool_calls\": [{\"name\": \"read_file\", "
		"\"arguments\": {\"path\": \"a.c\"}}, {\"name\": "
		"\"grep\", \"arguments\": {\"pattern\": \"x\"}}]}, "
		"{\"tool_calls\": [{\"name\": \"grep\", \"arguments\": "
		"{\"pattern\": \"y\"}}]}, {\"no_tools\": true, "
		"\"answer\": \"{\\\"findings\\\": [1]}\"}]}");
	assert_int_equal(run_loop(&r), 0);
	assert_int_equal(r.f.calls, 3);
	assert_int_equal(count_files(dir), 3);

	/* The last turn's file shows every call and result. */
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		rb_buf_reset(&b);
		assert_int_equal(rb_read_file(&b, path), 0);
		if (strstr(b.ptr, "\"final\": true")) {
			free(last);
			last = strdup(path);
			turns++;
			assert_non_null(strstr(b.ptr, "RESULT:grep:"));
			assert_non_null(strstr(b.ptr, "RESULT:read_file:"));
			assert_non_null(strstr(b.ptr, "\"tool_call_id\""));
		}
	}
	closedir(d);
	assert_int_equal(turns, 1);

	/* With the server stopped: the same text, the tools run again. */
	rb_test_server_stop(&srv);
	q.replay_dir = dir;
	q.nonce = "OTHERNONCE";
	q.max_rounds = 2;
	assert_int_equal(run_loop(&q), 0);
	assert_string_equal(q.rep.text, r.rep.text);
	assert_int_equal(q.rep.tokens_in, r.rep.tokens_in);
	assert_int_equal(q.f.calls, 3);
	rb_model_reply_release(&q.rep);

	/* A missing turn is a missing exchange. */
	assert_int_equal(unlink(last), 0);
	memset(&q, 0, sizeof(q));
	q.provider = "replay";
	q.replay_dir = dir;
	q.max_rounds = 2;
	assert_int_equal(run_loop(&q), -RB_ENOTFOUND);
	assert_non_null(strstr(rb_errmsg(), "tool turn 2"));
	rb_model_reply_release(&q.rep);

	assert_int_equal(rb_test_server_start(&srv), 0);
	free(last);
	rb_buf_release(&b);
	rb_model_reply_release(&r.rep);
}

/* Past model.tools.max_tokens the next turn is the last. */
static void test_tool_tokens(void **state)
{
	struct loop l = { .tool_tokens = 150 };
	json_t *log;

	(void)state;
	rb_test_server_script(
		&srv, "{\"steps\": [{\"tool_calls\": [{\"name\": \"grep\", "
		      "\"arguments\": {}}], \"usage\": [100, 10], \"repeat\": "
		      "true}, {\"no_tools\": true, \"answer\": \"spent\", "
		      "\"usage\": [300, 5]}]}");
	assert_int_equal(run_loop(&l), 0);
	assert_string_equal(l.rep.text, "spent");
	/* 110 tokens, then 220: the third request is the last. */
	assert_int_equal(l.f.calls, 2);
	assert_int_equal(l.rep.tokens_in, 500);
	log = log_entries();
	assert_int_equal(json_array_size(log), 3);
	assert_string_equal(str_at(log, "2.body.tool_choice"), "none");
	json_decref(log);
	rb_model_reply_release(&l.rep);
}

/* Each turn has its retries; a quota error ends the loop at once. */
static void test_retries_quota(void **state)
{
	struct loop l = { .max_retries = 2 };

	(void)state;
	rb_test_server_script(
		&srv, "{\"steps\": [{\"tool_calls\": [{\"name\": \"grep\", "
		      "\"arguments\": {}}]}, {\"status\": 503}, "
		      "{\"answer\": \"after a retry\"}]}");
	assert_int_equal(run_loop(&l), 0);
	assert_string_equal(l.rep.text, "after a retry");
	assert_int_equal(l.rep.retries, 1);
	rb_model_reply_release(&l.rep);

	memset(&l, 0, sizeof(l));
	l.max_retries = 2;
	rb_test_server_script(
		&srv, "{\"steps\": [{\"tool_calls\": [{\"name\": \"grep\", "
		      "\"arguments\": {}}]}, {\"status\": 429, \"error_type\": "
		      "\"insufficient_quota\"}, {\"answer\": \"never\"}]}");
	assert_int_equal(run_loop(&l), -RB_EQUOTA);
	assert_int_equal(l.f.calls, 1);
	{
		json_t *log = log_entries();

		assert_int_equal(json_array_size(log), 2);
		json_decref(log);
	}
	rb_model_reply_release(&l.rep);
}

struct conc {
	struct rb_model *m;
	const char *user;
	struct fake f;
	int ret;
};

static void *conc_loop(void *arg)
{
	struct conc *c = arg;
	struct rb_model_toolset ts = { .defs = defs,
				       .call = fake_call,
				       .arg = &c->f };
	struct rb_model_request rq = { .kind = "finder",
				       .system = "sys",
				       .user = c->user,
				       .schema_name = "findings",
				       .schema = "{}",
				       .tools = &ts };
	struct rb_model_reply rep = { 0 };

	c->ret = rb_model_call(&rep, c->m, &rq);
	rb_model_reply_release(&rep);
	return NULL;
}

/*
 * With concurrency 1, two loops do not interleave: the slot is held from
 * the first turn to the answer, tool calls included.
 */
static void test_slot_covers_loop(void **state)
{
	struct rb_model_opts o = RB_MODEL_OPTS_INIT;
	struct conc c[2] = { { .user = "loop A" }, { .user = "loop B" } };
	pthread_t th[2];
	char url[128];
	json_t *log;
	int i;

	(void)state;
	rb_test_server_script(
		&srv, "{\"steps\": [{\"tool_calls\": [{\"name\": \"grep\", "
		      "\"arguments\": {}}]}, {\"tool_calls\": [{\"name\": "
		      "\"grep\", \"arguments\": {}}]}, {\"answer\": \"a\", "
		      "\"repeat\": true}]}");
	o.provider = "openai";
	rb_test_server_url(&srv, o.provider, url, sizeof(url));
	o.url = url;
	o.name = "test-model";
	o.concurrency = 1;
	o.max_retries = 0;
	assert_int_equal(rb_model_new(&c[0].m, &o), 0);
	c[1].m = c[0].m;
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, conc_loop, &c[i]),
				 0);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(c[0].ret, 0);
	assert_int_equal(c[1].ret, 0);
	log = log_entries();
	/* The first loop had both call steps: 3 turns, then the other 1. */
	assert_int_equal(json_array_size(log), 4);
	assert_string_equal(str_at(log, "0.body.messages.1.content"),
			    str_at(log, "1.body.messages.1.content"));
	assert_string_equal(str_at(log, "0.body.messages.1.content"),
			    str_at(log, "2.body.messages.1.content"));
	assert_string_not_equal(str_at(log, "0.body.messages.1.content"),
				str_at(log, "3.body.messages.1.content"));
	json_decref(log);
	rb_model_free(c[0].m);
}

/* Replies parsed as turns: the shapes and the caps, without a server. */
static void test_parse_turns(void **state)
{
	struct rb_model_reply r = { 0 };
	size_t n = 99;
	const char *oa = "{\"choices\": [{\"finish_reason\": \"tool_calls\", "
			 "\"message\": {\"content\": null, \"tool_calls\": "
			 "[{\"id\": \"a\", \"function\": {\"name\": \"grep\", "
			 "\"arguments\": \"{}\"}}]}}]}";
	const char *an = "{\"content\": [{\"type\": \"text\", \"text\": "
			 "\"hm\"}, {\"type\": \"tool_use\", \"id\": \"t\", "
			 "\"name\": \"grep\", \"input\": {\"pattern\": "
			 "\"x\"}}], \"stop_reason\": \"tool_use\"}";

	(void)state;
	assert_int_equal(
		rb_model_parse_tool_reply(&r, &n, "openai", oa, strlen(oa)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(r.text, "");
	rb_model_reply_release(&r);
	assert_int_equal(rb_model_parse_tool_reply(&r, &n, "anthropic", an,
						   strlen(an)),
			 0);
	assert_int_equal(n, 1);
	assert_string_equal(r.text, "hm");
	rb_model_reply_release(&r);
	assert_int_equal(
		rb_model_parse_tool_reply(&r, &n, "command", "plain", 5), 0);
	assert_int_equal(n, 0);
	assert_string_equal(r.text, "plain");
	rb_model_reply_release(&r);
	assert_int_equal(rb_model_parse_tool_reply(&r, &n, "openai", "[", 1),
			 -RB_EPARSE);
	assert_int_equal(rb_model_parse_tool_reply(&r, &n, "nope", "", 0),
			 -RB_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_turns),
		cmocka_unit_test(test_openai_loop),
		cmocka_unit_test(test_anthropic_loop),
		cmocka_unit_test(test_max_rounds),
		cmocka_unit_test(test_tools_limit),
		cmocka_unit_test(test_tool_tokens),
		cmocka_unit_test(test_retries_quota),
		cmocka_unit_test(test_slot_covers_loop),
		cmocka_unit_test(test_hostile_calls),
		cmocka_unit_test(test_command_protocol),
		cmocka_unit_test(test_record_replay),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return ret;
}
