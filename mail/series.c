// SPDX-License-Identifier: GPL-2.0-only
/*
 * series.c - series assembly, following b4 0.12 (b4/__init__.py:
 * LoreMailbox.add_message, get_series, partial_reroll; LoreSubject;
 * LoreMessage's has_diff, has_diffstat and follow-up trailers) so that
 * `reviewbot series` picks the same patches as `b4 am -m MBOX -v N MSGID`,
 * plus what b4 does not do: many threads at once, versions linked across
 * threads (change-id:, then the same title and author), and patchwork's
 * fallback for mail without any threading header. What b4 reads of one
 * message (its body, its subject) is series_msg.c.
 *
 * Memory: per message only its ids (interned), flags, numbers, sender,
 * title, date and change-id; threads come from a union-find over the
 * interned ids, so the whole 30k-message corpus costs a few MB and linear
 * time.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/message.h"
#include "mail/series.h"
#include "mail/series_priv.h"
#include "mail/subject.h"
#include "util/err.h"
#include "util/banned.h"

#define NONE UINT32_MAX
/* b4 reads counters with \d{1,4}: anything bigger is not a counter. */
#define MAX_COUNTER 9999
#define DEFAULT_WINDOW (12 * 3600)
/* Bound on walks up In-Reply-To chains: hostile ids may form a cycle. */
#define MAX_WALK 4096

enum {
	F_DIFF = 1 << 0, /* b4 DIFF_RE matches the body */
	F_DIFFSTAT = 1 << 1, /* b4 DIFFSTAT_RE matches the body */
	F_REPLY = 1 << 2, /* b4's "reply": Re:-like subject, or trailers */
	F_SUBJ_REPLY = 1 << 3, /* the subject says it is a reply */
	F_CINF = 1 << 4, /* no N/M in the subject: counters inferred */
	F_RINF = 1 << 5, /* no vN in the subject: revision inferred */
	F_PATCHPFX = 1 << 6, /* a PATCH prefix */
	F_RESEND = 1 << 7,
	F_PULL = 1 << 8, /* [GIT PULL] */
	F_NOTHREAD = 1 << 9, /* neither In-Reply-To nor References */
	F_TRAILERS = 1 << 10, /* follow-up trailers in the body */
	F_ACK = 1 << 11, /* Acked-by, Reviewed-by, Tested-by, ... */
	F_BOT = 1 << 12, /* a known bot, or our own mail */
	F_DONE = 1 << 13, /* seen by the per-thread pass (b4's msgid_map) */
};

struct node {
	char *id;
	uint32_t parent; /* union-find over ids: threads */
	uint32_t msg; /* the message with this id, or NONE (only referenced) */
};

struct ent {
	uint32_t node;
	uint32_t irt; /* node of In-Reply-To, or NONE */
	uint32_t *refs; /* nodes of References, oldest first */
	uint32_t n_refs;
	char *from;
	char *name; /* the From: display name, or NULL */
	char *title;
	char *change_id;
	int64_t date;
	int rev, erev; /* revision from the subject; as b4 settles it */
	int counter, expected;
	uint32_t flags;
	uint32_t answers; /* message index, or NONE */
	uint32_t series; /* series index, or NONE */
	uint8_t kind;
};

/* A series while one thread is assembled (b4's LoreSeries). */
struct tser {
	int rev;
	uint32_t *slot; /* message indexes, NONE when missing; [len] */
	size_t len;
	bool complete;
	bool partial;
	bool used;
	uint32_t title_msg;
	size_t out; /* index in set->series */
};

struct rb_series_set {
	struct node *nodes;
	size_t n_nodes, cap_nodes;
	uint32_t *hash; /* node index + 1; 0 is empty */
	size_t cap_hash;
	struct ent *ents;
	size_t n_ents, cap_ents;
	struct rb_series *series;
	size_t n_series;
	int64_t window;
};

/* ---------------------------------------------------------------- ids */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

static int hash_grow(struct rb_series_set *set)
{
	size_t cap = set->cap_hash ? set->cap_hash * 2 : 1024;
	uint32_t *h = calloc(cap, sizeof(*h));
	size_t i;

	if (!h)
		return rb_err(RB_ENOMEM, "out of memory for the id table");
	for (i = 0; i < set->n_nodes; i++) {
		size_t p = hash_str(set->nodes[i].id) & (cap - 1);

		while (h[p])
			p = (p + 1) & (cap - 1);
		h[p] = (uint32_t)i + 1;
	}
	free(set->hash);
	set->hash = h;
	set->cap_hash = cap;
	return 0;
}

static uint32_t node_find(const struct rb_series_set *set, const char *id)
{
	size_t p;

	if (!set->cap_hash)
		return NONE;
	p = hash_str(id) & (set->cap_hash - 1);
	while (set->hash[p]) {
		uint32_t n = set->hash[p] - 1;

		if (!strcmp(set->nodes[n].id, id))
			return n;
		p = (p + 1) & (set->cap_hash - 1);
	}
	return NONE;
}

/* Interns @id; *out is its node. */
static int node_intern(uint32_t *out, struct rb_series_set *set, const char *id)
{
	uint32_t n = node_find(set, id);
	size_t p;
	int ret;

	if (n != NONE) {
		*out = n;
		return 0;
	}
	if ((set->n_nodes + 1) * 2 > set->cap_hash) {
		ret = hash_grow(set);
		if (ret)
			return ret;
	}
	if (set->n_nodes == set->cap_nodes) {
		size_t cap = set->cap_nodes ? set->cap_nodes * 2 : 1024;
		struct node *v = realloc(set->nodes, cap * sizeof(*v));

		if (!v)
			return rb_err(RB_ENOMEM, "out of memory for ids");
		set->nodes = v;
		set->cap_nodes = cap;
	}
	n = (uint32_t)set->n_nodes;
	set->nodes[n].id = strdup(id);
	if (!set->nodes[n].id)
		return rb_err(RB_ENOMEM, "out of memory for ids");
	set->nodes[n].parent = n;
	set->nodes[n].msg = NONE;
	set->n_nodes++;
	p = hash_str(id) & (set->cap_hash - 1);
	while (set->hash[p])
		p = (p + 1) & (set->cap_hash - 1);
	set->hash[p] = n + 1;
	*out = n;
	return 0;
}

static uint32_t uf_find(struct node *nodes, uint32_t n)
{
	while (nodes[n].parent != n) {
		nodes[n].parent = nodes[nodes[n].parent].parent;
		n = nodes[n].parent;
	}
	return n;
}

