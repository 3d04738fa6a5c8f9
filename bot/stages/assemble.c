// SPDX-License-Identifier: GPL-2.0-only
/*
 * assemble.c - the assemble stage, incremental. See assemble.h.
 *
 * What a series is depends on its thread (the messages that In-Reply-To
 * and References tie together, mail/series.c thread_union()), on the
 * unthreaded parts patchwork's fallback joins to it (the same join key,
 * join_unthreaded()), and, for its previous version, on the series that
 * share one of its link keys (link_versions()). The walk below loads
 * the closure of the new messages under these three relations, in the
 * order the full assembly reads them (messages.arrival), assembles
 * it, and saves what changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/config.h"
#include "bot/stages/assemble.h"
#include "util/fault.h"
#include "bot/stages/series_view.h"
#include "bot/stages/stage.h"
#include "bot/store/store.h"
#include "mail/message.h"
#include "mail/series.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/testenv.h"
#include "util/banned.h"

/* ------------------------------------------------------- string sets */

struct strset {
	char **v; /* owned; NULL is empty */
	size_t n, cap;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

static bool strset_has(const struct strset *s, const char *k)
{
	size_t i;

	if (!s->cap)
		return false;
	for (i = str_hash(k) & (s->cap - 1); s->v[i];
	     i = (i + 1) & (s->cap - 1))
		if (!strcmp(s->v[i], k))
			return true;
	return false;
}

/* Adds a copy of @k; *@added says whether it was new. */
static int strset_add(struct strset *s, const char *k, bool *added)
{
	size_t i;

	*added = false;
	if (strset_has(s, k))
		return 0;
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256, j;
		char **v = calloc(cap, sizeof(*v));

		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		for (j = 0; j < s->cap; j++) {
			if (!s->v[j])
				continue;
			for (i = str_hash(s->v[j]) & (cap - 1); v[i];
			     i = (i + 1) & (cap - 1))
				;
			v[i] = s->v[j];
		}
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	for (i = str_hash(k) & (s->cap - 1); s->v[i];
	     i = (i + 1) & (s->cap - 1))
		;
	s->v[i] = strdup(k);
	if (!s->v[i])
		return rb_err(RB_ENOMEM, "out of memory");
	s->n++;
	*added = true;
	return 0;
}

static void strset_release(struct strset *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* A queue of owned strings. */
struct strq {
	char **v;
	size_t head, n, cap;
};

static int strq_push(struct strq *q, const char *s)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		char **v = realloc(q->v, cap * sizeof(*v));

		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		q->v = v;
		q->cap = cap;
	}
	q->v[q->n] = strdup(s);
	if (!q->v[q->n])
		return rb_err(RB_ENOMEM, "out of memory");
	q->n++;
	return 0;
}

static void strq_release(struct strq *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		free(q->v[i]);
	free(q->v);
	memset(q, 0, sizeof(*q));
}

/* ------------------------------------------- messages as loaded */

/* A stored message of the part being assembled; every string owned. */
struct amsg {
	char *id, *subject, *from_addr, *from_name, *irt, *change_id, *refs;
	int64_t date, arrival;
	uint32_t body;
	bool body_unknown;
};

struct asm_state {
	struct rb_pipeline *p;
	bool full;
	int64_t since; /* the first arrival of this pass's new mail */
	struct amsg *msgs;
	size_t n, cap;
	size_t scanned; /* msgs[0..scanned) had their stored series read */
	struct strset loaded; /* msgs' ids */
	struct strset ids; /* ids visited */
	struct strset joins; /* join keys followed */
	struct strset keys; /* link keys followed ("c" or "t" + key) */
	struct strq idq, joinq, keyq;
	struct strset old; /* stored series that the loaded mail makes */
	size_t work, budget;
	bool over;
};

static void amsg_release(struct amsg *m)
{
	free(m->id);
	free(m->subject);
	free(m->from_addr);
	free(m->from_name);
	free(m->irt);
	free(m->change_id);
	free(m->refs);
}

static char *dup_opt(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*oom = true;
	return d;
}

/* Counts one unit of work; false once the budget is spent. */
static bool spend(struct asm_state *a, size_t n)
{
	a->work += n;
	if (a->work > a->budget)
		a->over = true;
	return !a->over;
}

