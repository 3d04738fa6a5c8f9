// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pipeline.c - the wiring of the one pipeline (bot/stages/pipeline.h):
 * each role runs its stages and only those, a second pass does nothing
 * new, and a malformed mail is recorded and skipped without stopping the
 * stages after it; a pass that sends sends each job's mail as the job
 * ends; the sender's rate limits by kind of recipient.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <cmocka.h>
#include <git2.h>

#include "bot/config.h"
#include "bot/stages/pipeline.h"
#include "bot/store/store.h"
#include "util/buf.h"
#include "util/err.h"
#include "tests/testlib_bot.h"
#include "util/banned.h"

static char dir[] = "/tmp/rb-pipeline-XXXXXX";
static char db_path[256];

/* After the store, the demo tree and the outbox (testlib_bot.h). */
static const char config_more[] = "policy:\n  default:\n    mode: advisory\n";

static int setup(void **state)
{
	(void)state;
	if (rb_test_demo_setup(dir))
		return -1;
	snprintf(db_path, sizeof(db_path), "%s/rb.db", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return rb_test_demo_teardown(dir);
}

static int maildir_count(void)
{
	char path[512];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/outbox/new", dir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Each role runs its own stages: ingest stops at jobs, the worker at the
 * outbox, the sender sends; a second pass adds nothing. */
static void test_roles(void **state)
{
	struct rb_test_env e;
	char path[512];
	int64_t queued;

	(void)state;
	rb_test_env_open(&e, dir, db_path, config_more);
	snprintf(path, sizeof(path), "%s/demo/series.mbox", dir);
	assert_int_equal(rb_pipeline_ingest_path(&e.p, path), 0);
	assert_true(e.p.stats.stored >= 2);

	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_INGEST), 0);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM messages"
					   " WHERE state = 'new'"),
			 0);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM series"), 1);
	assert_true(rb_test_q_int(&e,
				  "SELECT COUNT(*) FROM jobs WHERE"
				  " kind = 'review' AND state = 'ready'") >= 1);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM reviews"), 0);

	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_WORKER), 0);
	queued = rb_test_q_int(&e, "SELECT COUNT(*) FROM outbox");
	assert_true(queued >= 1);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM reviews"),
			 queued);
	assert_int_equal(rb_test_q_int(&e,
				       "SELECT COUNT(*) FROM jobs WHERE"
				       " kind = 'review' AND state = 'ready'"),
			 0);
	assert_int_equal(maildir_count(), 0);

	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_SENDER), 0);
	assert_int_equal(maildir_count(), queued);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM outbox"
					   " WHERE state = 'sent'"),
			 queued);

	/* Again, with every role: nothing new. */
	assert_int_equal(rb_pipeline_ingest_path(&e.p, path), 0);
	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_ALL), 0);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM outbox"),
			 queued);
	assert_int_equal(maildir_count(), queued);
	rb_test_env_close(&e);
}

/* A malformed mail is recorded with its reason and skipped; the good one
 * after it is still parsed. */
static void test_malformed(void **state)
{
	static const char bad[] = "not a mail: no header, no body\x01";
	static const char good[] = "From: Ada <ada@example.org>\n"
				   "To: list@example.org\n"
				   "Subject: hello\n"
				   "Message-ID: <good-1@example.org>\n"
				   "Date: Tue, 3 Nov 2026 09:00:00 +0000\n"
				   "\nJust a note.\n";
	char db[512];
	struct rb_test_env e;

	(void)state;
	snprintf(db, sizeof(db), "%s/bad.db", dir);
	rb_test_env_open(&e, dir, db, config_more);
	assert_int_equal(rb_pipeline_ingest_raw(&e.p, bad, sizeof(bad) - 1,
						"test:1"),
			 0);
	assert_int_equal(rb_pipeline_ingest_raw(&e.p, good, sizeof(good) - 1,
						"test:2"),
			 0);
	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_ALL), 0);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM messages"
					   " WHERE state = 'malformed'"
					   " AND reason IS NOT NULL"),
			 1);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM messages"
					   " WHERE state = 'parsed'"),
			 1);
	rb_test_env_close(&e);
}

/*
 * Issue 34: a config that drops every message says so, at most once an
 * hour, with counts and the List-Ids it met (the one that was meant).
 */
