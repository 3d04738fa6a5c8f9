// SPDX-License-Identifier: GPL-2.0-only
/*
 * versions.c - v(n+1) of a stored series inside the review stage. See
 * versions.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <git2.h>

#include "bot/store/store.h"
#include "bot/store/store_versions.h"
#include "bot/stages/series_view.h"
#include "bot/stages/threads.h"
#include "bot/stages/versions.h"
#include "mail/message.h"
#include "review/apply/diff.h"
#include "review/findings.h"
#include "review/apply/patchid.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

/* How far back the chain of versions is followed for earlier findings. */
#define MAX_CHAIN 8

void rb_versions_b4_link(char *out, size_t size, const char *raw, size_t len)
{
	static const char key[] = "Link to v";
	const char *p = raw, *end = raw + len, *q, *e;
	size_t n;

	out[0] = '\0';
	while (p && p < end) {
		p = memmem(p, (size_t)(end - p), key, sizeof(key) - 1);
		if (!p)
			return;
		e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		q = memmem(p, (size_t)(e - p), "lore.kernel.org/", 16);
		p = e;
		if (!q)
			continue;
		q += 16;
		/* "r/ID", "all/ID" or "LIST/ID", maybe with a trailing "/" */
		q = memchr(q, '/', (size_t)(e - q));
		if (!q)
			continue;
		q++;
		/* A Message-ID's printable characters, up to '/' or '>' */
		for (n = 0; q + n < e && q[n] > ' ' && q[n] < 0x7f &&
			    q[n] != '/' && q[n] != '>' && q[n] != '<';
		     n++)
			;
		if (!n || n + 3 > size || !memchr(q, '@', n))
			continue;
		snprintf(out, size, "%.*s", (int)n, q);
		return;
	}
}

static int alloc_parts(struct rb_versions *v, int total)
{
	size_t n = (size_t)total + 1;

	v->ids = calloc(n, sizeof(*v->ids));
	v->change = calloc(n, sizeof(*v->change));
	v->prev_idx = calloc(n, sizeof(*v->prev_idx));
	v->diffs = calloc(n, sizeof(*v->diffs));
	v->patches = calloc(n, sizeof(*v->patches));
	if (!v->ids || !v->change || !v->prev_idx || !v->diffs || !v->patches)
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

struct pid_load {
	struct rb_versions *v;
};

static int prev_pid(int idx, const char *patch_id, int unchanged_since,
		    void *payload)
{
	struct rb_versions *v = payload;

	(void)unchanged_since;
	if (idx < 1 || idx > v->prev_total)
		return 0;
	/* Recorded: reviewed on v(n), or unchanged since a reviewed one. */
	v->prev_reviewed[idx] = true;
	snprintf(v->prev_ids[idx], RB_PATCH_ID_HEX, "%s", patch_id);
	return 0;
}

/* v(n)'s parts: titles and patch-ids, from its stored mails. */
static int load_prev(struct rb_versions *v, const struct rb_versions_in *in)
{
	struct rb_series_view view = { 0 };
	const struct rb_series_row *row = &view.row;
	char computed[RB_PATCH_ID_HEX];
	int i, ret;
	size_t n;

	ret = rb_series_view_open(&view, in->st, v->prev_id, in->max_size, 0);
	if (ret)
		goto out;
	v->prev_total = row->total;
	n = (size_t)row->total + 1;
	v->prev_titles = calloc(n, sizeof(*v->prev_titles));
	v->prev_ids = calloc(n, sizeof(*v->prev_ids));
	v->prev_reviewed = calloc(n, sizeof(*v->prev_reviewed));
	v->prev_matched = calloc(n, sizeof(*v->prev_matched));
	v->prev_msgids = calloc(n, sizeof(*v->prev_msgids));
	v->prev_diffs = calloc(n, sizeof(*v->prev_diffs));
	v->prev_patches = calloc(n, sizeof(*v->prev_patches));
	if (!v->prev_titles || !v->prev_ids || !v->prev_reviewed ||
	    !v->prev_matched || !v->prev_msgids || !v->prev_diffs ||
	    !v->prev_patches) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	ret = rb_store_each_patch_id(in->st, v->prev_id, prev_pid, v);
	for (i = 1; !ret && i <= row->total; i++) {
		struct rb_message *m = NULL;

		if (!row->msgids[i])
			continue;
		v->prev_msgids[i] = strdup(row->msgids[i]);
		if (!v->prev_msgids[i]) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			break;
		}
		ret = rb_series_parse_stored(in->st, row->msgids[i],
					     view.max_size, &m, NULL);
		if (ret)
			break;
		if (m) {
			v->prev_titles[i] = strdup(
				m->subject.title ? m->subject.title : "");
			/* A part v(n) did not review has no recorded id:
			 * the range-diff still compares it. */
			if (!v->prev_ids[i][0] && m->patch &&
			    !rb_patch_id(computed, m->patch, m->patch_len))
				memcpy(v->prev_ids[i], computed,
				       sizeof(computed));
			/* For the thread's comments and the interdiff. */
			if (m->patch && rb_diff_parse(&v->prev_diffs[i],
						      m->patch, m->patch_len)) {
				rb_err_clear();
				v->prev_diffs[i] = NULL;
			}
			if (m->patch)
				v->prev_patches[i] =
					strndup(m->patch, m->patch_len);
			if (m->patch && !v->prev_patches[i])
				ret = rb_err(RB_ENOMEM, "out of memory");
			rb_message_free(m);
			if (!v->prev_titles[i])
				ret = rb_err(RB_ENOMEM, "out of memory");
		}
	}
out:
	rb_series_view_release(&view);
	return ret;
}

