// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_http.c - the dashboard's handlers (bot/web/http.h) on a temporary
 * SQLite store filled through the store's own API: the series list, one
 * series with its apply attempts, findings, verdicts and mails, /stats
 * and /metrics, each value from mail HTML-escaped; then the same pages
 * served on a loopback port, with the Host and method checks. On
 * PostgreSQL too when RB_TEST_PG_URL names a server (a stored mail comes
 * back from libpq without a NUL after it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>
#include <git2.h>
#include <jansson.h>

#include "bot/web/http.h"
#include "bot/web/metrics.h"
#include "bot/store/store.h"
#include "bot/store/store_messages.h"
#include "bot/store/store_priv.h" /* white-box: a clean PostgreSQL database */
#include "mail/series.h"
#include "review/findings.h"
#include "util/buf.h"
#include "util/err.h"
#include "tests/testlib.h"
#include "tests/testlib_bot.h"

static char dir[64];
static char path[300];
static const char *db; /* the SQLite path, or RB_TEST_PG_URL */

#define TITLE "ring: <b>bold</b> & \"q\""
#define COMMIT "0123456789abcdef0123456789abcdef01234567"
#define MAIL "Subject: x\r\nTo: a@example.org\r\n\r\nHello <world>\r\nbye\r\n"
#define PATCH "Message-ID: <p1@x>\r\nSubject: x\r\n\r\nbody\r\n"
#define RECEIVED "1793770000"
#define SENT "1793775400" /* RECEIVED + 90 min */

static void add_finding_why(struct rb_store *st, const char *review,
			    const char *fid, const char *file, int line,
			    const char *message, const char *sev_reason,
			    const char *ver_reason)
{
	struct rb_finding f = {
		.checker = "commit-msg",
		.checker_version = "1",
		.category = "fixes-format",
		.severity = RB_FSEV_LOW,
		.file = (char *)file,
		.line = line,
		.code = line ? (char *)"x = <y>;" : NULL,
		.message = (char *)message,
		.patch_index = 1,
		.severity_reason = (char *)sev_reason,
		.verifier_reason = (char *)ver_reason,
	};

	snprintf(f.fingerprint, sizeof(f.fingerprint), "%016x",
		 (unsigned int)line);
	assert_int_equal(
		rb_store_add_finding(st, "s1@x", review, fid, &f, "raised"), 0);
}

static void add_finding(struct rb_store *st, const char *review,
			const char *fid, const char *file, int line,
			const char *message)
{
	add_finding_why(st, review, fid, file, line, message, NULL, NULL);
}

/* One series, reviewed and sent, a finding judged false by its author. */
static void fill(struct rb_store *st)
{
	char *patches[] = { "p1@x" };
	struct rb_series s = {
		.id = "s1@x",
		.version = 2,
		.total = 1,
		.patches = patches,
		.complete = true,
		.title = TITLE,
		.author = "ada@example.org",
		.last_date = 1600000000, /* a Date: six years old */
		.previous = "s0@x",
	};
	struct rb_series next = {
		.id = "s3@x",
		.version = 3,
		.title = "ring: v3",
		.author = "ada@example.org",
		.previous = "s1@x",
	};
	struct rb_outmail m = {
		.message_id = "<rb-1@x>",
		.series_id = "s1@x",
		.kind = "review",
		.patch_idx = 1,
		.env_from = "bot@example.org",
		.rcpts = "a@example.org",
		.bytes = MAIL,
		.len = sizeof(MAIL) - 1,
		.words = 12,
		.findings = 1,
		.policy = "advisory",
		.subsystem = "RING BUFFER",
		.latency = 90,
	};
	struct rb_verdict_rec v = {
		.reply_msgid = "<r1@x>",
		.review_msgid = "<rb-1@x>",
		.fid = "F1",
		.fingerprint = "0000000000000007",
		.verdict = "false_positive",
		.judge = "ada@example.org",
		.authorised = true,
		.role = "author",
		.owner = "ada@example.org",
	};
	struct rb_outrow o = { 0 };
	struct rb_msgmeta meta = {
		.kind = "patch",
		.msg.subject = "[PATCH v2] " TITLE,
		.msg.date = 1600000000,
		.idx = 1,
		.total = 1,
		.version = 2,
	};

	/* Received at RECEIVED, sent 90 minutes later. */
	setenv("RB_NOW", RECEIVED, 1);
	assert_int_equal(rb_store_add_raw(st, "p1@x", PATCH, sizeof(PATCH) - 1,
					  "t:1"),
			 0);
	assert_int_equal(rb_store_mark_parsed(st, "p1@x", &meta), 0);
	assert_int_equal(rb_store_put_series(st, &s), 0);
	assert_int_equal(rb_store_put_series(st, &next), 0);
	assert_int_equal(rb_store_add_attempt(st, "s1@x", "net", "fedcba98",
					      false, 1, "lib/ring.c", 2,
					      "does not apply"),
			 0);
	assert_int_equal(rb_store_add_attempt(st, "s1@x", "demo", COMMIT, true,
					      0, NULL, 0, NULL),
			 0);
	assert_int_equal(
		rb_store_series_applied(st, "s1@x", "demo", COMMIT, COMMIT), 0);
	assert_int_equal(
		rb_store_series_subsystem(st, "s1@x", "RING BUFFER", NULL), 0);
	assert_int_equal(
		rb_store_set_series_state(st, "s1@x", "reviewed", "1 mail"), 0);
	assert_int_equal(rb_store_add_outmail(st, &m), 0);
	assert_int_equal(rb_store_outbox_next(st, &o), 0);
	setenv("RB_NOW", SENT, 1);
	assert_int_equal(rb_store_outbox_sent(st, o.message_id), 0);
	setenv("RB_NOW", "1793780000", 1);
	rb_outrow_release(&o);
	add_finding(st, "<rb-1@x>", "F1", "lib/ring.c", 7, "is this <right>?");
	/* A model finding's why (issue 30): model text, shown escaped. */
	add_finding_why(st, "<rb-1@x>", "F2", "lib/ring.c", 9, "and this?",
			"<b>one</b> leak per failure",
			"ring_init() at 20 & the return");
	/* v3 changed F2's line (bot/stages/versions.c records it so). */
	assert_int_equal(st->db->ops->exec(st->db,
					   "UPDATE findings SET outcome ="
					   " 'fixed', outcome_version = 3"
					   " WHERE fid = 'F2'",
					   NULL, 0),
			 0);
	add_finding(st, NULL, NULL, NULL, 0, "dropped: over the cap");
	/* Not UTF-8: a lone byte, a surrogate, an overlong '/'. */
	add_finding(st, NULL, NULL, NULL, 0, "bad \xff \xed\xa0\x80 \xc0\xaf");
	assert_int_equal(rb_store_verdict_add(st, &v), 0);
	assert_int_equal(rb_store_verdict_add(st, &v), -RB_EEXISTS);
	assert_int_equal(rb_metrics_register(st, "w1", "worker"), 0);
	assert_int_equal(rb_store_job_add(st, "review", "s1@x", 0), 0);
}

/*
 * 120 more series for the list: mN@x, "mm: change N", one patch <mpN@x>,
 * an hour apart from 2023-11-14 on; every third by carol, the others by
 * bob; odd ones decided by MEMORY MANAGEMENT, even ones by the list;
 * every fourth failed to apply.
 */
static void fill_many(struct rb_store *st)
{
	int i;

	for (i = 0; i < 120; i++) {
		char id[32], pid[32], title[64];
		char *patches[] = { pid };
		struct rb_series s = {
			.id = id,
			.version = 1,
			.total = 1,
			.patches = patches,
			.complete = true,
			.title = title,
			.author = i % 3 ? "bob@example.org" :
					  "carol@example.org",
			.last_date = 1700000000 + (int64_t)i * 3600,
		};

		snprintf(id, sizeof(id), "m%03d@x", i);
		snprintf(pid, sizeof(pid), "<mp%03d@x>", i);
		snprintf(title, sizeof(title), "mm: change %d", i);
		assert_int_equal(rb_store_put_series(st, &s), 0);
		assert_int_equal(rb_store_series_subsystem(
					 st, id,
					 i % 2 ? "MEMORY MANAGEMENT" :
						 "linux-api.vger.kernel.org",
					 NULL),
				 0);
		if (i % 4 == 0)
			assert_int_equal(rb_store_set_series_state(
						 st, id, "apply_failed", "x"),
					 0);
	}
}

static int setup(void **state)
{
	struct rb_store *st;
	bool pg;

	(void)state;
	if (rb_test_tmpdir(dir, sizeof(dir), "/tmp/rb-http-XXXXXX"))
		return -1;
	db = rb_test_store_target(path, sizeof(path), dir, &pg);
	setenv("RB_NOW", "1793780000", 1);
	/* A PostgreSQL database outlives the test: start clean. */
	st = rb_test_store_open(dir, "DELETE FROM series; DELETE FROM"
				     " patches; DELETE FROM attempts;"
				     " DELETE FROM reviews; DELETE FROM"
				     " outbox; DELETE FROM findings;"
				     " DELETE FROM verdicts; DELETE FROM"
				     " workers; DELETE FROM jobs;"
				     " DELETE FROM messages");
	fill(st);
	fill_many(st);
	setenv("RB_NOW", "1793780000", 1);
	rb_store_close(st);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("RB_NOW");
	return rb_test_tmpdir_remove(dir);
}

static char *render(struct rb_store *st, const char *path, const char *id,
		    int *status, const char **ctype)
{
	struct rb_buf b = RB_BUF_INIT(1 << 22);

	assert_int_equal(rb_http_render(&b, st, path, id, status, ctype), 0);
	return rb_buf_detach(&b, NULL);
}

static char *render_q(struct rb_store *st, const struct rb_http_query *q)
{
	struct rb_buf b = RB_BUF_INIT(1 << 22);
	const char *ctype = NULL;
	int status = 0;

	assert_int_equal(rb_http_render_query(&b, st, q, &status, &ctype), 0);
	assert_int_equal(status, 200);
	return rb_buf_detach(&b, NULL);
}

/* The list's page @page with the filters given (NULL: none). */
static char *list(struct rb_store *st, const char *page, const char *q,
		  const char *section, const char *state, const char *mode,
		  const char *findings)
{
	struct rb_http_query hq = RB_HTTP_QUERY_INIT;

	hq.page = page;
	hq.q = q;
	hq.section = section;
	hq.state = state;
	hq.mode = mode;
	hq.findings = findings;
	return render_q(st, &hq);
}

/* The list's JSON for a search: the ids, in order, and the total. */
static json_t *list_json(struct rb_store *st, const char *q,
			 const char *section, const char *state,
			 const char *findings)
{
	struct rb_http_query hq = RB_HTTP_QUERY_INIT;
	json_error_t err;
	json_t *j;
	char *p;

	hq.path = "/api/series";
	hq.q = q;
	hq.section = section;
	hq.state = state;
	hq.findings = findings;
	p = render_q(st, &hq);
	j = json_loads(p, 0, &err);
	if (!j)
		fail_msg("not JSON: %s: %s", err.text, p);
	free(p);
	return j;
}

static long long total_of(json_t *j)
{
	return (long long)json_integer_value(json_object_get(j, "total"));
}

static void has(const char *page, const char *want)
{
	if (!strstr(page, want))
		fail_msg("missing: %s\n--- in:\n%s", want, page);
}

static void test_pages(void **state)
{
	struct rb_store *st = NULL;
	const char *ctype = NULL;
	char *p, host[256] = "", line[512];
	int status = 0;

	(void)state;
	assert_int_equal(rb_store_open(&st, db, true), 0);

	/* The series list: hostile text stays text. */
	p = render(st, "/", NULL, &status, &ctype);
	assert_int_equal(status, 200);
	assert_string_equal(ctype, "text/html; charset=utf-8");
	assert_null(strstr(p, "<b>"));
	/* s1 is the oldest (its Date: of 2020): the last of page 3. */
	has(p, "122 series, page 1 of 3.");
	has(p, "href=\"/?page=2\">older");
	has(p, ">mm: change 119</a>");
	assert_null(strstr(p, ">mm: change 69</a>"));
	free(p);
	p = list(st, "3", NULL, NULL, NULL, NULL, NULL);
	has(p, "<tr><td>2020-09-13</td><td class=\"title\"><a href=\"/series?"
	       "id=s1%40x\">ring: &lt;b&gt;bold&lt;/b&gt; &amp; &quot;q&quot;"
	       "</a></td><td>v2</td><td>ada@example.org</td>"
	       "<td class=\"status\">sent<br>applied on demo at 0123456789ab"
	       "</td><td>RING BUFFER</td><td>advisory</td><td>2</td><td>"
	       "<a class=\"thread\" href=\"https://lore.kernel.org/r/s1%40x\">"
	       "thread</a></td></tr>");
	has(p, "href=\"/?page=2\">&larr; newer");
	assert_null(strstr(p, "id=\"older\""));
	free(p);

	/* One series: attempts, findings, verdicts, its mail's body. */
	p = render(st, "/series", "s1@x", &status, &ctype);
	assert_int_equal(status, 200);
	has(p, "<h1 id=\"title\">ring: &lt;b&gt;bold&lt;/b&gt;");
	has(p, "<th>status</th><td>sent 1 mail</td>");
	has(p, "<td>net</td><td>fedcba98</td><td>failed</td>"
	       "<td>patch 1, lib/ring.c hunk 2: does not apply</td>");
	has(p, "<td>demo</td><td>0123456789ab</td><td>applied</td>");
	snprintf(line, sizeof(line),
		 "<tr><td>F1</td><td>commit-msg/fixes-format</td><td>%s</td>"
		 "<td>lib/ring.c:7</td><td><pre class=\"quote\">x = &lt;y&gt;;"
		 "</pre>is this &lt;right&gt;?</td><td>raised</td>"
		 "<td class=\"outcome\">judged false positive</td></tr>",
		 rb_fsev_name(RB_FSEV_LOW));
	has(p, line);
	has(p, "</pre>and this?<p class=\"why\">Why this severity: "
	       "&lt;b&gt;one&lt;/b&gt; leak per failure<br>Verifier: "
	       "ring_init() at 20 &amp; the return</p></td>");
	has(p, "<tr><td>-</td><td>commit-msg/fixes-format</td>");
	has(p, "<td>(commit message)</td>");
	has(p, "<tr><td>F1</td><td>false_positive</td><td>ada@example.org"
	       "</td><td>yes</td><td></td><td class=\"words\"></td>");
	has(p, "<tr><td>1</td><td>[PATCH v2] ring: &lt;b&gt;bold&lt;/b&gt;");
	has(p, "<a class=\"prev\" href=\"/series?id=s0%40x\">previous "
	       "version</a> <a class=\"next\" href=\"/series?id=s3%40x\">"
	       "next version (v3)</a>");
	has(p, "<a class=\"thread\" href=\"https://lore.kernel.org/r/p1%40x"
	       "\">mail</a>");
	has(p, "<h3>review (patch 1): 12 words, 1 findings, sent, ");
	has(p, "<h2>Mails as sent</h2>");
	has(p, "<pre class=\"mail\">Hello &lt;world&gt;\nbye\n</pre>");
	assert_null(strstr(p, "\r"));
	free(p);
	p = render(st, "/series", "nope", &status, &ctype);
	assert_int_equal(status, 404);
	has(p, "No such series");
	free(p);
	p = render(st, "/series", NULL, &status, &ctype);
	assert_int_equal(status, 400);
	free(p);

	/* The figures: F1 judged false, so precision 0 of 1. */
	p = render(st, "/stats", NULL, &status, &ctype);
	assert_int_equal(status, 200);
	has(p, "id=\"precision-finding\">0.00<");
	has(p, "<p>findings raised 4, judged 1, valid 0</p>");
	has(p, "<svg id=\"chart-precision\"");
	/* From receipt, not from the six-year-old Date:. */
	has(p, "id=\"latency-median\">1.5 h<");
	has(p, "id=\"latency-p95\">1.5 h<");
	has(p, "Half of the 1 mails sent left within 1.5 h");
	/* Per the day the series arrived: 2020-09-13. */
	has(p, "<title>2020-09-13: 1</title>");
	free(p);
	p = render(st, "/metrics", NULL, &status, &ctype);
	assert_int_equal(status, 200);
	assert_string_equal(ctype, "text/plain; version=0.0.4; charset=utf-8");
	has(p, "\nreviewbot_findings_judged 1\n");
	has(p, "reviewbot_series{state=\"reviewed\"} 1\n");
	has(p, "reviewbot_outbox{state=\"sent\"} 1\n");
	has(p, "reviewbot_review_latency_seconds_bucket{le=\"600\"} 1\n");
	has(p, "reviewbot_jobs{kind=\"review\",state=\"ready\"} 1\n");
	assert_int_equal(gethostname(host, sizeof(host) - 1), 0);
	snprintf(line, sizeof(line),
		 "reviewbot_worker_up{worker=\"w1\",role=\"worker\","
		 "host=\"%s\"} 1\n",
		 host);
	has(p, line);
	free(p);
	p = render(st, "/etc/passwd", NULL, &status, &ctype);
	assert_int_equal(status, 404);
	free(p);
	rb_store_close(st);
}

/* Search and filters pick the right series, in the right order. */
static void test_filters(void **state)
{
	struct rb_store *st = NULL;
	json_t *j, *rows;
	char *p;

	(void)state;
	assert_int_equal(rb_store_open(&st, db, true), 0);
	/* Everything, newest first, 50 a page. */
	j = list_json(st, NULL, NULL, NULL, NULL);
	rows = json_object_get(j, "series");
	assert_int_equal(total_of(j), 122);
	assert_int_equal(json_array_size(rows), 50);
	/* s3 has no Date: and arrived last. */
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(rows, 0), "id")),
			    "s3@x");
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(rows, 1), "id")),
			    "m119@x");
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(rows, 49), "id")),
			    "m071@x");
	json_decref(j);
	/* By author, title, and Message-ID with or without <>. */
	j = list_json(st, "CAROL@", NULL, NULL, NULL);
	assert_int_equal(total_of(j), 40);
	json_decref(j);
	j = list_json(st, "change 11", NULL, NULL, NULL);
	assert_int_equal(total_of(j), 11); /* 11 and 110..119 */
	json_decref(j);
	j = list_json(st, "<mp007@x>", NULL, NULL, NULL);
	assert_int_equal(total_of(j), 1);
	assert_string_equal(
		json_string_value(json_object_get(
			json_array_get(json_object_get(j, "series"), 0), "id")),
		"m007@x");
	json_decref(j);
	j = list_json(st, "m007@x", NULL, NULL, NULL);
	assert_int_equal(total_of(j), 1);
	json_decref(j);
	/* A LIKE wildcard in the search is a plain character. */
	j = list_json(st, "%", NULL, NULL, NULL);
	assert_int_equal(total_of(j), 0);
	json_decref(j);
	j = list_json(st, "_", NULL, NULL, NULL);
	assert_int_equal(total_of(j), 0);
	json_decref(j);
	/* Section, state, findings, and all at once. */
	j = list_json(st, NULL, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(total_of(j), 60);
	json_decref(j);
	j = list_json(st, NULL, NULL, "apply_failed", NULL);
	assert_int_equal(total_of(j), 30);
	json_decref(j);
	j = list_json(st, NULL, "linux-api.vger.kernel.org", "apply_failed",
		      NULL);
	assert_int_equal(total_of(j), 30); /* every fourth is even */
	json_decref(j);
	j = list_json(st, "bob", "MEMORY MANAGEMENT", "apply_failed", NULL);
	assert_int_equal(total_of(j), 0); /* odd is never a fourth */
	json_decref(j);
	j = list_json(st, NULL, NULL, NULL, "1");
	assert_int_equal(total_of(j), 1);
	json_decref(j);
	/* The form keeps what was asked, and the pager keeps the filter. */
	p = list(st, "1", "bob", "MEMORY MANAGEMENT", NULL, "advisory", NULL);
	has(p, "value=\"bob\"");
	has(p, "<option value=\"MEMORY MANAGEMENT\" selected>");
	has(p, "<option value=\"advisory\" selected>");
	has(p, "0 series, page 1 of 1.");
	free(p);
	p = list(st, "1", "bob", NULL, NULL, NULL, NULL);
	has(p, "href=\"/?page=2&amp;q=bob\">older");
	free(p);
	/* A page past the end is empty, not an error. */
	p = list(st, "99", NULL, NULL, NULL, NULL, NULL);
	has(p, "122 series, page 99 of 3.");
	free(p);
	rb_store_close(st);
}

