// SPDX-License-Identifier: GPL-2.0-only
/* testlib_bot.c - see testlib_bot.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <git2.h>

#include "tests/testlib_bot.h"
#include "bot/store/store_priv.h" /* white-box: the tables as stored */
#include "review/checks/sandbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

void rb_test_env_open(struct rb_test_env *e, const char *dir, const char *db,
		      const char *more)
{
	struct rb_buf y = RB_BUF_INIT(1 << 16);

	memset(e, 0, sizeof(*e));
	rb_buf_printf(&y,
		      "store:\n  path: %s\n"
		      "trees:\n  - name: demo\n    path: %s/demo/tree\n"
		      "outbox:\n  maildir: %s/outbox\n%s",
		      db, dir, dir, more);
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

void rb_test_env_close(struct rb_test_env *e)
{
	rb_pipeline_release(&e->p);
	rb_store_close(e->st);
	rb_config_free(e->cfg);
}

int rb_test_demo_setup(char *tmpl)
{
	const char *src = getenv("RB_SRC");
	struct rb_buf cmd = RB_BUF_INIT(4096);
	int ret;

	if (!src || !mkdtemp(tmpl))
		return -1;
	ret = rb_buf_printf(&cmd,
			    "bash %s/scripts/demo.sh --make-only %s/demo"
			    " >/dev/null",
			    src, tmpl);
	if (!ret)
		ret = system(cmd.ptr) ? -1 : 0;
	rb_buf_release(&cmd);
	return ret ? -1 : 0;
}

int rb_test_demo_teardown(const char *dir)
{
	if (!getenv("RB_KEEP"))
		rb_remove_tree(dir);
	return 0;
}

const char *rb_test_store_target(char *buf, size_t size, const char *dir,
				 bool *pg)
{
	const char *url = getenv("RB_TEST_PG_URL");

	*pg = url && *url;
	if (*pg)
		return url;
	snprintf(buf, size, "%s/t.db", dir);
	return buf;
}

struct rb_store *rb_test_store_open(const char *dir, const char *clean)
{
	struct rb_store *st = NULL;
	char path[4200];
	const char *target;
	bool pg;

	target = rb_test_store_target(path, sizeof(path), dir, &pg);
	if (rb_store_open(&st, target, pg))
		fail_msg("store %s: %s", target, rb_errmsg());
	if (clean && st->db->ops->exec(st->db, clean, NULL, 0))
		fail_msg("%s: %s", clean, rb_errmsg());
	return st;
}

int64_t rb_test_q_int(struct rb_test_env *e, const char *sql)
{
	int64_t v = -1;

	if (rb_db_query_int(e->st->db, &v, sql, NULL, 0))
		fail_msg("%s: %s", sql, rb_errmsg());
	return v;
}
