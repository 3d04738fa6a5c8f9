// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_model_parallel.c - issue 30's budgets, parallel passes, prompt
 * caching and focus planner, against tests/model_server.py on a free
 * loopback port:
 *  - the tool pools: a series' total that threads share without going
 *    over, and the verifier's reserve that the finders cannot spend;
 *  - the planner's rules on real-looking diffs (documentation, selftests,
 *    locks, uapi), and a documentation-only patch that costs no call;
 *  - Anthropic cache_control on the shared blocks (the system prompt and
 *    the patch's data, never the focus), OpenAI requests whose system
 *    prompt and data are byte-identical across the passes, and the
 *    cached tokens the replies report counted in the usage;
 *  - the passes that see the diff without the commit message;
 *  - the same findings, in the same order, whichever pass answers first.
 * No timing is asserted: delays only change which answer comes first.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "review/apply/diff.h"
#include "review/model/model.h"
#include "review/model/model_plan.h"
#include "review/model/model_tools.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "tests/testlib.h"
#include "util/banned.h"

static struct rb_test_server srv;

static int setup(void **state)
{
	(void)state;
	return rb_test_server_setup(&srv, "/tmp/rb-parallel.XXXXXX");
}

static int teardown(void **state)
{
	(void)state;
	rb_test_server_teardown(&srv);
	return 0;
}

static char *slurp(const char *path)
{
	struct rb_buf b = RB_BUF_INIT(64u << 20);

	assert_int_equal(rb_read_file(&b, path), 0);
	return rb_buf_detach(&b, NULL);
}

/* The request log: one JSON object a request, in arrival order. */
static json_t *requests(void)
{
	char *s = slurp(srv.log), *line, *save = NULL;
	json_t *arr = json_array();

	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		json_array_append_new(arr, json_loads(line, 0, NULL));
	free(s);
	return arr;
}

static const char *jstr(json_t *o, const char *path)
{
	return json_string_value(json_object_get(o, path));
}

/* ---- the pools ---- */

static const char *const parts[] = { "the patch\n", "another\n" };

static struct rb_model_tools *series_tools(int max_calls)
{
	struct rb_model_tools_ctx ctx = {
		.patches = parts,
		.n_patches = 2,
		.index = 1,
		.cover = "The cover letter.\n",
	};
	struct rb_model_tool_limits lim = { .max_calls = max_calls };
	struct rb_model_tools *t = NULL;

	assert_int_equal(rb_model_tools_new(&t, &ctx, &lim), 0);
	return t;
}

static int cover(struct rb_model_tools *t, struct rb_buf *out)
{
	rb_buf_reset(out);
	return rb_model_tools_call(t, "cover_letter", "{}", 2, out);
}

struct hammer {
	struct rb_model_tools_pool *pool;
	int answered;
};

static void *hammer_run(void *arg)
{
	struct hammer *h = arg;
	struct rb_model_tools *t = series_tools(1000);
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);

	rb_model_tools_set_pool(t, h->pool);
	while (cover(t, &b) == 0)
		h->answered++;
	rb_buf_release(&b);
	rb_model_tools_free(t);
	return NULL;
}

