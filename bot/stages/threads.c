// SPDX-License-Identifier: GPL-2.0-only
/*
 * threads.c - the replies in a series' thread, as a reviewer reads them.
 * See threads.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/stages/threads.h"
#include "bot/stages/versions.h"
#include "bot/store/store.h"
#include "mail/addr.h"
#include "mail/dkim.h"
#include "mail/message.h"
#include "mail/quotes.h"
#include "mail/series.h"
#include "review/apply/diff.h"
#include "review/findings.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/testenv.h"
#include "util/banned.h"

/* How far a finding's line may sit from a quoted line of the same text. */
#define NEAR_LINES 2

/* A line of a hunk's new side: index into h->lines. */
static bool new_side(const struct rb_diff_line *l)
{
	return l->origin != '-';
}

/*
 * One more diff line looked at for a comment, out of the series' budget
 * (RB_THREADS_MAX_WORK): false when it is spent.
 */
static bool work(size_t *spent)
{
	if (*spent >= RB_THREADS_MAX_WORK)
		return false;
	(*spent)++;
	return true;
}

/*
 * Where in @d the comment @c sits: the added line with its text (in its
 * file, when the reply named one) whose new-side lines before it match
 * the most of those the reply quoted; the first of the best. False when
 * none, or when the budget @spent runs out.
 */
static bool locate(const struct rb_diff *d, const struct rb_quote_comment *c,
		   size_t *fo, size_t *ho, size_t *lo, size_t *spent)
{
	char sq[RB_QUOTES_MAX_LINE + 1];
	size_t f, h, i, k, n_before = 0, sqn;
	int best = -1;

	/* the quoted line squeezed once, compared with each added line */
	sqn = rb_quotes_squeeze(sq, sizeof(sq), c->line, strlen(c->line));
	for (k = 0; k < RB_QUOTES_CTX; k++)
		n_before += c->before[k] != NULL;
	for (f = 0; d && f < d->n_files; f++) {
		const struct rb_diff_file *df = &d->files[f];
		const char *path = rb_diff_file_path(df);

		if (c->file && (!path || strcmp(path, c->file)))
			continue;
		for (h = 0; h < df->n_hunks; h++) {
			const struct rb_diff_hunk *dh = &df->hunks[h];

			for (i = 0; i < dh->n_lines; i++) {
				const struct rb_diff_line *l = &dh->lines[i];
				size_t j = i, m = n_before;
				int score = 0;

				if (!work(spent))
					return false;
				if (l->origin != '+' ||
				    !rb_quotes_same_squeezed(sq, sqn, l->text,
							     l->len))
					continue;
				/* the quoted lines before it, nearest first */
				while (m > 0 && j > 0) {
					const struct rb_diff_line *b =
						&dh->lines[--j];

					if (!new_side(b))
						continue;
					m--;
					if (rb_quotes_same(b->text, b->len,
							   c->before[m],
							   strlen(c->before[m])))
						score++;
				}
				if (score > best) {
					best = score;
					*fo = f;
					*ho = h;
					*lo = i;
				}
			}
		}
	}
	return best >= 0;
}

/* The new-side neighbourhood of line @at of @h: one line before, the
 * line, two after. */
struct window {
	const struct rb_diff_line *v[4];
	size_t n, at; /* v[at] is the line */
};

static void window_of(struct window *w, const struct rb_diff_hunk *h, size_t at)
{
	size_t i, k;

	w->n = 0;
	for (i = at; i > 0;) {
		if (new_side(&h->lines[--i])) {
			w->v[w->n++] = &h->lines[i];
			break;
		}
	}
	w->at = w->n;
	w->v[w->n++] = &h->lines[at];
	for (i = at + 1, k = 0; i < h->n_lines && k < 2; i++)
		if (new_side(&h->lines[i])) {
			w->v[w->n++] = &h->lines[i];
			k++;
		}
}

