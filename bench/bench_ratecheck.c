// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_ratecheck.c - the C side of bench/ratecheck.sh: the outbox's rate
 * check (bot/stages/outbox.c rate_limited()) on a store that has sent a
 * million mails (issue 38: under 10 ms).
 *
 *   fill STORE N   N mails stored and marked sent through the store's own
 *                  calls (rb_store_add_outmail(), rb_store_outbox_sent()),
 *                  one a minute up to T (N = 1,000,000: 1.9 years of a
 *                  busy list), 10,000 to a transaction. Each goes To: an
 *                  author (one of 50,000, and one heavy author on every
 *                  97th mail), Cc: a maintainer (trusted) and the list,
 *                  and one in five Cc's a person from the patch (counted).
 *                  2.5 KB of bytes each, as a review is.
 *   check STORE R  one more mail, queued, from the heavy author with a
 *                  Cc'd person; at T, R rounds of what the sender asks
 *                  before each mail: the global count and the mail's
 *                  counted addresses with their counts. Then the check
 *                  as it was before migration 9, on the same rows: the
 *                  global count and a LIKE over the sent mail for each
 *                  person, with migration 8's plan (INDEXED BY
 *                  outbox_state, the only index the outbox had).
 *
 * check prints one line per check (report() below), then the query plans
 * as "plan: ..." lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/store/store.h"
#include "bot/store/store_priv.h" /* white-box: the old check's SQL */
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define T_END 1800000000LL /* T: the store's clock at the check */
#define STEP 60 /* seconds between two sent mails */
#define BATCH 10000

static const char *const maint = "akpm@linux-foundation.org";
static const char *const list = "linux-mm@kvack.org";

static void die(const char *what)
{
	fprintf(stderr, "bench_ratecheck: %s: %s\n", what, rb_errmsg());
	exit(1);
}