static void uf_union(struct node *nodes, uint32_t a, uint32_t b)
{
	a = uf_find(nodes, a);
	b = uf_find(nodes, b);
	if (a == b)
		return;
	/* The smaller index wins, so roots are stable and deterministic. */
	if (a < b)
		nodes[b].parent = a;
	else
		nodes[a].parent = b;
}

/* -------------------------------------------------------------- API */

int rb_series_set_new(struct rb_series_set **out)
{
	struct rb_series_set *set = calloc(1, sizeof(*set));

	if (!set)
		return rb_err(RB_ENOMEM, "out of memory for a series set");
	set->window = DEFAULT_WINDOW;
	*out = set;
	return 0;
}

static void series_clear(struct rb_series_set *set)
{
	size_t i;

	for (i = 0; i < set->n_series; i++)
		free(set->series[i].patches);
	free(set->series);
	set->series = NULL;
	set->n_series = 0;
}

void rb_series_set_free(struct rb_series_set *set)
{
	size_t i;

	if (!set)
		return;
	series_clear(set);
	for (i = 0; i < set->n_ents; i++) {
		free(set->ents[i].refs);
		free(set->ents[i].from);
		free(set->ents[i].name);
		free(set->ents[i].title);
		free(set->ents[i].change_id);
	}
	for (i = 0; i < set->n_nodes; i++)
		free(set->nodes[i].id);
	free(set->ents);
	free(set->nodes);
	free(set->hash);
	free(set);
}

void rb_series_set_window(struct rb_series_set *set, int64_t seconds)
{
	set->window = seconds;
}

