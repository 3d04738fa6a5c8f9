// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_series.c - series assembly on messages built by hand (the shapes
 * b4 and patchwork handle: covers, no cover, shallow and deep threading,
 * out-of-order arrival, cross-posting, versions, partial rerolls,
 * replies, pull requests, unthreaded mail), and on the seed series in
 * ../shared/seeds parsed with rb_message_parse.
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

#include "mail/message.h"
#include "mail/series.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

#define DIFF                                                               \
	"Commit message.\n\nSigned-off-by: A <a@example.org>\n---\n"       \
	" mm/x.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n" \
	"\ndiff --git a/mm/x.c b/mm/x.c\n--- a/mm/x.c\n+++ b/mm/x.c\n"     \
	"@@ -1 +1 @@\n-a\n+b\n"
#define COVER                                     \
	"Cover text.\n\nA (2):\n  one\n  two\n\n" \
	" mm/x.c | 4 ++--\n 1 file changed, 2 insertions(+), 2 deletions(-)\n"

struct spec {
	const char *id;
	const char *irt;
	const char *refs[4];
	const char *from;
	int64_t date;
	const char *subject; /* as sent */
	const char *title;
	int version, index, total;
	int reply, pull;
	const char *body;
	const char *change_id;
};

/* Adds a hand-built message: every string is borrowed, nothing freed. */
static int add(struct rb_series_set *set, const struct spec *s)
{
	struct rb_message m;
	struct rb_trailer tr = { (char *)"change-id", (char *)s->change_id };
	size_t n = 0;

	memset(&m, 0, sizeof(m));
	m.message_id = (char *)s->id;
	m.in_reply_to = (char *)s->irt;
	while (n < 4 && s->refs[n])
		n++;
	m.references = (char **)s->refs;
	m.n_references = n;
	m.from.addr = (char *)(s->from ? s->from : "a@example.org");
	m.date = s->date ? s->date : 1700000000;
	m.subject_raw = (char *)s->subject;
	m.subject.title = (char *)s->title;
	m.subject.is_patch = !s->reply && !s->pull;
	m.subject.is_reply = s->reply;
	m.subject.is_pull = s->pull;
	m.subject.version = s->version ? s->version : 1;
	m.subject.index = s->index;
	m.subject.total = s->total;
	m.body = (char *)s->body;
	if (s->change_id) {
		m.trailers = &tr;
		m.n_trailers = 1;
	}
	return rb_series_set_add(set, &m);
}

static void add_all(struct rb_series_set *set, const struct spec *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(add(set, &v[i]), 0);
	assert_int_equal(rb_series_set_assemble(set), 0);
}

static const struct rb_series *by_id(struct rb_series_set *set, const char *id)
{
	const struct rb_series *s = rb_series_set_find(set, id);

	assert_non_null(s);
	return s;
}

