// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_store.c - the store on SQLite (and on PostgreSQL when
 * RB_TEST_PG_URL names a server): migrations, deduplication, the job
 * leases, the outbox states and the single-owner lock; hostile text
 * (bytes that are not UTF-8, over-long Message-IDs) and the outbox's
 * rate-limit bookkeeping.
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

#include "bot/store/db.h"
#include "bot/store/store.h"
#include "bot/store/store_versions.h"
#include "bot/store/store_priv.h" /* white-box: the tables as stored */
#include "bot/store/store_reports.h"
#include "bot/store/store_verdicts.h"
#include "review/findings.h"
#include "mail/series.h"
#include "util/buf.h"
#include "util/err.h"
#include "tests/testlib.h"
#include "tests/testlib_bot.h"

static char dir[64];

static const char *db_path(void)
{
	static char path[300];

	snprintf(path, sizeof(path), "%s/t.db", dir);
	return path;
}

static int setup(void **state)
{
	(void)state;
	unsetenv("RB_NOW");
	return rb_test_tmpdir(dir, sizeof(dir), "/tmp/rb-store-XXXXXX");
}

static int teardown(void **state)
{
	(void)state;
	return rb_test_tmpdir_remove(dir);
}

static struct rb_store *open_store(void)
{
	return rb_test_store_open(dir, NULL);
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

/*
 * Issue 33: a claim counts the claims before it that never ended (the
 * worker died with the job), whether the job came back by a restart or
 * by its lease; jobs that killed a worker go after the others; putting a
 * job back (a deferral) or ending it is not a death.
 */
static void test_job_lost(void **state)
{
	struct rb_store *st = open_store();
	struct rb_job j = { 0 };

	(void)state;
	setenv("RB_NOW", "1000", 1);
	assert_int_equal(rb_store_job_add(st, "review", "poison", 1000), 0);
	assert_int_equal(rb_store_job_claim(st, "w1", 60, &j), 0);
	assert_int_equal(j.lost, 0);
	rb_job_release(&j);
	/* w1 dies; a restart puts its job back (SQLite, at start). */
	assert_int_equal(rb_store_job_reset_running(st), 0);
	assert_int_equal(rb_store_job_add(st, "review", "innocent", 1000), 0);
	/* The innocent job is newer, but goes first. */
	assert_int_equal(rb_store_job_claim(st, "w2", 60, &j), 0);
	assert_string_equal(j.key, "innocent");
	assert_int_equal(j.lost, 0);
	assert_int_equal(rb_store_job_done(st, j.id, NULL), 0);
	rb_job_release(&j);
	assert_int_equal(rb_store_job_claim(st, "w2", 60, &j), 0);
	assert_string_equal(j.key, "poison");
	assert_int_equal(j.lost, 1);
	assert_int_equal(j.attempts, 2);
	rb_job_release(&j);
	/* w2 dies too; its lease runs out; w3 counts that. */
	setenv("RB_NOW", "1061", 1);
	assert_int_equal(rb_store_job_claim(st, "w3", 60, &j), 0);
	assert_int_equal(j.lost, 2);
	/* Put back for later (a tree was down): not a death. */
	assert_int_equal(rb_store_job_retry(st, j.id, 1061, "later"), 0);
	rb_job_release(&j);
	assert_int_equal(rb_store_job_claim(st, "w3", 60, &j), 0);
	assert_int_equal(j.lost, 2);
	assert_int_equal(j.attempts, 4);
	rb_job_release(&j);
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

static int prompt_row(const char *group, const struct rb_report_precision *p,
		      void *payload)
{
	char *out = payload;
	size_t l = strlen(out);

	snprintf(out + l, 256 - l, "[%s %lld]", group, (long long)p->raised);
	return 0;
}

/* Each review and model finding carries the prompt set's version, and
 * stats split precision by it. */
static void test_prompt_version(void **state)
{
	struct rb_store *st = open_store();
	struct rb_outmail m = {
		.message_id = "rb-2@example.org",
		.series_id = "s2",
		.kind = "review",
		.patch_idx = 1,
		.env_from = "bot@example.org",
		.rcpts = "a@example.org",
		.bytes = "X\r\n",
		.len = 3,
		.policy = "advisory",
		.model = "m1",
		.prompt = "0123456789ab",
	};
	struct rb_findings fs = { 0 };
	struct rb_outrow o = { 0 };
	char out[256] = "";

	(void)state;
	assert_int_equal(rb_store_add_outmail(st, &m), 0);
	assert_int_equal(rb_findings_add(&fs,
					 &(struct rb_finding_spec){
						 .checker = "model",
						 .checker_version = "m1",
						 .category = "leak",
						 .severity = RB_FSEV_HIGH,
						 .file = "mm/a.c",
						 .line = 3,
						 .code = "x",
						 .message = "y?",
						 .patch_index = 1 }),
			 0);
	assert_int_equal(rb_findings_add(&fs,
					 &(struct rb_finding_spec){
						 .checker = "checkpatch",
						 .checker_version = "1",
						 .category = "SPACING",
						 .severity = RB_FSEV_LOW,
						 .file = "mm/a.c",
						 .line = 4,
						 .code = "x",
						 .message = "z",
						 .patch_index = 1 }),
			 0);
	memcpy(fs.v[0].prompt, "0123456789ab", 13);
	assert_int_equal(rb_store_add_finding(st, "s2", m.message_id, "F1",
					      &fs.v[0], "raised"),
			 0);
	assert_int_equal(rb_store_add_finding(st, "s2", m.message_id, "F2",
					      &fs.v[1], "raised"),
			 0);
	assert_int_equal(rb_store_report_precision_by(st, RB_GROUP_PROMPT,
						      prompt_row, out),
			 0);
	assert_string_equal(out, "[ 1][0123456789ab 1]");
	rb_findings_release(&fs);
	/* Sent: on PostgreSQL the next test sees this outbox. */
	assert_int_equal(rb_store_outbox_next(st, &o), 0);
	assert_string_equal(o.message_id, m.message_id);
	assert_int_equal(rb_store_outbox_sent(st, o.message_id), 0);
	rb_outrow_release(&o);
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

/* Text as PostgreSQL takes it: each bad byte becomes U+FFFD (db.h). */
static void test_text_clean(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "caf\xe9!", "caf\xef\xbf\xbd!" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" }, /* overlong '/' */
		{ "\xed\xa0\x80", /* a surrogate */
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf4\x90\x80\x80x", /* past U+10FFFF */
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx" },
		{ "a\xe2\x82", "a\xef\xbf\xbd\xef\xbf\xbd" }, /* cut short */
		{ "\xff", "\xef\xbf\xbd" },
	};
	char *out = NULL;
	size_t i;

	(void)state;
	/* Clean text is not copied. */
	assert_int_equal(rb_db_text_clean(&out, "plain <a@b>"), 0);
	assert_null(out);
	assert_int_equal(rb_db_text_clean(&out, "\xf0\x9f\x98\x80 caf\xc3\xa9"),
			 0);
	assert_null(out);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(rb_db_text_clean(&out, cases[i].in), 0);
		assert_non_null(out);
		assert_string_equal(out, cases[i].out);
		free(out);
	}
}

/*
 * A Message-ID with raw 8-bit bytes is stored (on PostgreSQL too) and
 * found again by the same bytes; one longer than a header line is
 * quarantined with its reason.
 */
static void test_hostile_message_ids(void **state)
{
	struct rb_store *st = open_store();
	struct rb_msgrow m = { 0 };
	struct rb_msgmeta meta = { .kind = "other", .msg.subject = "caf\xe9" };
	const char raw[] = "Message-ID: <bad-\xff@x>\n\nhello\n";
	char *longid = malloc(1201);
	int64_t n = -1;

	(void)state;
	assert_int_equal(rb_store_add_raw(st, "bad-\xff\xfe@x", raw,
					  sizeof(raw) - 1, "x.mbox:9"),
			 0);
	assert_int_equal(rb_store_add_raw(st, "bad-\xff\xfe@x", raw,
					  sizeof(raw) - 1, "x.mbox:9"),
			 -RB_EEXISTS);
	assert_int_equal(rb_store_get_raw(st, "bad-\xff\xfe@x", &m), 0);
	assert_string_equal(m.message_id, "bad-\xef\xbf\xbd\xef\xbf\xbd@x");
	assert_memory_equal(m.raw, raw, m.len);
	rb_msgrow_release(&m);
	assert_int_equal(rb_store_mark_parsed(st, "bad-\xff\xfe@x", &meta), 0);

	assert_non_null(longid);
	memset(longid, 'x', 1200);
	memcpy(longid + 1190, "@evil.test", 10);
	longid[1200] = '\0';
	assert_int_equal(rb_store_add_raw(st, longid, raw, sizeof(raw) - 1,
					  "x.mbox:10"),
			 0);
	assert_int_equal(rb_store_get_raw(st, longid, &m), -RB_ENOTFOUND);
	{
		struct rb_dbv p = RB_DB_TEXT("x.mbox:10");

		assert_int_equal(
			rb_db_query_int(st->db, &n,
					"SELECT COUNT(*) FROM messages"
					" WHERE origin = ? AND state ="
					" 'malformed' AND reason LIKE"
					" '%Message-ID of 1200 bytes%'",
					&p, 1),
			0);
	}
	assert_int_equal(n, 1);
	free(longid);
	rb_store_close(st);
}

/* Marks the next due mail sent at @now; returns it (owned by the caller). */
static char *send_next(struct rb_store *st, const char *now)
{
	struct rb_outrow o = { 0 };
	char *id;

	setenv("RB_NOW", now, 1);
	assert_int_equal(rb_store_outbox_next(st, &o), 0);
	assert_int_equal(rb_store_begin(st), 0);
	assert_int_equal(rb_store_outbox_sent(st, o.message_id), 0);
	assert_int_equal(rb_store_commit(st), 0);
	id = strdup(o.message_id);
	rb_outrow_release(&o);
	return id;
}

static int64_t sent_since(struct rb_store *st, enum rb_rate_kind kind,
			  const char *addr, int64_t since)
{
	int64_t n = -1;

	assert_int_equal(rb_store_outbox_sent_since(st, kind, addr, since, &n),
			 0);
	return n;
}

/*
 * Rate limits (issue 38): a mail's counted addresses are stored with it,
 * by kind, each counted whole and by its key; maintainers and admins
 * (trusted) have no row; a postponed mail waits alone.
 */
static void test_outbox_rates(void **state)
{
	struct rb_store *st = open_store();
	struct rb_outmail m = {
		.message_id = "rb-rate-1@example.org",
		.series_id = "s-rate",
		.kind = "review",
		.patch_idx = 1,
		.env_from = "bot@example.org",
		.rcpts = "a_b@rate.example\nakpm@rate.example\n"
			 "list@rate.example\nCc.Me+x@Rate.Example",
		.lists = "list@rate.example",
		.trusted = "AKPM@rate.example",
		.bytes = "X\r\n",
		.len = 3,
		.policy = "advisory",
	};
	struct rb_outrow o = { 0 };
	struct rb_outrate *v = NULL;
	size_t n = 0;
	char *id;

	(void)state;
	setenv("RB_NOW", "5000", 1);
	assert_int_equal(rb_store_begin(st), 0);
	assert_int_equal(rb_store_add_outmail(st, &m), 0);
	assert_int_equal(rb_store_commit(st), 0);
	/* Stored by kind and key, before it is sent; nothing counted yet. */
	assert_int_equal(rb_store_outbox_rates(st, m.message_id, 0, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].kind, RB_RATE_LIST);
	assert_string_equal(v[0].addr, "list@rate.example");
	assert_int_equal(v[1].kind, RB_RATE_PERSON);
	assert_string_equal(v[1].addr, "a_b@rate.example");
	assert_int_equal(v[2].kind, RB_RATE_PERSON);
	assert_string_equal(v[2].addr, "cc.me@rate.example");
	assert_int_equal(v[0].sent + v[1].sent + v[2].sent, 0);
	rb_outrates_free(v, n);
	assert_int_equal(rb_store_outbox_next(st, &o), 0);
	assert_string_equal(o.lists, "list@rate.example");
	/* Postponed: back to queued, not an attempt, not due before 5300. */
	assert_int_equal(rb_store_outbox_postpone(st, o.message_id, 5300,
						  "rate limit reached"),
			 0);
	rb_outrow_release(&o);
	assert_int_equal(rb_store_outbox_next(st, &o), -RB_ENOTFOUND);
	id = send_next(st, "5300");
	assert_string_equal(id, m.message_id);
	free(id);
	assert_int_equal(
		sent_since(st, RB_RATE_PERSON, "a_b@rate.example", 5000), 1);
	assert_int_equal(
		sent_since(st, RB_RATE_PERSON, "A_B@Rate.Example", 5000), 1);
	/* Not before the time asked. */
	assert_int_equal(
		sent_since(st, RB_RATE_PERSON, "a_b@rate.example", 5301), 0);
	/* Not a wildcard, not a substring. */
	assert_int_equal(
		sent_since(st, RB_RATE_PERSON, "axb@rate.example", 5000), 0);
	assert_int_equal(sent_since(st, RB_RATE_PERSON, "b@rate.example", 5000),
			 0);
	/* The list as a list, not as a person; the maintainer as neither. */
	assert_int_equal(
		sent_since(st, RB_RATE_LIST, "list@rate.example", 5000), 1);
	assert_int_equal(
		sent_since(st, RB_RATE_PERSON, "list@rate.example", 5000), 0);
	assert_int_equal(
		sent_since(st, RB_RATE_PERSON, "akpm@rate.example", 5000), 0);
	/* One mailbox however it is spelt. */
	assert_int_equal(sent_since(st, RB_RATE_PERSON,
				    "\"cc.me+other\"@rate.example", 5000),
			 1);
	assert_int_equal(rb_store_outbox_rates(st, m.message_id, 5000, &v, &n),
			 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].sent + v[1].sent + v[2].sent, 3);
	rb_outrates_free(v, n);

	/* Without lists and trusted, every recipient counts as a person. */
	m.message_id = "rb-rate-2@example.org";
	m.patch_idx = 2;
	m.lists = NULL;
	m.trusted = NULL;
	assert_int_equal(rb_store_add_outmail(st, &m), 0);
	id = send_next(st, "5400");
	free(id);
	assert_int_equal(
		sent_since(st, RB_RATE_PERSON, "akpm@rate.example", 5000), 1);
	assert_int_equal(
		sent_since(st, RB_RATE_PERSON, "list@rate.example", 5000), 1);
	assert_int_equal(
		sent_since(st, RB_RATE_PERSON, "a_b@rate.example", 5000), 2);
	assert_true(sent_since(st, RB_RATE_ALL, NULL, 5000) >= 2);
	unsetenv("RB_NOW");
	rb_store_close(st);
}

/* The key a rate limit counts an address by. */
static void test_rate_key(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "Jane@Example.ORG", "jane@example.org" },
		{ "jane+lkml@example.org", "jane@example.org" },
		{ "jane+a+b@example.org", "jane@example.org" },
		{ "+jane@example.org", "+jane@example.org" },
		{ "\"jane\"@example.org", "jane@example.org" },
		{ "\"ja\\\"ne\"@example.org", "ja\"ne@example.org" },
		{ "\"a@b\"@example.org", "a@b@example.org" },
		{ "a_b%c@example.org", "a_b%c@example.org" },
	};
	struct rb_buf b = RB_BUF_INIT(1024);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rb_buf_reset(&b);
		assert_int_equal(rb_store_rate_key(&b, cases[i].in), 0);
		assert_string_equal(b.ptr, cases[i].out);
	}
	rb_buf_reset(&b);
	assert_int_equal(rb_store_rate_key(&b, "no-at"), -RB_EINVAL);
	rb_buf_release(&b);
}