/* Pushes each id that @refs (space-separated) names onto the id queue. */
static int push_refs(struct asm_state *a, const char *refs)
{
	char buf[1024];
	int ret = 0;

	while (refs && *refs && !ret) {
		size_t n = strcspn(refs, " ");

		if (n && n < sizeof(buf)) {
			memcpy(buf, refs, n);
			buf[n] = 0;
			if (!strset_has(&a->ids, buf))
				ret = strq_push(&a->idq, buf);
		} else if (n) {
			char *t = strndup(refs, n);

			ret = t ? (strset_has(&a->ids, t) ?
					   0 :
					   strq_push(&a->idq, t)) :
				  rb_err(RB_ENOMEM, "out of memory");
			free(t);
		}
		refs += n;
		refs += strspn(refs, " ");
		if (!spend(a, 1))
			break;
	}
	return ret;
}

/* Takes the message of @r into the part being assembled (once), and
 * queues what it ties to. Never queries: it runs inside one. */
static int take(struct asm_state *a, const struct rb_msgmeta *meta,
		int64_t arrival, const char *join_key)
{
	struct amsg *m;
	bool added, oom = false;
	int ret;

	ret = strset_add(&a->loaded, meta->msg.message_id, &added);
	if (ret || !added)
		return ret;
	if (!spend(a, 1))
		return 0;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		struct amsg *v = realloc(a->msgs, cap * sizeof(*v));

		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		a->msgs = v;
		a->cap = cap;
	}
	m = &a->msgs[a->n];
	memset(m, 0, sizeof(*m));
	m->id = dup_opt(meta->msg.message_id, &oom);
	m->subject = dup_opt(meta->msg.subject, &oom);
	m->from_addr = dup_opt(meta->msg.from_addr, &oom);
	m->from_name = dup_opt(meta->msg.from_name, &oom);
	m->irt = dup_opt(meta->msg.in_reply_to, &oom);
	m->change_id = dup_opt(meta->msg.change_id, &oom);
	m->refs = dup_opt(meta->references, &oom);
	m->date = meta->msg.date;
	m->arrival = arrival;
	m->body = meta->msg.body;
	m->body_unknown = meta->body_unknown;
	a->n++;
	if (oom)
		return rb_err(RB_ENOMEM, "out of memory");
	if (!strset_has(&a->ids, m->id))
		ret = strq_push(&a->idq, m->id);
	if (!ret && m->irt && *m->irt && !strset_has(&a->ids, m->irt))
		ret = strq_push(&a->idq, m->irt);
	if (!ret)
		ret = push_refs(a, m->refs);
	if (!ret && join_key && !strset_has(&a->joins, join_key))
		ret = strq_push(&a->joinq, join_key);
	return ret;
}

static int take_row(const struct rb_asm_row *r, void *payload)
{
	struct asm_state *a = payload;
	int ret = take(a, r->meta, r->arrival, r->join_key);

	/* Stop the query once the budget is spent. */
	return ret ? ret : a->over ? 1 : 0;
}

/* ------------------------------------------- the new messages indexed */

/* @refs (space-separated) split in place into *@v (owned array). */
static int split_refs(char *refs, const char ***v, size_t *n)
{
	size_t max = 1;
	char *save = NULL, *t, *c;

	for (c = refs; *c; c++)
		max += *c == ' ';
	*n = 0;
	*v = calloc(max, sizeof(**v));
	if (!*v)
		return rb_err(RB_ENOMEM, "out of memory");
	for (t = strtok_r(refs, " ", &save); t && *n < max;
	     t = strtok_r(NULL, " ", &save))
		(*v)[(*n)++] = t;
	return 0;
}

static bool reads(const struct rb_asm_row *r)
{
	const char *k = r->meta->kind;

	return r->state && !strcmp(r->state, "parsed") && k &&
	       (!strcmp(k, "patch") || !strcmp(k, "cover") ||
		!strcmp(k, "reply"));
}

struct index_ctx {
	struct asm_state *a;
	int64_t since; /* the first arrival of this pass's messages */
};

/*
 * One message no assembly has seen: the ids it ties to, in the store
 * (its arrival and join key were set as it was stored and parsed:
 * store_messages.c); a seed of the walk. Malformed and ignored mail is
 * only marked seen (the reply queue reads its arrival).
 */