static void test_cover_shallow_out_of_order(void **state)
{
	/* Patch 3 arrives first; the cover arrives last; patch 2 twice. */
	static const struct spec v[] = {
		{ "p3@x",
		  "c@x",
		  { "c@x" },
		  NULL,
		  3,
		  "[PATCH 3/3] mm: three",
		  "mm: three",
		  1,
		  3,
		  3,
		  0,
		  0,
		  DIFF },
		{ "p1@x",
		  "c@x",
		  { "c@x" },
		  NULL,
		  1,
		  "[PATCH 1/3] mm: one",
		  "mm: one",
		  1,
		  1,
		  3,
		  0,
		  0,
		  DIFF },
		{ "p2@x",
		  "c@x",
		  { "c@x" },
		  NULL,
		  2,
		  "[PATCH 2/3] mm: two",
		  "mm: two",
		  1,
		  2,
		  3,
		  0,
		  0,
		  DIFF },
		{ "c@x",
		  NULL,
		  { NULL },
		  NULL,
		  0,
		  "[PATCH 0/3] mm: all",
		  "mm: all",
		  1,
		  0,
		  3,
		  0,
		  0,
		  COVER },
	};
	static const struct spec dup = {
		"p2@x",	   "c@x", { "c@x" }, NULL, 2, "[PATCH 2/3] mm: two",
		"mm: two", 1,	  2,	     3,	   0, 0,
		DIFF
	};
	struct rb_series_set *set;
	const struct rb_series *s;
	int missing[4];

	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, v, 3);
	/* Cross-posted: the same Message-ID from a second list. */
	assert_int_equal(add(set, &dup), -RB_EEXISTS);
	assert_int_equal(add(set, &v[3]), 0);
	assert_int_equal(rb_series_set_assemble(set), 0);
	assert_int_equal(rb_series_set_messages(set), 4);
	assert_int_equal(rb_series_set_count(set), 1);
	s = rb_series_set_get(set, 0);
	assert_string_equal(s->id, "c@x");
	assert_string_equal(s->cover, "c@x");
	assert_int_equal(s->total, 3);
	assert_int_equal(s->version, 1);
	assert_true(s->complete);
	assert_string_equal(s->patches[0], "p1@x");
	assert_string_equal(s->patches[1], "p2@x");
	assert_string_equal(s->patches[2], "p3@x");
	assert_string_equal(s->title, "mm: all");
	assert_null(s->previous);
	assert_int_equal(rb_series_missing(s, missing, 4), 0);
	assert_int_equal(rb_series_set_kind(set, "c@x"), RB_KIND_COVER);
	assert_int_equal(rb_series_set_kind(set, "p1@x"), RB_KIND_PATCH);
	assert_int_equal(s->first_date, 1);
	assert_int_equal(s->last_date, 1700000000);
	rb_series_set_free(set);
}

/*
 * Issue 17, attack 8: a [PATCH 0/N] that someone else posts into the
 * thread never becomes the cover, neither of a series without one nor in
 * place of the author's own (b4 would take the last 0/N).
 */
static void test_cover_hijack(void **state)
{
#define P(id, n, from)                                                        \
	{                                                                     \
		id, "v0@x", { "v0@x" }, from, n, "[PATCH " #n "/2] mm: part", \
			"mm: part", 1, n, 2, 0, 0, DIFF                       \
	}
	static const struct spec own[] = {
		{ "v0@x",
		  NULL,
		  { NULL },
		  "victim@example.org",
		  1,
		  "[PATCH 0/2] mm: parts",
		  "mm: parts",
		  1,
		  0,
		  2,
		  0,
		  0,
		  COVER },
		P("v1@x", 1, "victim@example.org"),
		P("v2@x", 2, "Victim@Example.org"),
		{ "evil@x",
		  "v1@x",
		  { "v0@x", "v1@x" },
		  "eve@evil.example",
		  9,
		  "[PATCH 0/2] mm: mine now",
		  "mm: mine now",
		  1,
		  0,
		  2,
		  0,
		  0,
		  COVER },
	};
	/* No cover of the victim's: patches deep-threaded from patch 1. */
	static const struct spec bare[] = {
		{ "b1@x",
		  NULL,
		  { NULL },
		  "victim@example.org",
		  1,
		  "[PATCH 1/2] mm: part",
		  "mm: part",
		  1,
		  1,
		  2,
		  0,
		  0,
		  DIFF },
		{ "b2@x",
		  "b1@x",
		  { "b1@x" },
		  "victim@example.org",
		  2,
		  "[PATCH 2/2] mm: part",
		  "mm: part",
		  1,
		  2,
		  2,
		  0,
		  0,
		  DIFF },
		{ "bevil@x",
		  "b1@x",
		  { "b1@x" },
		  "eve@evil.example",
		  9,
		  "[PATCH 0/2] mm: mine now",
		  "mm: mine now",
		  1,
		  0,
		  2,
		  0,
		  0,
		  COVER },
		/* the author's own late cover is still taken */
	};
	static const struct spec late = { "blate@x",   "b1@x",
					  { "b1@x" },  "VICTIM@example.org",
					  10,	       "[PATCH 0/2] mm: parts",
					  "mm: parts", 1,
					  0,	       2,
					  0,	       0,
					  COVER };
	struct rb_series_set *set;
	const struct rb_series *s;

	(void)state;
	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, own, 4);
	assert_int_equal(rb_series_set_count(set), 1);
	s = rb_series_set_get(set, 0);
	assert_string_equal(s->id, "v0@x");
	assert_string_equal(s->cover, "v0@x");
	assert_string_equal(s->author, "victim@example.org");
	assert_string_equal(s->title, "mm: parts");
	assert_true(s->complete);
	assert_null(rb_series_set_find(set, "evil@x"));
	rb_series_set_free(set);

	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, bare, 3);
	assert_int_equal(rb_series_set_count(set), 1);
	s = rb_series_set_get(set, 0);
	assert_string_equal(s->id, "b1@x");
	assert_null(s->cover);
	assert_string_equal(s->author, "victim@example.org");
	assert_string_equal(s->patches[1], "b2@x");
	assert_null(rb_series_set_find(set, "bevil@x"));
	assert_int_equal(add(set, &late), 0);
	assert_int_equal(rb_series_set_assemble(set), 0);
	s = rb_series_set_get(set, 0);
	assert_string_equal(s->cover, "blate@x");
	assert_string_equal(s->id, "blate@x");
	rb_series_set_free(set);