static void test_pool(void **state)
{
	struct rb_model_tools_pool *series = NULL, *reserve = NULL;
	struct rb_model_tools *a, *b, *v;
	struct rb_model_tools_usage u;
	struct rb_buf out = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct hammer h[4];
	pthread_t th[4];
	int i, total = 0;

	(void)state;
	/* A series of 6 calls; the verifier's reserve of 2 is carved out. */
	assert_int_equal(rb_model_tools_pool_new(&series, 6, 0, "this series"),
			 0);
	assert_int_equal(rb_model_tools_pool_carve(&reserve, series, 2,
						   1u << 20, "the verifier"),
			 0);
	a = series_tools(3);
	b = series_tools(3);
	v = series_tools(10);
	rb_model_tools_set_pool(a, series);
	rb_model_tools_set_pool(b, series);
	rb_model_tools_set_pool(v, reserve);
	/* The finders: 3 each by their own limits, 4 in all by the pool. */
	for (i = 0; i < 3; i++)
		assert_int_equal(cover(a, &out), 0);
	assert_non_null(strstr(out.ptr, "The cover letter."));
	assert_int_equal(cover(a, &out), -RB_ETOOBIG);
	assert_non_null(strstr(out.ptr, "for this review pass"));
	assert_int_equal(cover(b, &out), 0);
	assert_int_equal(cover(b, &out), -RB_ETOOBIG);
	assert_non_null(strstr(out.ptr, "the limit of tool calls for this "
					"series is reached"));
	/* The verifier still has its two. */
	assert_int_equal(cover(v, &out), 0);
	assert_non_null(strstr(out.ptr, "The cover letter."));
	assert_int_equal(cover(v, &out), 0);
	assert_int_equal(cover(v, &out), -RB_ETOOBIG);
	assert_non_null(strstr(out.ptr, "for the verifier"));
	rb_model_tools_pool_get_usage(series, &u);
	assert_int_equal(u.calls, 6);
	assert_int_equal(u.refused, 2);
	rb_model_tools_free(a);
	rb_model_tools_free(b);
	rb_model_tools_free(v);
	rb_model_tools_pool_free(reserve);
	rb_model_tools_pool_free(series);

	/* What a reserve does not spend goes back to the series. */
	assert_int_equal(rb_model_tools_pool_new(&series, 3, 0, "this series"),
			 0);
	assert_int_equal(rb_model_tools_pool_carve(&reserve, series, 2,
						   1u << 20, "the verifier"),
			 0);
	a = series_tools(10);
	rb_model_tools_set_pool(a, series);
	assert_int_equal(cover(a, &out), 0);
	assert_int_equal(cover(a, &out), -RB_ETOOBIG);
	rb_model_tools_pool_free(reserve);
	rb_model_tools_free(a);
	a = series_tools(10);
	rb_model_tools_set_pool(a, series);
	assert_int_equal(cover(a, &out), 0);
	assert_int_equal(cover(a, &out), 0);
	assert_int_equal(cover(a, &out), -RB_ETOOBIG);
	rb_model_tools_free(a);
	rb_model_tools_pool_free(series);

	/* Bytes: a result is cut to what the pool has left. */
	assert_int_equal(
		rb_model_tools_pool_new(&series, 0, 100, "this series"), 0);
	a = series_tools(10);
	rb_model_tools_set_pool(a, series);
	assert_int_equal(cover(a, &out), 0);
	assert_true(out.len <= 100);
	rb_model_tools_get_usage(a, &u);
	assert_int_equal(u.bytes, out.len);
	rb_model_tools_free(a);
	rb_model_tools_pool_get_usage(series, &u);
	assert_true(u.bytes <= 100);
	rb_model_tools_pool_free(series);

	/* Four threads on one pool of 101 calls: 101 answered, not one more. */
	assert_int_equal(
		rb_model_tools_pool_new(&series, 101, 0, "this series"), 0);
	for (i = 0; i < 4; i++) {
		h[i].pool = series;
		h[i].answered = 0;
		assert_int_equal(
			pthread_create(&th[i], NULL, hammer_run, &h[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		total += h[i].answered;
	}
	assert_int_equal(total, 101);
	rb_model_tools_pool_get_usage(series, &u);
	assert_int_equal(u.calls, 101);
	assert_int_equal(u.refused, 4);
	rb_model_tools_pool_free(series);
	rb_buf_release(&out);
}

/* ---- the planner ---- */

static void plan_of(struct rb_model_plan *p, const char *diff, const char *msg)
{
	size_t n;
	const char *const *all = rb_model_focus_names(&n);
	struct rb_diff *d = NULL;

	assert_int_equal(rb_diff_parse(&d, diff, strlen(diff)), 0);
	rb_model_plan_focuses(p, d, msg, all, n);
	rb_diff_free(d);
}

static bool runs(const struct rb_model_plan *p, const char *focus)
{
	size_t i;

	for (i = 0; i < p->n_run; i++)
		if (p->run[i] && !strcmp(p->run[i], focus))
			return true;
	return false;
}

static const char doc_diff[] =
	"diff --git a/Documentation/mm/foo.rst b/Documentation/mm/foo.rst\n"
	"--- a/Documentation/mm/foo.rst\n"
	"+++ b/Documentation/mm/foo.rst\n"
	"@@ -1,3 +1,3 @@\n"
	" Foo\n"
	"-Take the lock with spin_lock() before copy_to_user().\n"
	"+Take the lock with spin_lock() before calling copy_to_user().\n"
	" end\n"
	"diff --git a/MAINTAINERS b/MAINTAINERS\n"
	"--- a/MAINTAINERS\n"
	"+++ b/MAINTAINERS\n"
	"@@ -1,2 +1,3 @@\n"
	" FOO\n"
	"+F:	Documentation/mm/foo.rst\n"
	" M:	x\n";

static const char selftest_diff[] =
	"diff --git a/tools/testing/selftests/mm/foo.c "
	"b/tools/testing/selftests/mm/foo.c\n"
	"--- a/tools/testing/selftests/mm/foo.c\n"
	"+++ b/tools/testing/selftests/mm/foo.c\n"
	"@@ -1,2 +1,3 @@\n"
	" int main(void)\n"
	"+	pthread_mutex_lock(&m);\n"
	" {\n";

static const char block_diff[] =
	"diff --git a/mm/foo.c b/mm/foo.c\n"
	"--- a/mm/foo.c\n"
	"+++ b/mm/foo.c\n"
	"@@ -10,3 +10,3 @@ static int foo_blocks(struct block_device *bdev)\n"
	" 	unsigned long block_size = bdev_logical_block_size(bdev);\n"
	"-	return clock_gettime_blocked(block_size);\n"
	"+	return clock_gettime_blocked(block_size) + 1;\n"
	" }\n";

static const char lock_diff[] =
	"diff --git a/mm/foo.c b/mm/foo.c\n"
	"--- a/mm/foo.c\n"
	"+++ b/mm/foo.c\n"
	"@@ -10,3 +10,3 @@ static void foo_update(struct foo *f)\n"
	" 	rcu_read_lock();\n"
	"-	f->n = 1;\n"
	"+	f->n = 2;\n"
	" }\n";

static const char uapi_diff[] =
	"diff --git a/include/uapi/linux/foo.h b/include/uapi/linux/foo.h\n"
	"--- a/include/uapi/linux/foo.h\n"
	"+++ b/include/uapi/linux/foo.h\n"
	"@@ -1,2 +1,3 @@\n"
	" struct foo_args {\n"
	"+	__u32 flags;\n"
	" };\n";

static const char export_diff[] = "diff --git a/mm/foo.c b/mm/foo.c\n"
				  "--- a/mm/foo.c\n"
				  "+++ b/mm/foo.c\n"
				  "@@ -10,2 +10,3 @@ int foo_get(void)\n"
				  " }\n"
				  "+EXPORT_SYMBOL_GPL(foo_get);\n"
				  " \n";

static const char kconfig_diff[] = "diff --git a/mm/Kconfig b/mm/Kconfig\n"
				   "--- a/mm/Kconfig\n"
				   "+++ b/mm/Kconfig\n"
				   "@@ -1,2 +1,3 @@\n"
				   " config FOO\n"
				   "+	depends on MMU\n"
				   " 	bool\n";

static void test_plan(void **state)
{
	struct rb_model_plan p;
	struct rb_diff *d = NULL;

	(void)state;
	/* Documentation only: no pass, though its text names a lock. */
	plan_of(&p, doc_diff, "Fix a typo.\n");
	assert_int_equal(p.n_run, 0);
	assert_int_equal(p.n_skipped, 5);
	assert_string_equal(p.kind, "documentation");
	assert_string_equal(p.why[0], "documentation only");
	/* And without focuses, the one pass is not run either. */
	assert_int_equal(rb_diff_parse(&d, doc_diff, strlen(doc_diff)), 0);
	rb_model_plan_focuses(&p, d, "x\n", NULL, 0);
	assert_int_equal(p.n_run, 0);
	assert_string_equal(p.skipped[0], "review");
	rb_diff_free(d);

	/* Selftests only: correctness alone. */
	plan_of(&p, selftest_diff, "Test it.\n");
	assert_int_equal(p.n_run, 1);
	assert_string_equal(p.run[0], "correctness");
	assert_string_equal(p.kind, "selftests");

	/* "block", "clock", "blocked" are not locks; no API either. */
	plan_of(&p, block_diff, "Count one more.\n");
	assert_true(runs(&p, "correctness") && runs(&p, "memory") &&
		    runs(&p, "claims"));
	assert_false(runs(&p, "locking"));
	assert_false(runs(&p, "api"));
	assert_int_equal(p.n_skipped, 2);
	assert_string_equal(p.skipped[0], "locking");
	assert_string_equal(p.why[0],
			    "no lock, atomic, RCU or per-CPU primitive");

	/* A context line under rcu_read_lock() is enough for locking. */
	plan_of(&p, lock_diff, "Set two.\n");
	assert_true(runs(&p, "locking"));
	assert_false(runs(&p, "api"));

	/* The API: a uapi header, an exported symbol. */
	plan_of(&p, uapi_diff, "Add flags.\n");
	assert_true(runs(&p, "api"));
	plan_of(&p, export_diff, "Export it.\n");
	assert_true(runs(&p, "api"));

	/* Only sign-offs: nothing for the claims pass to check. */
	plan_of(&p, export_diff,
		"Signed-off-by: A <a@example.org>\nCc: B <b@example.org>\n");
	assert_false(runs(&p, "claims"));
	plan_of(&p, export_diff, "Fixes: 0123456789ab (\"foo: bar\")\n");
	assert_true(runs(&p, "claims"));

	/* Kconfig: code, but nothing for the memory pass. */
	plan_of(&p, kconfig_diff, "Needs an MMU.\n");
	assert_true(runs(&p, "correctness"));
	assert_false(runs(&p, "memory"));
	assert_false(runs(&p, "locking"));
}

/* ---- the review through the scripted server ---- */

struct run {
	const char *provider;
	const char *patch; /* absolute path or tests/data/model/... */
	const char *const *focuses;
	size_t n_focuses;
	bool no_cache, tools;
	unsigned int blind;
	int max_calls, verifier_calls, series_calls;
	/* out */
	struct rb_findings f;
	struct rb_model_usage u;
	int ret;
};

static const char *const subjects[] = { "mm/foo: cache the table",
					"mm/foo: second patch" };

static void run_review(struct run *r)
{
	struct rb_model_opts o = RB_MODEL_OPTS_INIT;
	struct rb_model_patch_ctx ctx = { 0 };
	struct rb_model *m = NULL;
	char url[128], path[1024], *patch;
	const char *cut;

	o.provider = r->provider ? r->provider : "openai";
	rb_test_server_url(&srv, o.provider, url, sizeof(url));
	o.url = url;
	o.name = "test-model";
	o.timeout_seconds = 20;
	o.concurrency = 5;
	o.max_retries = 0;
	snprintf(path, sizeof(path), "%s/review/guides", rb_test_src());
	o.guides_dir = path;
	o.prompt_cache = !r->no_cache;
	o.blind_focuses = r->blind ? r->blind : o.blind_focuses;
	o.tools = r->tools;
	o.tool_limits.max_calls = r->max_calls;
	o.verifier_tool_limits.max_calls = r->verifier_calls;
	o.series_tool_calls = r->series_calls;
	assert_int_equal(rb_model_new(&m, &o), 0);
	if (r->patch[0] == '/') {
		patch = slurp(r->patch);
	} else {
		snprintf(path, sizeof(path), "%s/%s", rb_test_src(), r->patch);
		patch = slurp(path);
	}
	cut = strstr(patch, "\n---\n");
	ctx.cover_title = "mm/foo: faster lookups";
	ctx.cover_body = "The cover letter of the series.\n";
	ctx.subjects = subjects;
	ctx.n_subjects = 2;
	ctx.index = 1;
	ctx.patches = parts;
	ctx.commit_msg = patch;
	ctx.patch = cut ? cut : patch;
	ctx.patch_len = strlen(ctx.patch);
	ctx.focuses = r->focuses;
	ctx.n_focuses = r->n_focuses;
	r->ret = rb_model_review_patch(&r->f, &r->u, m, &ctx);
	free(patch);
	rb_model_free(m);
}

/* Block @k of the first message's content (Anthropic). */
static json_t *user_block(json_t *body, size_t k)
{
	json_t *msgs = json_object_get(body, "messages");

	return json_array_get(
		json_object_get(json_array_get(msgs, 0), "content"), k);
}

static const char *const five[] = { "correctness", "locking", "memory", "api",
				    "claims" };

static const char empty_finder[] =
	"{\"kind\": \"finder\", \"repeat\": true, \"answer_json\": "
	"{\"findings\": []}}";

/*
 * Anthropic: the system prompt and the patch's data are cached blocks,
 * the focus is not; the first pass of each prompt writes the cache, the
 * others read it.
 */
static void test_cache_anthropic(void **state)
{
	struct run r = { .provider = "anthropic",
			 .patch = "tests/data/model/leak.patch",
			 .focuses = five,
			 .n_focuses = 5 };
	json_t *log, *e, *cc, *sys0;
	size_t i, n_finders = 0;
	const char *sys_text = NULL;
	char fake[8192];

	(void)state;
	snprintf(fake, sizeof(fake), "{\"steps\": [%s]}", empty_finder);
	rb_test_server_script(&srv, fake);
	run_review(&r);
	assert_int_equal(r.ret, 0);
	/* leak.patch has a spin_lock and no API: four passes. */
	assert_int_equal(r.u.passes, 4);
	assert_int_equal(r.u.skipped[3], 1);
	log = requests();
	json_array_foreach(log, i, e)
	{
		json_t *body = json_object_get(e, "body");
		json_t *c0 = user_block(body, 0), *c1 = user_block(body, 1);

		n_finders++;
		cc = json_object_get(e, "cache_control");
		/* Two marks: the whole system prompt, the patch's data. */
		assert_int_equal(json_array_size(cc), 2);
		assert_string_equal(jstr(json_array_get(cc, 0), "at"),
				    "system[0]");
		assert_string_equal(jstr(json_array_get(cc, 1), "at"),
				    "messages[0].content[0]");
		sys0 = json_array_get(json_object_get(body, "system"), 0);
		assert_int_equal(
			json_array_size(json_object_get(body, "system")), 1);
		assert_non_null(json_object_get(sys0, "cache_control"));
		/* One system prompt for every pass. */
		if (!sys_text)
			sys_text = jstr(sys0, "text");
		else
			assert_string_equal(sys_text, jstr(sys0, "text"));
		assert_null(strstr(jstr(sys0, "text"), "FOCUS:"));
		/* The data is cached, the focus after it is not. */
		assert_non_null(json_object_get(c0, "cache_control"));
		assert_null(strstr(jstr(c0, "text"), "FOCUS:"));
		assert_non_null(strstr(jstr(c0, "text"), "The diff"));
		assert_null(json_object_get(c1, "cache_control"));
		assert_true(!strncmp(jstr(c1, "text"), "\nFOCUS: ", 8));
	}
	assert_int_equal(n_finders, 4);
	/* Two prompts (with and without the message), each written once and
	 * read by the other passes, which waited for it. */
	assert_true(r.u.cache_written > 0);
	assert_true(r.u.cache_read > 0);
	json_decref(log);
	rb_findings_release(&r.f);

	/* model.prompt_cache off: plain strings, no mark, nothing cached. */
	memset(&r, 0, sizeof(r));
	r.provider = "anthropic";
	r.patch = "tests/data/model/leak.patch";
	r.focuses = five;
	r.n_focuses = 5;
	r.no_cache = true;
	rb_test_server_script(&srv, fake);
	run_review(&r);
	assert_int_equal(r.ret, 0);
	log = requests();
	json_array_foreach(log, i, e)
	{
		assert_int_equal(
			json_array_size(json_object_get(e, "cache_control")),
			0);
		assert_true(json_is_string(
			json_object_get(json_object_get(e, "body"), "system")));
	}
	assert_int_equal(r.u.cache_read, 0);
	assert_int_equal(r.u.cache_written, 0);
	json_decref(log);
	rb_findings_release(&r.f);
}

/*
 * OpenAI-compatible: no marks; the system prompt is the same for every
 * pass and the data is a prefix of every user prompt of its kind, so the
 * server's prefix cache answers the later passes.
 */
static void test_cache_openai(void **state)
{
	struct run r = { .patch = "tests/data/model/leak.patch",
			 .focuses = five,
			 .n_focuses = 5 };
	json_t *log, *e;
	size_t i, k;
	char fake[8192];
	const char *sys = NULL, *users[8] = { NULL };
	size_t nu = 0;

	(void)state;
	snprintf(fake, sizeof(fake), "{\"steps\": [%s]}", empty_finder);
	rb_test_server_script(&srv, fake);
	run_review(&r);
	assert_int_equal(r.ret, 0);
	log = requests();
	json_array_foreach(log, i, e)
	{
		json_t *msgs =
			json_object_get(json_object_get(e, "body"), "messages");
		const char *s = jstr(json_array_get(msgs, 0), "content");
		const char *u = jstr(json_array_get(msgs, 1), "content");

		assert_string_equal(jstr(json_array_get(msgs, 0), "role"),
				    "system");
		if (!sys)
			sys = s;
		else
			assert_string_equal(s, sys);
		users[nu++] = u;
	}
	assert_int_equal(nu, 4);
	/* Each user prompt: a shared data part, then "\nFOCUS: ...". */
	for (i = 0; i < nu; i++) {
		size_t pre_i =
			(size_t)(strstr(users[i], "\nFOCUS: ") - users[i]);
		size_t same = 0;

		for (k = 0; k < nu; k++) {
			size_t pre_k = (size_t)(strstr(users[k], "\nFOCUS: ") -
						users[k]);

			if (pre_k == pre_i &&
			    !memcmp(users[i], users[k], pre_i))
				same++;
		}
		/* With itself and at least one other pass of its kind. */
		assert_true(same >= 2);
	}
	assert_true(r.u.cache_read > 0);
	assert_int_equal(r.u.cache_written, 0);
	json_decref(log);
	rb_findings_release(&r.f);
}

/* Correctness and memory see the diff, not the author's account. */
static void test_blind(void **state)
{
	static const char *const two[] = { "correctness", "claims" };
	struct run r = { .patch = "tests/data/model/leak.patch",
			 .focuses = two,
			 .n_focuses = 2 };
	json_t *log, *e;
	size_t i;
	int blind = 0, seeing = 0;
	char fake[8192];

	(void)state;
	snprintf(fake, sizeof(fake), "{\"steps\": [%s]}", empty_finder);
	rb_test_server_script(&srv, fake);
	run_review(&r);
	assert_int_equal(r.ret, 0);
	log = requests();
	json_array_foreach(log, i, e)
	{
		const char *u =
			jstr(json_array_get(
				     json_object_get(json_object_get(e, "body"),
						     "messages"),
				     1),
			     "content");

		if (strstr(u, "FOCUS: correctness")) {
			blind++;
			assert_null(strstr(u, "Keep a copy of the table"));
			assert_non_null(strstr(u, "The commit message is not "
						  "shown in this review"));
			assert_non_null(strstr(u, "copy = kmalloc_array"));
		} else {
			seeing++;
			assert_non_null(strstr(u, "Keep a copy of the table"));
		}
	}
	assert_int_equal(blind, 1);
	assert_int_equal(seeing, 1);
	json_decref(log);
	rb_findings_release(&r.f);
}

/* A documentation-only patch: no call at all, and the mail says why. */
static void test_docs_only(void **state)
{
	char path[512], fake[8192];
	struct run r = { .focuses = five, .n_focuses = 5 };
	struct rb_buf line = RB_BUF_INIT(4096);
	struct rb_model_opts o = RB_MODEL_OPTS_INIT;
	struct rb_model *m = NULL;
	json_t *log;

	(void)state;
	snprintf(path, sizeof(path), "%s/docs.patch", srv.dir);
	snprintf(fake, sizeof(fake), "Subject: docs\n\nFix a typo.\n\n---\n%s",
		 doc_diff);
	assert_int_equal(rb_write_file_atomic(path, fake, strlen(fake), 0600),
			 0);
	snprintf(fake, sizeof(fake), "{\"steps\": [%s]}", empty_finder);
	rb_test_server_script(&srv, fake);
	r.patch = path;
	run_review(&r);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.u.calls, 0);
	assert_int_equal(r.u.passes, 0);
	assert_int_equal(r.u.unreviewed, 1);
	log = requests();
	assert_int_equal(json_array_size(log), 0);
	json_decref(log);
	o.provider = "command";
	o.command = "true";
	o.name = "m1";
	assert_int_equal(rb_model_new(&m, &o), 0);
	assert_int_equal(rb_model_status_line(&line, m, &r.u, 0), 0);
	assert_string_equal(line.ptr, "Model review (m1): not run: "
				      "documentation only, nothing for the "
				      "model to look at.");
	rb_model_free(m);
	rb_buf_release(&line);
	rb_findings_release(&r.f);
}

/*
 * The finders spend every call of the series' budget they can; the
 * verifier then still reads the tree through its reserve.
 */
static void test_verifier_reserve(void **state)
{
	static const char *const two[] = { "correctness", "memory" };
	struct rb_buf script = RB_BUF_INIT(1u << 20);
	char path[1024], *ans;
	struct run r = { .patch = "tests/data/model/leak.patch",
			 .focuses = two,
			 .n_focuses = 2,
			 .tools = true,
			 .max_calls = 3,
			 .verifier_calls = 2,
			 .series_calls = 6 };
	json_t *log, *e, *res;
	size_t i, k;
	int finder_ok = 0, refused = 0, verifier_ok = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/model/leak.answer.json",
		 rb_test_src());
	ans = slurp(path);
	/* Finders call the tools until they are refused, then answer. */
	rb_buf_printf(&script,
		      "{\"steps\": ["
		      "{\"kind\": \"finder\", \"repeat\": true, "
		      "\"tool_calls\": [{\"name\": \"cover_letter\"}, "
		      "{\"name\": \"cover_letter\"}]},"
		      "{\"kind\": \"finder\", \"repeat\": true, \"no_tools\": "
		      "true, \"answer_json\": %s},"
		      "{\"kind\": \"verifier\", \"tool_calls\": "
		      "[{\"name\": \"cover_letter\"}]},"
		      "{\"kind\": \"verifier\", \"repeat\": true, "
		      "\"verdict\": \"confirmed\", \"evidence\": "
		      "\"auto\"}]}",
		      ans);
	rb_test_server_script(&srv, script.ptr);
	run_review(&r);
	assert_int_equal(r.ret, 0);
	log = requests();
	json_array_foreach(log, i, e)
	{
		bool ver = !strcmp(jstr(e, "kind"), "verifier");

		json_array_foreach(json_object_get(e, "tool_results"), k, res)
		{
			const char *c = jstr(res, "content");

			if (strstr(c, "refused"))
				refused += !ver;
			else if (ver)
				verifier_ok++;
			else
				finder_ok++;
		}
	}
	/*
	 * The series has 6 calls; the verifier's 2 are carved out first,
	 * so the two finders (3 each by their own limit) share 4. The
	 * conversation repeats the results: count distinct ones by the
	 * tool usage instead.
	 */
	assert_true(refused > 0);
	assert_true(verifier_ok >= 1);
	assert_int_equal(r.u.tool_calls, 4 + 1);
	assert_true(r.u.tool_refused >= 1);
	assert_true(finder_ok >= 4);
	json_decref(log);
	rb_buf_release(&script);
	free(ans);
	rb_findings_release(&r.f);
}

/* Two findings on different lines, one per focus, equal in weight. */
static const char step_a[] =
	"{\"kind\": \"finder\", \"match\": \"FOCUS: correctness\", "
	"\"delay\": %s, \"answer_json\": {\"findings\": [{\"file\": "
	"\"mm/foo.c\", \"side\": \"new\", \"line\": 49, \"quoted_code\": "
	"\"copy = kmalloc_array(n, sizeof(*copy), GFP_KERNEL);\", "
	"\"category\": \"logic\", \"severity\": \"medium\", \"confidence\": "
	"0.8, \"introduced_by_patch\": true, \"trigger_scenario\": \"n is "
	"0\", \"question\": \"What if n is 0?\"}]}}";
static const char step_b[] =
	"{\"kind\": \"finder\", \"match\": \"FOCUS: memory\", \"delay\": %s, "
	"\"answer_json\": {\"findings\": [{\"file\": \"mm/foo.c\", \"side\": "
	"\"new\", \"line\": 55, \"quoted_code\": \"return ret;\", "
	"\"category\": \"leak\", \"severity\": \"medium\", \"confidence\": "
	"0.8, \"introduced_by_patch\": true, \"trigger_scenario\": "
	"\"foo_register() fails\", \"question\": \"Is copy leaked here?\"}]}}";

static void order_run(struct run *r, const char *da, const char *db)
{
	static const char *const two[] = { "correctness", "memory" };
	struct rb_buf s = RB_BUF_INIT(1u << 20);

	rb_buf_puts(&s, "{\"steps\": [");
	rb_buf_printf(&s, step_a, da);
	rb_buf_puts(&s, ", ");
	rb_buf_printf(&s, step_b, db);
	rb_buf_puts(&s, ", {\"kind\": \"verifier\", \"repeat\": true, "
			"\"verdict\": \"confirmed\", \"evidence\": "
			"\"auto\"}]}");
	rb_test_server_script(&srv, s.ptr);
	rb_buf_release(&s);
	memset(r, 0, sizeof(*r));
	r->patch = "tests/data/model/leak.patch";
	r->focuses = two;
	r->n_focuses = 2;
	r->no_cache = true; /* both at once: either may answer first */
	run_review(r);
	assert_int_equal(r->ret, 0);
}

/* The same review whichever pass answers first. */
static void test_order(void **state)
{
	struct run a, b;
	size_t i;

	(void)state;
	order_run(&a, "0.6", "0");
	order_run(&b, "0", "0.6");
	assert_int_equal(a.f.n, 2);
	assert_int_equal(b.f.n, a.f.n);
	for (i = 0; i < a.f.n; i++) {
		assert_string_equal(a.f.v[i].fingerprint, b.f.v[i].fingerprint);
		assert_string_equal(a.f.v[i].message, b.f.v[i].message);
	}
	rb_findings_release(&a.f);
	rb_findings_release(&b.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_cache_anthropic),
		cmocka_unit_test(test_cache_openai),
		cmocka_unit_test(test_blind),
		cmocka_unit_test(test_docs_only),
		cmocka_unit_test(test_verifier_reserve),
		cmocka_unit_test(test_order),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return ret;
}