/*
 * Two lines of two patches, as the patches have them: the same bytes but
 * for trailing blanks. (A reply's quote is matched squeezed, since mail
 * clients turn tabs into spaces; two patches are not quotes, and a
 * whitespace fix is a change.)
 */
static bool same_line(const struct rb_diff_line *a,
		      const struct rb_diff_line *b)
{
	size_t an = a->len, bn = b->len;

	while (an && (a->text[an - 1] == ' ' || a->text[an - 1] == '\t' ||
		      a->text[an - 1] == '\r'))
		an--;
	while (bn && (b->text[bn - 1] == ' ' || b->text[bn - 1] == '\t' ||
		      b->text[bn - 1] == '\r'))
		bn--;
	return an == bn && !memcmp(a->text, b->text, an);
}

/*
 * The window @w as consecutive new-side lines of file @path in @d, its
 * line still added: that line, and in @before the two new-side lines
 * before it in its hunk. NULL when the window is not there.
 */
static const struct rb_diff_line *
find_window(const struct rb_diff *d, const char *path, const struct window *w,
	    const struct rb_diff_line **before, size_t *spent)
{
	size_t f, h, i, k;

	for (f = 0; d && f < d->n_files; f++) {
		const struct rb_diff_file *df = &d->files[f];
		const char *p = rb_diff_file_path(df);

		if (!p || !path || strcmp(p, path))
			continue;
		for (h = 0; h < df->n_hunks; h++) {
			const struct rb_diff_hunk *dh = &df->hunks[h];

			for (i = 0; i < dh->n_lines; i++) {
				const struct rb_diff_line *t = NULL;
				size_t j = i, nb = 0;

				/* a window starts on a new-side line: no run
				 * of removed lines is walked from each of its
				 * lines */
				if (!new_side(&dh->lines[i]))
					continue;
				if (!work(spent))
					return NULL;
				for (k = 0; k < w->n; k++) {
					while (j < dh->n_lines &&
					       !new_side(&dh->lines[j])) {
						if (!work(spent))
							return NULL;
						j++;
					}
					if (j >= dh->n_lines ||
					    !same_line(&dh->lines[j], w->v[k]))
						break;
					if (k == w->at)
						t = &dh->lines[j];
					j++;
				}
				if (k < w->n || !t || t->origin != '+')
					continue;
				/* the two new-side lines before it */
				before[0] = before[1] = NULL;
				for (j = (size_t)(t - dh->lines);
				     j > 0 && nb < 2;)
					if (new_side(&dh->lines[--j]))
						before[1 - nb++] =
							&dh->lines[j];
				return t;
			}
		}
	}
	return NULL;
}

/* "+text" or " text": a diff line with its origin, for a quote. */
static char *dup_with_origin(const struct rb_diff_line *l)
{
	char *s;

	if (!l)
		return NULL;
	s = malloc(l->len + 2);
	if (!s)
		return NULL;
	s[0] = l->origin;
	memcpy(s + 1, l->text, l->len);
	s[l->len + 1] = '\0';
	return s;
}

static char *dup_line(const struct rb_diff_line *l)
{
	char *s;

	if (!l)
		return NULL;
	s = malloc(l->len + 1);
	if (!s)
		return NULL;
	memcpy(s, l->text, l->len);
	s[l->len] = '\0';
	return s;
}

static char *dup_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

static struct rb_thread_line *new_line(struct rb_versions *v)
{
	struct rb_thread_line *n;

	if (v->n_lines >= RB_THREADS_MAX_LINES)
		return NULL;
	n = realloc(v->lines, (v->n_lines + 1) * sizeof(*n));
	if (!n)
		return NULL;
	v->lines = n;
	n = &v->lines[v->n_lines++];
	memset(n, 0, sizeof(*n));
	return n;
}

static void line_free(struct rb_thread_line *l)
{
	free(l->from);
	free(l->file);
	free(l->code);
	free(l->before[0]);
	free(l->before[1]);
	free(l->reply);
}