size_t rb_series_set_messages(const struct rb_series_set *set)
{
	return set->n_ents;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* @m's In-Reply-To and References as nodes of @set (itself left out). */
static int ent_threading(struct ent *e, struct rb_series_set *set,
			 const struct rb_series_msg *m)
{
	size_t i;
	int ret;

	if (m->in_reply_to && *m->in_reply_to &&
	    strcmp(m->in_reply_to, m->message_id)) {
		ret = node_intern(&e->irt, set, m->in_reply_to);
		if (ret)
			return ret;
	}
	if (!m->n_references)
		return 0;
	e->refs = calloc(m->n_references, sizeof(*e->refs));
	if (!e->refs)
		return rb_err(RB_ENOMEM, "out of memory for references");
	for (i = 0; i < m->n_references; i++) {
		uint32_t r;

		if (!m->references[i] || !*m->references[i] ||
		    !strcmp(m->references[i], m->message_id))
			continue;
		ret = node_intern(&r, set, m->references[i]);
		if (ret)
			return ret;
		e->refs[e->n_refs++] = r;
	}
	return 0;
}

/* What b4 reads from the subject and the body: e->flags, the revision
 * and the counters. */
static void ent_b4(struct ent *e, const struct rb_series_msg *m,
		   const struct rb_subject *sj)
{
	struct b4_subject b;

	/* b4's rule, not rb_subject's: "[PATCH] Re: foo" is a patch. */
	if (rb_series__subject_is_reply(m->subject))
		e->flags |= F_SUBJ_REPLY | F_REPLY;
	if (m->body & RB_SERIES_BODY_DIFF)
		e->flags |= F_DIFF;
	if (m->body & RB_SERIES_BODY_DIFFSTAT)
		e->flags |= F_DIFFSTAT;
	if (e->irt == NONE && !e->n_refs)
		e->flags |= F_NOTHREAD;
	if (sj->is_pull)
		e->flags |= F_PULL;
	if (rb_series__is_bot(m))
		e->flags |= F_BOT;
	/* A reply's subject is not parsed by b4: v1, 1/1 inferred. */
	e->rev = 1;
	e->counter = 1;
	e->expected = 1;
	e->flags |= F_CINF | F_RINF;
	if (!(e->flags & F_SUBJ_REPLY)) {
		rb_series__b4_subject_parse(&b, m->subject);
		if (b.patch)
			e->flags |= F_PATCHPFX;
		if (b.resend)
			e->flags |= F_RESEND;
		e->rev = b.revision;
		if (!b.rinf)
			e->flags &= ~F_RINF;
		if (!b.cinf) {
			e->counter = b.counter;
			/* [PATCH 6/5] */
			e->expected = b.counter > b.expected ? b.counter :
							       b.expected;
			e->flags &= ~F_CINF;
		}
	}
	if (m->body & RB_SERIES_BODY_TRAILERS)
		e->flags |= F_TRAILERS;
	if (m->body & RB_SERIES_BODY_ACK)
		e->flags |= F_ACK;
	/* b4: trailers in a reply without a diff make it a follow-up. */
	if ((e->flags & F_TRAILERS) && e->irt != NONE && !(e->flags & F_DIFF))
		e->flags |= F_REPLY;
}

/* The entry's copies of @m's sender, title and change-id. */
static int ent_strings(struct ent *e, const struct rb_series_msg *m,
		       const struct rb_subject *sj)
{
	e->date = m->date;
	e->from = dup_or_null(m->from_addr ? m->from_addr : "");
	e->name = dup_or_null(m->from_name);
	e->title = dup_or_null(sj->title ? sj->title : m->subject);
	e->change_id = dup_or_null(m->change_id);
	if (!e->from || (m->from_name && !e->name) ||
	    (!e->title && (sj->title || m->subject)) ||
	    (m->change_id && !e->change_id))
		return rb_err(RB_ENOMEM, "out of memory for a message");
	return 0;
}

int rb_series_set_add(struct rb_series_set *set, const struct rb_message *m)
{
	struct rb_series_msg sm;

	rb_series_msg_of(&sm, m);
	return rb_series_set_add_msg(set, &sm);
}

int rb_series_set_add_msg(struct rb_series_set *set,
			  const struct rb_series_msg *m)
{
	struct rb_subject sj = { 0 };
	struct ent e = { 0 };
	uint32_t n;
	int ret;

	if (!m->message_id || !*m->message_id)
		return rb_err(RB_EINVAL, "a message without a Message-ID");
	n = node_find(set, m->message_id);
	if (n != NONE && set->nodes[n].msg != NONE)
		return -RB_EEXISTS; /* cross-posted: stored once */
	if (set->n_ents >= NONE - 1 || set->n_nodes >= NONE / 4)
		return rb_err(RB_ETOOBIG, "too many messages in one set");

	ret = node_intern(&e.node, set, m->message_id);
	if (ret)
		return ret;
	e.irt = NONE;
	e.answers = NONE;
	e.series = NONE;
	ret = ent_threading(&e, set, m);
	if (!ret)
		ret = rb_subject_parse(&sj, m->subject ? m->subject : "");
	if (ret)
		goto fail;
	ent_b4(&e, m, &sj);
	ret = ent_strings(&e, m, &sj);
	if (ret)
		goto fail;
	if (set->n_ents == set->cap_ents) {
		size_t cap = set->cap_ents ? set->cap_ents * 2 : 1024;
		struct ent *v = realloc(set->ents, cap * sizeof(*v));

		if (!v) {
			ret = rb_err(RB_ENOMEM, "out of memory for messages");
			goto fail;
		}
		set->ents = v;
		set->cap_ents = cap;
	}
	set->nodes[e.node].msg = (uint32_t)set->n_ents;
	set->ents[set->n_ents++] = e;
	rb_subject_release(&sj);
	return 0;
fail:
	rb_subject_release(&sj);
	free(e.refs);
	free(e.from);
	free(e.name);
	free(e.title);
	free(e.change_id);
	return ret;
}

/* ----------------------------------------------------- the assembly */

/* The first part of a revision of the thread, whose sender owns it. */
struct rev_owner {
	int rev;
	uint32_t msg;
};

struct asm_ctx {
	struct rb_series_set *set;
	struct tser *ts; /* this thread's series */
	size_t n_ts, cap_ts;
	uint32_t *covers; /* [rev] = message, per thread: pairs */
	int *cover_rev;
	size_t n_covers, cap_covers;
	struct rb_series *out;
	size_t n_out, cap_out;
	uint32_t *out_first; /* first arrival of each output series */
	uint32_t *out_prev_local; /* same-thread previous (out index) */
	bool thread_unthreaded;
	struct rev_owner *owners; /* per thread: owner() */
	size_t n_owners, cap_owners;
};

static bool seen(const struct asm_ctx *c, uint32_t node, uint32_t *msg)
{
	uint32_t m;

	if (node == NONE)
		return false;
	m = c->set->nodes[node].msg;
	if (m == NONE || !(c->set->ents[m].flags & F_DONE))
		return false;
	*msg = m;
	return true;
}

static struct tser *ts_find(struct asm_ctx *c, int rev)
{
	size_t i;

	for (i = 0; i < c->n_ts; i++)
		if (c->ts[i].rev == rev)
			return &c->ts[i];
	return NULL;
}

static int ts_resize(struct tser *s, size_t len)
{
	uint32_t *v;
	size_t i;

	if (s->len >= len)
		return 0;
	v = realloc(s->slot, len * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory for a series");
	for (i = s->len; i < len; i++)
		v[i] = NONE;
	s->slot = v;
	s->len = len;
	return 0;
}

/* b4: self.series[rev] = LoreSeries(rev, expected), replacing any. */
static int ts_new(struct tser **out, struct asm_ctx *c, int rev, int expected)
{
	struct tser *s = ts_find(c, rev);
	int ret;

	if (!s) {
		if (c->n_ts == c->cap_ts) {
			size_t cap = c->cap_ts ? c->cap_ts * 2 : 8;
			struct tser *v = realloc(c->ts, cap * sizeof(*v));

			if (!v)
				return rb_err(RB_ENOMEM, "out of memory");
			c->ts = v;
			c->cap_ts = cap;
		}
		s = &c->ts[c->n_ts++];
		memset(s, 0, sizeof(*s));
	}
	free(s->slot);
	memset(s, 0, sizeof(*s));
	s->rev = rev;
	s->title_msg = NONE;
	ret = ts_resize(s, (size_t)expected + 1);
	if (ret)
		return ret;
	*out = s;
	return 0;
}

static void ts_update(struct asm_ctx *c, struct tser *s)
{
	size_t i;

	s->complete = true;
	for (i = 1; i < s->len; i++)
		if (s->slot[i] == NONE)
			s->complete = false;
	if (s->slot[0] != NONE)
		s->title_msg = s->slot[0];
	else if (s->len > 1 && s->slot[1] != NONE)
		s->title_msg = s->slot[1];
	(void)c;
}

/* b4 LoreSeries.add_patch */
static int ts_add(struct asm_ctx *c, struct tser *s, uint32_t m)
{
	const struct ent *e = &c->set->ents[m];
	int ret = ts_resize(s, (size_t)e->expected + 1);

	if (ret)
		return ret;
	if (s->slot[e->counter] != NONE) {
		const struct ent *o = &c->set->ents[s->slot[e->counter]];

		if ((o->flags & F_REPLY) ||
		    ((o->flags & F_CINF) && !(e->flags & F_CINF)))
			s->slot[e->counter] = m;
	} else {
		s->slot[e->counter] = m;
	}
	ts_update(c, s);
	return 0;
}

/*
 * Every 0/N of the thread is kept, in arrival order: which one a series
 * takes depends on who sent it (series_cover()).
 */
static int cover_add(struct asm_ctx *c, int rev, uint32_t m)
{
	if (c->n_covers == c->cap_covers) {
		size_t cap = c->cap_covers ? c->cap_covers * 2 : 8;
		uint32_t *v = realloc(c->covers, cap * sizeof(*v));
		int *r;

		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		c->covers = v;
		r = realloc(c->cover_rev, cap * sizeof(*r));
		if (!r)
			return rb_err(RB_ENOMEM, "out of memory");
		c->cover_rev = r;
		c->cap_covers = cap;
	}
	c->covers[c->n_covers] = m;
	c->cover_rev[c->n_covers++] = rev;
	return 0;
}

/*
 * Who owns revision @rev of the thread: the sender of its first part to
 * arrive (a patch or a 0/N), or NULL before any. A list poster can reply
 * into any thread, but not before the thread's first mail exists, so
 * the first part of a revision comes from whoever started it.
 */
static const struct ent *owner(const struct asm_ctx *c, int rev)
{
	size_t i;

	for (i = 0; i < c->n_owners; i++)
		if (c->owners[i].rev == rev)
			return &c->set->ents[c->owners[i].msg];
	return NULL;
}

/* A display name worth comparing: two words at least ("Ada Lovelace"),
 * not an address. */
static bool full_name(const char *n)
{
	return n && strchr(n, ' ') && !strchr(n, '@');
}

/*
 * Did the sender of @o send @e too? The same address, or the same full
 * name: one person posting from two addresses (on linux-api, v17 13/13
 * of openat2 came from the author's other address; b4 takes it). A
 * stranger posting as himself has neither; one who writes the author's
 * name or address could as well forge her From:, which only DKIM
 * tells, and he is still not an author who may judge (only the
 * series' address is, bot/stages/feedback.c).
 */
static bool same_sender(const struct ent *e, const struct ent *o)
{
	if (!e->from || !*e->from || !o->from)
		return false;
	if (!strcasecmp(e->from, o->from))
		return true;
	return full_name(e->name) && full_name(o->name) &&
	       !strcasecmp(e->name, o->name);
}

/*
 * May message @m be a part of revision @rev? Only when its sender is the
 * revision's owner (same_sender(); the first part makes its sender the
 * owner). Unlike b4, which takes a [PATCH 3/3] from anyone into a
 * missing slot, a stranger's part is left out of assembly: it would mix
 * his patch into the victim's review, and it made him an author who
 * may judge the victim's findings (issue 33). A B4 Relay series has one
 * From: per author (devnull+<author>@kernel.org), so the From: is the
 * check there too.
 */
static int part_ok(bool *ok, struct asm_ctx *c, int rev, uint32_t m)
{
	const struct ent *o = owner(c, rev);

	if (o) {
		*ok = same_sender(&c->set->ents[m], o);
		return 0;
	}
	if (c->n_owners == c->cap_owners) {
		size_t cap = c->cap_owners ? c->cap_owners * 2 : 8;
		struct rev_owner *v = realloc(c->owners, cap * sizeof(*v));

		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		c->owners = v;
		c->cap_owners = cap;
	}
	c->owners[c->n_owners].rev = rev;
	c->owners[c->n_owners++].msg = m;
	*ok = true;
	return 0;
}

/* b4 LoreMailbox.add_message, for a message of the current thread. */
static int add_one(struct asm_ctx *c, uint32_t m)
{
	struct ent *e = &c->set->ents[m];
	struct tser *s;
	uint32_t p;
	bool ok;
	int rev, ret;

	e->erev = e->rev;
	e->flags |= F_DONE;
	if (e->flags & (F_REPLY | F_PULL))
		return 0;
	if (e->counter == 0) {
		ret = part_ok(&ok, c, e->rev, m);
		return ret || !ok ? ret : cover_add(c, e->rev, m);
	}
	if (!(e->flags & F_DIFF))
		return 0;
	rev = e->rev;
	if (!ts_find(c, rev) && (e->flags & F_RINF) && seen(c, e->irt, &p)) {
		const struct ent *pe = &c->set->ents[p];

		if ((pe->flags & F_DIFFSTAT) && !(pe->flags & F_DIFF))
			rev = pe->erev;
		else if (e->counter > 0 && (pe->flags & F_DIFF) &&
			 pe->counter == 1)
			rev = pe->erev;
	}
	ret = part_ok(&ok, c, rev, m);
	if (ret || !ok)
		return ret;
	s = ts_find(c, rev);
	if (!s) {
		ret = ts_new(&s, c, rev, e->expected);
		if (ret)
			return ret;
	}
	/* b4: an unnumbered [PATCH] again from the same author is a new
	 * revision.
	 */
	if (e->counter == 1 && (e->flags & F_CINF) && (e->flags & F_PATCHPFX) &&
	    !(e->flags & F_RESEND) && s->len > 1 && s->slot[1] != NONE) {
		const struct ent *o = &c->set->ents[s->slot[1]];

		if ((o->flags & F_CINF) && !strcmp(o->from, e->from) &&
		    o->date < e->date) {
			rev = (int)c->n_ts + 1;
			ret = ts_new(&s, c, rev, e->expected);
			if (!ret)
				ret = part_ok(&ok, c, rev, m);
			if (ret)
				return ret;
		}
	}
	e->erev = rev;
	return ts_add(c, s, m);
}

/* b4 LoreMailbox.partial_reroll */
static int partial_reroll(struct asm_ctx *c, struct tser *s)
{
	struct rb_series_set *set = c->set;
	struct tser *ps;
	size_t at;
	int ret;

	if (s->rev <= 1)
		return 0;
	ps = ts_find(c, s->rev - 1);
	/* Only the owner's own earlier revision fills the gaps: anyone may
	 * post a "v2 2/3" in reply to another's v1 2/3. */
	if (!ps || !owner(c, s->rev) || !owner(c, ps->rev) ||
	    !same_sender(owner(c, s->rev), owner(c, ps->rev)))
		return 0;
	for (at = 0; at < s->len; at++) {
		const struct ent *e, *pe;
		uint32_t p;
		bool found = false;
		int steps;

		if (s->slot[at] == NONE)
			continue;
		e = &set->ents[s->slot[at]];
		if (!seen(c, e->irt, &p))
			return 0;
		pe = &set->ents[p];
		for (steps = 0; steps < MAX_WALK; steps++) {
			if (e->counter == pe->counter &&
			    e->expected == pe->expected) {
				found = true;
				break;
			}
			if (!seen(c, pe->irt, &p))
				break;
			pe = &set->ents[p];
		}
		if (!found)
			return 0;
	}
	/* b4 indexes the previous version by position; it would raise
	 * IndexError past its end, we stop there.
	 */
	/* Unlike b4, the previous version's cover is not taken over: a
	 * cover belongs to one version (patches are what parity checks).
	 */
	ret = 0;
	for (at = 1; at < s->len && at < ps->len; at++) {
		if (ps->slot[at] == NONE)
			continue;
		if (s->slot[at] == NONE)
			s->slot[at] = ps->slot[at];
	}
	ts_update(c, s);
	if (s->complete) {
		s->partial = true;
		s->title_msg = ps->title_msg;
	}
	return ret;
}

/*
 * May message @m be the cover of @s? Only when the series' owner sent
 * it: anyone can post a [PATCH 0/N] into someone else's thread, and b4
 * would take it (the last one wins), giving the series a new id, a new
 * author and a new review. Unlike b4, the cover of another sender is
 * left out of assembly. (An explicit 0/N was checked as it came,
 * add_one(); a diffstat-only parent of a patch is checked here.)
 */
static bool cover_ok(const struct asm_ctx *c, const struct tser *s, uint32_t m)
{
	const struct ent *o = owner(c, s->rev);

	return o && same_sender(&c->set->ents[m], o);
}

/* b4 LoreMailbox.get_series, for each revision of the thread. */
static int finish_ts(struct asm_ctx *c, struct tser *s)
{
	struct rb_series_set *set = c->set;
	size_t i;
	int ret;

	if (!s->complete) {
		ret = partial_reroll(c, s);
		if (ret)
			return ret;
	}
	/* b4: the last 0/N of the revision wins; here, the sender's last. */
	for (i = c->n_covers; i-- > 0;)
		if (c->cover_rev[i] == s->rev && cover_ok(c, s, c->covers[i]))
			return ts_add(c, s, c->covers[i]);
	for (i = 0; i < s->len; i++) {
		uint32_t p;

		if (s->slot[i] == NONE ||
		    !seen(c, set->ents[s->slot[i]].irt, &p))
			continue;
		/* b4 would also take another version's explicit 0/N. */
		if (set->ents[p].counter == 0 && set->ents[p].rev != s->rev)
			continue;
		if ((set->ents[p].flags & F_DIFFSTAT) &&
		    !(set->ents[p].flags & F_DIFF) && cover_ok(c, s, p)) {
			s->slot[0] = p;
			ts_update(c, s);
			break;
		}
	}
	return 0;
}

static int rev_cmp(const void *a, const void *b)
{
	const struct tser *x = a, *y = b;

	return (x->rev > y->rev) - (x->rev < y->rev);
}

static const char *msg_id(const struct rb_series_set *set, uint32_t m)
{
	return set->nodes[set->ents[m].node].id;
}

/* Room for one more output series in @c. */
static int out_reserve(struct asm_ctx *c)
{
	size_t cap;
	struct rb_series *v;
	uint32_t *f;

	if (c->n_out < c->cap_out)
		return 0;
	cap = c->cap_out ? c->cap_out * 2 : 256;
	v = realloc(c->out, cap * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	c->out = v;
	f = realloc(c->out_first, cap * sizeof(*f));
	if (!f)
		return rb_err(RB_ENOMEM, "out of memory");
	c->out_first = f;
	f = realloc(c->out_prev_local, cap * sizeof(*f));
	if (!f)
		return rb_err(RB_ENOMEM, "out of memory");
	c->out_prev_local = f;
	c->cap_out = cap;
	return 0;
}

/* The messages that name a series: the first part of its version, and
 * the earliest message of it. */
struct part_ids {
	uint32_t head, first;
};

/*
 * The parts of @s into @o with their dates, and @ids. Parts taken from
 * the previous version (partial reroll) do not name or date the series.
 */
static void emit_parts(struct rb_series *o, const struct rb_series_set *set,
		       const struct tser *s, struct part_ids *ids)
{
	size_t j;

	for (j = 0; j < s->len; j++) {
		const struct ent *e;

		if (s->slot[j] == NONE)
			continue;
		e = &set->ents[s->slot[j]];
		if (j == 0)
			o->cover = set->nodes[e->node].id;
		else
			o->patches[j - 1] = set->nodes[e->node].id;
		if (j && e->erev != s->rev)
			continue;
		if (ids->head == NONE)
			ids->head = s->slot[j];
		if (ids->first == NONE || s->slot[j] < ids->first)
			ids->first = s->slot[j];
		if (e->date > o->last_date)
			o->last_date = e->date;
		if (e->date < o->first_date)
			o->first_date = e->date;
	}
	if (o->first_date == INT64_MAX)
		o->first_date = 0;
}

/*
 * The thread's previous version of output series @o, the thread's
 * output starting at index @first: the newest one before it from the
 * same author. A v2 by someone else in a thread (a fix posted as
 * "[PATCH v2]" in reply to another author's series) is another series,
 * not its next version (issue 34: 18 of 776 links in the linux-api
 * archive joined two authors this way). NONE when there is none.
 */
static uint32_t thread_prev(const struct asm_ctx *c, const struct rb_series *o,
			    size_t first)
{
	size_t k;

	for (k = c->n_out; k-- > first;)
		if (o->author && c->out[k].author &&
		    !strcasecmp(o->author, c->out[k].author))
			return (uint32_t)k;
	return NONE;
}

/* One output series from the thread's series @s; the thread's output
 * series start at index *@first. */
static int emit_series(struct asm_ctx *c, struct tser *s, size_t *first)
{
	struct rb_series_set *set = c->set;
	struct rb_series *o;
	struct part_ids ids = { NONE, NONE };
	uint32_t tm;
	size_t j;
	int ret;

	ret = out_reserve(c);
	if (ret)
		return ret;
	o = &c->out[c->n_out];
	memset(o, 0, sizeof(*o));
	o->patches = calloc(s->len, sizeof(*o->patches));
	if (!o->patches)
		return rb_err(RB_ENOMEM, "out of memory");
	o->version = s->rev;
	o->total = (int)s->len - 1;
	o->complete = s->complete;
	o->partial_reroll = s->partial;
	o->unthreaded = c->thread_unthreaded;
	o->first_date = INT64_MAX;
	emit_parts(o, set, s, &ids);
	/* The id: the cover, else patch 1, else the first present. */
	if (s->slot[0] == NONE && s->slot[1] != NONE &&
	    set->ents[s->slot[1]].erev == s->rev)
		ids.head = s->slot[1];
	if (ids.head == NONE) /* only copies: cannot happen, be safe */
		ids.head = s->slot[1] != NONE ? s->slot[1] : s->slot[0];
	o->id = (char *)msg_id(set, ids.head);
	tm = s->title_msg != NONE ? s->title_msg : ids.head;
	o->title = set->ents[tm].title;
	o->author = set->ents[ids.head].from;
	o->change_id = set->ents[ids.head].change_id;
	for (j = 1; !o->change_id && j < s->len; j++)
		if (s->slot[j] != NONE)
			o->change_id = set->ents[s->slot[j]].change_id;
	c->out_first[c->n_out] = ids.first;
	c->out_prev_local[c->n_out] = thread_prev(c, o, *first);
	s->out = c->n_out;
	s->used = true;
	c->n_out++;
	return 0;
}

/* Turns the thread's series into output series. */
static int emit_thread(struct asm_ctx *c)
{
	size_t i, j, first = c->n_out;
	int ret;

	if (c->n_ts)
		qsort(c->ts, c->n_ts, sizeof(*c->ts), rev_cmp);
	for (i = 0; i < c->n_ts; i++) {
		ret = finish_ts(c, &c->ts[i]);
		if (ret)
			return ret;
	}
	for (i = 0; i < c->n_ts; i++) {
		struct tser *s = &c->ts[i];
		bool any = false;

		for (j = 1; j < s->len; j++)
			any |= s->slot[j] != NONE;
		if (!any)
			continue;
		ret = emit_series(c, s, &first);
		if (ret)
			return ret;
	}
	return 0;
}

/* qsort has no context argument: the set being sorted (one thread only). */
static const struct rb_series_set *cmp_set;

static int cand_cmp(const void *a, const void *b)
{
	const struct ent *x = &cmp_set->ents[*(const uint32_t *)a];
	const struct ent *y = &cmp_set->ents[*(const uint32_t *)b];
	int r = strcmp(x->from, y->from);

	if (r)
		return r;
	if (x->rev != y->rev)
		return x->rev < y->rev ? -1 : 1;
	if (x->expected != y->expected)
		return x->expected < y->expected ? -1 : 1;
	if (x->date != y->date)
		return x->date < y->date ? -1 : 1;
	return (*(const uint32_t *)a > *(const uint32_t *)b) -
	       (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* May @e join others by patchwork's fallback (join_unthreaded())? */
static bool join_candidate(const struct ent *e)
{
	if ((e->flags & (F_NOTHREAD | F_REPLY | F_CINF | F_PULL)) != F_NOTHREAD)
		return false;
	return e->expected >= 2 && !(e->counter && !(e->flags & F_DIFF));
}

/* Patchwork's fallback: unthreaded parts of one posting are joined. */
static int join_unthreaded(struct rb_series_set *set, bool *joined_roots)
{
	uint32_t *cand = NULL;
	unsigned char *used = NULL;
	size_t n = 0, i, start = 0;
	int ret = 0;

	cand = malloc((set->n_ents + 1) * sizeof(*cand));
	used = calloc(MAX_COUNTER + 2, 1);
	if (!cand || !used) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < set->n_ents; i++)
		if (join_candidate(&set->ents[i]))
			cand[n++] = (uint32_t)i;
	cmp_set = set;
	qsort(cand, n, sizeof(*cand), cand_cmp);
	cmp_set = NULL;
	for (i = 0; i < n; i++) {
		const struct ent *e = &set->ents[cand[i]];
		const struct ent *g = i ? &set->ents[cand[i - 1]] : NULL;

		if (!g || strcmp(g->from, e->from) || g->rev != e->rev ||
		    g->expected != e->expected ||
		    e->date - g->date > set->window || used[e->counter]) {
			memset(used, 0, MAX_COUNTER + 2);
			start = i;
		}
		used[e->counter] = 1;
		if (i != start) {
			uf_union(set->nodes, set->ents[cand[start]].node,
				 e->node);
			joined_roots[cand[start]] = true;
			joined_roots[cand[i]] = true;
		}
	}
out:
	free(cand);
	free(used);
	return ret;
}

struct link_key {
	const char *key;
	size_t out;
};

static struct rb_series *link_series;

static int link_cmp(const void *a, const void *b)
{
	const struct link_key *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	if (r)
		return r;
	if (link_series[x->out].version != link_series[y->out].version)
		return link_series[x->out].version <
				       link_series[y->out].version ?
			       -1 :
			       1;
	return (x->out > y->out) - (x->out < y->out);
}

/* Links each version to the version before it by @keys (sorted). */
static void link_by(struct rb_series *out, struct link_key *keys, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i, k;

		while (j < n && !strcmp(keys[j].key, keys[i].key))
			j++;
		for (k = i; k < j; k++) {
			struct rb_series *s = &out[keys[k].out];
			size_t p;

			if (s->previous || s->version <= 1)
				continue;
			/* The newest series of the highest lower version. */
			for (p = k; p-- > i;)
				if (out[keys[p].out].version < s->version) {
					s->previous = out[keys[p].out].id;
					break;
				}
		}
		i = j;
	}
}

static char *title_key(const struct rb_series *s)
{
	size_t n = strlen(s->title ? s->title : "") +
		   strlen(s->author ? s->author : "") + 2;
	char *k = malloc(n), *p;
	const char *q;
	bool sp = false;

	if (!k)
		return NULL;
	p = k;
	for (q = s->title ? s->title : ""; *q; q++) {
		if (isspace((unsigned char)*q)) {
			sp = p != k;
			continue;
		}
		if (sp)
			*p++ = ' ';
		sp = false;
		*p++ = (char)tolower((unsigned char)*q);
	}
	*p++ = '\n';
	for (q = s->author ? s->author : ""; *q; q++)
		*p++ = (char)tolower((unsigned char)*q);
	*p = 0;
	return k;
}

/* "CHANGE-ID\nauthor" (lower case): the key of a change-id link. */
static char *change_key(const struct rb_series *s)
{
	const char *a = s->author ? s->author : "";
	size_t n = strlen(s->change_id) + strlen(a) + 2, i;
	char *k = malloc(n), *p;

	if (!k)
		return NULL;
	snprintf(k, n, "%s\n%s", s->change_id, a);
	for (p = strchr(k, '\n') + 1, i = 0; p[i]; i++)
		p[i] = (char)tolower((unsigned char)p[i]);
	return k;
}

static int link_versions(struct rb_series *out, size_t n)
{
	struct link_key *keys = calloc(n + 1, sizeof(*keys));
	char **tk = calloc(n + 1, sizeof(*tk));
	char **ck = calloc(n + 1, sizeof(*ck));
	size_t i, k = 0;
	int ret = 0;

	if (!keys || !tk || !ck) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	link_series = out;
	/* b4's change-id, and the author: another author's series that
	 * carries the same change-id (a copied cover) is not a version. */
	for (i = 0; i < n; i++) {
		if (!out[i].change_id)
			continue;
		ck[i] = change_key(&out[i]);
		if (!ck[i]) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto out;
		}
		keys[k++] = (struct link_key){ ck[i], i };
	}
	qsort(keys, k, sizeof(*keys), link_cmp);
	link_by(out, keys, k);
	k = 0;
	for (i = 0; i < n; i++) {
		tk[i] = title_key(&out[i]);
		if (!tk[i]) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto out;
		}
		keys[k++] = (struct link_key){ tk[i], i };
	}
	qsort(keys, k, sizeof(*keys), link_cmp);
	link_by(out, keys, k);
out:
	link_series = NULL;
	for (i = 0; tk && i < n; i++)
		free(tk[i]);
	for (i = 0; ck && i < n; i++)
		free(ck[i]);
	free(tk);
	free(ck);
	free(keys);
	return ret;
}

static uint32_t *sort_first;

static int out_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (sort_first[x] != sort_first[y])
		return sort_first[x] < sort_first[y] ? -1 : 1;
	return (x > y) - (x < y);
}

