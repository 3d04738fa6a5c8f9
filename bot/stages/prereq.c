// SPDX-License-Identifier: GPL-2.0-only
/*
 * prereq.c - b4's prerequisites resolved from the store. See prereq.h.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/stages/prereq.h"
#include "bot/stages/series_view.h"
#include "bot/stages/stage.h"
#include "bot/store/store.h"
#include "mail/message.h"
#include "review/apply/patchid.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define ID_MAX 250 /* a Message-ID longer than this is not one */

/* A stored patch and its patch-id, from the scan of recent patches. */
struct known {
	char *message_id;
	char pid[RB_PATCH_ID_HEX];
};

struct walk {
	struct rb_pipeline *p;
	struct rb_prereq *pr;
	/* Series on the walk now (the series itself first) and done. */
	char *stack[RB_PREREQ_DEPTH + 2];
	size_t depth;
	char **done;
	size_t n_done;
	/* patch-ids of the patches taken so far, [n_patches] */
	char (*pids)[RB_PATCH_ID_HEX];
	size_t n_pids;
	struct known *recent;
	size_t n_recent;
	bool scanned;
	struct rb_buf single; /* titles of the patches found by patch-id */
	size_t n_single;
	/* The author of the series under review (its first part's From:):
	 * another author's titles are not shown (shown()). */
	const char *author;
};

/*
 * May the review show what @from's stored mail says (its title)? Only
 * when it is the poster's own: a prerequisite can name any stored
 * series, private or another author's, and the review is public (issue
 * 33). Otherwise it names what the poster wrote, the id.
 */
static bool shown(const struct walk *w, const char *from)
{
	return w->author && from && !strcasecmp(w->author, from);
}

void rb_prereq_init(struct rb_prereq *pr)
{
	memset(pr, 0, sizeof(*pr));
	rb_buf_init(&pr->applied, 4096);
	rb_buf_init(&pr->missing, 4096);
}

void rb_prereq_release(struct rb_prereq *pr)
{
	size_t i;

	for (i = 0; i < pr->n_msgs; i++)
		rb_message_free(pr->msgs[i]);
	free(pr->msgs);
	free(pr->patches);
	rb_buf_release(&pr->applied);
	rb_buf_release(&pr->missing);
	memset(pr, 0, sizeof(*pr));
}

/* Adds one "; "-separated item to @b; a full buffer drops the rest. */
static void note(struct rb_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct rb_buf *b, const char *fmt, ...)
{
	size_t len = b->len;
	va_list ap;
	int ret;

	ret = rb_buf_puts(b, len ? "; " : "");
	va_start(ap, fmt);
	ret = ret ?: rb_buf_vprintf(b, fmt, ap);
	va_end(ap);
	if (ret && b->ptr) {
		b->len = len;
		b->ptr[len] = '\0';
	}
}

/* "<id@host>", "id@host" -> "id@host" in @out; false if it is no id. */
static bool msgid_of(char *out, size_t size, const char *v)
{
	size_t n, i;

	while (*v == ' ' || *v == '\t')
		v++;
	if (*v == '<')
		v++;
	n = strcspn(v, "> \t");
	if (!n || n > ID_MAX || n >= size)
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x21 || (unsigned char)v[i] > 0x7e)
			return false;
	memcpy(out, v, n);
	out[n] = '\0';
	return strchr(out, '@') != NULL;
}

/* 40 hex digits, lower-cased into @out; false otherwise. */
static bool patchid_of(char out[GIT_OID_HEXSZ + 1], const char *v)
{
	size_t i;

	while (*v == ' ' || *v == '\t')
		v++;
	for (i = 0; i < GIT_OID_HEXSZ; i++) {
		if (!strchr("0123456789abcdefABCDEF", v[i]) || !v[i])
			return false;
		out[i] = (char)(v[i] | 0x20);
	}
	out[i] = '\0';
	return !v[i] || v[i] == ' ' || v[i] == '\t';
}

static bool on_list(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] && !strcmp(v[i], s))
			return true;
	return false;
}

static int load_msg(struct walk *w, const char *message_id,
		    struct rb_message **out)
{
	return rb_series_parse_stored(w->p->st, message_id,
				      rb_series_max_size(w->p->cfg), out, NULL);
}

