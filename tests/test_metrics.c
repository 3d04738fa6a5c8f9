// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_metrics.c - the workers' counters (bot/web/metrics.h) and the leases of
 * migration 3 they rest on, on SQLite (and on PostgreSQL when
 * RB_TEST_PG_URL names a server): a job claimed after its lease ran out
 * names the worker that lost it; an outbox mail claimed by a sender goes
 * to no other sender until its lease runs out; the Prometheus text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <git2.h>

#include "bot/web/metrics.h"
#include "bot/store/store.h"
#include "bot/store/store_priv.h" /* white-box: the tables as stored */
#include "util/buf.h"
#include "util/err.h"
#include "tests/testlib.h"
#include "tests/testlib_bot.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	setenv("RB_NOW", "1000000", 1);
	return rb_test_tmpdir(dir, sizeof(dir), "/tmp/rb-metrics-XXXXXX");
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("RB_NOW");
	return rb_test_tmpdir_remove(dir);
}

static struct rb_store *open_store(void)
{
	/* A PostgreSQL database outlives the test: start clean. */
	return rb_test_store_open(dir, "DELETE FROM workers; DELETE FROM"
				       " jobs; DELETE FROM outbox;"
				       " DELETE FROM reviews");
}

static void now_is(long long t)
{
	char v[32];

	snprintf(v, sizeof(v), "%lld", t);
	setenv("RB_NOW", v, 1);
}

static char *render(struct rb_store *st)
{
	struct rb_buf b = RB_BUF_INIT(1 << 20);

	assert_int_equal(rb_metrics_render(&b, st), 0);
	return rb_buf_detach(&b, NULL);
}

