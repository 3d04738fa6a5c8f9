// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_http.c - the dashboard's handlers (bot/http.h) on a temporary
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

#include "bot/http.h"
#include "bot/metrics.h"
#include "bot/store.h"
#include "bot/store_priv.h" /* white-box: a clean PostgreSQL database */
#include "mail/series.h"
#include "review/findings.h"
#include "util/buf.h"
#include "util/err.h"

static char dir[256];
static char path[300];
static const char *db; /* the SQLite path, or RB_TEST_PG_URL */

#define TITLE "ring: <b>bold</b> & \"q\""
#define COMMIT "0123456789abcdef0123456789abcdef01234567"
#define MAIL "Subject: x\r\nTo: a@example.org\r\n\r\nHello <world>\r\nbye\r\n"

static void add_finding(struct rb_store *st, const char *review,
			const char *fid, const char *file, int line,
			const char *message)
{
	struct rb_finding f = {
		.checker = "commit-msg",
		.checker_version = "1",
		.category = "fixes-tag",
		.severity = RB_FSEV_LOW,
		.file = (char *)file,
		.line = line,
		.message = (char *)message,
		.patch_index = 1,
	};

	snprintf(f.fingerprint, sizeof(f.fingerprint), "%016x",
		 (unsigned int)line);
	assert_int_equal(
		rb_store_add_finding(st, "s1@x", review, fid, &f, "raised"), 0);
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
		.last_date = 1793700000,
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

	assert_int_equal(rb_store_put_series(st, &s), 0);
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
	assert_int_equal(rb_store_outbox_sent(st, o.message_id), 0);
	rb_outrow_release(&o);
	add_finding(st, "<rb-1@x>", "F1", "lib/ring.c", 7, "is this <right>?");
	add_finding(st, NULL, NULL, NULL, 0, "dropped: over the cap");
	assert_int_equal(rb_store_verdict_add(st, &v), 0);
	assert_int_equal(rb_store_verdict_add(st, &v), -RB_EEXISTS);
	assert_int_equal(rb_metrics_register(st, "w1", "worker"), 0);
	assert_int_equal(rb_store_job_add(st, "review", "s1@x", 0), 0);
}

static int setup(void **state)
{
	struct rb_store *st = NULL;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rb-http-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	db = getenv("RB_TEST_PG_URL") && *getenv("RB_TEST_PG_URL") ?
		     getenv("RB_TEST_PG_URL") :
		     path;
	setenv("RB_NOW", "1793780000", 1);
	assert_int_equal(rb_store_open(&st, db, db != path), 0);
	/* A PostgreSQL database outlives the test: start clean. */
	assert_int_equal(st->db->ops->exec(st->db,
					   "DELETE FROM series; DELETE FROM"
					   " patches; DELETE FROM attempts;"
					   " DELETE FROM reviews; DELETE FROM"
					   " outbox; DELETE FROM findings;"
					   " DELETE FROM verdicts; DELETE FROM"
					   " workers; DELETE FROM jobs",
					   NULL, 0),
			 0);
	fill(st);
	rb_store_close(st);
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	(void)state;
	unsetenv("RB_NOW");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static char *render(struct rb_store *st, const char *path, const char *id,
		    int *status, const char **ctype)
{
	struct rb_buf b = RB_BUF_INIT(1 << 22);

	assert_int_equal(rb_http_render(&b, st, path, id, status, ctype), 0);
	return rb_buf_detach(&b, NULL);
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
	has(p, "<a href=\"/series?id=s1%40x\">ring: &lt;b&gt;bold&lt;/b&gt; "
	       "&amp; &quot;q&quot;</a></td><td>v2</td>"
	       "<td>ada@example.org</td>");
	has(p, "<td class=\"status\">sent<br>applied on demo at 0123456789ab"
	       "</td><td>RING BUFFER</td><td>1</td>");
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
		 "<tr><td>F1</td><td>commit-msg</td><td>fixes-tag</td>"
		 "<td>%s</td><td>lib/ring.c:7</td><td>raised</td>"
		 "<td>is this &lt;right&gt;?</td></tr>",
		 rb_fsev_name(RB_FSEV_LOW));
	has(p, line);
	has(p, "<tr><td>-</td><td>commit-msg</td>");
	has(p, "<td>(commit message)</td>");
	has(p, "<tr><td>F1</td><td>false_positive</td><td>ada@example.org"
	       "</td><td>yes</td><td></td>");
	has(p, "<h3>review (patch 1): 12 words, 1 findings, sent, ");
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
	has(p, "<p>findings raised 2, judged 1, valid 0</p>");
	has(p, "<svg id=\"chart-precision\"");
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
	assert_int_equal(rb_http_start(&h, "127.0.0.1:0", db), 0);
	port = rb_http_port(h);
	assert_true(port > 0);
	r = ask(port, "GET", "/", "127.0.0.1");
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
		cmocka_unit_test(test_served),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