#undef P
}

/*
 * Issue 33: a stranger's [PATCH 2/2] posted into the missing slot of a
 * series does not join it (it would make its sender an author who may
 * judge), nor does a stranger's "v2 2/2" in reply to the victim's v1 2/2
 * take the victim's parts over by a partial reroll.
 */
static void test_stranger_part(void **state)
{
#define P(id, n, from, v)                                                      \
	{                                                                      \
		id, "c0@x", { "c0@x" }, from, n + 1,                           \
			"[PATCH v" #v " " #n "/2] mm: part", "mm: part", v, n, \
			2, 0, 0, DIFF                                          \
	}
	static const struct spec fill[] = {
		{ "c0@x",
		  NULL,
		  { NULL },
		  "victim@example.org",
		  1,
		  "[PATCH 0/2] mm: parts",
		  "mm: parts",
		  1,
		  0,
		  2,
		  0,
		  0,
		  COVER },
		P("c1@x", 1, "victim@example.org", 1),
		P("cevil@x", 2, "mallory@evil.example", 1),
	};
	static const struct spec reroll[] = {
		{ "r1@x",
		  NULL,
		  { NULL },
		  "victim@example.org",
		  1,
		  "[PATCH 1/2] mm: part",
		  "mm: part",
		  1,
		  1,
		  2,
		  0,
		  0,
		  DIFF },
		{ "r2@x",
		  "r1@x",
		  { "r1@x" },
		  "victim@example.org",
		  2,
		  "[PATCH 2/2] mm: part",
		  "mm: part",
		  1,
		  2,
		  2,
		  0,
		  0,
		  DIFF },
		{ "rev2@x",
		  "r2@x",
		  { "r1@x", "r2@x" },
		  "mallory@evil.example",
		  9,
		  "[PATCH v2 2/2] mm: part",
		  "mm: part",
		  2,
		  2,
		  2,
		  0,
		  0,
		  DIFF },
	};
	/* The victim's own late 2/2 still fills the slot. */
	static const struct spec own = P("c2@x", 2, "Victim@example.org", 1);
	struct rb_series_set *set;
	const struct rb_series *s;
	size_t i;

	(void)state;
	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, fill, 3);
	assert_int_equal(rb_series_set_count(set), 1);
	s = rb_series_set_get(set, 0);
	assert_string_equal(s->author, "victim@example.org");
	assert_false(s->complete);
	assert_null(s->patches[1]);
	assert_null(rb_series_set_find(set, "cevil@x"));
	assert_int_equal(add(set, &own), 0);
	assert_int_equal(rb_series_set_assemble(set), 0);
	s = rb_series_set_get(set, 0);
	assert_true(s->complete);
	assert_string_equal(s->patches[1], "c2@x");
	rb_series_set_free(set);

	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, reroll, 3);
	for (i = 0; i < rb_series_set_count(set); i++) {
		s = rb_series_set_get(set, i);
		if (s->version != 2)
			continue;
		/* Mallory's v2 holds no part of the victim's. */
		assert_string_equal(s->author, "mallory@evil.example");
		assert_false(s->complete);
		assert_null(s->patches[0]);
	}
	s = by_id(set, "r1@x");
	assert_string_equal(s->author, "victim@example.org");
	assert_true(s->complete);
	rb_series_set_free(set);