static void test_drops_reported(void **state)
{
	static const char mail[] = "From: Ada <ada@example.org>\n"
				   "To: linux-mm@kvack.org\n"
				   "Subject: hello %d\n"
				   "Message-ID: <drop-%d@example.org>\n"
				   "List-Id: <linux-mm.kvack.org>\n"
				   "Date: Tue, 3 Nov 2026 09:00:00 +0000\n"
				   "\nJust a note.\n";
	char db[512], raw[512];
	struct rb_test_env e;
	int i, n;

	(void)state;
	snprintf(db, sizeof(db), "%s/drops.db", dir);
	rb_test_env_open(&e, dir, db,
			 "list_ids: [linux-api.vger.kernel.org]\n"
			 "policy:\n  default:\n    mode: advisory\n");
	setenv("RB_NOW", "1793700000", 1);
	for (i = 0; i < 3; i++) {
		n = snprintf(raw, sizeof(raw), mail, i, i);
		assert_int_equal(rb_pipeline_ingest_raw(&e.p, raw, (size_t)n,
							"test:1"),
				 0);
	}
	assert_int_equal(e.p.stats.dropped[RB_DROP_LIST], 3);
	assert_string_equal(e.p.drop_ids[0], "linux-mm.kvack.org");
	assert_int_equal(e.p.drop_id_n[0], 3);
	/* The first report comes at once, and starts the hour. */
	rb_pipeline_report_drops(&e.p, false);
	assert_int_equal(e.p.stats.dropped[RB_DROP_LIST], 0);
	assert_int_equal(e.p.stats.dropped_total[RB_DROP_LIST], 3);
	assert_int_equal(e.p.drops_logged_at, 1793700000);
	/* Within the hour: counted, not logged. */
	n = snprintf(raw, sizeof(raw), mail, 3, 3);
	assert_int_equal(rb_pipeline_ingest_raw(&e.p, raw, (size_t)n, "t:2"),
			 0);
	setenv("RB_NOW", "1793703599", 1);
	rb_pipeline_report_drops(&e.p, false);
	assert_int_equal(e.p.stats.dropped[RB_DROP_LIST], 1);
	assert_int_equal(e.p.drops_logged_at, 1793700000);
	/* An hour on: logged. */
	setenv("RB_NOW", "1793703600", 1);
	rb_pipeline_report_drops(&e.p, false);
	assert_int_equal(e.p.stats.dropped[RB_DROP_LIST], 0);
	assert_int_equal(e.p.drops_logged_at, 1793703600);
	assert_int_equal(e.p.stats.dropped_total[RB_DROP_LIST], 4);
	unsetenv("RB_NOW");
	rb_test_env_close(&e);
}

/* Counts the jobs claimed; at each, how much mail was sent before it. */
struct claims {
	struct rb_test_env *e;
	int n;
	int64_t sent_before[8];
};

static struct claims claims;

static int on_claimed(struct rb_pipeline *p, const struct rb_job *job)
{
	(void)p;
	(void)job;
	if (claims.n < 8)
		claims.sent_before[claims.n] = rb_test_q_int(
			claims.e,
			"SELECT COUNT(*) FROM outbox WHERE state = 'sent'");
	claims.n++;
	return 0;
}

/*
 * Reads the demo's patch 2 (no Signed-off-by) and writes it to @out as a
 * series of its own: "[PATCH]", a new Message-ID, no thread.
 */
static void write_single(const char *out)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "sed -e 's/^Subject: \\[PATCH 2\\/3\\]/Subject: [PATCH]/'"
		 " -e 's/^\\(Message-I[Dd]:\\) <\\(.*\\)>/\\1 <single.\\2>/'"
		 " -e '/^In-Reply-To:/d' -e '/^References:/d'"
		 " -e '0,/^Subject:/s//To: demo-list@example.org\\n"
		 "List-Id: <demo-list.example.org>\\nSubject:/'"
		 " %s/demo/patches/0002-*.patch > %s",
		 dir, out);
	assert_int_equal(system(cmd), 0);
}

/*
 * A pass that also sends sends each job's mail when the job ends, not
 * after every job of the pass: the second review is claimed after the
 * first review's mail went out.
 */
