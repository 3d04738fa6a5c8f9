// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_assemble.c - incremental assembly (bot/stages/assemble.h) saves
 * what the full assembly of the same store saves: after every pass, a
 * full assembly finds nothing to change (no series written, none
 * dropped, the tables byte for byte the same). On mail made here (parts
 * in different passes, a cover that comes late and renames its series,
 * versions out of order in other threads, unthreaded parts joined, a
 * reply that merges two threads, a reference cycle, a References header
 * past the budget) and, when ../shared is there, on the linux-api
 * archive fed in chunks.
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

#include "bot/config.h"
#include "bot/stages/assemble.h"
#include "bot/stages/pipeline.h"
#include "bot/store/store.h"
#include "bot/store/store_priv.h"
#include "mail/mbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "tests/testlib_bot.h"
#include "util/banned.h"

static char dir[] = "/tmp/rb-assemble-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return rb_test_demo_setup(dir);
}

static int teardown(void **state)
{
	(void)state;
	return rb_test_demo_teardown(dir);
}

static int dump_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_buf *b = payload;
	size_t i;

	for (i = 0; i < row->n; i++) {
		const struct rb_dbv *v = &row->v[i];

		if (v->t == RB_DBT_INT)
			rb_buf_printf(b, "%lld|", (long long)v->i);
		else if (v->t == RB_DBT_NULL)
			rb_buf_puts(b, "NULL|");
		else
			rb_buf_printf(b, "%s|", rb_dbv_str(v));
	}
	return rb_buf_putc(b, '\n');
}

/* What assembly saves, every row (dropped series too), as text. */
static void dump(struct rb_test_env *e, struct rb_buf *b)
{
	rb_buf_reset(b);
	assert_int_equal(
		e->st->db->ops->query(e->st->db,
				      "SELECT id, version, total, cover, title,"
				      " author, previous, change_id, complete,"
				      " last_date, change_key, title_key"
				      " FROM series ORDER BY id",
				      NULL, 0, dump_row, b),
		0);
	assert_int_equal(
		e->st->db->ops->query(e->st->db,
				      "SELECT series_id, idx, message_id FROM"
				      " patches ORDER BY series_id, idx",
				      NULL, 0, dump_row, b),
		0);
	assert_int_equal(
		e->st->db->ops->query(e->st->db,
				      "SELECT kind, key, state FROM jobs"
				      " ORDER BY kind, key",
				      NULL, 0, dump_row, b),
		0);
}

/*
 * One incremental pass, then the check: a full assembly of the same
 * store writes nothing and drops nothing.
 */
static void pass_and_check(struct rb_test_env *e, struct rb_buf *before,
			   struct rb_buf *after)
{
	size_t series;

	e->p.assembled = false;
	assert_int_equal(rb_pipeline_assemble(&e->p), 0);
	dump(e, before);
	series = e->p.stats.series;
	assert_int_equal(rb_assemble(&e->p, true), 0);
	assert_int_equal(e->p.stats.series, series);
	dump(e, after);
	if (strcmp(before->ptr, after->ptr))
		fail_msg("incremental:\n%s\nfull:\n%s", before->ptr,
			 after->ptr);
}

static const char diff[] = "---\n a | 2 +-\n 1 file changed, 1 insertion(+),"
			   " 1 deletion(-)\n\ndiff --git a/a b/a\n"
			   "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n";

/* Stores one mail made from its headers; @body NULL: a diff. */
static void mail(struct rb_test_env *e, const char *id, const char *from,
		 const char *subject, const char *irt, const char *refs,
		 int minute, const char *body)
{
	struct rb_buf m = RB_BUF_INIT(1 << 20);

	rb_buf_printf(&m, "From: %s\nTo: list@example.org\nSubject: %s\n", from,
		      subject);
	rb_buf_printf(&m, "Date: Mon, 1 Jan 2024 10:%02d:00 +0000\n",
		      minute % 60);
	rb_buf_printf(&m, "Message-ID: <%s>\n", id);
	if (irt)
		rb_buf_printf(&m, "In-Reply-To: <%s>\n", irt);
	if (refs)
		rb_buf_printf(&m, "References: %s\n", refs);
	rb_buf_printf(&m, "\nSome words.\n\n%s", body ? body : diff);
	assert_int_equal(rb_pipeline_ingest_raw(&e->p, m.ptr, m.len, "test"),
			 0);
	rb_buf_release(&m);
}

#define ALICE "Alice Doe <alice@example.org>"
#define BOB "Bob Roe <bob@example.org>"
#define CAROL "Carol Poe <carol@example.org>"