static void classify(struct rb_series_set *set)
{
	size_t i;

	for (i = 0; i < set->n_ents; i++) {
		struct ent *e = &set->ents[i];

		if (e->flags & F_PULL)
			e->kind = RB_KIND_PULL;
		else if (e->flags & F_REPLY)
			e->kind = (e->flags & F_BOT) ? RB_KIND_BOT :
				  (e->flags & F_ACK) ? RB_KIND_TRAILERS :
						       RB_KIND_REPLY;
		else if (e->counter == 0)
			e->kind = RB_KIND_COVER;
		else if (e->flags & F_DIFF)
			e->kind = RB_KIND_PATCH;
		else
			e->kind = RB_KIND_OTHER;
	}
}

static uint32_t parent_of(const struct rb_series_set *set, const struct ent *e)
{
	uint32_t i;

	if (e->irt != NONE && set->nodes[e->irt].msg != NONE)
		return set->nodes[e->irt].msg;
	for (i = e->n_refs; i-- > 0;)
		if (set->nodes[e->refs[i]].msg != NONE)
			return set->nodes[e->refs[i]].msg;
	return NONE;
}

static void link_answers(struct rb_series_set *set)
{
	size_t i;

	for (i = 0; i < set->n_ents; i++) {
		struct ent *e = &set->ents[i];
		uint32_t p = parent_of(set, e);
		int steps;

		e->answers = NONE;
		if (e->kind == RB_KIND_PATCH || e->kind == RB_KIND_COVER)
			continue;
		for (steps = 0; p != NONE && steps < MAX_WALK; steps++) {
			const struct ent *pe = &set->ents[p];

			if (pe->kind == RB_KIND_PATCH ||
			    pe->kind == RB_KIND_COVER) {
				e->answers = p;
				break;
			}
			if (pe->kind == RB_KIND_OTHER ||
			    pe->kind == RB_KIND_PULL)
				break;
			p = parent_of(set, pe);
		}
	}
}