static void set_now(long long t)
{
	char b[32];

	snprintf(b, sizeof(b), "%lld", t);
	setenv("RB_NOW", b, 1);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* The author of mail @i: one of 50,000, or the heavy author. */
static void author_of(char *out, size_t len, long i)
{
	if (i % 97 == 0)
		snprintf(out, len, "heavy@example.org");
	else
		snprintf(out, len, "a%lu@example.net",
			 ((unsigned long)i * 2654435761UL) % 50000UL);
}

/* A review To: @author, Cc: the maintainer, the list and @cc (or not). */
static int add_mail(struct rb_store *st, const char *id, const char *author,
		    const char *cc, const char *bytes, size_t len)
{
	char rcpts[256];
	struct rb_outmail m = {
		.message_id = id,
		.series_id = id,
		.kind = "review",
		.patch_idx = 1,
		.env_from = "reviewbot@example.org",
		.rcpts = rcpts,
		.lists = list,
		.trusted = maint,
		.bytes = bytes,
		.len = len,
		.policy = "advisory",
		.subsystem = "MEMORY MANAGEMENT",
	};

	snprintf(rcpts, sizeof(rcpts), "%s\n%s\n%s%s%s", author, maint, list,
		 cc ? "\n" : "", cc ? cc : "");
	return rb_store_add_outmail(st, &m);
}

static int fill(struct rb_store *st, long n)
{
	static char bytes[2560];
	long i;
	int ret = 0;

	memset(bytes, 'x', sizeof(bytes));
	for (i = 0; i < n && !ret; i++) {
		char id[64], author[64], cc[64];

		if (i % BATCH == 0)
			ret = rb_store_begin(st);
		if (ret)
			break;
		set_now(T_END - (n - i) * STEP);
		snprintf(id, sizeof(id), "rb-bench-%ld@example.org", i);
		snprintf(cc, sizeof(cc), "cc%ld@example.com", i % 1000);
		author_of(author, sizeof(author), i);
		ret = add_mail(st, id, author, i % 5 ? NULL : cc, bytes,
			       sizeof(bytes));
		if (!ret)
			ret = rb_store_outbox_sent(st, id);
		if (!ret && (i % BATCH == BATCH - 1 || i == n - 1))
			ret = rb_store_commit(st);
	}
	if (ret)
		rb_store_rollback(st);
	return ret;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * "NAME MEDIAN P95 P99 MAX ROUNDS FIRST OVER10" in ms: the first round is
 * the one that found the store's pages outside SQLite's cache; OVER10
 * counts the rounds over 10 ms (on a shared machine, a round the
 * scheduler took the core from).
 */
static void report(const char *name, double *v, int n)
{
	double first = v[0];
	int i, over = 0;

	for (i = 0; i < n; i++)
		over += v[i] > 10.0;
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	printf("%s %.3f %.3f %.3f %.3f %d %.3f %d\n", name, v[n / 2],
	       v[(n * 95) / 100], v[(n * 99) / 100], v[n - 1], n, first, over);
}

static int plan_row(const struct rb_dbrow *row, void *payload)
{
	(void)payload;
	if (row->n >= 4 && row->v[3].t == RB_DBT_TEXT)
		printf("plan: %s\n", row->v[3].s);
	return 0;
}

static void plan(struct rb_store *st, const char *what, const char *sql,
		 const struct rb_dbv *p, size_t n)
{
	struct rb_buf b = RB_BUF_INIT(1 << 16);

	printf("plan: -- %s\n", what);
	rb_buf_printf(&b, "EXPLAIN QUERY PLAN %s", sql);
	if (st->db->ops->query(st->db, b.ptr, p, n, plan_row, NULL))
		die("explain");
	rb_buf_release(&b);
}

#define NEW_RATES                                      \
	"SELECT r.kind, r.addr, (SELECT COUNT(*) FROM" \
	" outbox_rcpts s WHERE s.kind = r.kind AND"    \
	" s.addr = r.addr AND s.sent_at >= ?)"         \
	" FROM outbox_rcpts r WHERE r.message_id = ? ORDER BY r.kind, r.addr"
#define NEW_ALL \
	"SELECT COUNT(*) FROM outbox WHERE state = 'sent' AND sent_at >= ?"
#define OLD_ALL                                                     \
	"SELECT COUNT(*) FROM outbox INDEXED BY outbox_state WHERE" \
	" state = 'sent' AND sent_at >= ?"
#define OLD_RCPT                                                        \
	"SELECT COUNT(*) FROM outbox INDEXED BY outbox_state WHERE"     \
	" state = 'sent' AND sent_at >= ? AND (? || lower(rcpts) || ?)" \
	" LIKE ? ESCAPE '\\'"

static int check(struct rb_store *st, int rounds)
{
	static const char *const people[] = { "heavy@example.org",
					      "cc7@example.com", maint };
	const char *id = "rb-bench-check@example.org";
	int64_t since = T_END - 3600, count;
	struct rb_dbv all = RB_DB_INT(T_END - 3600);
	double *v = calloc((size_t)rounds, sizeof(*v));
	struct timespec t0;
	int i, ret, old_rounds = rounds < 5 ? rounds : 5;
	size_t k;

	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	set_now(T_END);
	/* queued, not sent: the mail the sender is about to send */
	ret = add_mail(st, id, people[0], people[1], "x", 1);
	if (ret && ret != -RB_EEXISTS)
		return ret;
	ret = 0;
	for (i = 0; i < rounds && !ret; i++) {
		struct rb_outrate *r = NULL;
		size_t n = 0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = rb_store_outbox_sent_since(st, RB_RATE_ALL, NULL, since,
						 &count);
		if (!ret)
			ret = rb_store_outbox_rates(st, id, since, &r, &n);
		v[i] = ms_since(&t0);
		if (!ret && (n != 3 || count != 60))
			ret = rb_err(RB_EINVAL,
				     "the check saw %zu addresses, %lld mails "
				     "in the hour (want 3, 60)",
				     n, (long long)count);
		rb_outrates_free(r, n);
	}
	if (ret)
		return ret;
	report("new", v, rounds);
	for (i = 0; i < old_rounds && !ret; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = rb_db_query_int(st->db, &count, OLD_ALL, &all, 1);
		/* the old check: every person of the mail, the maintainer too */
		for (k = 0; !ret && k < 3; k++) {
			char like[128];
			struct rb_dbv p[] = { RB_DB_INT(since),
					      RB_DB_TEXT("\n"),
					      RB_DB_TEXT("\n"),
					      RB_DB_TEXT(like) };

			snprintf(like, sizeof(like), "%%\n%s\n%%", people[k]);
			ret = rb_db_query_int(st->db, &count, OLD_RCPT, p, 4);
		}
		v[i] = ms_since(&t0);
	}
	if (ret)
		return ret;
	report("old", v, old_rounds);
	{
		struct rb_dbv p[] = { RB_DB_INT(since), RB_DB_TEXT(id) };
		struct rb_dbv q[] = { RB_DB_INT(since), RB_DB_TEXT("\n"),
				      RB_DB_TEXT("\n"), RB_DB_TEXT("%") };

		plan(st, "new: the global count", NEW_ALL, p, 1);
		plan(st, "new: the mail's counted addresses", NEW_RATES, p, 2);
		plan(st, "old: one person", OLD_RCPT, q, 4);
	}
	free(v);
	return 0;
}

int main(int argc, char **argv)
{
	struct rb_store *st = NULL;
	struct timespec t0;
	long n;
	int ret;

	rb_log_set_level(RB_LOG_ERROR);
	if (argc != 4 ||
	    (strcmp(argv[1], "fill") && strcmp(argv[1], "check"))) {
		fprintf(stderr, "usage: bench_ratecheck fill|check STORE N\n");
		return 2;
	}
	n = strtol(argv[3], NULL, 10);
	if (rb_store_open(&st, argv[2], false))
		die(argv[2]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = !strcmp(argv[1], "fill") ? fill(st, n) : check(st, (int)n);
	if (ret)
		die(argv[1]);
	if (!strcmp(argv[1], "fill"))
		printf("fill %ld %.1f\n", n, ms_since(&t0) / 1e3);
	rb_store_close(st);
	return 0;
}