static void test_passes(void **state)
{
	struct rb_buf a = RB_BUF_INIT(1 << 24), b = RB_BUF_INIT(1 << 24);
	struct rb_buf refs = RB_BUF_INIT(1 << 22);
	struct rb_test_env e;
	char db[512];
	int i;

	(void)state;
	snprintf(db, sizeof(db), "%s/passes.db", dir);
	rb_test_env_open(&e, dir, db, "");
	/* Assembly writes no message row (migration 18): the mail is
	 * stored parsed, and what assembly needs with it. */
	assert_int_equal(e.st->db->ops->exec(
				 e.st->db,
				 "CREATE TEMP TRIGGER no_rewrite BEFORE UPDATE"
				 " ON messages BEGIN SELECT RAISE(FAIL,"
				 " 'a message row rewritten'); END",
				 NULL, 0),
			 0);
	/* v1 of "foo": the patches in three passes, a reply between. */
	mail(&e, "p1@x", ALICE, "[PATCH 1/3] foo: one", NULL, NULL, 1, NULL);
	pass_and_check(&e, &a, &b);
	mail(&e, "p3@x", ALICE, "[PATCH 3/3] foo: three", "p1@x", "<p1@x>", 2,
	     NULL);
	mail(&e, "r1@y", BOB, "Re: [PATCH 1/3] foo: one", "p1@x", "<p1@x>", 3,
	     "Looks odd.\n");
	pass_and_check(&e, &a, &b);
	mail(&e, "p2@x", ALICE, "[PATCH 2/3] foo: two", "p1@x", "<p1@x>", 4,
	     NULL);
	/* A stranger's part into the thread. */
	mail(&e, "s2@y", BOB, "[PATCH 2/3] foo: two", "p1@x", "<p1@x>", 5,
	     NULL);
	pass_and_check(&e, &a, &b);
	/* v2 in its own thread; v4 before v3; each links by title. */
	mail(&e, "q1@x", ALICE, "[PATCH v2 1/2] foo: one", NULL, NULL, 6, NULL);
	mail(&e, "q2@x", ALICE, "[PATCH v2 2/2] foo: two", "q1@x", "<q1@x>", 7,
	     NULL);
	pass_and_check(&e, &a, &b);
	mail(&e, "w4@x", ALICE, "[PATCH v4 1/2] foo: one", NULL, NULL, 8, NULL);
	pass_and_check(&e, &a, &b);
	mail(&e, "w3@x", ALICE, "[PATCH v4 1/2] foo: one", NULL, NULL, 9, NULL);
	mail(&e, "w3b@x", ALICE, "[PATCH v3 1/2] foo: one", NULL, NULL, 9,
	     NULL);
	pass_and_check(&e, &a, &b);
	/* Versions by change-id, titles that differ. */
	mail(&e, "k1@x", ALICE, "[PATCH 1/1] bar: first try", NULL, NULL, 10,
	     "Some words.\n\nchange-id: 20240101-bar-1234\n\n"
	     "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n");
	mail(&e, "k3@x", ALICE, "[PATCH v3 1/1] bar: third try", NULL, NULL, 11,
	     "Some words.\n\nchange-id: 20240101-bar-1234\n\n"
	     "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n");
	pass_and_check(&e, &a, &b);
	mail(&e, "k2@x", ALICE, "[PATCH v2 1/1] bar: second try", NULL, NULL,
	     12,
	     "Some words.\n\nchange-id: 20240101-bar-1234\n\n"
	     "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n");
	pass_and_check(&e, &a, &b);
	/* Unthreaded parts of one posting, in two passes, then a third
	 * with a number already taken (a new group). */
	mail(&e, "u2@z", CAROL, "[PATCH 2/2] baz: two", NULL, NULL, 13, NULL);
	pass_and_check(&e, &a, &b);
	mail(&e, "u1@z", CAROL, "[PATCH 1/2] baz: one", NULL, NULL, 14, NULL);
	pass_and_check(&e, &a, &b);
	mail(&e, "u2b@z", CAROL, "[PATCH 2/2] baz: two", NULL, NULL, 13, NULL);
	pass_and_check(&e, &a, &b);
	/* The cover of v2 comes last and renames it; then a reply that
	 * names v1 and v2 merges their threads. */
	mail(&e, "q0@x", ALICE, "[PATCH v2 0/2] foo", NULL, NULL, 15,
	     "The cover.\n\n 2 files changed, 2 insertions(+)\n");
	mail(&e, "q1b@x", ALICE, "[PATCH v2 1/2] foo: one", "q0@x", "<q0@x>",
	     16, NULL);
	pass_and_check(&e, &a, &b);
	mail(&e, "r2@y", BOB, "Re: [PATCH v2 1/2] foo: one", "q1@x",
	     "<p1@x> <q1@x>", 17, "Both.\n");
	pass_and_check(&e, &a, &b);
	/* A reference cycle: each names the other. */
	mail(&e, "c1@y", BOB, "[PATCH 1/2] cyc: one", "c2@y", "<c2@y>", 18,
	     NULL);
	mail(&e, "c2@y", BOB, "[PATCH 2/2] cyc: two", "c1@y", "<c1@y>", 19,
	     NULL);
	pass_and_check(&e, &a, &b);
	/* A References header past the budget: the whole store instead. */
	setenv("RB_ASSEMBLE_BUDGET", "200", 1);
	for (i = 0; i < 400; i++)
		rb_buf_printf(&refs, "<ref%d@h> ", i);
	rb_buf_puts(&refs, "<p2@x>");
	mail(&e, "big@y", BOB, "Re: [PATCH 2/3] foo: two", "p2@x", refs.ptr, 20,
	     "Many.\n");
	pass_and_check(&e, &a, &b);
	mail(&e, "big2@y", BOB, "Re: [PATCH 2/3] foo: two", "ref7@h",
	     "<ref7@h>", 21, "Again.\n");
	pass_and_check(&e, &a, &b);
	unsetenv("RB_ASSEMBLE_BUDGET");
	/* Nothing new: a pass that changes nothing. */
	pass_and_check(&e, &a, &b);
	assert_true(rb_test_q_int(&e, "SELECT COUNT(*) FROM series WHERE"
				      " title_key IS NOT NULL") >= 8);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM messages"
					   " WHERE arrival IS NULL"),
			 0);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM"
					   " asm_pending"),
			 0);
	rb_test_env_close(&e);
	rb_buf_release(&a);
	rb_buf_release(&b);
	rb_buf_release(&refs);
}

