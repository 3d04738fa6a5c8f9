// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_series.c - /series?id= (one series: its parts, apply attempts,
 * findings, verdicts, blocking ledger and mails as sent) and /notes (the
 * notes for the model's prompt and the verdicts proposed from prose).
 * See pages.h; the pages are templates/web/series.html and notes.html.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "bot/web/pages.h"
#include "bot/store/store.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

struct series_ctx {
	json_t *j;
	const char *inbox;
};

static int series_head_row(const struct rb_report_series *s, void *payload)
{
	struct series_ctx *c = payload;
	json_t *o = rb_web_series_obj(s, c->inbox);

	rb_web_set(o, "detail", rb_web_str(s->detail));
	rb_web_set(o, "applied_commit", rb_web_str(s->applied_commit));
	if (s->previous) {
		json_t *p = json_object();

		rb_web_set(p, "id", rb_web_str(s->previous));
		rb_web_set(p, "url", rb_web_series_link(s->previous));
		rb_web_set(o, "previous", p);
	} else {
		rb_web_set(o, "previous", json_null());
	}
	rb_web_set(o, "next", json_array());
	json_object_update(c->j, o);
	json_decref(o);
	return 1;
}

static int next_row(const char *id, int64_t version, void *payload)
{
	json_t *o = json_object();

	rb_web_set(o, "id", rb_web_str(id));
	rb_web_set(o, "version", json_integer(version));
	rb_web_set(o, "url", rb_web_series_link(id));
	json_array_append_new(payload, o);
	return 0;
}

static int patch_row(const struct rb_report_patch *p, void *payload)
{
	struct series_ctx *c = payload;
	json_t *o = json_object();

	rb_web_set(o, "idx", json_integer(p->idx));
	rb_web_set(o, "message_id", rb_web_str(p->message_id));
	rb_web_set(o, "subject", rb_web_str(p->subject));
	rb_web_set(o, "received", rb_web_time(p->received_at));
	rb_web_set(o, "thread", rb_web_thread_link(c->inbox, p->message_id));
	json_array_append_new(json_object_get(c->j, "patches"), o);
	return 0;
}

static int attempt_row(const struct rb_report_attempt *a, void *payload)
{
	json_t *o = json_object();

	rb_web_set(o, "base", rb_web_str(a->base_name));
	rb_web_set(o, "commit", rb_web_str(a->base_commit));
	rb_web_set(o, "applied", json_boolean(a->ok));
	if (!a->ok) {
		rb_web_set(o, "failed_patch", json_integer(a->failed_patch));
		rb_web_set(o, "failed_file", rb_web_str(a->failed_file));
		rb_web_set(o, "failed_hunk", json_integer(a->failed_hunk));
		rb_web_set(o, "reason", rb_web_str(a->reason));
	}
	json_array_append_new(payload, o);
	return 0;
}

static const char *outcome_text(const char *o)
{
	if (!o)
		return "-";
	if (!strcmp(o, "false_positive"))
		return "judged false positive";
	if (!strcmp(o, "valid"))
		return "judged valid";
	if (!strcmp(o, "fixed"))
		return "judged fixed";
	if (!strcmp(o, "fixed_later"))
		return "fixed in a later version";
	return o;
}

static int finding_row(const struct rb_report_finding *f, void *payload)
{
	json_t *o = json_object();

	rb_web_set(o, "fid", rb_web_str(f->fid));
	rb_web_set(o, "checker", rb_web_str(f->checker));
	rb_web_set(o, "category", rb_web_str(f->category));
	rb_web_set(o, "severity", rb_web_str(f->severity));
	rb_web_set(o, "patch", json_integer(f->patch_idx));
	rb_web_set(o, "file", rb_web_str(f->file));
	rb_web_set(o, "line", json_integer(f->line));
	rb_web_set(o, "quote", rb_web_str(f->code));
	rb_web_set(o, "message", rb_web_str(f->message));
	rb_web_set(o, "state", rb_web_str(f->state));
	rb_web_set(o, "outcome", rb_web_str(f->outcome));
	rb_web_set(o, "fixed_in_version",
		   f->fixed_version ? json_integer(f->fixed_version) :
				      json_null());
	rb_web_set(o, "severity_reason", rb_web_str(f->severity_reason));
	rb_web_set(o, "verifier_reason", rb_web_str(f->verifier_reason));
	rb_web_set(o, "already_quoted_by", rb_web_str(f->quoted));
	json_array_append_new(payload, o);
	return 0;
}

static int verdict_row(const struct rb_report_verdict *v, void *payload)
{
	json_t *o = json_object();

	rb_web_set(o, "fid", rb_web_str(v->fid));
	rb_web_set(o, "verdict", rb_web_str(v->verdict));
	rb_web_set(o, "judge", rb_web_str(v->judge));
	rb_web_set(o, "authorised", json_boolean(v->authorised));
	rb_web_set(o, "reason", rb_web_str(v->reason));
	rb_web_set(o, "date", rb_web_time(v->created_at));
	/* Issue 37: the reply's words, and a guess from prose apart. */
	rb_web_set(o, "id", json_integer(v->id));
	rb_web_set(o, "words", rb_web_str(v->comment));
	rb_web_set(o, "proposed",
		   rb_web_str(v->proposed == 1 ? "pending" :
			      v->proposed == 2 ? "confirmed" :
			      v->proposed == 3 ? "rejected" :
						 NULL));
	json_array_append_new(payload, o);
	return 0;
}

/* The body of a stored mail: what follows the header section. */
static const char *mail_body(const char *bytes)
{
	const char *p = bytes ? strstr(bytes, "\r\n\r\n") : NULL;

	if (p)
		return p + 4;
	p = bytes ? strstr(bytes, "\n\n") : NULL;
	return p ? p + 2 : bytes;
}

static int mail_row(const struct rb_report_mail *m, void *payload)
{
	struct rb_buf body = RB_BUF_INIT(RB_WEB_PAGE_MAX);
	struct rb_buf mail = RB_BUF_INIT(RB_WEB_PAGE_MAX);
	json_t *o = json_object();
	const char *p;
	int ret;

	/* The stored bytes end where their length says, not at a NUL. */
	ret = m->bytes ? rb_buf_add(&mail, m->bytes, m->len) : 0;
	/* Without the CRs of the wire format. */
	for (p = mail_body(mail.ptr); !ret && p && *p; p++)
		if (*p != '\r')
			ret = rb_buf_putc(&body, *p);
	rb_web_set(o, "message_id", rb_web_str(m->message_id));
	rb_web_set(o, "kind", rb_web_str(m->kind));
	rb_web_set(o, "patch", json_integer(m->patch_idx));
	rb_web_set(o, "words", json_integer(m->words));
	rb_web_set(o, "findings", json_integer(m->findings));
	rb_web_set(o, "state", rb_web_str(m->state));
	rb_web_set(o, "date", rb_web_time(m->created_at));
	rb_web_set(o, "body", rb_web_str(body.ptr ? body.ptr : ""));
	json_array_append_new(payload, o);
	rb_buf_release(&body);
	rb_buf_release(&mail);
	return ret;
}

/*
 * Issue 36: the series' blocking ledger (each finding raised under mode
 * blocking, this version and the ones before, with its answer state),
 * where the series was seen in the trees and what was decided, and what
 * replies asked (not in the public view: store_ledger.h).
 */
static int ledger_json(json_t *j, struct rb_store *st, const char *id)
{
	struct rb_ledger_item *v = NULL;
	struct rb_sighting *g = NULL;
	struct rb_request_row *r = NULL;
	json_t *lv = json_array(), *gv = json_array(), *rv = json_array();
	size_t n = 0, ng = 0, nr = 0, i;
	int ret;

	rb_web_set(j, "ledger", lv);
	rb_web_set(j, "sightings", gv);
	rb_web_set(j, "requests", rv);
	ret = rb_store_ledger(st, id, &v, &n);
	for (i = 0; !ret && i < n; i++) {
		json_t *o = json_object();

		rb_web_set(o, "fid", rb_web_str(v[i].f.fid));
		rb_web_set(o, "version", json_integer(v[i].version));
		rb_web_set(o, "patch", json_integer(v[i].f.patch_idx));
		rb_web_set(o, "severity", rb_web_str(v[i].f.severity));
		rb_web_set(o, "checker", rb_web_str(v[i].f.checker));
		rb_web_set(o, "message", rb_web_str(v[i].f.message));
		rb_web_set(o, "state", rb_web_str(v[i].state));
		json_array_append_new(lv, o);
	}
	ret = ret ?: rb_store_sightings_of(st, id, &g, &ng);
	for (i = 0; !ret && i < ng; i++) {
		json_t *o = json_object();

		rb_web_set(o, "tree", rb_web_str(g[i].tree));
		rb_web_set(o, "state", rb_web_str(g[i].state));
		rb_web_set(o, "commit", rb_web_str(g[i].commit));
		rb_web_set(o, "parts", json_integer(g[i].parts));
		rb_web_set(o, "open", json_integer(g[i].open));
		rb_web_set(o, "notice", rb_web_str(g[i].message_id));
		rb_web_set(o, "date", rb_web_time(g[i].created_at));
		json_array_append_new(gv, o);
	}
	ret = ret ?: rb_store_requests_of(st, id, &r, &nr);
	for (i = 0; !ret && i < nr; i++) {
		json_t *o = json_object();

		rb_web_set(o, "verb", rb_web_str(r[i].verb));
		rb_web_set(o, "by", rb_web_str(r[i].actor));
		rb_web_set(o, "role", rb_web_str(r[i].role));
		rb_web_set(o, "authorised", json_boolean(r[i].authorised));
		rb_web_set(o, "detail", rb_web_str(r[i].detail));
		rb_web_set(o, "date", rb_web_time(r[i].created_at));
		json_array_append_new(rv, o);
	}
	rb_ledger_free(v, n);
	rb_sightings_free(g, ng);
	rb_request_rows_free(r, nr);
	return ret;
}

/* Series @id as JSON; *out NULL when there is no such series. */
int rb_web_series_json(json_t **out, struct rb_store *st, const char *id,
		       const char *inbox)
{
	struct series_ctx c = { json_object(), inbox };
	json_t *a = json_array(), *f = json_array(), *v = json_array();
	json_t *m = json_array();
	int ret;

	*out = NULL;
	rb_web_set(c.j, "patches", json_array());
	ret = rb_store_report_series(st, id, series_head_row, &c);
	if (ret || !json_object_get(c.j, "id")) {
		json_decref(c.j);
		json_decref(a);
		json_decref(f);
		json_decref(v);
		json_decref(m);
		return ret;
	}
	rb_web_set(c.j, "attempts", a);
	rb_web_set(c.j, "findings", f);
	rb_web_set(c.j, "verdicts", v);
	rb_web_set(c.j, "mails", m);
	ret = rb_store_report_next_versions(st, id, next_row,
					    json_object_get(c.j, "next"));
	ret = ret ?: rb_store_report_patches(st, id, patch_row, &c);
	ret = ret ?: rb_store_report_attempts(st, id, attempt_row, a);
	ret = ret ?: rb_store_report_findings(st, id, finding_row, f);
	ret = ret ?: rb_store_report_verdicts(st, id, verdict_row, v);
	ret = ret ?: rb_store_report_mails_of(st, id, mail_row, m);
	ret = ret ?: ledger_json(c.j, st, id);
	if (ret) {
		json_decref(c.j);
		return ret;
	}
	*out = c.j;
	return 0;
}

/* --- /notes (issue 37) --- */

static int note_obj(const struct rb_note *n, void *payload)
{
	json_t *o = json_object();

	rb_web_set(o, "id", json_integer(n->id));
	rb_web_set(o, "section", rb_web_str(n->section));
	rb_web_set(o, "text", rb_web_str(n->text));
	rb_web_set(o, "state", rb_web_str(n->state));
	rb_web_set(o, "from_verdict",
		   n->verdict_id ? json_integer(n->verdict_id) : json_null());
	rb_web_set(o, "added_by", rb_web_str(n->added_by));
	rb_web_set(o, "date", rb_web_time(n->created_at));
	json_array_append_new(payload, o);
	return 0;
}

static int proposal_obj(const struct rb_proposal *p, void *payload)
{
	json_t *o = json_object();

	rb_web_set(o, "id", json_integer(p->id));
	rb_web_set(o, "series", rb_web_str(p->series_id));
	rb_web_set(o, "fid", rb_web_str(p->fid));
	rb_web_set(o, "guess", rb_web_str(p->verdict));
	rb_web_set(o, "guessed_by", rb_web_str(p->guessed_by));
	rb_web_set(o, "judge", rb_web_str(p->judge));
	rb_web_set(o, "may_judge", json_boolean(p->role != NULL));
	rb_web_set(o, "words", rb_web_str(p->comment));
	rb_web_set(o, "date", rb_web_time(p->created_at));
	json_array_append_new(payload, o);
	return 0;
}

/*
 * The notes the model's prompt carries per section, and what awaits an
 * admin: verdicts guessed from prose. The page is read-only: an admin
 * acts with "reviewbot verdicts confirm|reject ID" and "reviewbot notes
 * add|remove" on the bot's host (bot/cli/cmd_verdicts.c, cmd_notes.c).
 */
int rb_web_notes_json(json_t **out, struct rb_store *st)
{
	json_t *j = json_object(), *n = json_array(), *p = json_array();
	int ret;

	rb_web_set(j, "notes", n);
	rb_web_set(j, "proposed", p);
	ret = rb_store_each_note(st, NULL, true, note_obj, n);
	ret = ret ?: rb_store_each_proposal(st, true, proposal_obj, p);
	if (ret) {
		json_decref(j);
		return ret;
	}
	*out = j;
	return 0;
}

/* What series.html cannot compute from the model. */
int rb_web_series_html(struct rb_buf *out, json_t *j)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(j, "attempts"), i, v)
		rb_web_prefix(v, "commit", 12, "commit12");
	json_array_foreach(json_object_get(j, "sightings"), i, v)
		rb_web_prefix(v, "commit", 12, "commit12");
	json_array_foreach(json_object_get(j, "findings"), i, v)
	{
		const char *sev = rb_web_js(v, "severity_reason"),
			   *ver = rb_web_js(v, "verifier_reason");

		rb_web_set(v, "outcome_text",
			   rb_web_str(outcome_text(rb_web_js(v, "outcome"))));
		rb_web_set(v, "why",
			   json_boolean((sev && *sev) || (ver && *ver)));
	}
	rb_web_set(
		j, "has_ledger",
		json_boolean(json_array_size(json_object_get(j, "ledger")) ||
			     json_array_size(json_object_get(j, "sightings")) ||
			     json_array_size(json_object_get(j, "requests"))));
	return rb_web_page(out, "series.html", "series", j);
}
