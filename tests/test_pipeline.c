// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pipeline.c - the wiring of the one pipeline (bot/stages/pipeline.h):
 * each role runs its stages and only those, a second pass does nothing
 * new, and a malformed mail is recorded and skipped without stopping the
 * stages after it.
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
#include "bot/store/store_priv.h" /* white-box: the tables as stored */
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

static char dir[] = "/tmp/rb-pipeline-XXXXXX";
static char db_path[256];

static const char config_fmt[] = "store:\n  path: %s\n"
				 "trees:\n  - name: demo\n"
				 "    path: %s/demo/tree\n"
				 "outbox:\n  maildir: %s/outbox\n"
				 "policy:\n  default:\n    mode: advisory\n";

static int setup(void **state)
{
	const char *src = getenv("RB_SRC");
	char cmd[1024];

	(void)state;
	if (!src || !mkdtemp(dir))
		return -1;
	git_libgit2_init();
	snprintf(db_path, sizeof(db_path), "%s/rb.db", dir);
	snprintf(cmd, sizeof(cmd),
		 "bash %s/scripts/demo.sh --make-only %s/demo >/dev/null", src,
		 dir);
	return system(cmd) ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[512];

	(void)state;
	git_libgit2_shutdown();
	if (!getenv("RB_KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			return -1;
	}
	return 0;
}

struct env {
	struct rb_config *cfg;
	struct rb_store *st;
	struct rb_pipeline p;
};

static void env_open(struct env *e, const char *db)
{
	struct rb_buf y = RB_BUF_INIT(1 << 16);

	memset(e, 0, sizeof(*e));
	rb_buf_printf(&y, config_fmt, db, dir, dir);
	if (rb_config_load_mem(&e->cfg, "test.yaml", y.ptr, y.len, NULL)) {
		rb_buf_release(&y);
		fail_msg("config: %s", rb_errmsg());
	}
	rb_buf_release(&y);
	if (rb_store_open(&e->st, db, false))
		fail_msg("store: %s", rb_errmsg());
	e->p.cfg = e->cfg;
	e->p.st = e->st;
	e->p.force_complete = true;
}

static void env_close(struct env *e)
{
	rb_pipeline_release(&e->p);
	rb_store_close(e->st);
	rb_config_free(e->cfg);
}

static int64_t q_int(struct env *e, const char *sql)
{
	int64_t v = -1;

	if (rb_db_query_int(e->st->db, &v, sql, NULL, 0))
		fail_msg("%s: %s", sql, rb_errmsg());
	return v;
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
	struct env e;
	char path[512];
	int64_t queued;

	(void)state;
	env_open(&e, db_path);
	snprintf(path, sizeof(path), "%s/demo/series.mbox", dir);
	assert_int_equal(rb_pipeline_ingest_path(&e.p, path), 0);
	assert_true(e.p.stats.stored >= 2);

	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_INGEST), 0);
	assert_int_equal(q_int(&e, "SELECT COUNT(*) FROM messages"
				   " WHERE state = 'new'"),
			 0);
	assert_int_equal(q_int(&e, "SELECT COUNT(*) FROM series"), 1);
	assert_true(q_int(&e, "SELECT COUNT(*) FROM jobs WHERE"
			      " kind = 'review' AND state = 'ready'") >= 1);
	assert_int_equal(q_int(&e, "SELECT COUNT(*) FROM reviews"), 0);

	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_WORKER), 0);
	queued = q_int(&e, "SELECT COUNT(*) FROM outbox");
	assert_true(queued >= 1);
	assert_int_equal(q_int(&e, "SELECT COUNT(*) FROM reviews"), queued);
	assert_int_equal(q_int(&e, "SELECT COUNT(*) FROM jobs WHERE"
				   " kind = 'review' AND state = 'ready'"),
			 0);
	assert_int_equal(maildir_count(), 0);

	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_SENDER), 0);
	assert_int_equal(maildir_count(), queued);
	assert_int_equal(q_int(&e, "SELECT COUNT(*) FROM outbox"
				   " WHERE state = 'sent'"),
			 queued);

	/* Again, with every role: nothing new. */
	assert_int_equal(rb_pipeline_ingest_path(&e.p, path), 0);
	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_ALL), 0);
	assert_int_equal(q_int(&e, "SELECT COUNT(*) FROM outbox"), queued);
	assert_int_equal(maildir_count(), queued);
	env_close(&e);
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
	struct env e;

	(void)state;
	snprintf(db, sizeof(db), "%s/bad.db", dir);
	env_open(&e, db);
	assert_int_equal(rb_pipeline_ingest_raw(&e.p, bad, sizeof(bad) - 1,
						"test:1"),
			 0);
	assert_int_equal(rb_pipeline_ingest_raw(&e.p, good, sizeof(good) - 1,
						"test:2"),
			 0);
	assert_int_equal(rb_pipeline_step(&e.p, RB_ROLE_ALL), 0);
	assert_int_equal(q_int(&e, "SELECT COUNT(*) FROM messages"
				   " WHERE state = 'malformed'"
				   " AND reason IS NOT NULL"),
			 1);
	assert_int_equal(q_int(&e, "SELECT COUNT(*) FROM messages"
				   " WHERE state = 'parsed'"),
			 1);
	env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