#undef P
}

static void test_deep_no_cover_incomplete(void **state)
{
	/* Deep threading, no cover: each patch replies to the one before;
	 * 3/4 never arrived.
	 */
	static const struct spec v[] = {
		{ "d1@x",
		  NULL,
		  { NULL },
		  NULL,
		  1,
		  "[PATCH v3 1/4] a",
		  "a",
		  3,
		  1,
		  4,
		  0,
		  0,
		  DIFF },
		{ "d2@x",
		  "d1@x",
		  { "d1@x" },
		  NULL,
		  2,
		  "[PATCH v3 2/4] b",
		  "b",
		  3,
		  2,
		  4,
		  0,
		  0,
		  DIFF },
		{ "d4@x",
		  "d3@x",
		  { "d1@x", "d2@x", "d3@x" },
		  NULL,
		  4,
		  "[PATCH v3 4/4] d",
		  "d",
		  3,
		  4,
		  4,
		  0,
		  0,
		  DIFF },
	};
	struct rb_series_set *set;
	const struct rb_series *s;
	int missing[4];

	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, v, 3);
	assert_int_equal(rb_series_set_count(set), 1);
	s = rb_series_set_get(set, 0);
	assert_null(s->cover);
	assert_string_equal(s->id, "d1@x");
	assert_int_equal(s->version, 3);
	assert_int_equal(s->total, 4);
	assert_false(s->complete);
	assert_null(s->patches[2]);
	assert_string_equal(s->patches[3], "d4@x");
	assert_int_equal(rb_series_missing(s, missing, 4), 1);
	assert_int_equal(missing[0], 3);
	assert_int_equal(s->first_date, 1);
	assert_int_equal(s->last_date, 4);
	rb_series_set_free(set);
}

static void test_versions(void **state)
{
	/* v1 and v2 in their own threads (same title and author); v3 as a
	 * reply to v2's cover; an unrelated v2 linked by change-id only.
	 */
	static const struct spec v[] = {
		{ "a1@x",
		  NULL,
		  { NULL },
		  NULL,
		  1,
		  "[PATCH] mm: fix  Foo",
		  "mm: fix  Foo",
		  1,
		  0,
		  0,
		  0,
		  0,
		  DIFF },
		{ "b0@x",
		  NULL,
		  { NULL },
		  NULL,
		  10,
		  "[PATCH v2 0/1] mm: fix foo",
		  "mm: fix foo",
		  2,
		  0,
		  1,
		  0,
		  0,
		  COVER },
		{ "b1@x",
		  "b0@x",
		  { "b0@x" },
		  NULL,
		  11,
		  "[PATCH v2 1/1] mm: fix foo",
		  "mm: fix foo",
		  2,
		  1,
		  1,
		  0,
		  0,
		  DIFF },
		{ "c1@x",
		  "b0@x",
		  { "b0@x" },
		  NULL,
		  20,
		  "[PATCH v3] mm: fix foo",
		  "mm: fix foo",
		  3,
		  0,
		  0,
		  0,
		  0,
		  DIFF },
		{ "x1@x",
		  NULL,
		  { NULL },
		  "z@example.org",
		  30,
		  "[PATCH] net: one",
		  "net: one",
		  1,
		  0,
		  0,
		  0,
		  0,
		  DIFF,
		  "cid-1" },
		{ "y1@x",
		  NULL,
		  { NULL },
		  "z@example.org",
		  40,
		  "[PATCH v2] net: renamed",
		  "net: renamed",
		  2,
		  0,
		  0,
		  0,
		  0,
		  DIFF,
		  "cid-1" },
	};
	struct rb_series_set *set;

	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, v, 6);
	assert_int_equal(rb_series_set_count(set), 5);
	assert_null(by_id(set, "a1@x")->previous);
	assert_string_equal(by_id(set, "b1@x")->previous, "a1@x");
	assert_string_equal(by_id(set, "b1@x")->cover, "b0@x");
	assert_int_equal(by_id(set, "c1@x")->version, 3);
	assert_string_equal(by_id(set, "c1@x")->previous, "b0@x");
	assert_string_equal(by_id(set, "y1@x")->previous, "x1@x");
	assert_string_equal(by_id(set, "y1@x")->change_id, "cid-1");
	rb_series_set_free(set);
}

