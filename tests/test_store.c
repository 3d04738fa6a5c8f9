// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_store.c - the store on SQLite (and on PostgreSQL when
 * RB_TEST_PG_URL names a server): migrations, deduplication, the job
 * leases, the outbox states and the single-owner lock.
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

#include "bot/store.h"
#include "mail/series.h"
#include "util/err.h"

static char dir[256];

static const char *db_path(void)
{
	static char path[300];

	snprintf(path, sizeof(path), "%s/t.db", dir);
	return path;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rb-store-XXXXXX");
	assert_non_null(mkdtemp(dir));
	unsetenv("RB_NOW");
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static const char *target(void)
{
	const char *pg = getenv("RB_TEST_PG_URL");

	return pg && *pg ? pg : db_path();
}

static struct rb_store *open_store(void)
{
	struct rb_store *st = NULL;

	assert_int_equal(rb_store_open(&st, target(),
				       getenv("RB_TEST_PG_URL") != NULL),
			 0);
	return st;
}

static void test_migrate_idempotent(void **state)
{
	struct rb_store *st = open_store();
	int from = -1, to = -1;

	(void)state;
	assert_int_equal(rb_store_migrate(st, &from, &to), 0);
	assert_int_equal(from, RB_SCHEMA_VERSION);
	assert_int_equal(to, RB_SCHEMA_VERSION);
	rb_store_close(st);
}

static void test_dedup_by_message_id(void **state)
{
	struct rb_store *st = open_store();
	struct rb_msgrow m = { 0 };
	const char raw[] = "Message-ID: <a@b>\n\nhello\n";

	(void)state;
	assert_int_equal(rb_store_add_raw(st, "a@b", raw, sizeof(raw) - 1,
					  "x.mbox:1"),
			 0);
	assert_int_equal(rb_store_add_raw(st, "a@b", raw, sizeof(raw) - 1,
					  "y.mbox:7"),
			 -RB_EEXISTS);
	assert_int_equal(rb_store_get_raw(st, "a@b", &m), 0);
	assert_int_equal(m.len, sizeof(raw) - 1);
	assert_memory_equal(m.raw, raw, m.len);
	assert_string_equal(m.origin, "x.mbox:1");
	rb_msgrow_release(&m);
	/* Binary junk is kept byte for byte. */
	assert_int_equal(
		rb_store_add_bad(st, "junk:1", "not mail", "\0\1\2\xff", 4), 0);
	rb_store_close(st);
}

static void test_lock(void **state)
{
	struct rb_store *a = open_store(), *b = NULL;

	(void)state;
	if (getenv("RB_TEST_PG_URL")) {
		rb_store_close(a);
		skip();
	}
	assert_int_equal(rb_store_open(&b, db_path(), false), -RB_ELOCKED);
	assert_non_null(strstr(rb_errmsg(), "another reviewbot"));
	rb_store_close(a);
	assert_int_equal(rb_store_open(&b, db_path(), false), 0);
	rb_store_close(b);
}

static void test_job_lease(void **state)
{
	struct rb_store *st = open_store();
	struct rb_job j = { 0 }, k = { 0 };

	(void)state;
	setenv("RB_NOW", "1000", 1);
	assert_int_equal(rb_store_job_add(st, "review", "s1", 1000), 0);
	assert_int_equal(rb_store_job_add(st, "review", "s1", 1000),
			 -RB_EEXISTS);
	assert_int_equal(rb_store_job_claim(st, "w1", 60, &j), 0);
	assert_string_equal(j.key, "s1");
	assert_int_equal(j.attempts, 1);
	/* Leased: nobody else gets it. */
	assert_int_equal(rb_store_job_claim(st, "w2", 60, &k), -RB_ENOTFOUND);
	/* The worker died; its lease runs out; w2 takes the job over. */
	setenv("RB_NOW", "1061", 1);
	assert_int_equal(rb_store_job_claim(st, "w2", 60, &k), 0);
	assert_int_equal(k.id, j.id);
	assert_int_equal(k.attempts, 2);
	assert_int_equal(rb_store_job_done(st, k.id, NULL), 0);
	rb_job_release(&k);
	setenv("RB_NOW", "99999", 1);
	assert_int_equal(rb_store_job_claim(st, "w3", 60, &k), -RB_ENOTFOUND);
	rb_job_release(&j);
	/* Not before its time. */
	assert_int_equal(rb_store_job_add(st, "review", "s2", 200000), 0);
	assert_int_equal(rb_store_job_claim(st, "w3", 60, &k), -RB_ENOTFOUND);
	unsetenv("RB_NOW");
	rb_store_close(st);
}

static void test_outbox_states(void **state)
{
	struct rb_store *st = open_store();
	struct rb_outmail m = {
		.message_id = "rb-1@example.org",
		.series_id = "s1",
		.kind = "review",
		.patch_idx = 1,
		.env_from = "bot@example.org",
		.rcpts = "a@example.org\nb@example.org",
		.bytes = "X\r\n",
		.len = 3,
		.words = 12,
		.send_after = 0,
		.policy = "advisory",
	};
	struct rb_outrow o = { 0 };

	(void)state;
	assert_int_equal(rb_store_add_outmail(st, &m), 0);
	assert_int_equal(rb_store_add_outmail(st, &m), -RB_EEXISTS);
	assert_int_equal(rb_store_outbox_next(st, &o), 0);
	assert_string_equal(o.message_id, "rb-1@example.org");
	assert_int_equal(o.len, 3);
	rb_outrow_release(&o);
	/* Crash while sending: recovery queues the same bytes again. */
	assert_int_equal(rb_store_outbox_next(st, &o), -RB_ENOTFOUND);
	assert_int_equal(rb_store_outbox_recover(st), 0);
	assert_int_equal(rb_store_outbox_next(st, &o), 0);
	assert_int_equal(o.attempts, 2);
	assert_memory_equal(o.bytes, "X\r\n", 3);
	assert_int_equal(rb_store_outbox_failed(st, o.message_id, false, 0,
						"451 try later"),
			 0);
	rb_outrow_release(&o);
	assert_int_equal(rb_store_outbox_next(st, &o), 0);
	assert_int_equal(rb_store_outbox_sent(st, o.message_id), 0);
	rb_outrow_release(&o);
	assert_int_equal(rb_store_outbox_next(st, &o), -RB_ENOTFOUND);
	rb_store_close(st);
}

static void test_source_state(void **state)
{
	struct rb_store *st = open_store();
	int64_t v = 0, l = 0;

	(void)state;
	assert_int_equal(rb_store_source_get(st, "imap0", "INBOX", &v, &l),
			 -RB_ENOTFOUND);
	assert_int_equal(rb_store_source_set(st, "imap0", "INBOX", 7, 42), 0);
	assert_int_equal(rb_store_source_set(st, "imap0", "INBOX", 7, 43), 0);
	assert_int_equal(rb_store_source_get(st, "imap0", "INBOX", &v, &l), 0);
	assert_int_equal(v, 7);
	assert_int_equal(l, 43);
	rb_store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_migrate_idempotent, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dedup_by_message_id, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_lease, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_outbox_states, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_source_state, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