/* The messages grouped by thread: order[start[r]..start[r + 1]) are the
 * messages of the thread whose root node is r, in arrival order. */
struct threads {
	uint32_t *order, *root, *start;
	bool *joined; /* joined to a thread by the unthreaded fallback */
};

/* Unions every message's node with those it answers or references. */
static void thread_union(struct rb_series_set *set)
{
	size_t i;

	for (i = 0; i < set->n_nodes; i++)
		set->nodes[i].parent = (uint32_t)i;
	for (i = 0; i < set->n_ents; i++) {
		struct ent *e = &set->ents[i];
		uint32_t r;

		e->flags &= ~F_DONE;
		e->series = NONE;
		if (e->irt != NONE)
			uf_union(set->nodes, e->node, e->irt);
		for (r = 0; r < e->n_refs; r++)
			uf_union(set->nodes, e->node, e->refs[r]);
	}
}

/* Counting sort of messages by thread root, stable in arrival. */
static int thread_order(struct threads *t, struct rb_series_set *set)
{
	uint32_t *pos;
	size_t i, n = set->n_ents;

	for (i = 0; i < n; i++) {
		t->root[i] = uf_find(set->nodes, set->ents[i].node);
		t->start[t->root[i] + 1]++;
	}
	for (i = 0; i < set->n_nodes; i++)
		t->start[i + 1] += t->start[i];
	pos = malloc((set->n_nodes + 1) * sizeof(*pos));
	if (!pos)
		return rb_err(RB_ENOMEM, "out of memory for assembly");
	memcpy(pos, t->start, (set->n_nodes + 1) * sizeof(*pos));
	for (i = 0; i < n; i++)
		t->order[pos[t->root[i]]++] = (uint32_t)i;
	free(pos);
	return 0;
}