/* Takes @m (owned from now on) as the next patch to apply first. */
static int take(struct walk *w, struct rb_message *m)
{
	struct rb_prereq *pr = w->pr;
	struct rb_apply_patch *ap;
	void *nv;
	size_t n = pr->n_patches;

	nv = realloc(pr->msgs, (pr->n_msgs + 1) * sizeof(*pr->msgs));
	if (!nv) {
		rb_message_free(m);
		return -RB_ENOMEM;
	}
	pr->msgs = nv;
	pr->msgs[pr->n_msgs++] = m;
	nv = realloc(pr->patches, (n + 1) * sizeof(*pr->patches));
	if (!nv)
		return -RB_ENOMEM;
	pr->patches = nv;
	nv = realloc(w->pids, (n + 1) * sizeof(*w->pids));
	if (!nv)
		return -RB_ENOMEM;
	w->pids = nv;
	ap = &pr->patches[n];
	memset(ap, 0, sizeof(*ap));
	ap->patch = m->patch;
	ap->len = m->patch_len;
	ap->author_name = m->author.addr ? m->author.name : m->from.name;
	ap->author_email = m->author.addr ? m->author.addr : m->from.addr;
	ap->date = m->date;
	ap->message = m->commit_msg;
	if (rb_patch_id(w->pids[n], m->patch, m->patch_len)) {
		rb_err_clear();
		w->pids[n][0] = '\0';
	}
	pr->n_patches++;
	return 0;
}

static int resolve_msgs(struct walk *w, struct rb_message *const *msgs,
			size_t n);

/* The stored series that holds @id, its own prerequisites first. */
/*
 * Whether series @sid (that holds @id) is not to be taken: on the stack
 * (a cycle), taken already, or past the limits. The reason is noted.
 */
static bool series_refused(struct walk *w, const char *id, const char *sid)
{
	if (on_list(w->stack, w->depth, sid)) {
		note(&w->pr->missing,
		     "prerequisite-message-id <%s> leads back to a series "
		     "that needs it (a cycle; not applied again)",
		     id);
		return true;
	}
	if (on_list(w->done, w->n_done, sid))
		return true;
	if (w->depth > RB_PREREQ_DEPTH || w->pr->n_series >= RB_PREREQ_SERIES) {
		note(&w->pr->missing,
		     "prerequisite-message-id <%s>: too many prerequisites "
		     "(not applied)",
		     id);
		return true;
	}
	return false;
}

/* True (after noting it) when @row's patches would pass the limit. */
static bool too_many_patches(struct walk *w, const struct rb_series_row *row,
			     const char *sid)
{
	if (w->pr->n_patches + (size_t)row->total <= RB_PREREQ_PATCHES)
		return false;
	note(&w->pr->missing,
	     "prerequisite series <%s>: too many patches (not applied)", sid);
	return true;
}

/*
 * The parts 0..row->total of a stored series into *@out (the caller frees
 * them), or *@out NULL, with the reason noted, when the series is too
 * big or incomplete.
 */
/* The parts of @v (opened), parsed; *ok when every patch is there. */
static int load_parts(struct walk *w, struct rb_series_view *v, const char *sid,
		      bool *ok)
{
	size_t i, total = (size_t)v->row.total;
	int ret;

	*ok = false;
	/* Before reading any part: a stored total can be 10000. */
	if (too_many_patches(w, &v->row, sid))
		return 0;
	ret = rb_series_view_parse(v, w->p->st);
	if (ret)
		return ret;
	for (i = 1; i <= total; i++)
		if (!v->msgs[i] || !v->msgs[i]->patch)
			break;
	if (i <= total || !total)
		note(&w->pr->missing,
		     "prerequisite series <%s> is incomplete (not applied)",
		     sid);
	else
		*ok = true;
	return 0;
}