static int index_one(const struct rb_asm_row *r, void *payload)
{
	struct index_ctx *x = payload;
	struct asm_state *a = x->a;
	struct rb_series_msg sm = r->meta->msg;
	const char **refv = NULL, **links = NULL;
	char *refs = NULL;
	size_t n_refs = 0, n = 0, i;
	int ret = 0;

	if (r->arrival < x->since)
		x->since = r->arrival;
	if (!reads(r))
		return rb_store_asm_index(a->p->st, sm.message_id, NULL, 0);
	if (r->meta->references && *r->meta->references) {
		refs = strdup(r->meta->references);
		ret = refs ? split_refs(refs, &refv, &n_refs) :
			     rb_err(RB_ENOMEM, "out of memory");
	}
	if (!ret) {
		links = calloc(n_refs + 1, sizeof(*links));
		if (!links)
			ret = rb_err(RB_ENOMEM, "out of memory");
	}
	if (ret)
		goto out;
	/* The edges of the assembly's thread_union(): itself left out. */
	if (sm.in_reply_to && *sm.in_reply_to &&
	    strcmp(sm.in_reply_to, sm.message_id))
		links[n++] = sm.in_reply_to;
	for (i = 0; i < n_refs; i++)
		if (*refv[i] && strcmp(refv[i], sm.message_id))
			links[n++] = refv[i];
	ret = rb_store_asm_index(a->p->st, sm.message_id, links, n);
	if (!ret && !a->full)
		ret = take(a, r->meta, r->arrival, r->join_key);
out:
	free(links);
	free(refv);
	free(refs);
	return ret;
}

/* ------------------------------------------------------- the walk */

static int old_series(const char *id, const char *ck, const char *tk,
		      void *payload)
{
	struct asm_state *a = payload;
	char k[RB_SHA256_HEX + 2];
	bool added;
	int ret = strset_add(&a->old, id, &added);

	/* Its keys as they were: the series that shared them may now have
	 * another previous version. */
	if (!ret && ck && strlen(ck) < sizeof(k) - 1) {
		snprintf(k, sizeof(k), "c%s", ck);
		if (!strset_has(&a->keys, k))
			ret = strq_push(&a->keyq, k);
	}
	if (!ret && tk && strlen(tk) < sizeof(k) - 1) {
		snprintf(k, sizeof(k), "t%s", tk);
		if (!strset_has(&a->keys, k))
			ret = strq_push(&a->keyq, k);
	}
	return ret;
}

static int push_part(const char *message_id, void *payload)
{
	struct asm_state *a = payload;

	if (!spend(a, 1))
		return 1;
	return strset_has(&a->ids, message_id) ? 0 :
						 strq_push(&a->idq, message_id);
}

/*
 * Drains the queues: each id's message and the messages that name it,
 * each join key's messages, each link key's series; the stored series
 * of every message loaded, whose keys are followed too. Stops early
 * when the budget is spent (a->over).
 */
static int walk(struct asm_state *a)
{
	struct rb_store *st = a->p->st;
	int ret = 0;
	bool added;

	while (!ret && !a->over) {
		if (a->idq.head < a->idq.n) {
			const char *id = a->idq.v[a->idq.head++];

			ret = strset_add(&a->ids, id, &added);
			if (ret || !added || !spend(a, 1))
				continue;
			ret = rb_store_asm_by_id(st, id, take_row, a);
			if (!ret && !a->over)
				ret = rb_store_asm_linking(
					st, id,
					(int64_t)(a->budget - a->work) + 1,
					take_row, a);
		} else if (a->joinq.head < a->joinq.n) {
			const char *k = a->joinq.v[a->joinq.head++];

			ret = strset_add(&a->joins, k, &added);
			if (ret || !added || !spend(a, 1))
				continue;
			ret = rb_store_asm_by_join(
				st, k, (int64_t)(a->budget - a->work) + 1,
				take_row, a);
		} else if (a->scanned < a->n) {
			ret = rb_store_asm_series_of(
				st, a->msgs[a->scanned++].id, old_series, a);
			spend(a, 1);
		} else if (a->keyq.head < a->keyq.n) {
			const char *k = a->keyq.v[a->keyq.head++];

			ret = strset_add(&a->keys, k, &added);
			if (ret || !added || !spend(a, 1))
				continue;
			ret = rb_store_asm_parts_by_key(
				st, k[0] == 'c', k + 1,
				(int64_t)(a->budget - a->work) + 1, push_part,
				a);
		} else {
			break;
		}
	}
	return ret;
}