/*
 * Migration 9 on a store of migration 8 with mail in the outbox: what is
 * not sent yet and what was sent in the last hour get their rate rows,
 * every person counted (who was a maintainer was not kept); older mail
 * gets none.
 */
static void test_migrate_rates(void **state)
{
	struct rb_store *st;
	struct rb_outmail m = {
		.series_id = "s-mig",
		.kind = "review",
		.env_from = "bot@example.org",
		.rcpts =
			"mig@example.org\nmaint@example.org\nmlist@example.org",
		.lists = "mlist@example.org",
		.trusted = "maint@example.org",
		.bytes = "X\r\n",
		.len = 3,
		.policy = "advisory",
	};
	static const char *const ids[] = { "rb-mig-old@example.org",
					   "rb-mig-new@example.org",
					   "rb-mig-queued@example.org" };
	struct rb_outrate *v = NULL;
	int64_t v64 = 0;
	size_t n = 0, i;
	int from = -1, to = -1;
	char *id;

	(void)state;
	if (getenv("RB_TEST_PG_URL"))
		skip(); /* a shared database: the other tests' mail is there */
	st = open_store();
	for (i = 0; i < 3; i++) {
		m.message_id = ids[i];
		m.patch_idx = (int)i + 1;
		setenv("RB_NOW", "1000", 1);
		assert_int_equal(rb_store_add_outmail(st, &m), 0);
		if (i < 2) {
			id = send_next(st, i ? "9000" : "1000");
			assert_string_equal(id, ids[i]);
			free(id);
		}
	}
	/* Back to migration 8: no rate rows, no indexes (and none of the
	 * later migrations' columns and indexes). */
	assert_int_equal(st->db->ops->exec(st->db,
					   "DROP TABLE outbox_rcpts;"
					   "DROP INDEX outbox_sent;"
					   "ALTER TABLE findings"
					   " DROP COLUMN severity_reason;"
					   "ALTER TABLE findings"
					   " DROP COLUMN verifier_reason;"
					   "DROP INDEX messages_patch_id;"
					   "DROP INDEX outbox_series;"
					   "DROP INDEX patches_message;"
					   "ALTER TABLE messages DROP COLUMN"
					   " patch_id;"
					   "ALTER TABLE jobs DROP COLUMN"
					   " in_hand;"
					   "ALTER TABLE jobs DROP COLUMN lost;"
					   /* migration 13 (issue 37) */
					   "DROP TABLE thread_quotes;"
					   "DROP TABLE notes;"
					   "DROP INDEX messages_in_reply_to;"
					   "ALTER TABLE findings DROP COLUMN"
					   " quoted;"
					   "ALTER TABLE verdicts DROP COLUMN"
					   " comment;"
					   "ALTER TABLE verdicts DROP COLUMN"
					   " proposed;"
					   "ALTER TABLE verdicts DROP COLUMN"
					   " guessed_by;"
					   "ALTER TABLE verdicts DROP COLUMN"
					   " confirmed_by;"
					   "ALTER TABLE verdicts DROP COLUMN"
					   " confirmed_at;"
					   /* migration 14 (issue 36) */
					   "ALTER TABLE reviews DROP COLUMN"
					   " copy_of;"
					   "DROP TABLE forwards;"
					   "DROP TABLE answers;"
					   "DROP TABLE requests;"
					   "DROP TABLE series_pause;"
					   "DROP TABLE tree_heads;"
					   "DROP TABLE sightings;"
					   /* migration 18 (issue 38) */
					   "DROP TABLE asm_pending;"
					   "CREATE INDEX messages_pending ON"
					   " messages(received_at, message_id)"
					   " WHERE arrival IS NULL;"
					   /* migration 17 (issue 38) */
					   "DROP INDEX series_state;"
					   "DROP INDEX series_subsystem;"
					   /* migration 16 (issue 38) */
					   "ALTER TABLE messages DROP COLUMN"
					   " stored_us;"
					   /* migration 15 (issue 38) */
					   "DROP INDEX messages_arrival;"
					   "DROP INDEX messages_join;"
					   "DROP INDEX messages_pending;"
					   "DROP TABLE msg_links;"
					   "ALTER TABLE messages DROP COLUMN"
					   " arrival;"
					   "ALTER TABLE messages DROP COLUMN"
					   " join_key;"
					   "DROP INDEX series_change_key;"
					   "DROP INDEX series_title_key;"
					   "DROP INDEX series_date;"
					   "ALTER TABLE series DROP COLUMN"
					   " change_key;"
					   "ALTER TABLE series DROP COLUMN"
					   " title_key;"
					   "DELETE FROM schema_version"
					   " WHERE version >= 9",
					   NULL, 0),
			 0);
	/* Stored before migration 15: no arrival, no assembly has seen it
	 * (migration 18 gives it both, and makes it pending). */
	assert_int_equal(st->db->ops->exec(st->db,
					   "INSERT INTO messages (message_id,"
					   " raw, origin, received_at, state,"
					   " kind, subject, from_addr)"
					   " VALUES ('m17@x', 'x', 't', 1,"
					   " 'parsed', 'patch', '[PATCH 1/2] a:"
					   " b', 'a@x')",
					   NULL, 0),
			 0);
	setenv("RB_NOW", "10000", 1);
	assert_int_equal(rb_store_migrate(st, &from, &to), 0);
	assert_int_equal(from, 8);
	assert_int_equal(to, RB_SCHEMA_VERSION);
	assert_int_equal(rb_db_query_int(st->db, &v64,
					 "SELECT COUNT(*) FROM messages m JOIN"
					 " asm_pending q ON q.message_id ="
					 " m.message_id WHERE m.message_id ="
					 " 'm17@x' AND m.arrival > 0",
					 NULL, 0),
			 0);
	assert_int_equal(v64, 1);
	assert_int_equal(rb_store_outbox_rates(st, ids[0], 0, &v, &n), 0);
	assert_int_equal(n, 0);
	rb_outrates_free(v, n);
	for (i = 1; i < 3; i++) {
		assert_int_equal(rb_store_outbox_rates(st, ids[i], 0, &v, &n),
				 0);
		assert_int_equal(n, 3);
		assert_int_equal(v[0].kind, RB_RATE_LIST);
		assert_string_equal(v[0].addr, "mlist@example.org");
		assert_int_equal(v[1].kind, RB_RATE_PERSON);
		assert_string_equal(v[1].addr, "maint@example.org");
		assert_string_equal(v[2].addr, "mig@example.org");
		/* the one sent in the hour, counted at its own time */
		assert_int_equal(v[2].sent, 1);
		rb_outrates_free(v, n);
	}
	assert_int_equal(
		sent_since(st, RB_RATE_PERSON, "mig@example.org", 8999), 1);
	assert_int_equal(
		sent_since(st, RB_RATE_PERSON, "mig@example.org", 9001), 0);
	unsetenv("RB_NOW");
	rb_store_close(st);
}