static void prior_strings_free(struct rb_prior_finding *f)
{
	free(f->fid);
	free(f->checker);
	free(f->category);
	free(f->file);
	free(f->code);
	free(f->fingerprint);
}

/* Findings raised on v(n) and, through its unchanged parts, before. */
static int load_prior(struct rb_versions *v, struct rb_store *st)
{
	char *id = strdup(v->prev_id), *next = NULL;
	int ver = v->prev_version, hops, ret = 0;

	if (!id)
		return rb_err(RB_ENOMEM, "out of memory");
	for (hops = 0; id && hops < MAX_CHAIN && !ret; hops++) {
		struct rb_prior_finding *f = NULL;
		struct rb_prior_finding *nv;
		size_t n = 0, i, k;

		ret = rb_store_prior_findings(st, id, ver, &f, &n);
		if (ret)
			break;
		nv = realloc(v->prior, (v->n_prior + n + 1) * sizeof(*nv));
		if (!nv) {
			rb_prior_findings_free(f, n);
			ret = rb_err(RB_ENOMEM, "out of memory");
			break;
		}
		v->prior = nv;
		for (i = 0; i < n; i++) {
			bool dup = false;

			/* The newest version's finding speaks for it. */
			for (k = 0; k < v->n_prior && !dup; k++)
				dup = !strcmp(v->prior[k].fingerprint,
					      f[i].fingerprint);
			if (dup) {
				prior_strings_free(&f[i]);
				continue;
			}
			v->prior[v->n_prior++] = f[i];
		}
		free(f);
		ret = rb_store_linked_version(st, id, &next, &ver);
		free(id);
		id = NULL;
		if (ret == -RB_ENOTFOUND) {
			ret = 0;
			break;
		}
		id = next;
		next = NULL;
	}
	free(id);
	return ret;
}