struct chunks {
	struct rb_test_env *e;
	struct rb_buf *a, *b;
	size_t n, every, checks;
	int64_t now;
};

static int corpus_mail(const char *raw, size_t len, const char *origin,
		       void *payload)
{
	struct chunks *c = payload;
	char now[32];
	int ret;

	if (!raw)
		return 0;
	/* Stored in transactions of 256 (p.batching), as files are. */
	ret = rb_pipeline_ingest_raw(&c->e->p, raw, len, origin);
	if (ret)
		return ret;
	if (++c->n % c->every)
		return 0;
	c->e->p.batching = false;
	ret = rb_store_commit(c->e->st);
	/* A pass: new mail, one second later. */
	snprintf(now, sizeof(now), "%lld", (long long)++c->now);
	setenv("RB_NOW", now, 1);
	c->e->p.assembled = false;
	if (!ret)
		ret = rb_pipeline_assemble(&c->e->p);
	/* The check (a full assembly) every few passes: each costs what
	 * the whole store does. */
	if (!ret && (c->n / c->every) % 10 == 0) {
		pass_and_check(c->e, c->a, c->b);
		c->checks++;
	}
	if (!ret)
		ret = rb_store_begin(c->e->st);
	c->e->p.batching = true;
	c->e->p.batch = 0;
	return ret;
}

static void test_corpus_chunks(void **state)
{
	const char *shared = getenv("RB_SHARED");
	struct rb_buf a = RB_BUF_INIT(1 << 26), b = RB_BUF_INIT(1 << 26);
	struct rb_test_env e;
	struct chunks c = { &e, &a, &b, 0, 997, 0, 1700000000 };
	char db[512], path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/corpus/linux-api.mbox.xz",
		 shared ? shared : "");
	if (!shared || access(path, R_OK)) {
		printf("skip: the linux-api corpus (RB_SHARED) is absent\n");
		skip();
	}
	snprintf(db, sizeof(db), "%s/corpus.db", dir);
	rb_test_env_open(&e, dir, db, "");
	assert_int_equal(rb_store_begin(e.st), 0);
	e.p.batching = true;
	assert_int_equal(rb_mail_walk(path, 64 << 20, corpus_mail, &c), 0);
	e.p.batching = false;
	assert_int_equal(rb_store_commit(e.st), 0);
	pass_and_check(&e, &a, &b);
	assert_true(c.checks >= 3);
	assert_true(rb_test_q_int(&e, "SELECT COUNT(*) FROM series WHERE"
				      " title_key IS NOT NULL") > 1000);
	unsetenv("RB_NOW");
	rb_test_env_close(&e);
	rb_buf_release(&a);
	rb_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passes),
		cmocka_unit_test(test_corpus_chunks),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return ret;
}
