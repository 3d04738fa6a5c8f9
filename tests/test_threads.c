// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_threads.c - bot/stages/threads.h on a store holding a thread
 * (issue 37): whose replies count and which are read (a reviewer's on
 * v1, the author's own, one dated after v2 came, a known bot's, refused
 * mail), each comment matched to v1's part and then to v2's (a line
 * kept with its neighbours, a line whose neighbour changed), whether the
 * author answered there; what the mail and the model are told (no
 * names); which findings a quote keeps unsaid and whose quote is
 * trusted; and the budgets that hold against a hostile thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <git2.h>

#include "bot/stages/threads.h"
#include "bot/stages/versions.h"
#include "bot/store/store.h"
#include "bot/store/store_messages.h"
#include "review/apply/diff.h"
#include "review/findings.h"
#include "util/buf.h"
#include "util/err.h"
#include "tests/testlib.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	return rb_test_tmpdir(dir, sizeof(dir), "/tmp/rb-threads-XXXXXX");
}

static int teardown(void **state)
{
	(void)state;
	return rb_test_tmpdir_remove(dir);
}

static struct rb_store *open_store(const char *name)
{
	struct rb_store *st = NULL;
	char path[400];

	snprintf(path, sizeof(path), "%s/%s.db", dir, name);
	assert_int_equal(rb_store_open(&st, path, false), 0);
	return st;
}

/* v1 and v2 of part 1: v2 adds a kfree() before the return. */
static const char v1_patch[] = "diff --git a/mm/x.c b/mm/x.c\n"
			       "--- a/mm/x.c\n"
			       "+++ b/mm/x.c\n"
			       "@@ -10,2 +10,6 @@ int f(void)\n"
			       " \tint a;\n"
			       "+\tspin_lock(&l);\n"
			       "+\tint b = 1;\n"
			       "+\tcount++;\n"
			       "+\treturn a + b;\n"
			       " }\n";
static const char v2_patch[] = "diff --git a/mm/x.c b/mm/x.c\n"
			       "--- a/mm/x.c\n"
			       "+++ b/mm/x.c\n"
			       "@@ -10,2 +10,7 @@ int f(void)\n"
			       " \tint a;\n"
			       "+\tspin_lock(&l);\n"
			       "+\tint b = 1;\n"
			       "+\tcount++;\n"
			       "+\tkfree(p);\n"
			       "+\treturn a + b;\n"
			       " }\n";

/* A parsed reply: @kind and @reason as ingest stored it. */
static void add_reply(struct rb_store *st, const char *id, const char *from,
		      const char *parent, int64_t date, const char *kind,
		      const char *reason, const char *body)
{
	struct rb_msgmeta meta = { 0 };
	struct rb_buf raw = RB_BUF_INIT(RB_BUF_NOLIMIT);

	assert_int_equal(rb_buf_printf(&raw,
				       "From: Someone <%s>\n"
				       "To: list@vger.kernel.org\n"
				       "Subject: Re: [PATCH] mm: x\n"
				       "Date: Mon, 1 Jan 2024 00:00:00 +0000\n"
				       "Message-ID: <%s>\n"
				       "In-Reply-To: <%s>\n\n%s",
				       from, id, parent, body),
			 0);
	meta.msg.message_id = id;
	meta.msg.subject = "Re: [PATCH] mm: x";
	meta.msg.from_addr = from;
	meta.msg.date = date;
	meta.msg.in_reply_to = parent;
	meta.kind = kind;
	meta.reason = reason;
	assert_int_equal(
		rb_store_add_parsed(st, id, raw.ptr, raw.len, "t:1", &meta), 0);
	rb_buf_release(&raw);
}

/* v2 of a one-part series, v1 before it, as versions.c prepares them. */
struct fixture {
	struct rb_versions v;
	struct rb_diff *diffs[2], *prev_diffs[2];
	char *prev_msgids[2];
	int prev_idx[2];
	char *msgids[2];
	struct rb_threads_in in;
};