/* A row callback that runs the query it is called from, once. */
struct nest {
	struct rb_db *db;
	int depth;
	int64_t inner;
};

/* A blocking review with findings F1..Fn of @series, in the store. */
static void blocking_review(struct rb_store *st, const char *series,
			    const char *msgid, const char *policy, int n)
{
	struct rb_outmail m = {
		.message_id = msgid,
		.series_id = series,
		.kind = "review",
		.patch_idx = 1,
		.env_from = "bot@example.org",
		.rcpts = "a@example.org",
		.bytes = "X\r\n",
		.len = 3,
		.policy = policy,
	};
	struct rb_findings fs = { 0 };
	char fid[8], code[16];
	int i;

	m.patch_idx = (int)strlen(msgid); /* unique per series and kind */
	assert_int_equal(rb_store_add_outmail(st, &m), 0);
	for (i = 1; i <= n; i++) {
		snprintf(fid, sizeof(fid), "F%d", i);
		snprintf(code, sizeof(code), "x%d", i);
		assert_int_equal(
			rb_findings_add(&fs,
					&(struct rb_finding_spec){
						.checker = "commit-msg",
						.checker_version = "1",
						.category = "c",
						.severity = RB_FSEV_HIGH,
						.code = code,
						.message = "Why?",
						.patch_index = 1 }),
			0);
		assert_int_equal(rb_store_add_finding(st, series, msgid, fid,
						      &fs.v[i - 1], "raised"),
				 0);
	}
	rb_findings_release(&fs);
}