static const char *jget(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

/* Escaped as the page writes it. */
static void has_text(const char *page, const char *text)
{
	struct rb_buf b = RB_BUF_INIT(1 << 20);

	assert_int_equal(rb_html_escape(&b, text), 0);
	has(page, b.ptr ? b.ptr : "");
	rb_buf_release(&b);
}

/* Text from mail that would be markup, in every field a page shows. */
#define HOSTILE "<script>x()</script>\"'><img src=x onerror=y()>"
#define HOSTILE_MAIL "Subject: x\r\nTo: a@example.org\r\n\r\n" HOSTILE "\r\n"

/* Series h1@x: its subject, names, section, attempt, findings (message,
 * file, quote, reasons), verdict, mail and a note all hostile. */
static void fill_hostile(struct rb_store *st)
{
	char *patches[] = { "hp1@x" };
	struct rb_series s = { .id = "h1@x",
			       .version = 1,
			       .total = 1,
			       .patches = patches,
			       .complete = true,
			       .title = HOSTILE,
			       .author = HOSTILE,
			       .last_date = 1600000000 };
	struct rb_msgmeta meta = { .kind = "patch",
				   .msg.subject = HOSTILE,
				   .msg.date = 1600000000,
				   .idx = 1,
				   .total = 1,
				   .version = 1 };
	struct rb_outmail m = { .message_id = "<rb-h@x>",
				.series_id = "h1@x",
				.kind = "review",
				.patch_idx = 1,
				.env_from = "bot@example.org",
				.rcpts = "a@example.org",
				.bytes = HOSTILE_MAIL,
				.len = sizeof(HOSTILE_MAIL) - 1,
				.policy = "advisory",
				.subsystem = HOSTILE };
	struct rb_finding f = { .checker = "commit-msg",
				.checker_version = "1",
				.category = "fixes-format",
				.severity = RB_FSEV_LOW,
				.file = (char *)HOSTILE,
				.line = 3,
				.code = (char *)HOSTILE,
				.message = (char *)HOSTILE,
				.patch_index = 1,
				.severity_reason = (char *)HOSTILE,
				.verifier_reason = (char *)HOSTILE,
				.fingerprint = "00000000000000h1" };
	struct rb_verdict_rec v = { .reply_msgid = "<rh@x>",
				    .review_msgid = "<rb-h@x>",
				    .fid = "F1",
				    .fingerprint = "00000000000000h1",
				    .verdict = "valid",
				    .judge = HOSTILE,
				    .authorised = true,
				    .reason = HOSTILE,
				    .role = "author",
				    .owner = HOSTILE };
	struct rb_outrow o = { 0 };

	assert_int_equal(rb_store_add_raw(st, "hp1@x", PATCH, sizeof(PATCH) - 1,
					  "t:2"),
			 0);
	assert_int_equal(rb_store_mark_parsed(st, "hp1@x", &meta), 0);
	assert_int_equal(rb_store_put_series(st, &s), 0);
	assert_int_equal(rb_store_series_subsystem(st, "h1@x", HOSTILE, NULL),
			 0);
	assert_int_equal(rb_store_add_attempt(st, "h1@x", HOSTILE, HOSTILE,
					      false, 1, HOSTILE, 2, HOSTILE),
			 0);
	assert_int_equal(
		rb_store_set_series_state(st, "h1@x", "reviewed", HOSTILE), 0);
	assert_int_equal(rb_store_add_outmail(st, &m), 0);
	assert_int_equal(rb_store_outbox_next(st, &o), 0);
	assert_int_equal(rb_store_outbox_sent(st, o.message_id), 0);
	rb_outrow_release(&o);
	assert_int_equal(rb_store_add_finding(st, "h1@x", "<rb-h@x>", "F1", &f,
					      "raised"),
			 0);
	assert_int_equal(rb_store_verdict_add(st, &v), 0);
	assert_int_equal(
		rb_store_note_add(st, HOSTILE, HOSTILE, 0, HOSTILE, NULL), 0);
}

/* No page lets mail's text become markup (issue 35): the templates'
 * escaping is the engine's. */
static void test_hostile(void **state)
{
	static const struct {
		const char *path, *id;
	} pages[] = {
		{ "/", NULL },
		{ "/series", "h1@x" },
		{ "/stats", NULL },
		{ "/notes", NULL },
	};
	struct rb_http_query q = RB_HTTP_QUERY_INIT;
	struct rb_store *st = NULL;
	const char *ctype = NULL;
	size_t i;
	int status = 0;

	(void)state;
	assert_int_equal(rb_store_open(&st, db, true), 0);
	fill_hostile(st);
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		char *p =
			render(st, pages[i].path, pages[i].id, &status, &ctype);

		assert_int_equal(status, 200);
		if (strstr(p, "<script") || strstr(p, "<img") ||
		    strstr(p, "\"'>"))
			fail_msg("%s lets markup through:\n%s", pages[i].path,
				 p);
		has_text(p, HOSTILE);
		free(p);
	}
	/* The list's search shows the query back escaped too. */
	q.q = HOSTILE;
	{
		char *p = render_q(st, &q);

		assert_null(strstr(p, "<script"));
		has(p,
		    "value=\"&lt;script&gt;x()&lt;/script&gt;&quot;&#39;&gt;");
		free(p);
	}
	rb_store_close(st);
}