static void test_send_between_jobs(void **state)
{
	static const struct rb_job_hooks hooks = { .claimed = on_claimed };
	struct rb_test_env e;
	char db[512], path[512], single[512];
	int i, reviews;

	(void)state;
	snprintf(db, sizeof(db), "%s/between.db", dir);
	snprintf(path, sizeof(path), "%s/demo/series.mbox", dir);
	snprintf(single, sizeof(single), "%s/single.mbox", dir);
	write_single(single);
	rb_test_env_open(&e, dir, db, config_more);
	assert_int_equal(rb_pipeline_ingest_path(&e.p, path), 0);
	assert_int_equal(rb_pipeline_ingest_path(&e.p, single), 0);
	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_INGEST), 0);
	reviews = (int)rb_test_q_int(&e,
				     "SELECT COUNT(*) FROM jobs WHERE"
				     " kind = 'review' AND state = 'ready'");
	assert_int_equal(reviews, 2);

	claims = (struct claims){ .e = &e };
	e.p.hooks = &hooks;
	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_ALL), 0);
	assert_int_equal(claims.n, 2);
	/* Each review queued a mail (patch 2 has no Signed-off-by). */
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM outbox"
					   " WHERE state = 'sent'"),
			 2);
	for (i = 0; i < claims.n; i++)
		assert_int_equal(claims.sent_before[i], i);
	e.p.hooks = NULL;
	rb_test_env_close(&e);
}

/*
 * The sender's rate limits by kind (issue 38): with a list limit of 2
 * and a person limit of 2, three mails to three authors Cc'ing one
 * maintainer (trusted) and one list: two go, the third waits for the
 * list; a mail to another list still goes. A maintainer on every mail
 * limits nothing; the fourth mail to one author waits for her.
 */
static void test_rate_kinds(void **state)
{
	static const char *const auth[] = {
		"a1@example.net", "a2@example.net", "a3@example.net",
		"a1@example.net", "a4@example.net", "a1@example.net"
	};
	static const char *const lists[] = {
		"l1@example.org", "l1@example.org", "l1@example.org",
		"l2@example.org", "l2@example.org", "l3@example.org"
	};
	struct rb_test_env e;
	char db[512], id[64], rcpts[256];
	size_t i;

	(void)state;
	snprintf(db, sizeof(db), "%s/rates.db", dir);
	rb_test_env_open(&e, dir, db,
			 "  rate_per_list_hour: 2\n"
			 "  rate_per_recipient_hour: 2\n");
	setenv("RB_NOW", "1800000000", 1);
	for (i = 0; i < 6; i++) {
		struct rb_outmail m = {
			.message_id = id,
			.series_id = id,
			.kind = "review",
			.patch_idx = 1,
			.env_from = "bot@example.org",
			.rcpts = rcpts,
			.lists = lists[i],
			.trusted = "maint@example.org",
			.bytes = "X\r\n",
			.len = 3,
			.policy = "advisory",
		};

		snprintf(id, sizeof(id), "rb-kinds-%zu@example.org", i);
		snprintf(rcpts, sizeof(rcpts), "%s\nmaint@example.org\n%s",
			 auth[i], lists[i]);
		assert_int_equal(rb_store_add_outmail(e.st, &m), 0);
	}
	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_SENDER), 0);
	/* l1: 2 of 3; l2: both, a1 twice; a1's third waits (l3 is free). */
	assert_int_equal(
		rb_test_q_int(&e, "SELECT COUNT(*) FROM outbox WHERE state ="
				  " 'sent'"),
		4);
	assert_int_equal(
		rb_test_q_int(&e,
			      "SELECT COUNT(*) FROM outbox WHERE message_id ="
			      " 'rb-kinds-2@example.org' AND last_error ="
			      " 'rate limit reached for a mailing list'"),
		1);
	assert_int_equal(
		rb_test_q_int(&e,
			      "SELECT COUNT(*) FROM outbox WHERE message_id ="
			      " 'rb-kinds-5@example.org' AND last_error ="
			      " 'rate limit reached for a recipient'"),
		1);
	/* An hour later both go. */
	setenv("RB_NOW", "1800003601", 1);
	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_SENDER), 0);
	assert_int_equal(
		rb_test_q_int(&e, "SELECT COUNT(*) FROM outbox WHERE state ="
				  " 'sent'"),
		6);
	unsetenv("RB_NOW");
	rb_test_env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_drops_reported),
		cmocka_unit_test(test_send_between_jobs),
		cmocka_unit_test(test_rate_kinds),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return ret;
}