/*
 * A migration merged below the newest one a store has (13 is held for
 * another branch while this one made the store to 14): rb_store_migrate()
 * runs each number schema_version lacks, and never one it has.
 */
static void test_migrate_gap(void **state)
{
	struct rb_store *st;
	int64_t v = -1;
	int from = -1, to = -1;

	(void)state;
	/* On PostgreSQL too: the other tests' jobs get in_hand and lost
	 * back with their defaults. */
	st = open_store();
	/* Migration 12 as if it came after the store was made at 14. */
	assert_int_equal(st->db->ops->exec(st->db,
					   "ALTER TABLE jobs DROP COLUMN"
					   " in_hand;"
					   "ALTER TABLE jobs DROP COLUMN lost;"
					   "DELETE FROM schema_version"
					   " WHERE version = 12",
					   NULL, 0),
			 0);
	/* 14 again would fail: its tables are there. */
	assert_int_equal(rb_store_migrate(st, &from, &to), 0);
	assert_int_equal(from, RB_SCHEMA_VERSION);
	assert_int_equal(to, RB_SCHEMA_VERSION);
	assert_int_equal(rb_db_query_int(st->db, &v,
					 "SELECT COUNT(in_hand) + COUNT(lost)"
					 " FROM jobs",
					 NULL, 0),
			 0);
	assert_int_equal(rb_db_query_int(st->db, &v,
					 "SELECT COUNT(*) FROM schema_version"
					 " WHERE version IN (12, 14)",
					 NULL, 0),
			 0);
	assert_int_equal(v, 2);
	rb_store_close(st);
}