/*
 * Issue 34: versions link only within one author. In Alice's thread Bob
 * posts his own "[PATCH v2]" (another fix, replying to her v1): it is not
 * her v2, and her v3, replying to Bob's, follows her v1. A change-id that
 * another author's series carries too (a copied cover) links nothing.
 */
static void test_versions_one_author(void **state)
{
	static const struct spec v[] = {
		{ .id = "p1@x",
		  .from = "alice@example.org",
		  .date = 10,
		  .subject = "[PATCH] mm: one",
		  .title = "mm: one",
		  .version = 1,
		  .body = DIFF },
		{ .id = "q1@x",
		  .irt = "p1@x",
		  .refs = { "p1@x" },
		  .from = "bob@example.org",
		  .date = 20,
		  .subject = "[PATCH v2] mm: one, another way",
		  .title = "mm: one, another way",
		  .version = 2,
		  .body = DIFF },
		{ .id = "r1@x",
		  .irt = "q1@x",
		  .refs = { "p1@x", "q1@x" },
		  .from = "Alice@Example.org",
		  .date = 30,
		  .subject = "[PATCH v3] mm: one",
		  .title = "mm: one",
		  .version = 3,
		  .body = DIFF },
		{ .id = "s1@x",
		  .from = "carol@example.org",
		  .date = 40,
		  .subject = "[PATCH] net: two",
		  .title = "net: two",
		  .version = 1,
		  .body = DIFF,
		  .change_id = "cid-9" },
		{ .id = "t1@x",
		  .from = "dave@example.org",
		  .date = 50,
		  .subject = "[PATCH v2] net: three",
		  .title = "net: three",
		  .version = 2,
		  .body = DIFF,
		  .change_id = "cid-9" },
	};
	struct rb_series_set *set;

	(void)state;
	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, v, 5);
	assert_null(by_id(set, "q1@x")->previous);
	assert_string_equal(by_id(set, "r1@x")->previous, "p1@x");
	assert_null(by_id(set, "t1@x")->previous);
	rb_series_set_free(set);
}

static void test_partial_reroll(void **state)
{
	/* v2 of patch 2 only, sent as a reply to v1 2/3: not a duplicate of
	 * v1's 2/3, but a v2 filled from v1 (b4's partial reroll).
	 */
	static const struct spec v[] = {
		{ "c@x",
		  NULL,
		  { NULL },
		  NULL,
		  1,
		  "[PATCH 0/3] s",
		  "s",
		  1,
		  0,
		  3,
		  0,
		  0,
		  COVER },
		{ "p1@x",
		  "c@x",
		  { "c@x" },
		  NULL,
		  2,
		  "[PATCH 1/3] a",
		  "a",
		  1,
		  1,
		  3,
		  0,
		  0,
		  DIFF },
		{ "p2@x",
		  "c@x",
		  { "c@x" },
		  NULL,
		  3,
		  "[PATCH 2/3] b",
		  "b",
		  1,
		  2,
		  3,
		  0,
		  0,
		  DIFF },
		{ "p3@x",
		  "c@x",
		  { "c@x" },
		  NULL,
		  4,
		  "[PATCH 3/3] c",
		  "c",
		  1,
		  3,
		  3,
		  0,
		  0,
		  DIFF },
		{ "r@x",
		  "p2@x",
		  { "c@x", "p2@x" },
		  "rev@example.org",
		  5,
		  "Re: [PATCH 2/3] b",
		  "b",
		  1,
		  0,
		  0,
		  1,
		  0,
		  "> quoted\n\nLooks wrong.\n" },
		{ "q2@x",
		  "r@x",
		  { "c@x", "p2@x", "r@x" },
		  NULL,
		  6,
		  "[PATCH v2 2/3] b",
		  "b",
		  2,
		  2,
		  3,
		  0,
		  0,
		  DIFF },
	};
	struct rb_series_set *set;
	const struct rb_series *s1, *s2;

	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, v, 6);
	assert_int_equal(rb_series_set_count(set), 2);
	s1 = rb_series_set_get(set, 0);
	s2 = rb_series_set_get(set, 1);
	assert_int_equal(s1->version, 1);
	assert_string_equal(s1->patches[1], "p2@x");
	assert_true(s1->complete);
	assert_false(s1->partial_reroll);
	assert_int_equal(s2->version, 2);
	assert_true(s2->partial_reroll);
	assert_true(s2->complete);
	assert_string_equal(s2->patches[0], "p1@x");
	assert_string_equal(s2->patches[1], "q2@x");
	assert_string_equal(s2->patches[2], "p3@x");
	assert_string_equal(s2->previous, s1->id);
	assert_string_equal(rb_series_set_answers(set, "r@x"), "p2@x");
	rb_series_set_free(set);
}