int rb_versions_prepare(struct rb_versions *v, const struct rb_versions_in *in)
{
	struct rb_prev_query q = {
		.series_id = in->series_id,
		.version = in->version,
		.assembled = in->assembled_previous,
		.author = in->author,
		.title = in->title,
	};
	char link[512] = "";
	int i, k, ret;

	memset(v, 0, sizeof(*v));
	v->version = in->version;
	v->total = in->total;
	ret = alloc_parts(v, in->total);
	if (ret)
		return ret;
	for (i = 1; i <= in->n_parts && i <= in->total; i++) {
		const struct rb_message *m = in->msgs[i];

		if (!m || !m->patch)
			continue;
		if (rb_patch_id(v->ids[i], m->patch, m->patch_len))
			v->ids[i][0] = '\0';
		if (rb_diff_parse(&v->diffs[i], m->patch, m->patch_len))
			v->diffs[i] = NULL;
		v->patches[i] = strndup(m->patch, m->patch_len);
		if (!v->patches[i])
			return rb_err(RB_ENOMEM, "out of memory");
	}
	if (in->version <= 1 && !in->assembled_previous)
		return 0;
	if (in->cover_raw) {
		rb_versions_b4_link(link, sizeof(link), in->cover_raw,
				    in->cover_len);
		q.b4_link = link[0] ? link : NULL;
	}
	ret = rb_store_previous_version(in->st, &q, &v->prev_id,
					&v->prev_version, &v->how);
	if (ret == -RB_ENOTFOUND)
		return 0;
	if (!ret)
		ret = load_prev(v, in);
	if (!ret)
		ret = load_prior(v, in->st);
	if (ret) {
		/* Reading v(n) failed: review everything, as before. */
		rb_log(RB_LOG_WARN, "versions.failed", "series", in->series_id,
		       "reason", rb_errmsg(), NULL);
		free(v->prev_id);
		v->prev_id = NULL;
		return ret == -RB_ENOMEM ? ret : 0;
	}
	for (i = 1; i <= in->total; i++) {
		const struct rb_message *m = in->msgs[i];

		v->change[i] = RB_PART_NEW;
		if (!v->ids[i][0])
			continue;
		for (k = 1; k <= v->prev_total; k++)
			if (!v->prev_matched[k] &&
			    !strcmp(v->prev_ids[k], v->ids[i])) {
				v->change[i] = v->prev_reviewed[k] ?
						       RB_PART_UNCHANGED :
						       RB_PART_CHANGED;
				v->prev_idx[i] = k;
				v->prev_matched[k] = true;
				break;
			}
		if (v->prev_idx[i] || !m || !m->subject.title)
			continue;
		for (k = 1; k <= v->prev_total; k++)
			if (!v->prev_matched[k] && v->prev_titles[k] &&
			    !strcasecmp(v->prev_titles[k], m->subject.title)) {
				v->change[i] = RB_PART_CHANGED;
				v->prev_idx[i] = k;
				v->prev_matched[k] = true;
				break;
			}
	}
	rb_log(RB_LOG_INFO, "versions.linked", "series", in->series_id,
	       "previous", v->prev_id, "how", v->how, NULL);
	return 0;
}

void rb_versions_release(struct rb_versions *v)
{
	int i;

	for (i = 0; v->diffs && i <= v->total; i++)
		rb_diff_free(v->diffs[i]);
	for (i = 0; v->prev_titles && i <= v->prev_total; i++)
		free(v->prev_titles[i]);
	for (i = 0; i <= v->prev_total; i++) {
		if (v->prev_msgids)
			free(v->prev_msgids[i]);
		if (v->prev_diffs)
			rb_diff_free(v->prev_diffs[i]);
		if (v->prev_patches)
			free(v->prev_patches[i]);
	}
	for (i = 0; v->patches && i <= v->total; i++)
		free(v->patches[i]);
	free(v->prev_msgids);
	free(v->prev_diffs);
	free(v->prev_patches);
	free(v->patches);
	free(v->quoted_of);
	rb_threads_release(v);
	free(v->diffs);
	free(v->ids);
	free(v->change);
	free(v->prev_idx);
	free(v->prev_id);
	free(v->prev_titles);
	free(v->prev_ids);
	free(v->prev_reviewed);
	free(v->prev_matched);
	rb_prior_findings_free(v->prior, v->n_prior);
	free(v->fixed);
	free(v->prior_of);
	free(v->later_of);
	memset(v, 0, sizeof(*v));
}

int rb_versions_unchanged(const struct rb_versions *v, int idx)
{
	if (!v->prev_id || idx < 1 || idx > v->total || !v->change)
		return 0;
	return v->change[idx] == RB_PART_UNCHANGED ? v->prev_version : 0;
}

void rb_versions_drop_unchanged(const struct rb_versions *v,
				struct rb_findings *fs)
{
	bool *gone;
	size_t i, n = 0;