static int64_t finding_id(struct rb_store *st, const char *review,
			  const char *fid)
{
	struct rb_stored_finding f = { 0 };
	int64_t id;

	assert_int_equal(rb_store_finding_get(st, review, fid, &f), 0);
	id = f.id;
	rb_stored_finding_release(&f);
	return id;
}

/*
 * Issue 36: the blocking ledger's states (judged, fixed, answered, open)
 * over a series and the version before it, a finding raised again left
 * to the later version, advisory findings left out; forwards once; a
 * pause holds the series' mail and resume releases it; a sighting once
 * per series and tree.
 */
static void test_ledger(void **state)
{
	struct rb_store *st;
	struct rb_ledger_item *v = NULL;
	struct rb_verdict_rec vr = {
		.reply_msgid = "r1@example.org",
		.review_msgid = "<rb-l1@example.org>",
		.fid = "F1",
		.verdict = "valid",
		.judge = "m@example.org",
		.authorised = true,
	};
	struct rb_forward_rec fw = {
		.series_id = "l1",
		.review_msgid = "<rb-l1@example.org>",
		.fid = "F4",
		.message_id = "<rb-fw@example.org>",
		.by = "m@example.org",
		.reply_msgid = "r2@example.org",
	};
	struct rb_outrow o = { 0 };
	char *by = NULL, *head = NULL;
	bool changed = false, paused = false;
	size_t n = 0, i;
	char got[256] = "";

	(void)state;
	st = open_store();
	assert_int_equal(
		st->db->ops->exec(
			st->db,
			"INSERT INTO series (id, version, total, title,"
			" author, first_seen, updated_at) VALUES"
			" ('l1', 1, 1, 't', 'a@example.org', 1, 1),"
			" ('l2', 2, 1, 't', 'a@example.org', 2, 2);"
			"INSERT INTO series_versions VALUES"
			" ('l2', 'l1', 1, 'author-title')",
			NULL, 0),
		0);
	blocking_review(st, "l1", "<rb-l1@example.org>", "blocking", 5);
	blocking_review(st, "l2", "<rb-l2@example.org>", "blocking", 1);
	blocking_review(st, "l2", "<rb-l2a@example.org>", "advisory", 1);
	/* F1 judged, F2 fixed in v2, F3 answered, F5 raised again in v2. */
	assert_int_equal(rb_store_verdict_add(st, &vr), 0);
	assert_int_equal(
		rb_store_finding_fixed(
			st, finding_id(st, "<rb-l1@example.org>", "F2"), 2),
		0);
	assert_int_equal(rb_store_answer_add(st, "<rb-l1@example.org>", "F3",
					     "r3@example.org", "a@example.org",
					     &changed),
			 0);
	assert_true(changed);
	{
		char sql[256];

		snprintf(sql, sizeof(sql),
			 "UPDATE findings SET prior_id = %lld WHERE"
			 " review_msgid = '<rb-l2@example.org>'",
			 (long long)finding_id(st, "<rb-l1@example.org>",
					       "F5"));
		assert_int_equal(st->db->ops->exec(st->db, sql, NULL, 0), 0);
	}
	assert_int_equal(rb_store_ledger(st, "l2", &v, &n), 0);
	for (i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got),
			 "%sv%d %s %s", i ? ", " : "", v[i].version, v[i].f.fid,
			 v[i].state);
	assert_string_equal(got, "v1 F1 judged, v1 F2 fixed, v1 F3 answered, "
				 "v1 F4 open, v2 F1 open");
	rb_ledger_free(v, n);

	/* Each finding forwarded once. */
	fw.finding_id = finding_id(st, "<rb-l1@example.org>", "F4");
	assert_int_equal(rb_store_forwarded(st, fw.finding_id, &by, NULL),
			 -RB_ENOTFOUND);
	assert_int_equal(rb_store_forward_add(st, &fw), 0);
	assert_int_equal(rb_store_forward_add(st, &fw), -RB_EEXISTS);
	assert_int_equal(rb_store_forwarded(st, fw.finding_id, &by, NULL), 0);
	assert_string_equal(by, "m@example.org");
	free(by);

	/* Pause: l1's queued mail waits, a new one too; resume: both go. */
	assert_int_equal(
		rb_store_series_pause(st, "l1", "m@example.org", &changed), 0);
	assert_true(changed);
	assert_int_equal(rb_store_series_paused(st, "l1", &paused), 0);
	assert_true(paused);
	blocking_review(st, "l1", "<rb-l1b@example.org>", "blocking", 0);
	while (!rb_store_outbox_next(st, &o)) {
		assert_string_not_equal(o.message_id, "<rb-l1@example.org>");
		assert_string_not_equal(o.message_id, "<rb-l1b@example.org>");
		assert_int_equal(rb_store_outbox_sent(st, o.message_id), 0);
		rb_outrow_release(&o);
	}
	assert_int_equal(rb_store_series_resume(st, "l1", &changed), 0);
	assert_true(changed);
	assert_int_equal(rb_store_series_paused(st, "l1", &paused), 0);
	assert_false(paused);
	for (i = 0; !rb_store_outbox_next(st, &o);) {
		i += !strncmp(o.message_id, "<rb-l1", 6);
		assert_int_equal(rb_store_outbox_sent(st, o.message_id), 0);
		rb_outrow_release(&o);
	}
	assert_int_equal(i, 2);

	/* A sighting once per series and tree; the tree's head. */
	assert_int_equal(rb_store_tree_head(st, "mm-unstable", &head),
			 -RB_ENOTFOUND);
	assert_int_equal(rb_store_tree_head_set(st, "mm-unstable", "aa"), 0);
	assert_int_equal(rb_store_tree_head_set(st, "mm-unstable", "bb"), 0);
	assert_int_equal(rb_store_tree_head(st, "mm-unstable", &head), 0);
	assert_string_equal(head, "bb");
	free(head);
	assert_int_equal(
		rb_store_sighting_add(st, "l2", "mm-unstable", "bb", 1), 0);
	assert_int_equal(rb_store_sighting_add(st, "l2", "mm-unstable", "cc",
					       2),
			 -RB_EEXISTS);

	/* The series that hold a patch-id: the first seen first, a cover
	 * never, at most @max; a copy posted later (l3) comes after. */
	{
		static const char *const ids[] = { "pl1@x", "pl2@x", "pl3@x",
						   "pl0@x" };
		char **sv = NULL;
		size_t k, nv = 0;

		for (k = 0; k < 4; k++)
			assert_int_equal(rb_store_add_raw(st, ids[k], "X\n", 2,
							  "t:1"),
					 0);
		assert_int_equal(
			st->db->ops->exec(
				st->db,
				"UPDATE messages SET patch_id = 'pid1' WHERE"
				" message_id IN ('pl1@x', 'pl2@x', 'pl3@x',"
				" 'pl0@x');"
				"INSERT INTO series (id, version, total, title,"
				" author, first_seen, updated_at) VALUES"
				" ('l3', 1, 1, 't', 'm@example.net', 3, 3),"
				" ('l0', 1, 1, 't', 'z@example.net', 0, 0);"
				"INSERT INTO patches VALUES ('l3', 1, 'pl3@x'),"
				" ('l2', 1, 'pl2@x'), ('l1', 1, 'pl1@x'),"
				" ('l0', 0, 'pl0@x')",
				NULL, 0),
			0);
		assert_int_equal(rb_store_series_by_patch_id(st, "pid1", 16,
							     &sv, &nv),
				 0);
		assert_int_equal(nv, 3);
		assert_string_equal(sv[0], "l1");
		assert_string_equal(sv[1], "l2");
		assert_string_equal(sv[2], "l3");
		rb_store_series_ids_free(sv, nv);
		assert_int_equal(rb_store_series_by_patch_id(st, "pid1", 2, &sv,
							     &nv),
				 0);
		assert_int_equal(nv, 2);
		assert_string_equal(sv[1], "l2");
		rb_store_series_ids_free(sv, nv);
		assert_int_equal(rb_store_series_by_patch_id(st, "nope", 16,
							     &sv, &nv),
				 0);
		assert_int_equal(nv, 0);
		rb_store_series_ids_free(sv, nv);
	}
	rb_store_close(st);
}