static int id_into(const struct rb_report_series *s, void *payload)
{
	json_array_append_new(payload, json_string(s->id));
	return 0;
}

/* Pages in the older half are read from the oldest end of the index
 * (issue 38): any window of the list is the same rows as one read. */
static void test_page_ends(void **state)
{
	static const int64_t offs[] = { 0, 10, 50, 60, 61, 62, 70, 100, 121 };
	struct rb_report_filter f = RB_REPORT_FILTER_INIT;
	struct rb_store *st = NULL;
	json_t *all = json_array();
	int64_t total = 0;
	size_t i, k;

	(void)state;
	assert_int_equal(rb_store_open(&st, db, true), 0);
	f.limit = 200;
	assert_int_equal(
		rb_store_report_series_page(st, &f, &total, id_into, all), 0);
	assert_int_equal(json_array_size(all), (size_t)total);
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		json_t *page = json_array();

		f.limit = 50;
		f.offset = offs[i];
		assert_int_equal(rb_store_report_series_page(st, &f, &total,
							     id_into, page),
				 0);
		assert_int_equal(
			json_array_size(page),
			(size_t)(total - offs[i] < 50 ? total - offs[i] : 50));
		for (k = 0; k < json_array_size(page); k++)
			assert_string_equal(
				json_string_value(json_array_get(page, k)),
				json_string_value(json_array_get(
					all, (size_t)offs[i] + k)));
		json_decref(page);
	}
	json_decref(all);
	rb_store_close(st);
}