	if (!v->prev_id || !fs->n)
		return;
	gone = calloc(fs->n, sizeof(*gone));
	if (!gone)
		return; /* nothing removed: they are reviewed again */
	for (i = 0; i < fs->n; i++)
		if (rb_versions_unchanged(v, fs->v[i].patch_index)) {
			gone[i] = true;
			n++;
		}
	if (n)
		rb_findings_remove(fs, gone);
	free(gone);
}

/* Appends "\n\n@note" to a finding's message. */
static int add_note(struct rb_finding *f, const char *note)
{
	struct rb_buf b = RB_BUF_INIT(1u << 20);
	char *s;

	if (rb_buf_printf(&b, "%s %s", f->message, note)) {
		rb_buf_release(&b);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	s = rb_buf_detach(&b, NULL);
	if (!s)
		return rb_err(RB_ENOMEM, "out of memory");
	free(f->message);
	f->message = s;
	return 0;
}

static int set_state(char **states, size_t i, const char *st)
{
	char *s = strdup(st);

	if (!s)
		return rb_err(RB_ENOMEM, "out of memory");
	free(states[i]);
	states[i] = s;
	return 0;
}

/* The look-ahead for finding @f: 0, or the later part j that changes its
 * line again (*kept: j adds the quoted code back). */
static int later_part(const struct rb_versions *v, const struct rb_finding *f,
		      bool *kept)
{
	int k = f->patch_index, j;

	*kept = false;
	if (k < 1 || k >= v->total || !f->file || f->line <= 0)
		return 0;
	j = rb_patch_later_change(
		(const struct rb_diff *const *)&v->diffs[k + 1],
		(size_t)(v->total - k), f->file, f->line, f->code, kept);
	return j < 0 ? 0 : k + 1 + j;
}

/* Whether the quoted code of @p is still in this version. */
static bool still_there(const struct rb_versions *v,
			const struct rb_prior_finding *p,
			struct rb_message *const *msgs)
{
	int i;

	if (!p->code || !*p->code)
		return false;
	for (i = 1; i <= v->total; i++) {
		if (p->file && v->diffs[i] &&
		    rb_patch_adds_code(v->diffs[i], p->file, p->code))
			return true;
		if (!p->file && msgs && msgs[i] && msgs[i]->commit_msg &&
		    strstr(msgs[i]->commit_msg, p->code))
			return true;
	}
	return false;
}

/* The part of this version that p's part became, 0 when none. */
static int part_now(const struct rb_versions *v, int prev_idx)
{
	int i;

	for (i = 1; i <= v->total; i++)
		if (v->prev_idx[i] == prev_idx)
			return i;
	return 0;
}

static int recheck(struct rb_versions *v, struct rb_findings *fs, char **states,
		   struct rb_message *const *msgs)
{
	char note[160];
	size_t i, k;
	int ret = 0;

	for (k = 0; k < v->n_prior && !ret; k++) {
		const struct rb_prior_finding *p = &v->prior[k];
		bool seen = false;
		int now;

		for (i = 0; i < fs->n && !ret; i++) {
			if (strcmp(fs->v[i].fingerprint, p->fingerprint))
				continue;
			seen = true;
			v->prior_of[i] = p->id;
			if (strcmp(states[i], "raised"))
				continue;
			if (p->judged) {
				/* Somebody judged it on v(n): said once. */
				ret = set_state(states, i, "suppressed");
				continue;
			}
			snprintf(note, sizeof(note), "(Raised on v%d too%s%s.)",
				 p->version, p->fid ? ", as " : "",
				 p->fid ? p->fid : "");
			ret = add_note(&fs->v[i], note);
		}
		if (seen || ret)
			continue;
		/* Not found again: fixed, unless its part did not change
		 * or its code is still there. */
		now = part_now(v, p->patch_idx);
		if (p->version == v->prev_version && now &&
		    v->change[now] == RB_PART_UNCHANGED)
			continue;
		if (p->version != v->prev_version) {
			/* From before v(n), through a part unchanged in
			 * v(n): only when that part changed now. */
			bool changed = false;

			for (i = 1; i <= (size_t)v->total; i++)
				changed |= v->change[i] != RB_PART_UNCHANGED;
			if (!changed)
				continue;
		}
		if (still_there(v, p, msgs))
			continue;
		v->fixed[v->n_fixed++] = p->id;
	}
	return ret;
}

/*
 * Issue 37: a raised finding on a line a reply in the thread had quoted
 * (this version's, or v(n)'s and still there) is said already: dropped,
 * or with mark_quoted kept with a note.
 */
static int said_once(struct rb_versions *v, struct rb_findings *fs,
		     char **states)
{
	size_t i;
	int ret = 0;

	if (!v->n_lines)
		return 0;
	v->quoted_of = calloc(fs->n + 1, sizeof(*v->quoted_of));
	if (!v->quoted_of)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < fs->n && !ret; i++) {
		const struct rb_thread_line *l;
		char note[128];

		if (strcmp(states[i], "raised"))
			continue;
		l = rb_threads_quoted(v, &fs->v[i]);
		if (!l)
			continue;
		v->quoted_of[i] = l->bot ? "bot" : "reviewer";
		/* Only a trusted reply keeps it from being said at all. */
		if (!v->mark_quoted && l->trusted) {
			ret = set_state(states, i, "dropped");
			continue;
		}
		if (l->earlier)
			snprintf(note, sizeof(note),
				 "(%s replied to this line on v%d too.)",
				 l->bot ? "A bot" : "A reviewer",
				 v->prev_version);
		else
			snprintf(note, sizeof(note),
				 "(%s quoted this line in the thread too.)",
				 l->bot ? "A bot" : "A reviewer");
		ret = add_note(&fs->v[i], note);
	}
	return ret;
}