static int nest_row(const struct rb_dbrow *row, void *payload)
{
	struct nest *n = payload;
	struct rb_dbv k = RB_DB_INT(row->v[0].i);

	if (n->depth++)
		return 0;
	assert_int_equal(n->db->ops->query(n->db,
					   "SELECT v FROM t WHERE v >= ?", &k,
					   1, nest_row, n),
			 0);
	n->inner = n->depth;
	return 0;
}

/*
 * The SQLite driver keeps prepared statements by their text: a query run
 * from its own row callback gets a statement of its own, more statements
 * than the cache holds are each still right, bindings do not outlive a
 * call, and a closed store leaves none behind (close would fail).
 */
static void test_stmt_cache(void **state)
{
	struct rb_db *db;
	struct nest n = { 0 };
	struct rb_dbv one = RB_DB_INT(1);
	char sql[128];
	int64_t v;
	int i;

	(void)state;
	assert_int_equal(rb_db_sqlite_open(&db, ":memory:"), 0);
	assert_int_equal(
		db->ops->exec(db, "CREATE TABLE t (v INTEGER)", NULL, 0), 0);
	for (i = 1; i <= 3; i++) {
		struct rb_dbv p = RB_DB_INT(i);

		assert_int_equal(db->ops->exec(db, "INSERT INTO t VALUES (?)",
					       &p, 1),
				 0);
	}
	n.db = db;
	assert_int_equal(db->ops->query(db, "SELECT v FROM t WHERE v >= ?",
					&one, 1, nest_row, &n),
			 0);
	/* The outer query went on over all three rows after the inner one. */
	assert_int_equal(n.depth, 3 + 3);
	assert_int_equal(n.inner, 4);
	for (i = 0; i < 200; i++) {
		snprintf(sql, sizeof(sql), "SELECT count(*) + %d FROM t", i);
		assert_int_equal(rb_db_query_int(db, &v, sql, NULL, 0), 0);
		assert_int_equal(v, 3 + i);
	}
	/* Again, after eviction: the same text, the same answer. */
	assert_int_equal(rb_db_query_int(db, &v, "SELECT count(*) + 7 FROM t",
					 NULL, 0),
			 0);
	assert_int_equal(v, 10);
	db->ops->close(db);
}