/* --------------------------------------------------- assembling */

/* One message into the set: from the metadata the parse stored, or,
 * for a message stored by a version that kept no body facts, from its
 * bytes. */
static int add_msg(struct asm_state *a, struct rb_series_set *set,
		   const struct amsg *m)
{
	struct rb_series_msg sm = {
		.message_id = m->id,
		.subject = m->subject,
		.from_addr = m->from_addr,
		.from_name = m->from_name,
		.date = m->date,
		.in_reply_to = m->irt,
		.change_id = m->change_id,
		.body = m->body,
	};
	struct rb_parse_opts opts = RB_PARSE_OPTS_INIT;
	struct rb_msgrow row = { 0 };
	struct rb_message *msg = NULL;
	const char **refv = NULL;
	char *refs = NULL;
	int ret = 0;

	if (m->body_unknown) {
		ret = rb_store_get_raw(a->p->st, m->id, &row);
		if (ret)
			return ret;
		opts.max_size = rb_series_max_size(a->p->cfg);
		opts.received_at = row.received_at;
		if (!rb_message_parse(&msg, row.raw, row.len, &opts)) {
			ret = rb_series_set_add(set, msg);
			rb_message_free(msg);
		}
		rb_msgrow_release(&row);
		return ret;
	}
	if (m->refs && *m->refs) {
		refs = strdup(m->refs);
		ret = refs ? split_refs(refs, &refv, &sm.n_references) :
			     rb_err(RB_ENOMEM, "out of memory");
		sm.references = refv;
	}
	if (!ret)
		ret = rb_series_set_add_msg(set, &sm);
	free(refv);
	free(refs);
	return ret;
}

static int by_arrival(const void *x, const void *y)
{
	const struct amsg *a = x, *b = y;

	return (a->arrival > b->arrival) - (a->arrival < b->arrival);
}

/* The full assembly reads every message through this. */
static int add_row(const struct rb_asm_row *r, void *payload)
{
	void **pp = payload;
	struct asm_state *a = pp[0];
	struct rb_series_set *set = pp[1];
	const struct rb_msgmeta *meta = r->meta;
	struct amsg m = {
		.id = (char *)meta->msg.message_id,
		.subject = (char *)meta->msg.subject,
		.from_addr = (char *)meta->msg.from_addr,
		.from_name = (char *)meta->msg.from_name,
		.irt = (char *)meta->msg.in_reply_to,
		.change_id = (char *)meta->msg.change_id,
		.refs = (char *)meta->references,
		.date = meta->msg.date,
		.arrival = r->arrival,
		.body = meta->msg.body,
		.body_unknown = meta->body_unknown,
	};

	return add_msg(a, set, &m);
}

/* Makes *@out: the whole store's series, or those of a->msgs. */
static int assemble_set(struct asm_state *a, struct rb_series_set **out)
{
	struct rb_series_set *set = NULL;
	size_t i;
	int ret = rb_series_set_new(&set);

	if (ret)
		return ret;
	if (a->full) {
		void *pp[2] = { a, set };

		ret = rb_store_asm_each(a->p->st, add_row, pp);
	} else {
		qsort(a->msgs, a->n, sizeof(*a->msgs), by_arrival);
		for (i = 0; i < a->n && !ret; i++)
			ret = add_msg(a, set, &a->msgs[i]);
	}
	if (!ret)
		ret = rb_series_set_assemble(set);
	if (ret) {
		rb_series_set_free(set);
		return ret;
	}
	*out = set;
	return 0;
}

/* The hashed link keys of @s into @ck (empty without) and @tk. */
static int series_keys(const struct rb_series *s, char ck[RB_SHA256_HEX],
		       char tk[RB_SHA256_HEX])
{
	char *c = NULL, *t = NULL;
	int ret = rb_series_link_keys(s, &c, &t);

	if (ret)
		return ret;
	ck[0] = 0;
	if (c)
		rb_sha256_hex(ck, c, strlen(c));
	rb_sha256_hex(tk, t, strlen(t));
	free(c);
	free(t);
	return 0;
}

/*
 * Follows the link keys of the series @set makes: a series of another
 * thread that shares one must be assembled with them. *@more says
 * whether that loaded anything.
 */