static void fixture(struct fixture *f, struct rb_store *st, const char *now,
		    const char *before)
{
	memset(f, 0, sizeof(*f));
	assert_int_equal(rb_diff_parse(&f->diffs[1], now, strlen(now)), 0);
	assert_int_equal(
		rb_diff_parse(&f->prev_diffs[1], before, strlen(before)), 0);
	f->v.version = 2;
	f->v.total = 1;
	f->v.prev_id = "v1p1@x";
	f->v.prev_version = 1;
	f->v.prev_total = 1;
	f->prev_idx[1] = 1;
	f->prev_msgids[1] = "v1p1@x";
	f->msgids[1] = "v2p1@x";
	f->v.diffs = f->diffs;
	f->v.prev_diffs = f->prev_diffs;
	f->v.prev_idx = f->prev_idx;
	f->v.prev_msgids = f->prev_msgids;
	f->in.st = st;
	f->in.series_id = "v2p1@x";
	f->in.author = "bob@x.org";
	f->in.msgids = f->msgids;
	f->in.newest = 500;
	f->in.max_size = 1 << 20;
	f->in.earlier = true;
}

static void fixture_release(struct fixture *f)
{
	rb_threads_release(&f->v);
	rb_diff_free(f->diffs[1]);
	rb_diff_free(f->prev_diffs[1]);
}

static const struct rb_thread_line *line_of(const struct rb_versions *v,
					    const char *code)
{
	size_t i;

	for (i = 0; i < v->n_lines; i++)
		if (!strcmp(v->lines[i].code, code))
			return &v->lines[i];
	return NULL;
}

static void thread(struct rb_store *st)
{
	/* A reviewer on v1: a line v2 keeps with its neighbours, and one
	 * whose line before it v2 changed. */
	add_reply(st, "r1@x", "ada@x.org", "v1p1@x", 100, "reply", NULL,
		  "On Mon, Bob wrote:\n"
		  ">  \tint a;\n"
		  "> +\tspin_lock(&l);\n"
		  "\n"
		  "Why is the lock taken this early?\n");
	add_reply(st, "r2@x", "ada@x.org", "v1p1@x", 110, "reply", NULL,
		  "> +\treturn a + b;\n"
		  "\n"
		  "This can overflow.\n");
	/* The author answers the first. */
	add_reply(st, "r3@x", "Bob@X.org", "r1@x", 120, "reply", NULL,
		  "> Why is the lock taken this early?\n\nBecause.\n");
	/* Her own comment on her patch is no review. */
	add_reply(st, "r4@x", "bob@x.org", "v1p1@x", 130, "reply", NULL,
		  "> +\tint b = 1;\n\nOops, this should be 2.\n");
	/* Said after v2 came: not what v2 could answer. */
	add_reply(st, "r5@x", "carol@y.org", "v1p1@x", 900, "reply", NULL,
		  "> +\tcount++;\n\nNot atomic.\n");
	/* A known bot on v2; mail refused for another reason is not read. */
	add_reply(st, "r6@x", "sashiko@bot.example", "v2p1@x", 600, "ignored",
		  "a known bot", "> +\tkfree(p);\n\nDouble free?\n");
	add_reply(st, "r7@x", "eve@z.org", "v2p1@x", 610, "ignored",
		  "Auto-Submitted", "> +\tcount++;\n\nThis is wrong.\n");
}