/* What the series' JSON says is what its page shows. */
static void test_series_json(void **state)
{
	struct rb_http_query q = RB_HTTP_QUERY_INIT;
	struct rb_store *st = NULL;
	json_error_t err;
	json_t *j, *v;
	char *page, *text, num[64];
	size_t i;

	(void)state;
	assert_int_equal(rb_store_open(&st, db, true), 0);
	q.path = "/series";
	q.id = "s1@x";
	page = render_q(st, &q);
	q.format = "json";
	text = render_q(st, &q);
	j = json_loads(text, 0, &err);
	if (!j)
		fail_msg("not JSON: %s: %s", err.text, text);
	free(text);
	/* /api/series?id= is the same JSON. */
	q.path = "/api/series";
	q.format = NULL;
	text = render_q(st, &q);
	v = json_loads(text, 0, &err);
	if (!json_equal(j, v))
		fail_msg("/api/series differs: %s", text);
	json_decref(v);
	free(text);

	assert_string_equal(jget(j, "title"), TITLE);
	has_text(page, jget(j, "title"));
	has_text(page, jget(j, "author"));
	has_text(page, jget(j, "status"));
	has_text(page, jget(j, "section"));
	has_text(page, jget(j, "thread"));
	has_text(page, jget(json_object_get(j, "previous"), "url"));
	json_array_foreach(json_object_get(j, "next"), i, v)
		has_text(page, jget(v, "url"));
	assert_int_equal(json_array_size(json_object_get(j, "patches")), 1);
	json_array_foreach(json_object_get(j, "patches"), i, v)
		has_text(page, jget(v, "subject"));
	assert_int_equal(json_array_size(json_object_get(j, "findings")), 4);
	json_array_foreach(json_object_get(j, "findings"), i, v)
	{
		has_text(page, jget(v, "fid"));
		has_text(page, jget(v, "message"));
		has_text(page, jget(v, "quote"));
		has_text(page, jget(v, "state"));
	}
	assert_string_equal(
		jget(json_array_get(json_object_get(j, "findings"), 0),
		     "outcome"),
		"false_positive");
	v = json_array_get(json_object_get(j, "findings"), 1);
	assert_string_equal(jget(v, "outcome"), "fixed_later");
	assert_string_equal(jget(v, "severity_reason"),
			    "<b>one</b> leak per failure");
	assert_string_equal(jget(v, "verifier_reason"),
			    "ring_init() at 20 & the return");
	assert_true(json_is_null(json_object_get(
		json_array_get(json_object_get(j, "findings"), 0),
		"verifier_reason")));
	assert_int_equal(
		json_integer_value(json_object_get(v, "fixed_in_version")), 3);
	has(page, "<td class=\"outcome\">fixed in a later version (fixed in "
		  "v3)</td>");
	/* Bytes that are not UTF-8: the JSON is still JSON (U+FFFD from
	 * the store, '?' from the dashboard). */
	v = json_array_get(json_object_get(j, "findings"), 3);
	assert_true(!strncmp(jget(v, "message"), "bad ", 4));
	json_array_foreach(json_object_get(j, "verdicts"), i, v)
	{
		has_text(page, jget(v, "verdict"));
		has_text(page, jget(v, "judge"));
	}
	json_array_foreach(json_object_get(j, "attempts"), i, v)
	{
		has_text(page, jget(v, "base"));
		snprintf(num, sizeof(num), "%.12s", jget(v, "commit"));
		has_text(page, num);
	}
	assert_int_equal(json_array_size(json_object_get(j, "mails")), 1);
	json_array_foreach(json_object_get(j, "mails"), i, v)
		has_text(page, jget(v, "body"));
	json_decref(j);
	free(page);

	/* The stats JSON: latency from receipt, in seconds. */
	q.path = "/stats";
	q.id = NULL;
	q.format = "json";
	text = render_q(st, &q);
	j = json_loads(text, 0, &err);
	assert_non_null(j);
	v = json_object_get(j, "send_latency");
	assert_int_equal(json_integer_value(json_object_get(v, "median_s")),
			 5400);
	assert_int_equal(json_integer_value(json_object_get(v, "p95_s")), 5400);
	/* A rule's row has the benchmark's labelled precision beside. */
	v = json_object_get(json_object_get(j, "by_rule"),
			    "commit-msg/fixes-format");
	assert_non_null(v);
	assert_true(json_is_number(json_object_get(v, "labelled_precision")));
	assert_true(json_integer_value(json_object_get(v, "labelled")) > 0);
	json_decref(j);
	free(text);
	q.format = NULL;
	text = render_q(st, &q);
	has(text, "labelled precision (bench");
	free(text);
	rb_store_close(st);
}