/* One part's thread being read. */
struct part_read {
	struct rb_versions *v;
	const struct rb_threads_in *in;
	size_t *spent; /* diff lines looked at, the whole series */
	bool earlier; /* a part of v(n) */
	int idx; /* its index there */
	int err;
	/* the replies to read, collected before any is parsed */
	char **ids;
	char **from;
	bool *bot, *known;
	size_t n;
};

static int reply_seen(const struct rb_thread_reply *r, void *payload)
{
	struct part_read *pr = payload;
	bool bot = false, known = false;
	char **ids, **from;
	bool *b, *k;

	if (!strcmp(r->kind, "ignored")) {
		/* a known bot's reply counts; our own and refused mail not */
		if (!r->reason || strcmp(r->reason, "a known bot"))
			return 0;
		bot = known = true;
	} else if (!strcmp(r->kind, "cover")) {
		return 0;
	} else if (r->from_addr &&
		   ((pr->in->author &&
		     rb_addr_same(r->from_addr, pr->in->author)) ||
		    (pr->in->poster &&
		     rb_addr_same(r->from_addr, pr->in->poster)))) {
		return 0; /* the author answering is no review */
	} else if (rb_series_from_bot(r->from_addr, NULL)) {
		bot = true; /* the 0-day robot, CI: not a person */
	}
	/* On v(n): what had been said when this version came. */
	if (pr->earlier && pr->in->newest && r->date > pr->in->newest)
		return 0;
	ids = realloc(pr->ids, (pr->n + 1) * sizeof(*ids));
	if (ids)
		pr->ids = ids;
	b = realloc(pr->bot, (pr->n + 1) * sizeof(*b));
	if (b)
		pr->bot = b;
	k = realloc(pr->known, (pr->n + 1) * sizeof(*k));
	if (k)
		pr->known = k;
	from = realloc(pr->from, (pr->n + 1) * sizeof(*from));
	if (from)
		pr->from = from;
	if (!ids || !b || !k || !from)
		goto oom;
	pr->from[pr->n] = NULL;
	pr->ids[pr->n] = strdup(r->message_id);
	if (!pr->ids[pr->n])
		goto oom;
	if (r->from_addr && !(pr->from[pr->n] = strdup(r->from_addr))) {
		free(pr->ids[pr->n]);
		goto oom;
	}
	pr->bot[pr->n] = bot;
	pr->known[pr->n++] = known;
	return 0;
oom:
	pr->err = rb_err(RB_ENOMEM, "out of memory");
	return 1;
}

/*
 * Comment @c of reply @reply on part @pr->idx: located in its diff; for
 * v(n), then looked for in this version's part.
 */
