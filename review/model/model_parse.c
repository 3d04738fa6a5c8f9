// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_parse.c - the model's answers read (model.h): the finders'
 * findings and dismissals, the verifier's verdicts with their evidence,
 * and a judge's prose verdict. Model output is hostile: every field is
 * typed, capped and counted (MAX_FINDINGS, MAX_FIELD, MAX_EVIDENCE ...),
 * and an answer that does not parse is an answer with nothing in it.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <jansson.h>

#include "mail/verdict.h"
#include "review/apply/diff.h"
#include "review/model/model.h"
#include "review/model/model_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define MAX_FINDINGS 64
#define MAX_EVIDENCE 8 /* quotes per verdict */
#define MAX_PATH 1024
#define MAX_DISMISSED 16 /* dismissals of one answer */
#define MAX_REASON 1024 /* bytes of a dismissal's reason */
#define MAX_CATEGORY 64

/* The JSON object in @text: a ```json fence or prose around it is cut. */
static json_t *load_object(const char *text, size_t len)
{
	const char *a = memchr(text, '{', len), *b = NULL;
	size_t i;

	for (i = len; i > 0; i--)
		if (text[i - 1] == '}') {
			b = text + i - 1;
			break;
		}
	if (!a || !b || b < a)
		return NULL;
	return json_loadb(a, (size_t)(b - a) + 1, JSON_REJECT_DUPLICATES, NULL);
}

static char *field_str(json_t *o, const char *k, bool nonempty)
{
	json_t *v = json_object_get(o, k);
	const char *s = json_string_value(v);
	size_t l = json_string_length(v);

	if (!s || l > MAX_FIELD || (nonempty && !l) || strlen(s) != l)
		return NULL;
	return strdup(s);
}

static void raw_release(struct rb_model_raw_finding *f)
{
	free(f->file);
	free(f->quoted_code);
	free(f->category);
	free(f->trigger_scenario);
	free(f->question);
	free(f->severity_reason);
	memset(f, 0, sizeof(*f));
}

static void dismissal_release(struct rb_model_dismissal *d)
{
	free(d->file);
	free(d->category);
	free(d->reason);
	memset(d, 0, sizeof(*d));
}

void rb_model_raw_findings_release(struct rb_model_raw_findings *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		raw_release(&f->v[i]);
	for (i = 0; i < f->n_dis; i++)
		dismissal_release(&f->dis[i]);
	free(f->v);
	free(f->dis);
	memset(f, 0, sizeof(*f));
}

static bool parse_one(struct rb_model_raw_finding *f, json_t *o)
{
	json_t *line = json_object_get(o, "line");
	json_t *conf = json_object_get(o, "confidence");
	json_t *intro = json_object_get(o, "introduced_by_patch");
	char *side = NULL, *sev = NULL;
	int s;
	bool ok = false;

	memset(f, 0, sizeof(*f));
	if (!json_is_object(o) || !json_is_integer(line) ||
	    !json_is_number(conf) || !json_is_boolean(intro))
		goto out;
	f->file = field_str(o, "file", false);
	f->quoted_code = field_str(o, "quoted_code", true);
	f->category = field_str(o, "category", true);
	f->trigger_scenario = field_str(o, "trigger_scenario", false);
	f->question = field_str(o, "question", true);
	side = field_str(o, "side", true);
	sev = field_str(o, "severity", true);
	if (!f->file || !f->quoted_code || !f->category ||
	    !f->trigger_scenario || !f->question || !side || !sev)
		goto out;
	if (strcmp(side, "new") && strcmp(side, "old"))
		goto out;
	f->old_side = !strcmp(side, "old");
	if (json_integer_value(line) < 0 || json_integer_value(line) > 1 << 24)
		goto out;
	f->line = (int)json_integer_value(line);
	s = rb_fsev_parse(sev);
	if (s < 0)
		goto out;
	f->severity = (enum rb_fsev)s;
	f->confidence = json_number_value(conf);
	if (!(f->confidence >= 0 && f->confidence <= 1))
		goto out;
	f->introduced_by_patch = json_is_true(intro);
	/* Optional: a model or a recording from before it still counts. */
	f->severity_reason = field_str(o, "severity_reason", true);
	ok = true;
out:
	free(side);
	free(sev);
	if (!ok)
		raw_release(f);
	return ok;
}

/*
 * The concerns the finder ruled out; absent is none, a bad entry is
 * skipped: they only ever take a finding away (the merge), so what is
 * not understood is not used.
 */
static int parse_dismissed(struct rb_model_raw_findings *r, json_t *arr)
{
	json_t *it;
	size_t i;

	if (!json_is_array(arr) || !json_array_size(arr))
		return 0;
	r->dis = calloc(MAX_DISMISSED, sizeof(*r->dis));
	if (!r->dis)
		return rb_err(RB_ENOMEM, "out of memory");
	json_array_foreach(arr, i, it)
	{
		struct rb_model_dismissal *d = &r->dis[r->n_dis];
		json_t *line = json_object_get(it, "line");

		if (r->n_dis == MAX_DISMISSED)
			break;
		if (!json_is_integer(line) || json_integer_value(line) < 0 ||
		    json_integer_value(line) > 1 << 24)
			continue;
		d->file = field_str(it, "file", true);
		d->category = field_str(it, "category", true);
		d->reason = field_str(it, "reason", true);
		if (!d->file || !d->category || !d->reason ||
		    strlen(d->file) > MAX_PATH ||
		    strlen(d->category) > MAX_CATEGORY ||
		    strlen(d->reason) > MAX_REASON) {
			dismissal_release(d);
			continue;
		}
		d->line = (int)json_integer_value(line);
		r->n_dis++;
	}
	return 0;
}