static void test_collect(void **state)
{
	struct rb_store *st = open_store("collect");
	const struct rb_thread_line *l;
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct fixture f;

	(void)state;
	thread(st);
	fixture(&f, st, v2_patch, v1_patch);
	assert_int_equal(rb_threads_collect(&f.v, &f.in), 0);
	assert_int_equal(f.v.n_lines, 3);

	l = line_of(&f.v, "\tspin_lock(&l);");
	assert_non_null(l);
	assert_true(l->earlier && l->unchanged && !l->bot);
	assert_int_equal(l->idx, 1);
	assert_int_equal(l->prev_idx, 1);
	assert_int_equal(l->line, 11); /* in v2 */
	assert_string_equal(l->file, "mm/x.c");
	assert_null(l->before[0]);
	assert_string_equal(l->before[1], " \tint a;");
	assert_string_equal(l->reply, "r1@x");
	assert_true(l->answered); /* Bob@X.org is bob@x.org */

	/* v2 put kfree() before it: a neighbour changed, only counted */
	l = line_of(&f.v, "\treturn a + b;");
	assert_non_null(l);
	assert_true(l->earlier && !l->unchanged && !l->answered);
	assert_int_equal(l->idx, 1);

	l = line_of(&f.v, "\tkfree(p);");
	assert_non_null(l);
	assert_true(!l->earlier && l->unchanged && l->bot && l->known_bot);
	assert_int_equal(l->line, 14);

	/* Neither the author's, the late nor the refused reply. */
	assert_null(line_of(&f.v, "\tint b = 1;"));
	assert_null(line_of(&f.v, "\tcount++;"));

	/* The mail and the model: no name, no address. */
	l = line_of(&f.v, "\tspin_lock(&l);");
	assert_int_equal(rb_threads_note(&b, &f.v, l), 0);
	assert_string_equal(b.ptr, "Raised on v1 (patch 1/1, this line) by a "
				   "reviewer, answered by the author there, "
				   "and unchanged in v2.");
	rb_buf_reset(&b);
	assert_int_equal(rb_threads_model_text(&b, &f.v), 0);
	assert_string_equal(b.ptr,
			    "- A reviewer replied to this line of patch 1 on "
			    "v1 (the author answered there); v2 leaves it "
			    "unchanged (patch 1, mm/x.c line 11): "
			    "\"\tspin_lock(&l);\"\n");
	assert_null(strstr(b.ptr, "ada"));
	assert_null(strstr(b.ptr, "x.org"));
	fixture_release(&f);

	/* review.earlier_replies off: this version's thread only. */
	fixture(&f, st, v2_patch, v1_patch);
	f.in.earlier = false;
	assert_int_equal(rb_threads_collect(&f.v, &f.in), 0);
	assert_int_equal(f.v.n_lines, 1);
	assert_non_null(line_of(&f.v, "\tkfree(p);"));
	rb_buf_reset(&b);
	assert_int_equal(rb_threads_model_text(&b, &f.v), 0);
	assert_int_equal(b.len, 0);
	fixture_release(&f);
	rb_buf_release(&b);
	rb_store_close(st);
}

static void test_quoted_and_trust(void **state)
{
	struct rb_store *st = open_store("trust");
	static const char *const people[] = { "ada@x.org" };
	static const char *const admins[] = { "root@x.org" };
	struct rb_finding fv[3] = {
		/* on the line the reviewer quoted */
		{ .file = "mm/x.c",
		  .line = 11,
		  .code = "\tspin_lock(&l);",
		  .patch_index = 1 },
		/* two lines off, with the bot's quoted text */
		{ .file = "mm/x.c",
		  .line = 12,
		  .code = "\tkfree(p);\n\tx",
		  .patch_index = 1 },
		/* one line off, other text: not quoted */
		{ .file = "mm/x.c",
		  .line = 13,
		  .code = "\tcount++;",
		  .patch_index = 1 },
	};
	struct rb_findings fs = { .v = fv, .n = 3 };
	const char *states[3] = { "raised", "raised", "raised" };
	struct rb_threads_trust_in tr = {
		.st = st,
		.people = people,
		.n_people = 1,
		.admins = admins,
		.n_admins = 1,
	};
	const struct rb_thread_line *q;
	struct fixture f;

	(void)state;
	thread(st);
	fixture(&f, st, v2_patch, v1_patch);
	assert_int_equal(rb_threads_collect(&f.v, &f.in), 0);
	q = rb_threads_quoted(&f.v, &fv[0]);
	assert_non_null(q);
	assert_string_equal(q->reply, "r1@x");
	q = rb_threads_quoted(&f.v, &fv[1]);
	assert_non_null(q);
	assert_string_equal(q->reply, "r6@x");
	assert_null(rb_threads_quoted(&f.v, &fv[2]));
	/* another part, another file: not quoted */
	fv[0].patch_index = 2;
	assert_null(rb_threads_quoted(&f.v, &fv[0]));
	fv[0].patch_index = 1;
	fv[0].file = "mm/y.c";
	assert_null(rb_threads_quoted(&f.v, &fv[0]));
	fv[0].file = "mm/x.c";

	/* An M:/R: person of the sections and a known bot: trusted. */
	assert_int_equal(rb_threads_trust(&f.v, &fs, states, &tr), 0);
	assert_true(line_of(&f.v, "\tspin_lock(&l);")->trust_known);
	assert_true(line_of(&f.v, "\tspin_lock(&l);")->trusted);
	assert_true(line_of(&f.v, "\tkfree(p);")->trusted);
	fixture_release(&f);

	/* Nobody's person: only marked. A finding not raised is not
	 * looked at. */
	fixture(&f, st, v2_patch, v1_patch);
	assert_int_equal(rb_threads_collect(&f.v, &f.in), 0);
	tr.n_people = 0;
	states[1] = "suppressed";
	assert_int_equal(rb_threads_trust(&f.v, &fs, states, &tr), 0);
	assert_true(line_of(&f.v, "\tspin_lock(&l);")->trust_known);
	assert_false(line_of(&f.v, "\tspin_lock(&l);")->trusted);
	assert_false(line_of(&f.v, "\tkfree(p);")->trust_known);
	fixture_release(&f);

	/* The policy requires DKIM and the reply has no signature: a
	 * maintainer's address alone is anyone's. */
	fixture(&f, st, v2_patch, v1_patch);
	assert_int_equal(rb_threads_collect(&f.v, &f.in), 0);
	tr.n_people = 1;
	tr.require_dkim = true;
	states[1] = "raised";
	assert_int_equal(rb_threads_trust(&f.v, &fs, states, &tr), 0);
	assert_false(line_of(&f.v, "\tspin_lock(&l);")->trusted);
	assert_false(line_of(&f.v, "\tkfree(p);")->trusted);
	fixture_release(&f);
	rb_store_close(st);
}