static void test_replies(void **state)
{
	static const struct spec v[] = {
		{ "c@x",
		  NULL,
		  { NULL },
		  NULL,
		  1,
		  "[PATCH 0/2] s",
		  "s",
		  1,
		  0,
		  2,
		  0,
		  0,
		  COVER },
		{ "p1@x",
		  "c@x",
		  { "c@x" },
		  NULL,
		  2,
		  "[PATCH 1/2] a",
		  "a",
		  1,
		  1,
		  2,
		  0,
		  0,
		  DIFF },
		{ "p2@x",
		  "c@x",
		  { "c@x" },
		  NULL,
		  3,
		  "[PATCH 2/2] b",
		  "b",
		  1,
		  2,
		  2,
		  0,
		  0,
		  DIFF },
		/* an ack without Re: is still a reply (b4: trailers) */
		{ "ack@x",
		  "p1@x",
		  { "c@x", "p1@x" },
		  "m@example.org",
		  4,
		  "[PATCH 1/2] a",
		  "a",
		  1,
		  1,
		  2,
		  0,
		  0,
		  "> quoted\n\nReviewed-by: M <m@example.org>\n" },
		{ "rv@x",
		  "p2@x",
		  { "c@x", "p2@x" },
		  "m@example.org",
		  5,
		  "Re: [PATCH 2/2] b",
		  "b",
		  1,
		  0,
		  0,
		  1,
		  0,
		  "Why is this needed?\n" },
		{ "rr@x",
		  "rv@x",
		  { "c@x", "p2@x", "rv@x" },
		  NULL,
		  6,
		  "Re: [PATCH 2/2] b",
		  "b",
		  1,
		  0,
		  0,
		  1,
		  0,
		  "Because.\n" },
		{ "bot@x",
		  "c@x",
		  { "c@x" },
		  "lkp@intel.com",
		  7,
		  "Re: [PATCH 0/2] s",
		  "s",
		  1,
		  0,
		  0,
		  1,
		  0,
		  "kernel test robot noticed\n" },
		/* a reply that lost its In-Reply-To but kept References */
		{ "lr@x",
		  NULL,
		  { "c@x", "p1@x" },
		  NULL,
		  8,
		  "Re: [PATCH 1/2] a",
		  "a",
		  1,
		  0,
		  0,
		  1,
		  0,
		  "ok\n" },
	};
	struct rb_series_set *set;
	const struct rb_series *s;

	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, v, 8);
	assert_int_equal(rb_series_set_count(set), 1);
	s = rb_series_set_get(set, 0);
	assert_true(s->complete);
	assert_string_equal(s->patches[0], "p1@x");
	assert_int_equal(rb_series_set_kind(set, "ack@x"), RB_KIND_TRAILERS);
	assert_string_equal(rb_series_set_answers(set, "ack@x"), "p1@x");
	assert_int_equal(rb_series_set_kind(set, "rv@x"), RB_KIND_REPLY);
	assert_string_equal(rb_series_set_answers(set, "rv@x"), "p2@x");
	assert_string_equal(rb_series_set_answers(set, "rr@x"), "p2@x");
	assert_int_equal(rb_series_set_kind(set, "bot@x"), RB_KIND_BOT);
	assert_string_equal(rb_series_set_answers(set, "bot@x"), "c@x");
	assert_string_equal(rb_series_set_answers(set, "lr@x"), "p1@x");
	assert_null(rb_series_set_answers(set, "p1@x"));
	assert_null(rb_series_set_answers(set, "nope@x"));
	assert_int_equal(rb_series_set_kind(set, "nope@x"), RB_KIND_UNKNOWN);
	assert_string_equal(rb_msg_kind_name(RB_KIND_TRAILERS), "trailers");
	rb_series_set_free(set);
}