/* One request on a fresh connection; the whole answer. */
static char *ask(int port, const char *method, const char *path,
		 const char *host)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct rb_buf out = RB_BUF_INIT(1 << 22);
	char req[512], buf[4096];
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	snprintf(req, sizeof(req),
		 "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
		 method, path, host);
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		assert_int_equal(rb_buf_add(&out, buf, (size_t)n), 0);
	close(fd);
	assert_non_null(out.ptr);
	return rb_buf_detach(&out, NULL);
}

static void test_served(void **state)
{
	struct rb_http *h = NULL;
	char *r;
	int port;

	(void)state;
	assert_int_equal(rb_http_start(&h, "127.0.0.1:0", db,
				       "https://lore.kernel.org/r/"),
			 0);
	port = rb_http_port(h);
	assert_true(port > 0);
	r = ask(port, "GET", "/?q=ring%3A+%3Cb", "127.0.0.1");
	assert_true(!strncmp(r, "HTTP/1.1 200", 12));
	has(r, "Content-Security-Policy: default-src 'none'");
	has(r, "ring: &lt;b&gt;bold&lt;/b&gt;");
	free(r);
	r = ask(port, "GET", "/series?id=s1%40x", "localhost:8080");
	assert_true(!strncmp(r, "HTTP/1.1 200", 12));
	has(r, "lib/ring.c:7");
	free(r);
	/* DNS rebinding: a name the server is not reached by. */
	r = ask(port, "GET", "/", "evil.example");
	assert_true(!strncmp(r, "HTTP/1.1 421", 12));
	assert_null(strstr(r, "ring:"));
	free(r);
	r = ask(port, "POST", "/", "127.0.0.1");
	assert_true(!strncmp(r, "HTTP/1.1 405", 12));
	free(r);
	rb_http_stop(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pages),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_page_ends),
		cmocka_unit_test(test_series_json),
		cmocka_unit_test(test_served),
		cmocka_unit_test(test_hostile),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return ret;
}