int rb_versions_filter(struct rb_versions *v, struct rb_findings *fs,
		       char **states, struct rb_message *const *msgs)
{
	char note[96];
	size_t i;
	int ret = 0;

	v->n_findings = fs->n;
	v->prior_of = calloc(fs->n + 1, sizeof(*v->prior_of));
	v->later_of = calloc(fs->n + 1, sizeof(*v->later_of));
	v->fixed = calloc(v->n_prior + 1, sizeof(*v->fixed));
	if (!v->prior_of || !v->later_of || !v->fixed)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < fs->n && !ret; i++) {
		bool kept;
		int j;

		if (strcmp(states[i], "raised"))
			continue;
		j = later_part(v, &fs->v[i], &kept);
		if (!j)
			continue;
		v->later_of[i] = j;
		if (!kept) {
			/* The series itself changes the line again: what
			 * the finding quoted is gone at the tip. */
			ret = set_state(states, i, "dropped");
			continue;
		}
		snprintf(note, sizeof(note),
			 "(Patch %d/%d changes this line again and keeps it.)",
			 j, v->total);
		ret = add_note(&fs->v[i], note);
	}
	if (!ret && v->prev_id)
		ret = recheck(v, fs, states, msgs);
	if (!ret)
		ret = said_once(v, fs, states);
	return ret;
}

int rb_versions_unchanged_line(const struct rb_versions *v, struct rb_buf *out)
{
	int i, n = 0, k = 0, ret = 0;

	for (i = 1; i <= v->total; i++)
		n += rb_versions_unchanged(v, i) != 0;
	if (!n)
		return 0;
	if (n == v->total)
		return rb_buf_printf(out,
				     "Every patch is unchanged since v%d (the "
				     "same patch-id): none was reviewed again.",
				     v->prev_version);
	ret = rb_buf_puts(out, n > 1 ? "Patches" : "Patch");
	for (i = 1; i <= v->total && !ret; i++) {
		if (!rb_versions_unchanged(v, i))
			continue;
		k++;
		ret = rb_buf_printf(out, "%s %d/%d",
				    k == 1 ? "" :
				    k == n ? " and" :
					     ",",
				    i, v->total);
	}
	if (!ret)
		ret = rb_buf_printf(out,
				    " %s unchanged since v%d (the same "
				    "patch-id) and not reviewed again.",
				    n > 1 ? "are" : "is", v->prev_version);
	return ret;
}

