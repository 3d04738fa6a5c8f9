/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * testlib_bot.h - what the unit tests of bot/ share: a config, a store
 * and a pipeline over the demo tree of scripts/demo.sh. Apart from
 * testlib.h because it links rb_bot, which a review/ test must not.
 */
#ifndef RB_TESTS_TESTLIB_BOT_H
#define RB_TESTS_TESTLIB_BOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/config.h"
#include "bot/stages/pipeline.h"
#include "bot/store/store.h"

struct rb_test_env {
	struct rb_config *cfg;
	struct rb_store *st;
	struct rb_pipeline p; /* force_complete: no wait for missing parts */
};

/*
 * Opens @e: the store at @db, the tree "demo" at @dir/demo/tree, the
 * Maildir outbox at @dir/outbox, then the YAML of @more (the test's own
 * keys). Fails the test when the config or the store does not open.
 */
void rb_test_env_open(struct rb_test_env *e, const char *dir, const char *db,
		      const char *more);
void rb_test_env_close(struct rb_test_env *e);

/*
 * A group's setup over the demo tree: mkdtemp(@tmpl) in place, libgit2
 * initialised, and scripts/demo.sh --make-only in @tmpl/demo ($RB_SRC).
 * 0, or -1 (a cmocka group setup's answer).
 */
int rb_test_demo_setup(char *tmpl);
/* libgit2 shut down and @dir removed, unless RB_KEEP is set; 0. */
int rb_test_demo_teardown(const char *dir);

/*
 * The store a test of @dir opens: $RB_TEST_PG_URL when it is set and not
 * empty (*pg true), else @dir/t.db, written to @buf.
 */
const char *rb_test_store_target(char *buf, size_t size, const char *dir,
				 bool *pg);
/*
 * Opens rb_test_store_target(@dir), failing the test otherwise, then runs
 * @clean (NULL: nothing): the DELETEs that empty what a PostgreSQL
 * database kept of an earlier run.
 */
struct rb_store *rb_test_store_open(const char *dir, const char *clean);

/* The first column of the first row of @sql; fails the test on error. */
int64_t rb_test_q_int(struct rb_test_env *e, const char *sql);

#endif