/* A part adding @n lines "x0;" ... */
static void big_part(struct rb_buf *patch, int n)
{
	int i;

	rb_buf_reset(patch);
	assert_int_equal(rb_buf_printf(patch,
				       "diff --git a/a.c b/a.c\n"
				       "--- a/a.c\n+++ b/a.c\n"
				       "@@ -0,0 +1,%d @@\n",
				       n),
			 0);
	for (i = 0; i < n; i++)
		assert_int_equal(rb_buf_printf(patch, "+x%d;\n", i), 0);
}

/*
 * Hostile threads: replies that comment more lines than a series keeps,
 * and quotes that make every comment walk a huge part. Both stop inside
 * the loop, and what was read is kept.
 */
static void test_budgets(void **state)
{
	struct rb_store *st = open_store("budgets");
	struct rb_buf patch = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf body = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct fixture f;
	char id[32];
	int r, i, n = 200000;

	(void)state;
	/* 20 replies of 64 comments each on a part of 1100 lines: 1280
	 * comments, more lines than kept. */
	big_part(&patch, 1100);
	for (r = 0; r < 20; r++) {
		rb_buf_reset(&body);
		for (i = 0; i < 64; i++)
			assert_int_equal(rb_buf_printf(&body,
						       "> +x%d;\n\nwhy %d?\n",
						       (r * 64 + i) % 1100, i),
					 0);
		snprintf(id, sizeof(id), "many%d@x", r);
		add_reply(st, id, "ada@x.org", "v2p1@x", 100 + r, "reply", NULL,
			  body.ptr);
	}
	fixture(&f, st, patch.ptr, v1_patch);
	f.in.earlier = false;
	assert_int_equal(rb_threads_collect(&f.v, &f.in), 0);
	assert_int_equal(f.v.n_lines, RB_THREADS_MAX_LINES);
	fixture_release(&f);
	rb_store_close(st);

	/* One reply quoting the part's last line 64 times: 64 walks of
	 * 200000 lines are past the work budget. */
	st = open_store("work");
	big_part(&patch, n);
	rb_buf_reset(&body);
	for (i = 0; i < 64; i++)
		assert_int_equal(rb_buf_printf(&body, "> +x%d;\n\nwhy %d?\n",
					       n - 1, i),
				 0);
	add_reply(st, "slow@x", "ada@x.org", "v2p1@x", 100, "reply", NULL,
		  body.ptr);
	fixture(&f, st, patch.ptr, v1_patch);
	f.in.earlier = false;
	assert_int_equal(rb_threads_collect(&f.v, &f.in), 0);
	assert_true(f.v.n_lines > 0);
	assert_true(f.v.n_lines < 64); /* then stopped */
	assert_true(f.v.n_lines <= RB_THREADS_MAX_WORK / (size_t)n);
	assert_string_equal(f.v.lines[0].code, "x199999;");
	fixture_release(&f);
	rb_store_close(st);
	rb_buf_release(&patch);
	rb_buf_release(&body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_quoted_and_trust),
		cmocka_unit_test(test_budgets),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return ret;
}