int rb_versions_fixed_line(const struct rb_versions *v, struct rb_buf *out)
{
	size_t i, k, n = 0;
	int ret = 0;

	for (i = 0; i < v->n_fixed && !ret; i++)
		for (k = 0; k < v->n_prior && !ret; k++) {
			const struct rb_prior_finding *p = &v->prior[k];

			if (p->id != v->fixed[i] || !p->fid)
				continue;
			if (!n++)
				ret = rb_buf_printf(out,
						    "Fixed in v%d (the line is "
						    "gone or changed):",
						    v->version);
			ret = ret   ?:
				      rb_buf_printf(out, "%s %s of v%d",
						    n > 1 ? "," : "", p->fid,
						    p->version);
		}
	return ret ? ret : n ? rb_buf_puts(out, ".") : 0;
}

int rb_versions_range_diff(const struct rb_versions *v, struct rb_buf *out)
{
	int i, k, n[3] = { 0 }, dropped = 0, ret;

	if (!v->prev_id)
		return 0;
	for (i = 1; i <= v->total; i++)
		if (v->ids[i][0])
			n[v->change[i]]++;
	for (k = 1; k <= v->prev_total; k++)
		dropped += !v->prev_matched[k] && v->prev_titles[k];
	ret = rb_buf_printf(out,
			    "Since v%d: %d unchanged, %d changed, %d new, "
			    "%d dropped",
			    v->prev_version, n[RB_PART_UNCHANGED],
			    n[RB_PART_CHANGED], n[RB_PART_NEW], dropped);
	for (k = 1, i = 0; k <= v->prev_total && !ret; k++)
		if (!v->prev_matched[k] && v->prev_titles[k])
			ret = rb_buf_printf(out, "%s%d/%d \"%s\"",
					    i++ ? ", " : " (", k, v->prev_total,
					    v->prev_titles[k]);
	if (!ret && dropped)
		ret = rb_buf_puts(out, ")");
	return ret ? ret : rb_buf_puts(out, ".");
}

int rb_versions_part_note(const struct rb_versions *v, int idx,
			  struct rb_buf *out)
{
	int was;

	if (!v->prev_id || idx < 1 || idx > v->total || !v->ids[idx][0])
		return 0;
	was = v->prev_idx[idx];
	switch (v->change[idx]) {
	case RB_PART_UNCHANGED:
		return rb_buf_printf(out,
				     "Unchanged since v%d (the same patch-id "
				     "as %d/%d): not reviewed again.",
				     v->prev_version, was, v->prev_total);
	case RB_PART_CHANGED:
		return rb_buf_printf(out, "Changed since v%d (was %d/%d).",
				     v->prev_version, was, v->prev_total);
	default:
		return rb_buf_printf(out, "New in v%d.", v->version);
	}
}

int rb_versions_write(const struct rb_versions *v, struct rb_store *st,
		      const char *series_id, const struct rb_findings *fs)
{
	size_t i;
	int ret = 0;

	if (v->prev_id)
		ret = rb_store_link_version(st, series_id, v->prev_id,
					    v->prev_version, v->how);
	for (i = 1; !ret && v->ids && i <= (size_t)v->total; i++)
		if (v->ids[i][0])
			ret = rb_store_put_patch_id(
				st, series_id, (int)i, v->ids[i],
				rb_versions_unchanged(v, (int)i));
	for (i = 0; !ret && i < v->n_fixed; i++)
		ret = rb_store_finding_fixed(st, v->fixed[i], v->version);
	for (i = 0; !ret && v->prior_of && i < v->n_findings && i < fs->n; i++)
		if (v->prior_of[i] || v->later_of[i])
			ret = rb_store_finding_versions(st, series_id,
							fs->v[i].patch_index,
							fs->v[i].fingerprint,
							v->prior_of[i],
							v->later_of[i]);
	for (i = 0; !ret && v->quoted_of && i < v->n_findings && i < fs->n; i++)
		if (v->quoted_of[i])
			ret = rb_store_finding_quoted(st, series_id,
						      fs->v[i].patch_index,
						      fs->v[i].fingerprint,
						      v->quoted_of[i]);
	if (!ret && v->prev_id)
		ret = rb_threads_write(v, st, series_id);
	return ret;
}