/* Each thread in the order of its first message, into c->out. */
static int assemble_threads(struct asm_ctx *c, const struct threads *t)
{
	size_t i;
	int ret;

	for (i = 0; i < c->set->n_ents; i++) {
		uint32_t r = t->root[i], k;

		if (t->start[r] == t->start[r + 1] ||
		    t->order[t->start[r]] != i)
			continue;
		c->n_ts = 0;
		c->n_covers = 0;
		c->n_owners = 0;
		c->thread_unthreaded = false;
		for (k = t->start[r]; k < t->start[r + 1]; k++) {
			c->thread_unthreaded |= t->joined[t->order[k]];
			ret = add_one(c, t->order[k]);
			if (ret)
				return ret;
		}
		ret = emit_thread(c);
		if (ret)
			return ret;
		for (k = 0; k < c->n_ts; k++) {
			free(c->ts[k].slot);
			c->ts[k].slot = NULL;
		}
	}
	return 0;
}

/* c->out into set->series in order of first arrival, each with the
 * previous version of its thread. */
static int order_series(struct rb_series_set *set, struct asm_ctx *c)
{
	size_t *perm, i;

	perm = malloc((c->n_out + 1) * sizeof(*perm));
	set->series = calloc(c->n_out + 1, sizeof(*set->series));
	if (!perm || !set->series) {
		free(perm);
		return rb_err(RB_ENOMEM, "out of memory for assembly");
	}
	for (i = 0; i < c->n_out; i++)
		perm[i] = i;
	sort_first = c->out_first;
	qsort(perm, c->n_out, sizeof(*perm), out_cmp);
	sort_first = NULL;
	for (i = 0; i < c->n_out; i++) {
		set->series[i] = c->out[perm[i]];
		if (c->out_prev_local[perm[i]] != NONE)
			set->series[i].previous =
				c->out[c->out_prev_local[perm[i]]].id;
	}
	set->n_series = c->n_out;
	c->n_out = 0;
	free(perm);
	return 0;
}