static int add_comment(struct part_read *pr, size_t r, int n,
		       const struct rb_quote_comment *c)
{
	const char *reply = pr->ids[r];
	bool bot = pr->bot[r];
	struct rb_versions *v = pr->v;
	const struct rb_diff *d = pr->earlier ? v->prev_diffs[pr->idx] :
						v->diffs[pr->idx];
	const struct rb_diff_line *t = NULL, *before[2] = { NULL, NULL };
	const struct rb_diff_file *df;
	struct rb_thread_line *l;
	struct window w;
	size_t fo, ho, lo;
	int now = 0, i;

	if (!locate(d, c, &fo, &ho, &lo, pr->spent))
		return 0; /* not a line of that part: another mail's */
	df = &d->files[fo];
	l = new_line(v);
	if (!l)
		return v->n_lines >= RB_THREADS_MAX_LINES ?
			       0 :
			       rb_err(RB_ENOMEM, "out of memory");
	l->earlier = pr->earlier;
	l->bot = bot;
	l->known_bot = pr->known[r];
	l->n = n;
	l->reply = strdup(reply);
	if (pr->from[r] && !(l->from = strdup(pr->from[r])))
		return rb_err(RB_ENOMEM, "out of memory");
	l->file = dup_str(rb_diff_file_path(df));
	l->code = dup_line(&df->hunks[ho].lines[lo]);
	if (!pr->earlier) {
		l->idx = pr->idx;
		l->line = (int)df->hunks[ho].lines[lo].new_lineno;
		l->unchanged = true;
	} else {
		l->prev_idx = pr->idx;
		l->line = (int)df->hunks[ho].lines[lo].new_lineno;
		for (i = 1; i <= v->total && !now; i++)
			if (v->prev_idx[i] == pr->idx)
				now = i;
		l->idx = now;
		window_of(&w, &df->hunks[ho], lo);
		if (now)
			t = find_window(v->diffs[now], l->file, &w, before,
					pr->spent);
		if (t) {
			l->unchanged = true;
			l->line = (int)t->new_lineno;
			l->before[0] = dup_with_origin(before[0]);
			l->before[1] = dup_with_origin(before[1]);
			if ((before[0] && !l->before[0]) ||
			    (before[1] && !l->before[1]))
				return rb_err(RB_ENOMEM, "out of memory");
		}
	}
	if (!l->reply || !l->file || !l->code)
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

/* Whether the series' budgets are spent: no more comments are read. */
static bool over_budget(const struct part_read *pr)
{
	return pr->v->n_lines >= RB_THREADS_MAX_LINES ||
	       *pr->spent >= RB_THREADS_MAX_WORK;
}

/* Reads reply @r of @pr and adds its comments on part @pr->idx. */
static int read_reply(struct part_read *pr, size_t r)
{
	const char *id = pr->ids[r];
	struct rb_parse_opts opts = RB_PARSE_OPTS_INIT;
	struct rb_msgrow raw = { 0 };
	struct rb_message *m = NULL;
	struct rb_quotes q = { 0 };
	size_t i;
	int ret;

	ret = rb_store_get_raw(pr->in->st, id, &raw);
	if (ret == -RB_ENOTFOUND)
		return 0;
	if (ret)
		return ret;
	opts.max_size = pr->in->max_size;
	if (!raw.len || rb_message_parse(&m, raw.raw, raw.len, &opts)) {
		/* emptied by retention, or unreadable: nothing to read */
		rb_err_clear();
		rb_msgrow_release(&raw);
		return 0;
	}
	if (m->body)
		ret = rb_quotes_parse(&q, m->body, strlen(m->body));
	for (i = 0; !ret && i < q.n && !over_budget(pr); i++)
		ret = add_comment(pr, r, (int)i, &q.v[i]);
	rb_quotes_release(&q);
	rb_message_free(m);
	rb_msgrow_release(&raw);
	return ret;
}

/* The thread of one part: its direct replies, oldest first. */
static int read_part(struct rb_versions *v, const struct rb_threads_in *in,
		     bool earlier, int idx, const char *msgid, size_t *spent)
{
	struct part_read pr = {
		.v = v, .in = in, .spent = spent, .earlier = earlier, .idx = idx
	};
	size_t i;
	int ret;

	if (!msgid || !(earlier ? v->prev_diffs[idx] : v->diffs[idx]))
		return 0;
	ret = rb_store_each_reply_to(in->st, msgid, RB_THREADS_MAX_REPLIES,
				     reply_seen, &pr);
	if (!ret)
		ret = pr.err;
	for (i = 0; !ret && i < pr.n && !over_budget(&pr); i++)
		ret = read_reply(&pr, i);
	for (i = 0; i < pr.n; i++) {
		free(pr.ids[i]);
		free(pr.from[i]);
	}
	free(pr.ids);
	free(pr.from);
	free(pr.bot);
	free(pr.known);
	return ret;
}

struct answer_seen {
	const char *author, *poster;
	bool yes;
};

static int answer_row(const struct rb_thread_reply *r, void *payload)
{
	struct answer_seen *a = payload;

	if (strcmp(r->kind, "ignored") && r->from_addr &&
	    (rb_addr_same(r->from_addr, a->author) ||
	     (a->poster && rb_addr_same(r->from_addr, a->poster)))) {
		a->yes = true;
		return 1;
	}
	return 0;
}

/* v(n)'s raised lines: did the author reply to the reply that said it? */
static int answered(struct rb_versions *v, const struct rb_threads_in *in)
{
	size_t i, k;
	int ret = 0;

	for (i = 0; !ret && in->author && i < v->n_lines; i++) {
		struct rb_thread_line *l = &v->lines[i];
		struct answer_seen a = { in->author, in->poster, false };

		if (!l->earlier || !l->unchanged)
			continue;
		for (k = 0; k < i; k++)
			if (v->lines[k].earlier && v->lines[k].unchanged &&
			    !strcmp(v->lines[k].reply, l->reply))
				break;
		if (k < i) {
			l->answered = v->lines[k].answered;
			continue;
		}
		ret = rb_store_each_reply_to(in->st, l->reply,
					     RB_THREADS_MAX_REPLIES, answer_row,
					     &a);
		l->answered = a.yes;
	}
	return ret;
}

int rb_threads_collect(struct rb_versions *v, const struct rb_threads_in *in)
{
	size_t spent = 0;
	int i, ret = 0;

	for (i = 1; !ret && in->msgids && i <= v->total; i++)
		ret = read_part(v, in, false, i, in->msgids[i], &spent);
	for (i = 1; !ret && in->earlier && v->prev_id && v->prev_msgids &&
		    i <= v->prev_total;
	     i++)
		ret = read_part(v, in, true, i, v->prev_msgids[i], &spent);
	if (!ret && (spent >= RB_THREADS_MAX_WORK ||
		     v->n_lines >= RB_THREADS_MAX_LINES))
		rb_log(RB_LOG_WARN, "threads.budget", "series", in->series_id,
		       NULL); /* what was read is kept */
	if (!ret)
		ret = answered(v, in);
	if (ret && ret != -RB_ENOMEM) {
		/* The thread cannot be read: review as if it were empty. */
		rb_log(RB_LOG_WARN, "threads.failed", "series", in->series_id,
		       "reason", rb_errmsg(), NULL);
		rb_threads_release(v);
		return 0;
	}
	return ret;
}

const struct rb_thread_line *rb_threads_quoted(const struct rb_versions *v,
					       const struct rb_finding *f)
{
	char first[RB_QUOTES_MAX_LINE + 1] = "";
	size_t i, n = 0;

	if (!f->file || f->line <= 0)
		return NULL;
	if (f->code) {
		n = strcspn(f->code, "\n");
		if (n > RB_QUOTES_MAX_LINE)
			n = RB_QUOTES_MAX_LINE;
		memcpy(first, f->code, n);
		first[n] = '\0';
	}
	for (i = 0; i < v->n_lines; i++) {
		const struct rb_thread_line *l = &v->lines[i];
		int d = l->line - f->line;

		if (!l->unchanged || l->idx != f->patch_index || !l->file ||
		    strcmp(l->file, f->file))
			continue;
		if (!d || (d >= -NEAR_LINES && d <= NEAR_LINES && n &&
			   rb_quotes_same(l->code, strlen(l->code), first, n)))
			return l;
	}
	return NULL;
}

static bool listed(const char *const *v, size_t n, const char *addr)
{
	size_t i;

	for (i = 0; addr && i < n; i++)
		if (rb_addr_same(v[i], addr))
			return true;
	return false;
}

/* Whether line @l's reply may drop a finding (threads.h). */
static int trust_line(struct rb_thread_line *l,
		      const struct rb_threads_trust_in *in)
{
	struct rb_dkim_result d = { .pass = false };
	struct rb_msgrow raw = { 0 };
	int ret;

	l->trust_known = true;
	l->trusted = l->known_bot ||
		     (!l->bot && (listed(in->people, in->n_people, l->from) ||
				  listed(in->admins, in->n_admins, l->from)));
	if (!l->trusted || !in->require_dkim)
		return 0;
	ret = rb_store_get_raw(in->st, l->reply, &raw);
	if (ret == -RB_ENOTFOUND)
		ret = 0;
	if (!ret && raw.len && l->from)
		ret = rb_dkim_verify(&d, raw.raw, raw.len, l->from,
				     rb_test_dkim_key_file());
	rb_msgrow_release(&raw);
	if (ret == -RB_EINVAL) {
		rb_err_clear(); /* no DKIM here: not trusted, only marked */
		ret = 0;
	}
	l->trusted = d.pass;
	return ret;
}

int rb_threads_trust(struct rb_versions *v, const struct rb_findings *fs,
		     const char *const *states,
		     const struct rb_threads_trust_in *in)
{
	size_t i, k;
	int ret = 0;

	for (i = 0; !ret && i < fs->n; i++) {
		const struct rb_thread_line *q;
		struct rb_thread_line *l;

		if (states && (!states[i] || strcmp(states[i], "raised")))
			continue;
		q = rb_threads_quoted(v, &fs->v[i]);
		if (!q)
			continue;
		l = &v->lines[q - v->lines];
		if (l->trust_known)
			continue;
		ret = trust_line(l, in);
		/* the same reply, the same answer */
		for (k = 0; !ret && k < v->n_lines; k++)
			if (!v->lines[k].trust_known &&
			    !strcmp(v->lines[k].reply, l->reply)) {
				v->lines[k].trust_known = true;
				v->lines[k].trusted = l->trusted;
			}
	}
	return ret;
}

int rb_threads_note(struct rb_buf *out, const struct rb_versions *v,
		    const struct rb_thread_line *l)
{
	return rb_buf_printf(out,
			     "Raised on v%d (patch %d/%d, this line) by %s, "
			     "%s there, and unchanged in v%d.",
			     v->prev_version, l->prev_idx, v->prev_total,
			     l->bot ? "a bot" : "a reviewer",
			     l->answered ? "answered by the author" :
					   "not answered",
			     v->version);
}

int rb_threads_model_text(struct rb_buf *out, const struct rb_versions *v)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < v->n_lines; i++) {
		const struct rb_thread_line *l = &v->lines[i];

		if (!l->earlier || !l->unchanged)
			continue;
		ret = rb_buf_printf(
			out,
			"- %s replied to this line of patch %d "
			"on v%d (%s there); v%d leaves it "
			"unchanged (patch %d, %s line %d): "
			"\"%.200s\"\n",
			l->bot ? "A bot" : "A reviewer", l->prev_idx,
			v->prev_version,
			l->answered ? "the author answered" : "not answered",
			v->version, l->idx, l->file, l->line, l->code);
	}
	return ret;
}

int rb_threads_write(const struct rb_versions *v, struct rb_store *st,
		     const char *series_id)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < v->n_lines; i++) {
		const struct rb_thread_line *l = &v->lines[i];
		struct rb_thread_quote_rec q = {
			.series_id = series_id,
			.reply_msgid = l->reply,
			.n = l->n,
			.patch_idx = l->unchanged ? l->idx : 0,
			.prev_id = v->prev_id,
			.prev_version = v->prev_version,
			.prev_idx = l->prev_idx,
			.source = l->bot ? "bot" : "reviewer",
			.file = l->file,
			.line = l->line,
			.code = l->code,
			.state = l->unchanged ? "unchanged" : "changed",
		};

		if (l->earlier)
			ret = rb_store_thread_quote_add(st, &q);
	}
	return ret;
}

void rb_threads_release(struct rb_versions *v)
{
	size_t i;

	for (i = 0; i < v->n_lines; i++)
		line_free(&v->lines[i]);
	free(v->lines);
	v->lines = NULL;
	v->n_lines = 0;
}