static int follow_keys(struct asm_state *a, const struct rb_series_set *set,
		       bool *more)
{
	char ck[RB_SHA256_HEX], tk[RB_SHA256_HEX], k[RB_SHA256_HEX + 2];
	size_t i, before = a->n;
	int ret = 0;

	for (i = 0; i < rb_series_set_count(set) && !ret; i++) {
		ret = series_keys(rb_series_set_get(set, i), ck, tk);
		if (!ret && ck[0]) {
			snprintf(k, sizeof(k), "c%s", ck);
			if (!strset_has(&a->keys, k))
				ret = strq_push(&a->keyq, k);
		}
		if (!ret) {
			snprintf(k, sizeof(k), "t%s", tk);
			if (!strset_has(&a->keys, k))
				ret = strq_push(&a->keyq, k);
		}
	}
	if (!ret)
		ret = walk(a);
	*more = a->n != before;
	return ret;
}

/* The jobs of one series that assembly changed, in the transaction. */
static int queue_series(struct rb_pipeline *p, const struct rb_series *s,
			int64_t now)
{
	int64_t wait = (int64_t)p->cfg->incomplete_wait_minutes * 60;
	int ret;

	if (s->complete) {
		ret = rb_store_job_add(p->st, "review", s->id, now);
		if (ret == -RB_EEXISTS)
			ret = 0;
		/* The missing parts came in time: no "incomplete". */
		if (!ret)
			ret = rb_store_job_cancel(p->st, "incomplete", s->id);
	} else {
		/*
		 * The wait runs from when the series was first seen
		 * incomplete (the job is added once), or from its newest
		 * part's Date when that is later: a series whose mail was
		 * delayed past its Date still gets the whole wait for its
		 * other parts.
		 */
		int64_t from = s->last_date > now ? s->last_date : now;
		int64_t due = p->force_complete ? now : from + wait;

		ret = rb_store_job_add(p->st, "incomplete", s->id, due);
		if (ret == -RB_EEXISTS)
			ret = 0;
	}
	return ret;
}

static int collect_live(const char *id, void *payload)
{
	struct asm_state *a = payload;
	bool added;

	return strset_add(&a->old, id, &added);
}

/* A series of the set and its newest part's arrival. */
struct by_when {
	size_t i;
	int64_t at;
};

static int amsg_id_cmp(const void *x, const void *y)
{
	return strcmp((*(const struct amsg *const *)x)->id,
		      (*(const struct amsg *const *)y)->id);
}