/* Issue 37 (store_threads.h): proposed verdicts, notes, thread quotes;
 * unique ids, counts taken relative: PostgreSQL keeps earlier rows. */
struct t37 {
	int64_t id, stranger;
	int notes;
};

static int t37_proposal(const struct rb_proposal *p, void *payload)
{
	struct t37 *t = payload;

	if (p->reply_msgid && !strcmp(p->reply_msgid, "rb-t37-ada@x.org")) {
		t->id = p->id;
		assert_string_equal(p->comment, "No, it is fine.");
		assert_string_equal(p->verdict, "false_positive");
		assert_string_equal(p->role, "author");
		assert_int_equal(p->proposed, 1);
		assert_false(p->authorised);
	}
	if (p->reply_msgid && !strcmp(p->reply_msgid, "rb-t37-eve@x.org"))
		t->stranger = p->id;
	return 0;
}

static int t37_note(const struct rb_note *n, void *payload)
{
	struct t37 *t = payload;

	assert_string_equal(n->section, "T37 SECTION");
	assert_int_equal(strlen(n->text), RB_NOTE_MAX);
	t->notes++;
	return 0;
}

static void test_threads_store(void **state)
{
	struct rb_store *st = open_store();
	struct rb_verdict_rec v = {
		.reply_msgid = "rb-t37-ada@x.org",
		.review_msgid = "<rb-t37@x.org>",
		.fid = "F1",
		.fingerprint = "fp-t37",
		.verdict = "false_positive",
		.judge = "ada@x.org",
		.authorised = true,
		.reason = "proposed from prose",
		.role = "author",
		.owner = "ada@x.org",
	};
	struct rb_thread_quote_rec q = {
		.series_id = "s-t37",
		.reply_msgid = "rb-t37-grace@x.org",
		.patch_idx = 3,
		.prev_id = "s-t37-v1",
		.prev_version = 1,
		.prev_idx = 3,
		.source = "reviewer",
		.file = "lib/ring.c",
		.line = 43,
		.code = "\tfree(r->slots);",
		.state = "unchanged",
	};
	struct rb_report_threads r0, r1;
	struct rb_fp_verdicts l = { 0 };
	struct t37 t = { 0 };
	char text[RB_NOTE_MAX + 100];
	int64_t note = 0;

	(void)state;
	assert_int_equal(rb_store_report_threads(st, &r0), 0);
	assert_int_equal(rb_store_verdict_propose(st, &v, "No, it is fine.",
						  "phrase"),
			 0);
	assert_int_equal(rb_store_verdict_propose(st, &v, "again", "phrase"),
			 -RB_EEXISTS);
	/* A stranger's: no role kept, so it can never be confirmed. */
	v.reply_msgid = "rb-t37-eve@x.org";
	v.judge = "eve@x.org";
	v.authorised = false;
	assert_int_equal(rb_store_verdict_propose(st, &v, "nope", NULL), 0);
	assert_int_equal(rb_store_each_proposal(st, true, t37_proposal, &t), 0);
	assert_true(t.id > 0 && t.stranger > 0);
	/* Nothing counts it until an admin decides. */
	assert_int_equal(rb_store_fp_verdicts(st, "fp-t37", &l), 0);
	assert_int_equal(l.n, 0);
	rb_fp_verdicts_release(&l);
	assert_int_equal(rb_store_proposal_decide(st, t.stranger, true, NULL,
						  "cli:test"),
			 -RB_EINVAL);
	assert_int_equal(rb_store_proposal_decide(st, t.stranger, false, NULL,
						  "cli:test"),
			 0);
	assert_int_equal(
		rb_store_proposal_decide(st, t.id, true, NULL, "cli:test"), 0);
	assert_int_equal(rb_store_proposal_decide(st, t.id, true, NULL,
						  "cli:test"),
			 -RB_ENOTFOUND);
	assert_int_equal(rb_store_fp_verdicts(st, "fp-t37", &l), 0);
	assert_int_equal(l.n, 1);
	rb_fp_verdicts_release(&l);
	/* A note, cut at RB_NOTE_MAX; removed once. */
	memset(text, 'n', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	assert_int_equal(rb_store_note_add(st, "T37 SECTION", text, t.id,
					   "cli:test", &note),
			 0);
	assert_int_equal(
		rb_store_each_note(st, "T37 SECTION", true, t37_note, &t), 0);
	assert_int_equal(t.notes, 1);
	/* Twice: the row is replaced, not added. */
	assert_int_equal(rb_store_thread_quote_add(st, &q), 0);
	assert_int_equal(rb_store_thread_quote_add(st, &q), 0);
	assert_int_equal(rb_store_report_threads(st, &r1), 0);
	assert_int_equal(r1.quoted_unchanged, r0.quoted_unchanged + 1);
	assert_int_equal(r1.proposed_confirmed, r0.proposed_confirmed + 1);
	assert_int_equal(r1.proposed_rejected, r0.proposed_rejected + 1);
	assert_int_equal(r1.verdicts_with_reason, r0.verdicts_with_reason + 2);
	assert_int_equal(r1.notes, r0.notes + 1);
	assert_int_equal(rb_store_note_remove(st, note), 0);
	assert_int_equal(rb_store_note_remove(st, note), -RB_ENOTFOUND);
	t.notes = 0;
	assert_int_equal(
		rb_store_each_note(st, "T37 SECTION", true, t37_note, &t), 0);
	assert_int_equal(t.notes, 0);
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
		cmocka_unit_test_setup_teardown(test_job_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outbox_states, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_prompt_version, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_source_state, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_text_clean, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hostile_message_ids, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rate_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_gap, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_migrate_rates, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_outbox_rates, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_threads_store, setup,
						teardown),
		cmocka_unit_test(test_stmt_cache),
		cmocka_unit_test_setup_teardown(test_ledger, setup, teardown),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