static void test_counters_and_text(void **state)
{
	struct rb_store *st = open_store();
	char *text, host[256] = "", line[600];
	int i;

	(void)state;
	assert_int_equal(gethostname(host, sizeof(host) - 1), 0);
	assert_int_equal(rb_metrics_register(st, "w1", "worker"), 0);
	assert_int_equal(rb_metrics_register(st, "odd \"w\\2\"\n", "worker"),
			 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(rb_metrics_count(st, "w1", RB_METRIC_CLAIMED),
				 0);
	assert_int_equal(rb_metrics_count(st, "w1", RB_METRIC_DONE), 0);
	assert_int_equal(rb_metrics_count(st, "w1", RB_METRIC_FAILED), 0);
	assert_int_equal(rb_metrics_count(st, "w1", RB_METRIC_LEASE_EXPIRED),
			 0);
	/* An unknown worker changes nothing; an unknown counter is refused. */
	assert_int_equal(rb_metrics_count(st, "nobody", RB_METRIC_DONE), 0);
	assert_int_equal(rb_metrics_count(st, "w1", (enum rb_metric)9),
			 -RB_EINVAL);
	assert_int_equal(rb_metrics_state(st, "w1", "busy"), 0);

	text = render(st);
	assert_non_null(strstr(text,
			       "# TYPE reviewbot_worker_jobs_claimed_total"
			       " counter\n"));
	snprintf(line, sizeof(line),
		 "reviewbot_worker_jobs_claimed_total{worker=\"w1\","
		 "role=\"worker\",host=\"%s\"} 3\n",
		 host);
	assert_non_null(strstr(text, line));
	snprintf(line, sizeof(line),
		 "reviewbot_worker_jobs_done_total{worker=\"w1\","
		 "role=\"worker\",host=\"%s\"} 1\n",
		 host);
	assert_non_null(strstr(text, line));
	snprintf(line, sizeof(line),
		 "reviewbot_worker_lease_expiries_total{worker=\"w1\","
		 "role=\"worker\",host=\"%s\"} 1\n",
		 host);
	assert_non_null(strstr(text, line));
	snprintf(line, sizeof(line),
		 "reviewbot_worker_busy{worker=\"w1\",role=\"worker\","
		 "host=\"%s\"} 1\n",
		 host);
	assert_non_null(strstr(text, line));
	/* Label values escape '"', '\' and newlines (exposition 0.0.4). */
	assert_non_null(strstr(text, "{worker=\"odd \\\"w\\\\2\\\"\\n\","));
	free(text);

	/* Seen long ago, or stopped: down. Registered again: counters kept. */
	now_is(1000000 + RB_METRICS_STALE_SECONDS + 1);
	assert_int_equal(rb_metrics_state(st, "odd \"w\\2\"\n", "stopped"), 0);
	text = render(st);
	snprintf(line, sizeof(line),
		 "reviewbot_worker_up{worker=\"w1\",role=\"worker\","
		 "host=\"%s\"} 0\n",
		 host);
	assert_non_null(strstr(text, line));
	snprintf(line, sizeof(line),
		 "reviewbot_worker_up{worker=\"odd \\\"w\\\\2\\\"\\n\","
		 "role=\"worker\",host=\"%s\"} 0\n",
		 host);
	assert_non_null(strstr(text, line));
	free(text);
	assert_int_equal(rb_metrics_register(st, "w1", "worker"), 0);
	text = render(st);
	snprintf(line, sizeof(line),
		 "reviewbot_worker_up{worker=\"w1\",role=\"worker\","
		 "host=\"%s\"} 1\n",
		 host);
	assert_non_null(strstr(text, line));
	snprintf(line, sizeof(line),
		 "reviewbot_worker_jobs_claimed_total{worker=\"w1\","
		 "role=\"worker\",host=\"%s\"} 3\n",
		 host);
	assert_non_null(strstr(text, line));
	free(text);
	rb_store_close(st);
}

static void test_lost_lease_names_the_loser(void **state)
{
	struct rb_store *st = open_store();
	struct rb_job j = { 0 };
	char *lost = NULL, *text;
	struct rb_dbv id;

	(void)state;
	now_is(1000000);
	assert_int_equal(rb_store_job_add(st, "review", "s1", 1000000), 0);
	assert_int_equal(rb_store_job_claim(st, "a", 10, &j), 0);
	rb_job_release(&j);
	/* Within a's lease, nobody else gets the job. */
	now_is(1000005);
	assert_int_equal(rb_store_job_claim(st, "b", 10, &j), -RB_ENOTFOUND);
	now_is(1000011);
	assert_int_equal(rb_store_job_claim(st, "b", 10, &j), 0);
	assert_int_equal(j.attempts, 2);
	id = RB_DB_INT(j.id);
	assert_int_equal(rb_db_query_text(st->db, &lost,
					  "SELECT lost_by FROM jobs"
					  " WHERE id = ?",
					  &id, 1),
			 0);
	assert_non_null(lost);
	assert_string_equal(lost, "a");
	free(lost);
	lost = NULL;
	assert_int_equal(rb_store_job_done(st, j.id, NULL), 0);
	rb_job_release(&j);

	/* A job claimed fresh names nobody. */
	assert_int_equal(rb_store_job_add(st, "review", "s2", 1000000), 0);
	assert_int_equal(rb_store_job_claim(st, "b", 10, &j), 0);
	id = RB_DB_INT(j.id);
	assert_int_equal(rb_db_query_text(st->db, &lost,
					  "SELECT lost_by FROM jobs"
					  " WHERE id = ?",
					  &id, 1),
			 0);
	assert_null(lost);
	rb_job_release(&j);

	text = render(st);
	assert_non_null(strstr(text, "reviewbot_jobs{kind=\"review\","
				     "state=\"done\"} 1\n"));
	assert_non_null(strstr(text, "reviewbot_jobs{kind=\"review\","
				     "state=\"running\"} 1\n"));
	free(text);
	rb_store_close(st);
}

static void test_outbox_lease(void **state)
{
	struct rb_store *st = open_store();
	struct rb_outmail m = {
		.message_id = "rb-lease@example.org",
		.series_id = "s1",
		.kind = "review",
		.patch_idx = 1,
		.env_from = "bot@example.org",
		.rcpts = "a@example.org",
		.bytes = "Y\r\n",
		.len = 3,
		.send_after = 0,
		.policy = "advisory",
	};
	struct rb_outrow o = { 0 };

	(void)state;
	now_is(1000000);
	assert_int_equal(rb_store_add_outmail(st, &m), 0);
	assert_int_equal(rb_store_outbox_next(st, &o), 0);
	rb_outrow_release(&o);
	/* A second sender gets nothing while the first holds the mail... */
	now_is(1000000 + 299);
	assert_int_equal(rb_store_outbox_next(st, &o), -RB_ENOTFOUND);
	/* ...and the same bytes once the first's lease ran out. */
	now_is(1000000 + 301);
	assert_int_equal(rb_store_outbox_next(st, &o), 0);
	assert_string_equal(o.message_id, "rb-lease@example.org");
	assert_int_equal(o.attempts, 2);
	assert_memory_equal(o.bytes, "Y\r\n", 3);
	assert_int_equal(rb_store_outbox_sent(st, o.message_id), 0);
	rb_outrow_release(&o);
	now_is(1000000 + 1000);
	assert_int_equal(rb_store_outbox_next(st, &o), -RB_ENOTFOUND);
	rb_store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_counters_and_text, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lost_lease_names_the_loser,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_outbox_lease, setup,
						teardown),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