static void test_pull_is_not_series(void **state)
{
	static const struct spec v[] = {
		{ "pull@x",
		  NULL,
		  { NULL },
		  NULL,
		  1,
		  "[GIT PULL] mm fixes for 6.1",
		  "mm fixes for 6.1",
		  1,
		  0,
		  0,
		  0,
		  1,
		  DIFF },
	};
	struct rb_series_set *set;

	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, v, 1);
	assert_int_equal(rb_series_set_count(set), 0);
	assert_int_equal(rb_series_set_kind(set, "pull@x"), RB_KIND_PULL);
	rb_series_set_free(set);
}

static void test_unthreaded_fallback(void **state)
{
	/* No threading headers at all: joined by sender, version, total
	 * and time; another sender and a late part stay apart.
	 */
	static const struct spec v[] = {
		{ "u0@x",
		  NULL,
		  { NULL },
		  NULL,
		  1000,
		  "[PATCH v2 0/3] s",
		  "s",
		  2,
		  0,
		  3,
		  0,
		  0,
		  COVER },
		{ "u3@x",
		  NULL,
		  { NULL },
		  NULL,
		  1003,
		  "[PATCH v2 3/3] c",
		  "c",
		  2,
		  3,
		  3,
		  0,
		  0,
		  DIFF },
		{ "u1@x",
		  NULL,
		  { NULL },
		  NULL,
		  1001,
		  "[PATCH v2 1/3] a",
		  "a",
		  2,
		  1,
		  3,
		  0,
		  0,
		  DIFF },
		{ "o2@x",
		  NULL,
		  { NULL },
		  "o@example.org",
		  1002,
		  "[PATCH v2 2/3] b",
		  "b",
		  2,
		  2,
		  3,
		  0,
		  0,
		  DIFF },
		{ "late@x",
		  NULL,
		  { NULL },
		  NULL,
		  1003 + 13 * 3600,
		  "[PATCH v2 2/3] b",
		  "b",
		  2,
		  2,
		  3,
		  0,
		  0,
		  DIFF },
	};
	struct rb_series_set *set;
	const struct rb_series *s;
	int missing[3];

	assert_int_equal(rb_series_set_new(&set), 0);
	add_all(set, v, 5);
	assert_int_equal(rb_series_set_count(set), 3);
	s = by_id(set, "u1@x");
	assert_true(s->unthreaded);
	assert_string_equal(s->cover, "u0@x");
	assert_string_equal(s->patches[0], "u1@x");
	assert_null(s->patches[1]);
	assert_string_equal(s->patches[2], "u3@x");
	assert_int_equal(rb_series_missing(s, missing, 3), 1);
	assert_int_equal(missing[0], 2);
	assert_ptr_not_equal(by_id(set, "o2@x"), s);
	assert_ptr_not_equal(by_id(set, "late@x"), s);
	/* A wider window takes the late part in. */
	rb_series_set_window(set, 14 * 3600);
	assert_int_equal(rb_series_set_assemble(set), 0);
	s = by_id(set, "u1@x");
	assert_string_equal(s->patches[1], "late@x");
	assert_true(s->complete);
	rb_series_set_free(set);
}