/* A patch as range-diff compares it: no index lines, no hunk numbers. */
static int normalised(struct rb_buf *out, const char *patch)
{
	const char *p = patch, *e;
	int ret = 0;

	while (!ret && p && *p) {
		size_t n;

		e = strchr(p, '\n');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n >= 6 && !strncmp(p, "index ", 6)) {
			/* left out */
		} else if (n >= 3 && !strncmp(p, "@@ ", 3)) {
			const char *c = memmem(p + 3, n - 3, "@@", 2);

			ret = rb_buf_puts(out, "@@");
			if (!ret && c)
				ret = rb_buf_add(out, c + 2,
						 (size_t)(p + n - c - 2));
			ret = ret ?: rb_buf_putc(out, '\n');
		} else {
			ret = rb_buf_add(out, p, n);
			ret = ret ?: rb_buf_putc(out, '\n');
		}
		p = e ? e + 1 : NULL;
	}
	return ret;
}

/* An interdiff line is cut at this many bytes; room kept for the
 * "(N more lines)" after the lines that fit. */
#define IDIFF_LINE_BYTES 200
#define IDIFF_TAIL_BYTES 32

struct idiff {
	struct rb_buf *out;
	int max, n, more;
	bool full; /* a line did not fit: the rest are counted only */
	int err; /* what failed in the callback */
};

static int idiff_line(const git_diff_delta *delta, const git_diff_hunk *hunk,
		      const git_diff_line *line, void *payload)
{
	struct idiff *d = payload;
	size_t n = line->content_len;

	(void)delta;
	(void)hunk;
	if (line->origin != GIT_DIFF_LINE_CONTEXT &&
	    line->origin != GIT_DIFF_LINE_ADDITION &&
	    line->origin != GIT_DIFF_LINE_DELETION)
		return 0;
	while (n &&
	       (line->content[n - 1] == '\n' || line->content[n - 1] == '\r'))
		n--;
	if (n > IDIFF_LINE_BYTES)
		n = IDIFF_LINE_BYTES;
	/* A line that does not fit whole, with room for the count after
	 * it, is one more left out: @out's cap is a budget, not an error. */
	if (d->n >= d->max || d->full ||
	    (d->out->max != RB_BUF_NOLIMIT &&
	     (d->out->max < IDIFF_TAIL_BYTES ||
	      n + 2 > d->out->max - IDIFF_TAIL_BYTES - d->out->len))) {
		d->full = true;
		d->more++;
		return 0;
	}
	d->n++;
	d->err = rb_buf_printf(d->out, "%c%.*s\n", line->origin, (int)n,
			       line->content);
	return d->err ? -1 : 0;
}

int rb_versions_interdiff(const struct rb_versions *v, int idx, int context,
			  int max_lines, struct rb_buf *out)
{
	struct rb_buf a = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	git_patch *patch = NULL;
	struct idiff d = { out, max_lines, 0, 0, false, 0 };
	const char *now;
	size_t start = out->len;
	int k, ret;

	if (!v->prev_id || idx < 1 || idx > v->total || !v->patches ||
	    v->change[idx] != RB_PART_CHANGED || !(now = v->patches[idx]))
		return 0;
	k = v->prev_idx[idx];
	if (k < 1 || k > v->prev_total || !v->prev_patches ||
	    !v->prev_patches[k])
		return 0;
	ret = normalised(&a, v->prev_patches[k]);
	ret = ret ?: normalised(&b, now);
	if (ret)
		goto out;
	opts.context_lines = (uint32_t)context;
	if (git_patch_from_buffers(&patch, a.ptr, a.len, "a", b.ptr, b.len, "b",
				   &opts)) {
		git_error_clear();
		goto out;
	}
	if (git_patch_print(patch, idiff_line, &d)) {
		/* out of memory in idiff_line(), else libgit2's own failure:
		 * no interdiff rather than half of one */
		git_error_clear();
		ret = d.err;
		rb_buf_truncate(out, start);
		goto out;
	}
	if (d.more)
		ret = rb_buf_printf(out, "(%d more lines)\n", d.more);
out:
	git_patch_free(patch);
	rb_buf_release(&a);
	rb_buf_release(&b);
	return ret;
}