/* Each message of a series: its series (the first that has it), and
 * covers their kind. */
static void mark_parts(struct rb_series_set *set)
{
	size_t i;

	for (i = 0; i < set->n_series; i++) {
		const struct rb_series *s = &set->series[i];
		int j;

		if (s->cover) {
			uint32_t m = set->nodes[node_find(set, s->cover)].msg;

			set->ents[m].kind = RB_KIND_COVER;
			if (set->ents[m].series == NONE)
				set->ents[m].series = (uint32_t)i;
		}
		for (j = 0; j < s->total; j++) {
			uint32_t m;

			if (!s->patches[j])
				continue;
			m = set->nodes[node_find(set, s->patches[j])].msg;
			if (set->ents[m].series == NONE)
				set->ents[m].series = (uint32_t)i;
		}
	}
}

int rb_series_set_assemble(struct rb_series_set *set)
{
	struct asm_ctx c = { .set = set };
	struct threads t = { 0 };
	size_t i, n = set->n_ents;
	int ret = 0;

	series_clear(set);
	thread_union(set);
	t.joined = calloc(n + 1, sizeof(*t.joined));
	t.order = malloc((n + 1) * sizeof(*t.order));
	t.root = malloc((n + 1) * sizeof(*t.root));
	t.start = calloc(set->n_nodes + 2, sizeof(*t.start));
	if (!t.joined || !t.order || !t.root || !t.start) {
		ret = rb_err(RB_ENOMEM, "out of memory for assembly");
		goto out;
	}
	ret = join_unthreaded(set, t.joined);
	if (!ret)
		ret = thread_order(&t, set);
	if (!ret)
		ret = assemble_threads(&c, &t);
	if (!ret)
		ret = order_series(set, &c);
	if (!ret)
		ret = link_versions(set->series, set->n_series);
	if (ret)
		goto out;
	classify(set);
	mark_parts(set);
	link_answers(set);
out:
	for (i = 0; i < c.n_out; i++)
		free(c.out[i].patches);
	for (i = 0; i < c.cap_ts && c.ts; i++)
		if (i < c.n_ts)
			free(c.ts[i].slot);
	free(c.ts);
	free(c.covers);
	free(c.cover_rev);
	free(c.owners);
	free(c.out);
	free(c.out_first);
	free(c.out_prev_local);
	free(t.joined);
	free(t.order);
	free(t.root);
	free(t.start);
	if (ret)
		series_clear(set);
	return ret;
}