static void test_errors(void **state)
{
	struct rb_series_set *set;
	struct rb_message m;

	memset(&m, 0, sizeof(m));
	assert_int_equal(rb_series_set_new(&set), 0);
	assert_int_equal(rb_series_set_add(set, &m), -RB_EINVAL);
	assert_int_equal(rb_series_set_assemble(set), 0);
	assert_int_equal(rb_series_set_count(set), 0);
	assert_null(rb_series_set_get(set, 0));
	rb_series_set_free(set);
	rb_series_set_free(NULL);
}

/* The seed series: no Message-ID, no threading, 8/9 missing. */
static void test_seeds(void **state)
{
	static const char *const files[] = {
		"001-cover-mm-huge-memory-refactor-zap-huge-pmd.txt",
		"002-patch-mm-huge-memory-simplify-vma-is-specal-huge.patch",
		"003-patch-mm-huge-avoid-big-else-branch-in-zap-huge-pmd.patch",
		"004-patch-mm-huge-memory-have-zap-huge-pmd-return-a-boolean-"
		"add-kd.patch",
		"005-patch-mm-huge-memory-handle-buggy-pmd-entry-in-zap-huge-"
		"pmd.patch",
		"006-patch-mm-huge-memory-add-a-common-exit-path-to-zap-huge-"
		"pmd.patch",
		"007-patch-mm-huge-memory-remove-unnecessary-vm-bug-on-page."
		"patch",
		"008-patch-mm-huge-memory-deduplicate-zap-deposited-table-call."
		"patch",
		"009-patch-mm-huge-memory-have-zap-huge-pmd-use-vm-normal-folio-"
		"pmd.patch",
	};
	const char *shared = getenv("RB_SHARED");
	struct rb_series_set *set;
	const struct rb_series *s;
	char first[4096];
	int missing[9];
	size_t i;

	if (!shared)
		shared = "../../shared";
	snprintf(first, sizeof(first), "%s/seeds/%s", shared, files[0]);
	if (access(first, R_OK)) {
		print_message("SKIP: test_seeds: needs shared/seeds, not found "
			      "(RB_SHARED=%s): set RB_SHARED=/path/to/shared\n",
			      shared);
		skip();
	}
	assert_int_equal(rb_series_set_new(&set), 0);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct rb_buf b = RB_BUF_INIT(1 << 20);
		struct rb_message *m = NULL;
		char path[4096];
		int ret;

		snprintf(path, sizeof(path), "%s/seeds/%s", shared, files[i]);
		assert_int_equal(rb_read_file(&b, path), 0);
		ret = rb_message_parse(&m, b.ptr, b.len, NULL);
		rb_buf_release(&b);
		if (ret == -RB_EPARSE &&
		    strstr(rb_errmsg(), "not implemented")) {
			rb_series_set_free(set);
			skip();
		}
		assert_int_equal(ret, 0);
		assert_int_equal(rb_series_set_add(set, m), 0);
		rb_message_free(m);
	}
	assert_int_equal(rb_series_set_assemble(set), 0);
	assert_int_equal(rb_series_set_count(set), 1);
	s = rb_series_set_get(set, 0);
	assert_int_equal(s->version, 2);
	assert_int_equal(s->total, 9);
	assert_false(s->complete);
	assert_non_null(s->cover);
	assert_true(s->unthreaded);
	assert_int_equal(rb_series_missing(s, missing, 9), 1);
	assert_int_equal(missing[0], 8);
	assert_string_equal(s->author, "ljs@kernel.org");
	rb_series_set_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cover_shallow_out_of_order),
		cmocka_unit_test(test_cover_hijack),
		cmocka_unit_test(test_stranger_part),
		cmocka_unit_test(test_deep_no_cover_incomplete),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_versions_one_author),
		cmocka_unit_test(test_partial_reroll),
		cmocka_unit_test(test_replies),
		cmocka_unit_test(test_pull_is_not_series),
		cmocka_unit_test(test_unthreaded_fallback),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_seeds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