/* Records series @sid (owned, taken) as applied. */
static int series_taken(struct walk *w, char *sid,
			const struct rb_series_row *row, const char *id)
{
	void *nv = realloc(w->done, (w->n_done + 1) * sizeof(*w->done));

	if (!nv) {
		free(sid);
		return -RB_ENOMEM;
	}
	w->done = nv;
	w->done[w->n_done++] = sid;
	w->pr->n_series++;
	if (w->pr->applied.len)
		rb_buf_puts(&w->pr->applied, "; ");
	if (row->title && shown(w, row->author))
		rb_buf_printf(&w->pr->applied,
			      "prerequisite series \"%.200s\" (%d %s)",
			      row->title, row->total,
			      row->total == 1 ? "patch" : "patches");
	else
		rb_buf_printf(&w->pr->applied,
			      "prerequisite series <%.250s> (%d %s)", id,
			      row->total,
			      row->total == 1 ? "patch" : "patches");
	rb_log(RB_LOG_INFO, "prereq.series", "series", row->id, NULL);
	return 0;
}

static int take_series(struct walk *w, const char *id)
{
	struct rb_series_view v = { 0 };
	char *sid = NULL;
	bool ok = false;
	size_t i;
	int ret;

	ret = rb_store_series_of(w->p->st, id, &sid);
	if (ret == -RB_ENOTFOUND) {
		note(&w->pr->missing,
		     "prerequisite-message-id <%s> is not stored", id);
		return 0;
	}
	if (ret || series_refused(w, id, sid))
		goto out;
	ret = rb_series_view_open(&v, w->p->st, sid,
				  rb_series_max_size(w->p->cfg), 0);
	if (!ret)
		ret = load_parts(w, &v, sid, &ok);
	if (ret || !ok)
		goto out;
	w->stack[w->depth++] = sid;
	ret = resolve_msgs(w, v.msgs, (size_t)v.row.total + 1);
	w->depth--;
	if (!ret && too_many_patches(w, &v.row, sid))
		goto out;
	for (i = 1; i <= (size_t)v.row.total && !ret; i++)
		ret = take(w, rb_series_view_take(&v, (int)i));
	if (!ret) {
		ret = series_taken(w, sid, &v.row, id);
		sid = NULL;
	}
out:
	rb_series_view_release(&v);
	free(sid);
	return ret;
}

static int scan_one(const char *message_id, void *payload)
{
	struct walk *w = payload;
	struct rb_message *m = NULL;
	struct known *k;
	void *nv;
	int ret;

	ret = load_msg(w, message_id, &m);
	if (ret || !m || !m->patch)
		goto out;
	nv = realloc(w->recent, (w->n_recent + 1) * sizeof(*w->recent));
	if (!nv) {
		ret = -RB_ENOMEM;
		goto out;
	}
	w->recent = nv;
	k = &w->recent[w->n_recent];
	if (rb_patch_id(k->pid, m->patch, m->patch_len)) {
		rb_err_clear();
		goto out;
	}
	k->message_id = strdup(message_id);
	if (!k->message_id) {
		ret = -RB_ENOMEM;
		goto out;
	}
	w->n_recent++;
out:
	rb_message_free(m);
	return ret;
}

/*
 * The stored part whose patch-id is @pid: *msgid (borrowed from the walk
 * or owned by *@own), or NULL. By the index of patch-ids made as each
 * mail was parsed (migration 10); only patches stored before it are
 * parsed again, among the RB_PREREQ_SCAN newest, once per walk.
 */
static int find_patch(struct walk *w, const char *pid, const char **msgid,
		      char **own)
{
	size_t i;
	int ret;

	*msgid = NULL;
	ret = rb_store_patch_by_id(w->p->st, pid, own);
	if (!ret) {
		*msgid = *own;
		return 0;
	}
	if (ret != -RB_ENOTFOUND)
		return ret;
	rb_err_clear();
	if (!w->scanned) {
		char n[32];

		w->scanned = true;
		ret = rb_store_each_recent_patch(w->p->st, RB_PREREQ_SCAN,
						 scan_one, w);
		if (ret)
			return ret;
		snprintf(n, sizeof(n), "%zu", w->n_recent);
		rb_log(RB_LOG_INFO, "prereq.scan", "parsed", n, NULL);
	}
	for (i = 0; i < w->n_recent; i++)
		if (!strcmp(w->recent[i].pid, pid)) {
			*msgid = w->recent[i].message_id;
			break;
		}
	return 0;
}