size_t rb_series_set_count(const struct rb_series_set *set)
{
	return set->n_series;
}

const struct rb_series *rb_series_set_get(const struct rb_series_set *set,
					  size_t i)
{
	return i < set->n_series ? &set->series[i] : NULL;
}

size_t rb_series_missing(const struct rb_series *s, int *out, size_t max)
{
	size_t n = 0;
	int i;

	for (i = 0; i < s->total; i++)
		if (!s->patches[i]) {
			if (n < max)
				out[n] = i + 1;
			n++;
		}
	return n;
}

static const struct ent *ent_of(const struct rb_series_set *set,
				const char *msgid)
{
	uint32_t n = msgid ? node_find(set, msgid) : NONE;

	if (n == NONE || set->nodes[n].msg == NONE)
		return NULL;
	return &set->ents[set->nodes[n].msg];
}

enum rb_msg_kind rb_series_set_kind(const struct rb_series_set *set,
				    const char *msgid)
{
	const struct ent *e = ent_of(set, msgid);

	return e ? (enum rb_msg_kind)e->kind : RB_KIND_UNKNOWN;
}

enum rb_msg_kind rb_message_kind(const struct rb_message *m)
{
	const struct rb_subject *s = &m->subject;

	if (s->is_pull)
		return RB_KIND_OTHER;
	if (s->is_patch && !s->is_reply) {
		if (s->index == 0 && s->total > 0)
			return RB_KIND_COVER;
		if (m->patch)
			return RB_KIND_PATCH;
	}
	if (s->is_reply || m->in_reply_to)
		return RB_KIND_REPLY;
	return RB_KIND_OTHER;
}

const char *rb_msg_kind_name(enum rb_msg_kind kind)
{
	static const char *const names[] = {
		[RB_KIND_UNKNOWN] = "unknown",	 [RB_KIND_PATCH] = "patch",
		[RB_KIND_COVER] = "cover",	 [RB_KIND_REPLY] = "reply",
		[RB_KIND_TRAILERS] = "trailers", [RB_KIND_BOT] = "bot",
		[RB_KIND_PULL] = "pull",	 [RB_KIND_OTHER] = "other",
	};

	if ((unsigned int)kind >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[kind];
}

const char *rb_series_set_answers(const struct rb_series_set *set,
				  const char *msgid)
{
	const struct ent *e = ent_of(set, msgid);

	if (!e || e->answers == NONE)
		return NULL;
	return msg_id(set, e->answers);
}

const struct rb_series *rb_series_set_find(const struct rb_series_set *set,
					   const char *msgid)
{
	const struct ent *e = ent_of(set, msgid);

	if (!e || e->series == NONE || e->series >= set->n_series)
		return NULL;
	return &set->series[e->series];
}

/*
 * The join key of @m: the sender, revision and total that patchwork's
 * fallback groups unthreaded parts by (join_unthreaded()), computed
 * exactly as the assembly computes them; NULL when @m never joins.
 */
int rb_series_join_key(char **out, const struct rb_series_msg *m)
{
	struct rb_subject sj = { 0 };
	struct ent e = { 0 };
	const char *from = m->from_addr ? m->from_addr : "";
	size_t i, n;
	char *k;
	int ret;

	*out = NULL;
	e.irt = NONE;
	if (m->in_reply_to && *m->in_reply_to &&
	    (!m->message_id || strcmp(m->in_reply_to, m->message_id)))
		e.irt = 0; /* any node: only NONE or not matters here */
	for (i = 0; i < m->n_references; i++)
		if (m->references[i] && *m->references[i] &&
		    (!m->message_id || strcmp(m->references[i], m->message_id)))
			e.n_refs++;
	ret = rb_subject_parse(&sj, m->subject ? m->subject : "");
	if (ret)
		return ret;
	ent_b4(&e, m, &sj);
	rb_subject_release(&sj);
	if (!join_candidate(&e))
		return 0;
	n = strlen(from) + 32;
	k = malloc(n);
	if (!k)
		return rb_err(RB_ENOMEM, "out of memory");
	snprintf(k, n, "%s\n%d\n%d", from, e.rev, e.expected);
	*out = k;
	return 0;
}

int rb_series_link_keys(const struct rb_series *s, char **change, char **title)
{
	*change = s->change_id ? change_key(s) : NULL;
	*title = title_key(s);
	if ((s->change_id && !*change) || !*title) {
		free(*change);
		free(*title);
		*change = *title = NULL;
		return rb_err(RB_ENOMEM, "out of memory");
	}
	return 0;
}