int rb_model_parse_findings(struct rb_model_raw_findings *out, const char *text,
			    size_t len)
{
	struct rb_model_raw_findings r = { 0 };
	json_t *j = load_object(text, len), *arr, *it;
	size_t i;
	int ret = 0;

	arr = json_object_get(j, "findings");
	if (!json_is_array(arr)) {
		ret = rb_err(RB_EPARSE,
			     "model: the finder's answer is not "
			     "{\"findings\": [...]}: %.80s",
			     len ? text : "(empty)");
		goto out;
	}
	r.v = calloc(MAX_FINDINGS, sizeof(*r.v));
	if (!r.v) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	json_array_foreach(arr, i, it)
	{
		if (r.n == MAX_FINDINGS) {
			r.malformed++;
			continue;
		}
		if (parse_one(&r.v[r.n], it))
			r.n++;
		else
			r.malformed++;
	}
	ret = parse_dismissed(&r, json_object_get(j, "dismissed"));
	if (ret)
		goto out;
	*out = r;
	memset(&r, 0, sizeof(r));
out:
	rb_model_raw_findings_release(&r);
	json_decref(j);
	return ret;
}

static void evidence_release(struct rb_model_evidence *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(e[i].file);
		free(e[i].quote);
	}
	free(e);
}

void rb_model_verdicts_release(struct rb_model_verdict_entry *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		evidence_release(v[i].ev, v[i].n_ev);
		free(v[i].reason);
		memset(&v[i], 0, sizeof(v[i]));
	}
}

/* The evidence of one verdict; entries that break the schema are skipped. */
static int parse_evidence(struct rb_model_verdict_entry *e, json_t *arr)
{
	json_t *it;
	size_t i;

	if (!json_is_array(arr) || !json_array_size(arr))
		return 0;
	e->ev = calloc(MAX_EVIDENCE, sizeof(*e->ev));
	if (!e->ev)
		return rb_err(RB_ENOMEM, "out of memory");
	json_array_foreach(arr, i, it)
	{
		struct rb_model_evidence *x = &e->ev[e->n_ev];
		json_t *line = json_object_get(it, "line");
		const char *side =
			json_string_value(json_object_get(it, "side"));

		if (e->n_ev == MAX_EVIDENCE)
			break;
		if (!json_is_integer(line) || json_integer_value(line) < 0 ||
		    json_integer_value(line) > 1 << 24 || !side ||
		    (strcmp(side, "base") && strcmp(side, "tip")))
			continue;
		x->file = field_str(it, "file", true);
		x->quote = field_str(it, "quote", true);
		if (!x->file || !x->quote || strlen(x->file) > MAX_PATH) {
			free(x->file);
			free(x->quote);
			memset(x, 0, sizeof(*x));
			continue;
		}
		x->base = !strcmp(side, "base");
		x->line = (int)json_integer_value(line);
		e->n_ev++;
	}
	return 0;
}

int rb_model_parse_verdicts(struct rb_model_verdict_entry *out, size_t n,
			    const char *text, size_t len)
{
	json_t *j = load_object(text, len), *arr, *it;
	size_t i;
	int ret = 0;

	memset(out, 0, n * sizeof(*out));
	arr = json_object_get(j, "verdicts");
	if (!json_is_array(arr)) {
		ret = rb_err(RB_EPARSE, "model: the verifier's answer is not "
					"{\"verdicts\": [...]}");
		goto out;
	}
	json_array_foreach(arr, i, it)
	{
		json_int_t id = json_integer_value(json_object_get(it, "id"));
		const char *v =
			json_string_value(json_object_get(it, "verdict"));
		struct rb_model_verdict_entry *e;

		if (id < 1 || (size_t)id > n || !v)
			continue;
		/* A second verdict on one id replaces the first. */
		e = &out[id - 1];
		evidence_release(e->ev, e->n_ev);
		free(e->reason);
		memset(e, 0, sizeof(*e));
		e->verdict = !strcmp(v, "confirmed") ? RB_MODEL_CONFIRMED :
			     !strcmp(v, "rejected")  ? RB_MODEL_REJECTED :
						       RB_MODEL_UNCERTAIN;
		e->reason = field_str(it, "reason", true);
		ret = parse_evidence(e, json_object_get(it, "evidence"));
		if (ret)
			break;
	}
out:
	if (ret)
		rb_model_verdicts_release(out, n);
	json_decref(j);
	return ret;
}

int rb_model_parse_prose_verdict(const char *text, size_t len)
{
	static const struct {
		const char *name;
		enum rb_verdict_kind kind;
	} words[] = {
		{ "false_positive", RB_VK_FALSE_POSITIVE },
		{ "valid", RB_VK_VALID },
		{ "fixed", RB_VK_FIXED },
	};
	json_t *j = text ? load_object(text, len) : NULL;
	const char *v = json_string_value(json_object_get(j, "prose_verdict"));
	size_t i;
	int ret = -1;

	for (i = 0; v && i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(v, words[i].name))
			ret = (int)words[i].kind;
	json_decref(j);
	return ret;
}