/* One patch named by its patch-id: already taken, or a stored one. */
static int take_patch(struct walk *w, const char *pid)
{
	struct rb_message *m = NULL;
	const char *msgid = NULL;
	char *sid = NULL, *own = NULL;
	size_t i;
	int ret = 0;

	for (i = 0; i < w->pr->n_patches; i++)
		if (!strcmp(w->pids[i], pid))
			return 0;
	ret = find_patch(w, pid, &msgid, &own);
	if (ret)
		return ret;
	if (!msgid) {
		note(&w->pr->missing, "prerequisite-patch-id %s is not stored",
		     pid);
		return 0;
	}
	ret = rb_store_series_of(w->p->st, msgid, &sid);
	if (!ret && on_list(w->stack, w->depth, sid)) {
		/* A patch of a series on the walk: the series itself. */
		ret = 0;
		goto out;
	}
	if (ret && ret != -RB_ENOTFOUND)
		goto out;
	ret = 0;
	if (w->pr->n_patches >= RB_PREREQ_PATCHES) {
		note(&w->pr->missing,
		     "prerequisite-patch-id %s: too many patches (not "
		     "applied)",
		     pid);
		goto out;
	}
	ret = load_msg(w, msgid, &m);
	if (!ret && m) {
		if (m->subject.title && shown(w, m->from.addr))
			rb_buf_printf(&w->single, "%s\"%.200s\"",
				      w->n_single++ ? ", " : "",
				      m->subject.title);
		else
			rb_buf_printf(&w->single, "%s%s",
				      w->n_single++ ? ", " : "", pid);
		ret = take(w, m);
	}
out:
	free(sid);
	free(own);
	return ret;
}

/*
 * The trailers of one series, in order: every message-id first (b4 lists
 * a series' patch-ids after it, and those are then already taken), then
 * the patch-ids.
 */
static int resolve_msgs(struct walk *w, struct rb_message *const *msgs,
			size_t n)
{
	char id[ID_MAX + 1], pid[GIT_OID_HEXSZ + 1];
	size_t i, k, seen = 0;
	int pass, ret = 0;

	for (pass = 0; pass < 2 && !ret; pass++) {
		for (i = 0; i < n && !ret; i++) {
			const struct rb_message *m = msgs[i];

			for (k = 0; m && k < m->n_trailers && !ret; k++) {
				const struct rb_trailer *t = &m->trailers[k];
				bool is_mid = !strcasecmp(
					t->key, "prerequisite-message-id");
				bool is_pid = !strcasecmp(
					t->key, "prerequisite-patch-id");

				if (!(pass == 0 ? is_mid : is_pid))
					continue;
				if (++seen > RB_PREREQ_TRAILERS) {
					if (seen == RB_PREREQ_TRAILERS + 1)
						note(&w->pr->missing,
						     "more than %d prerequisites "
						     "(the rest ignored)",
						     RB_PREREQ_TRAILERS);
					continue;
				}
				if (is_mid &&
				    msgid_of(id, sizeof(id), t->value))
					ret = take_series(w, id);
				else if (is_pid && patchid_of(pid, t->value))
					ret = take_patch(w, pid);
				else
					note(&w->pr->missing,
					     "%s: not a valid value",
					     is_mid ?
						     "prerequisite-message-id" :
						     "prerequisite-patch-id");
			}
		}
	}
	return ret;
}

int rb_prereq_resolve(struct rb_prereq *pr, struct rb_pipeline *p,
		      const char *series_id, struct rb_message *const *msgs,
		      size_t n)
{
	struct walk w = { .p = p, .pr = pr };
	size_t i;
	int ret;

	rb_buf_init(&w.single, 4096);
	for (i = 0; i < n && !w.author; i++)
		if (msgs[i])
			w.author = msgs[i]->from.addr;
	w.stack[w.depth++] = (char *)series_id;
	ret = resolve_msgs(&w, msgs, n);
	if (!ret && w.n_single)
		rb_buf_printf(&pr->applied, "%sprerequisite %s %s",
			      pr->applied.len ? "; " : "",
			      w.n_single == 1 ? "patch" : "patches",
			      w.single.ptr);
	rb_buf_release(&w.single);
	for (i = 0; i < w.n_done; i++)
		free(w.done[i]);
	free(w.done);
	free(w.pids);
	for (i = 0; i < w.n_recent; i++)
		free(w.recent[i].message_id);
	free(w.recent);
	if (pr->missing.len)
		rb_log(RB_LOG_INFO, "prereq.missing", "series", series_id,
		       "reason", pr->missing.ptr, NULL);
	return ret;
}