static int when_cmp(const void *x, const void *y)
{
	const struct by_when *a = x, *b = y;

	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static int64_t arrival_of(struct amsg **ids, size_t n, const char *id)
{
	struct amsg k = { .id = (char *)id }, *kp = &k, **e;

	if (!id || !n)
		return 0;
	e = bsearch(&kp, ids, n, sizeof(*ids), amsg_id_cmp);
	return e ? (*e)->arrival : 0;
}

/*
 * The set's series in the order they arrived (issue 38): by the arrival
 * of their newest part, which follows the order the messages were
 * stored (messages.stored_us), so the jobs of a burst are queued, and
 * claimed, as its series came in, not by Message-ID. *@out is the
 * caller's to free.
 */
static int arrival_order(struct by_when **out, const struct asm_state *a,
			 const struct rb_series_set *set)
{
	size_t n = rb_series_set_count(set), i;
	struct amsg **ids = calloc(a->n ? a->n : 1, sizeof(*ids));
	struct by_when *o = calloc(n ? n : 1, sizeof(*o));
	int k;

	if (!ids || !o) {
		free(ids);
		free(o);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	for (i = 0; i < a->n; i++)
		ids[i] = &a->msgs[i];
	if (a->n)
		qsort(ids, a->n, sizeof(*ids), amsg_id_cmp);
	for (i = 0; i < n; i++) {
		const struct rb_series *s = rb_series_set_get(set, i);
		int64_t t = arrival_of(ids, a->n, s->cover);

		for (k = 0; k < s->total; k++) {
			int64_t u = arrival_of(ids, a->n, s->patches[k]);

			if (u > t)
				t = u;
		}
		o[i].i = i;
		o[i].at = t;
	}
	if (n)
		qsort(o, n, sizeof(*o), when_cmp);
	free(ids);
	*out = o;
	return 0;
}

/*
 * Saves what @set made: each series that differs from what is stored,
 * with its jobs (a series that did not change has its jobs already);
 * the stored series that no longer come out of assembly are dropped.
 */
static int save(struct asm_state *a, const struct rb_series_set *set,
		int64_t now)
{
	struct rb_pipeline *p = a->p;
	struct strset made = { 0 };
	struct by_when *order = NULL;
	char ck[RB_SHA256_HEX], tk[RB_SHA256_HEX];
	size_t i;
	bool changed, added;
	int ret = 0;

	if (a->full)
		ret = rb_store_asm_each_series(p->st, collect_live, a);
	if (!ret)
		ret = arrival_order(&order, a, set);
	for (i = 0; i < rb_series_set_count(set) && !ret; i++) {
		const struct rb_series *s = rb_series_set_get(set, order[i].i);

		ret = series_keys(s, ck, tk);
		if (!ret)
			ret = strset_add(&made, s->id, &added);
		if (!ret)
			ret = rb_store_asm_put_series(
				p->st, s, ck[0] ? ck : NULL, tk, &changed);
		if (!ret && changed) {
			ret = queue_series(p, s, now);
			p->stats.series++;
		}
	}
	for (i = 0; i < a->old.cap && !ret; i++)
		if (a->old.v[i] && !strset_has(&made, a->old.v[i]))
			ret = rb_store_asm_drop_series(p->st, a->old.v[i]);
	strset_release(&made);
	free(order);
	return ret;
}

static void state_release(struct asm_state *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		amsg_release(&a->msgs[i]);
	free(a->msgs);
	a->msgs = NULL;
	a->n = a->cap = a->scanned = 0;
	strset_release(&a->loaded);
	strset_release(&a->ids);
	strset_release(&a->joins);
	strset_release(&a->keys);
	strset_release(&a->old);
	strq_release(&a->idq);
	strq_release(&a->joinq);
	strq_release(&a->keyq);
}

/* The part of the store that the seeds touch, assembled into *@out;
 * a->over when it grew past the budget. */
static int assemble_part(struct asm_state *a, struct rb_series_set **out)
{
	struct rb_series_set *set = NULL;
	bool more = true;
	int ret = walk(a);

	while (!ret && !a->over && more) {
		rb_series_set_free(set);
		set = NULL;
		ret = assemble_set(a, &set);
		if (!ret)
			ret = follow_keys(a, set, &more);
	}
	if (ret || a->over) {
		rb_series_set_free(set);
		return ret;
	}
	*out = set;
	return 0;
}

int rb_assemble(struct rb_pipeline *p, bool full)
{
	struct asm_state a = { .p = p, .budget = RB_ASSEMBLE_BUDGET };
	struct rb_series_set *set = NULL;
	struct index_ctx x = { &a, INT64_MAX };
	int64_t now = rb_now(), pending = 0;
	size_t replies = 0;
	int ret;

	rb_test_assemble_budget(&a.budget);
	ret = rb_store_begin(p->st);
	if (ret)
		return ret;
	ret = rb_store_asm_pending_count(p->st, &pending);
	a.full = full || pending > RB_ASSEMBLE_FULL_AT;
	if (!ret && pending)
		ret = rb_store_asm_each_pending(p->st, index_one, &x);
	a.since = x.since;
	if (!ret && !a.full && a.n)
		ret = assemble_part(&a, &set);
	if (!ret && !a.full && a.over) {
		rb_log(RB_LOG_INFO, "assemble.full", "reason",
		       "the new mail touches more than the budget", NULL);
		state_release(&a);
		a.full = true;
	}
	if (!ret && a.full)
		ret = assemble_set(&a, &set);
	if (!ret && set)
		ret = save(&a, set, now);
	/*
	 * Replies that answer one of our reviews become feedback jobs, in
	 * the same transaction: a verdict is judged before any review job
	 * queued after it (jobs run oldest first), so a verdict on v2
	 * already suppresses its finding in v3. Other replies are marked
	 * looked at, once.
	 */
	if (!ret)
		ret = rb_store_queue_replies(p->st, now, a.since, &replies);
	if (!ret)
		ret = rb_store_commit(p->st);
	else
		rb_store_rollback(p->st);
	rb_series_set_free(set);
	state_release(&a);
	if (!ret)
		rb_fault_point("assemble");
	return ret;
}
