// SPDX-License-Identifier: GPL-2.0-only
/*
 * evalset.c - the evaluation set of "reviewbot eval". See evalset.h and
 * docs/EVAL.md.
 *
 * The archive is read twice: first every patch mail's subject, ids and
 * Fixes: lines (a few hundred bytes each for 30,000 mails), then, once the
 * pairs are known, the commit message and diff of only the mails in
 * them. Every piece of mail goes through the parsers the pipeline uses:
 * mail/message.h, mail/subject.h, mail/fixes.h and review/apply/diff.h.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <jansson.h>

#include "mail/fixes.h"
#include "mail/mbox.h"
#include "mail/message.h"
#include "review/apply/diff.h"
#include "review/eval/evalset.h"
#include "review/findings.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

#define FUNC_MAX 128
/* A line found in the buggy patch more often than this says nothing. */
#define MAX_ANCHOR_HITS 2

/* One patch mail of the archive (pass 1). */
struct pmail {
	size_t ord; /* its place in the archive, 0-based */
	char *key; /* the title, lower case, blanks collapsed */
	char *title;
	char *subject;
	char *msgid;
	char *thread; /* the first reference, else In-Reply-To, else itself */
	int version, index, total;
	bool has_diff, stable;
	char *files; /* the paths its diff touches, sorted, "\n"-joined */
	char *from; /* the sender's address, or NULL */
};

/* A Fixes: line that quotes a subject (pass 1). */
struct fixref {
	size_t pm; /* the fixing mail, an index into pmails */
	char *named; /* the quoted subject */
	char *key;
	char *value;
	bool dropped;
};

struct build {
	struct rb_eval_set *set;
	struct pmail *pm;
	size_t n_pm, cap_pm;
	struct fixref *fx;
	size_t n_fx, cap_fx;
	size_t ord;
	/* Pass 2: the mails to keep, by ord (sorted), and what they said. */
	size_t *want;
	struct rb_message **got;
	size_t n_want;
	int err;
};

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Lower case, blanks collapsed and trimmed: how subjects are compared. */
static char *title_key(const char *t)
{
	char *k = malloc(strlen(t) + 1), *o = k;
	bool blank = false;

	if (!k)
		return NULL;
	for (; *t; t++) {
		if (isspace((unsigned char)*t)) {
			blank = o > k;
			continue;
		}
		if (blank)
			*o++ = ' ';
		blank = false;
		*o++ = (char)tolower((unsigned char)*t);
	}
	*o = '\0';
	return k;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files a diff touches, sorted and joined: versions that touch other
 * files are other patches. */
static char *diff_files(const struct rb_message *m)
{
	struct rb_diff *d = NULL;
	const char **v;
	size_t i, len = 1;
	char *out;

	if (!m->patch || rb_diff_parse(&d, m->patch, m->patch_len))
		return NULL;
	v = calloc(d->n_files + 1, sizeof(*v));
	if (!v) {
		rb_diff_free(d);
		return NULL;
	}
	for (i = 0; i < d->n_files; i++) {
		v[i] = rb_diff_file_path(&d->files[i]);
		len += strlen(v[i]) + 1;
	}
	qsort(v, d->n_files, sizeof(*v), cmp_str);
	out = malloc(len);
	if (out) {
		size_t o = 0, l;

		for (i = 0; i < d->n_files; i++) {
			l = strlen(v[i]);
			memcpy(out + o, v[i], l);
			out[o + l] = '\n';
			o += l + 1;
		}
		out[o] = '\0';
	}
	free(v);
	rb_diff_free(d);
	return out;
}

static int pass1(const char *raw, size_t len, const char *origin, void *arg)
{
	struct build *b = arg;
	struct rb_message *m = NULL;
	struct pmail *p;
	const struct rb_subject *s;
	size_t ord = b->ord++, i;

	(void)origin;
	if (!raw)
		return 0;
	b->set->messages++;
	if (rb_message_parse(&m, raw, len, NULL))
		return 0;
	s = &m->subject;
	if (!s->is_patch || s->is_reply || s->is_pull || !s->title) {
		rb_message_free(m);
		return 0;
	}
	if (b->n_pm == b->cap_pm) {
		size_t cap = b->cap_pm ? b->cap_pm * 2 : 4096;
		struct pmail *v = realloc(b->pm, cap * sizeof(*v));

		if (!v)
			goto nomem;
		b->pm = v;
		b->cap_pm = cap;
	}
	p = &b->pm[b->n_pm];
	memset(p, 0, sizeof(*p));
	p->ord = ord;
	p->key = title_key(s->title);
	p->title = xstrdup(s->title);
	p->subject = xstrdup(m->subject_raw ? m->subject_raw : s->title);
	p->msgid = xstrdup(m->message_id);
	p->thread = xstrdup(m->n_references ? m->references[0] :
			    m->in_reply_to  ? m->in_reply_to :
					      m->message_id);
	p->version = s->version;
	p->index = s->index;
	p->total = s->total;
	p->has_diff = m->patch != NULL;
	p->stable = rb_subject_is_stable(s);
	p->files = diff_files(m);
	p->from = xstrdup(m->from.addr);
	if (!p->key || !p->title || !p->subject || !p->msgid || !p->thread)
		goto nomem;
	b->n_pm++;
	b->set->patch_mails++;
	for (i = 0; i < m->n_trailers; i++) {
		struct rb_fixes f;
		struct fixref *r;
		size_t k;
		bool seen = false;

		if (strcasecmp(m->trailers[i].key, "Fixes"))
			continue;
		b->set->fixes_trailers++;
		if (rb_fixes_parse(&f, m->trailers[i].value))
			goto nomem;
		if (!f.subject)
			continue;
		/* The same subject twice in one mail is one fix. */
		for (k = 0; k < b->n_fx; k++)
			if (b->fx[k].pm == b->n_pm - 1 &&
			    !strcmp(b->fx[k].named, f.subject))
				seen = true;
		if (seen) {
			rb_fixes_release(&f);
			continue;
		}
		if (b->n_fx == b->cap_fx) {
			size_t cap = b->cap_fx ? b->cap_fx * 2 : 256;
			struct fixref *v = realloc(b->fx, cap * sizeof(*v));

			if (!v) {
				rb_fixes_release(&f);
				goto nomem;
			}
			b->fx = v;
			b->cap_fx = cap;
		}
		r = &b->fx[b->n_fx++];
		memset(r, 0, sizeof(*r));
		r->pm = b->n_pm - 1;
		r->named = f.subject;
		r->key = title_key(f.subject);
		r->value = xstrdup(m->trailers[i].value);
		b->set->fixes_named++;
		if (!r->key || !r->value)
			goto nomem;
	}
	rb_message_free(m);
	return 0;
nomem:
	rb_message_free(m);
	return rb_err(RB_ENOMEM, "out of memory");
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static int pass2(const char *raw, size_t len, const char *origin, void *arg)
{
	struct build *b = arg;
	size_t ord = b->ord++;
	size_t *hit;

	(void)origin;
	if (!raw)
		return 0;
	hit = bsearch(&ord, b->want, b->n_want, sizeof(*b->want), cmp_size);
	if (!hit)
		return 0;
	if (rb_message_parse(&b->got[hit - b->want], raw, len, NULL))
		b->got[hit - b->want] = NULL;
	return 0;
}

static struct rb_message *got(const struct build *b, size_t ord)
{
	size_t *hit =
		bsearch(&ord, b->want, b->n_want, sizeof(*b->want), cmp_size);

	return hit ? b->got[hit - b->want] : NULL;
}

static int exclude(struct rb_eval_set *s, const struct pmail *fix,
		   const char *named, const char *reason)
{
	struct rb_eval_excluded *v, *e;

	v = realloc(s->excluded, (s->n_excluded + 1) * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	s->excluded = v;
	e = &v[s->n_excluded++];
	e->fix_msgid = xstrdup(fix->msgid);
	e->fix_subject = xstrdup(fix->subject);
	e->named = xstrdup(named);
	e->reason = xstrdup(reason);
	if (!e->fix_msgid || !e->fix_subject || !e->named || !e->reason)
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

/* ---- where a fix lands in the buggy patch ---- */

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * The function a C line declares or a hunk header names: the identifier
 * before the first "(" (for SYSCALL_DEFINEn(name, ...) the name).
 */
static bool func_name(const char *s, size_t n, char *buf, size_t size)
{
	static const char *const not_fn[] = { "if",	"for",	  "while",
					      "switch", "return", "sizeof",
					      "defined" };
	const char *p = memchr(s, '(', n), *e, *b;
	size_t i, l;

	if (!p)
		return false;
	for (e = p; e > s && (e[-1] == ' ' || e[-1] == '\t');)
		e--;
	for (b = e; b > s && is_ident(b[-1]);)
		b--;
	l = (size_t)(e - b);
	if (!l || isdigit((unsigned char)*b))
		return false;
	if ((l == 16 && !strncmp(b, "SYSCALL_DEFINE", 14)) ||
	    (l == 15 && !strncmp(b, "SYSCALL_DEFINE", 14)) ||
	    (l >= 21 && !strncmp(b, "COMPAT_SYSCALL_DEFINE", 21))) {
		for (b = p + 1; b < s + n && (*b == ' ' || *b == '\t');)
			b++;
		for (e = b; e < s + n && is_ident(*e);)
			e++;
		l = (size_t)(e - b);
		if (!l)
			return false;
	}
	for (i = 0; i < sizeof(not_fn) / sizeof(not_fn[0]); i++)
		if (strlen(not_fn[i]) == l && !strncmp(b, not_fn[i], l))
			return false;
	if (l >= size)
		l = size - 1;
	memcpy(buf, b, l);
	buf[l] = '\0';
	return true;
}

/* A line that starts a function definition: at column 0, an identifier
 * first, a "(" and no ";" or "=" before it. */
bool rb_eval_def_name(const char *text, size_t len, char *buf, size_t size)
{
	const char *paren;
	size_t k;

	if (!len || !(isalpha((unsigned char)text[0]) || text[0] == '_'))
		return false;
	paren = memchr(text, '(', len);
	if (!paren)
		return false;
	for (k = 0; text + k < paren; k++)
		if (text[k] == '=' || text[k] == ';')
			return false;
	k = len;
	while (k && isspace((unsigned char)text[k - 1]))
		k--;
	if (k && text[k - 1] == ';')
		return false;
	return func_name(text, len, buf, size);
}

static bool def_line(const struct rb_diff_line *l, char *buf, size_t size)
{
	return rb_eval_def_name(l->text, l->len, buf, size);
}

static const struct rb_diff_file *find_file(const struct rb_diff *d,
					    const char *path)
{
	const struct rb_diff_file *f;

	if (!path)
		return NULL;
	f = rb_diff_find_file(d, path);
	if (!f && (!strncmp(path, "a/", 2) || !strncmp(path, "b/", 2)))
		f = rb_diff_find_file(d, path + 2);
	return f;
}

static const char *func_in_file(const struct rb_diff_file *f, int line,
				char *buf, size_t size)
{
	size_t h, i;

	for (h = 0; h < f->n_hunks; h++) {
		const struct rb_diff_hunk *hk = &f->hunks[h];
		bool have = false;

		if (line < (int)hk->new_start ||
		    line >= (int)(hk->new_start + hk->new_count))
			continue;
		for (i = 0; i < hk->n_lines; i++) {
			const struct rb_diff_line *l = &hk->lines[i];

			if (l->origin != '-' && def_line(l, buf, size))
				have = true;
			if (l->origin != '-' && (int)l->new_lineno == line)
				break;
		}
		if (have)
			return buf;
		if (func_name(hk->section, hk->section_len, buf, size))
			return buf;
		return NULL;
	}
	return NULL;
}

const char *rb_eval_function_at(const struct rb_diff *d, const char *file,
				int line, char *buf, size_t size)
{
	const struct rb_diff_file *f = find_file(d, file);

	return f && size ? func_in_file(f, line, buf, size) : NULL;
}

const char *rb_eval_line_at(const char *text, size_t len, int line, size_t *n)
{
	const char *p = text, *end = text + len, *q;
	int i;

	for (i = 1; p < end; i++) {
		q = memchr(p, '\n', (size_t)(end - p));
		if (!q)
			q = end;
		if (i == line) {
			*n = (size_t)(q - p);
			return p;
		}
		p = q + 1;
	}
	return NULL;
}

bool rb_eval_telling(const char **s, size_t *n)
{
	size_t k, w = 0;

	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
	for (k = 0; k < *n; k++)
		w += is_ident((*s)[k]);
	return w >= 3;
}

struct linevec {
	int *v;
	size_t n;
};

int rb_eval_int_add(int **v, size_t *n, int x, bool sorted)
{
	size_t i;
	int *nv;

	for (i = 0; i < *n; i++)
		if ((*v)[i] == x)
			return 0;
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return rb_err(RB_ENOMEM, "out of memory");
	*v = nv;
	i = *n;
	if (sorted)
		for (; i > 0 && nv[i - 1] > x; i--)
			nv[i] = nv[i - 1];
	nv[i] = x;
	(*n)++;
	return 0;
}

/* The new-side lines of @bf that read @l (trimmed), when at most
 * MAX_ANCHOR_HITS do. */
static int match_anchor(struct linevec *lv, const struct rb_diff_file *bf,
			const struct rb_diff_line *l)
{
	const char *s = l->text, *t;
	size_t n = l->len, tn, h, i, hits = 0;
	int found[MAX_ANCHOR_HITS];

	if (!rb_eval_telling(&s, &n))
		return 0;
	for (h = 0; h < bf->n_hunks; h++) {
		for (i = 0; i < bf->hunks[h].n_lines; i++) {
			const struct rb_diff_line *b = &bf->hunks[h].lines[i];

			/* A hunk that claims to start at line 0 (mail can
			 * say anything) has lines no finding can name. */
			if (b->origin == '-' || !b->new_lineno)
				continue;
			t = b->text;
			tn = b->len;
			rb_eval_telling(&t, &tn);
			if (tn != n || memcmp(s, t, n))
				continue;
			if (hits == MAX_ANCHOR_HITS)
				return 0;
			found[hits++] = (int)b->new_lineno;
		}
	}
	for (i = 0; i < hits; i++)
		if (rb_eval_int_add(&lv->v, &lv->n, found[i], false))
			return -RB_ENOMEM;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Does some line @bf adds sit in function @name? */
static bool adds_in(const struct rb_diff_file *bf, const char *name)
{
	char buf[FUNC_MAX];
	size_t h, i;

	for (h = 0; h < bf->n_hunks; h++)
		for (i = 0; i < bf->hunks[h].n_lines; i++) {
			const struct rb_diff_line *l = &bf->hunks[h].lines[i];

			if (l->origin == '+' &&
			    func_in_file(bf, (int)l->new_lineno, buf,
					 sizeof(buf)) &&
			    !strcmp(buf, name))
				return true;
		}
	return false;
}

int rb_eval_add_function(struct rb_eval_changed *c, const char *name)
{
	char **v;
	size_t i;

	for (i = 0; i < c->n_functions; i++)
		if (!strcmp(c->functions[i], name))
			return 0;
	v = realloc(c->functions, (c->n_functions + 1) * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	c->functions = v;
	v[c->n_functions] = strdup(name);
	if (!v[c->n_functions])
		return rb_err(RB_ENOMEM, "out of memory");
	c->n_functions++;
	return 0;
}

/*
 * What fix file @ff changed in buggy file @bf: the lines it removed, or
 * the context lines around a pure insertion, found again in @bf's new
 * side; and the functions of its hunks that @bf adds lines to.
 */
static int changed_in(struct rb_eval_changed *c, const struct rb_diff_file *ff,
		      const struct rb_diff_file *bf)
{
	struct linevec lv = { 0 };
	char name[FUNC_MAX];
	size_t h, i;
	int ret = 0;

	for (h = 0; h < ff->n_hunks && !ret; h++) {
		const struct rb_diff_hunk *hk = &ff->hunks[h];
		bool changed = false;

		for (i = 0; i < hk->n_lines && !ret; i++) {
			const struct rb_diff_line *l = &hk->lines[i];

			if (!changed && l->origin == ' ' &&
			    def_line(l, name, sizeof(name)) &&
			    adds_in(bf, name))
				ret = rb_eval_add_function(c, name);
			if (l->origin == ' ')
				continue;
			if (!changed &&
			    func_name(hk->section, hk->section_len, name,
				      sizeof(name)) &&
			    adds_in(bf, name))
				ret = rb_eval_add_function(c, name);
			changed = true;
			if (l->origin == '-') {
				ret = match_anchor(&lv, bf, l);
				continue;
			}
			/* '+' opening a pure insertion: its neighbours. */
			if (i && hk->lines[i - 1].origin == ' ')
				ret = match_anchor(&lv, bf, &hk->lines[i - 1]);
			if (!ret && i + 1 < hk->n_lines &&
			    hk->lines[i + 1].origin == ' ')
				ret = match_anchor(&lv, bf, &hk->lines[i + 1]);
		}
	}
	if (lv.n)
		qsort(lv.v, lv.n, sizeof(*lv.v), cmp_int);
	c->lines = lv.v;
	c->n_lines = lv.n;
	return ret;
}

static void changed_release(struct rb_eval_changed *c)
{
	size_t i;

	free(c->file);
	free(c->lines);
	for (i = 0; i < c->n_functions; i++)
		free(c->functions[i]);
	free(c->functions);
	for (i = 0; i < c->n_categories; i++)
		free(c->categories[i]);
	free(c->categories);
}

int rb_eval_locate(struct rb_eval_pair *p, const struct rb_diff *fd,
		   const struct rb_diff *bd, bool *touched)
{
	size_t i;
	int ret;

	*touched = false;
	for (i = 0; i < fd->n_files; i++) {
		const struct rb_diff_file *ff = &fd->files[i];
		const struct rb_diff_file *bf = find_file(bd, ff->new_path);
		struct rb_eval_changed c = { 0 }, *v;

		if (!bf)
			bf = find_file(bd, ff->old_path);
		if (!bf)
			continue;
		*touched = true;
		/*
		 * Lines are kept by path and looked up by path later: a
		 * buggy patch naming that path twice (not git's output, but
		 * mail can say anything) has no one file to put them in.
		 */
		if (rb_diff_find_file(bd, rb_diff_file_path(bf)) != bf)
			continue;
		ret = changed_in(&c, ff, bf);
		if (!ret && !c.n_lines && !c.n_functions) {
			changed_release(&c);
			continue;
		}
		c.file = ret ? NULL : strdup(rb_diff_file_path(bf));
		v = ret || !c.file ? NULL :
				     realloc(p->changed,
					     (p->n_changed + 1) * sizeof(*v));
		if (!v) {
			changed_release(&c);
			return rb_err(RB_ENOMEM, "out of memory");
		}
		p->changed = v;
		v[p->n_changed++] = c;
	}
	return 0;
}

/* ---- the builder ---- */

/* Is @a a later version than @b (then a later mail)? */
static bool newer(const struct pmail *a, const struct pmail *b)
{
	return a->version != b->version ? a->version > b->version :
					  a->ord > b->ord;
}

/*
 * The patch mail a Fixes: line names: the latest version before the fix
 * of the patch mails with that title that carry a diff. *why gets the
 * reason there is none.
 */
static const struct pmail *buggy_for(const struct build *b,
				     const struct fixref *r, int *n_versions,
				     const char **why)
{
	const struct pmail *fix = &b->pm[r->pm], *best = NULL;
	size_t i, any = 0;

	*n_versions = 0;
	*why = NULL;
	for (i = 0; i < b->n_pm; i++) {
		const struct pmail *p = &b->pm[i];

		if (p->ord >= fix->ord || strcmp(p->key, r->key))
			continue;
		any++;
		if (p->stable || !p->has_diff)
			continue;
		(*n_versions)++;
		if (!best || newer(p, best))
			best = p;
	}
	if (!any) {
		*why = "no patch mail with that subject before the fix";
		return NULL;
	}
	if (!best) {
		*why = "the named mail has no diff (a cover letter, or a "
		       "stable backport)";
		return NULL;
	}
	/* Two mails of the latest version that change other files are two
	 * patches with one subject: which one had the bug is unknown. */
	for (i = 0; i < b->n_pm; i++) {
		const struct pmail *p = &b->pm[i];

		if (p == best || p->ord >= fix->ord || p->stable ||
		    !p->has_diff || p->version != best->version ||
		    strcmp(p->key, r->key))
			continue;
		if (!p->files || !best->files ||
		    strcmp(p->files, best->files)) {
			*why = "the subject names several different patches";
			return NULL;
		}
	}
	return best;
}

/* A part as the review stage shows it to the model: commit message,
 * "---", diff; NULL when the archive lacks it (then ""). */
static char *part_text(const struct rb_message *m)
{
	const char *msg;
	size_t n;
	char *out;

	if (!m || !m->patch)
		return NULL;
	msg = m->commit_msg ? m->commit_msg : "";
	n = strlen(msg) + 5 + m->patch_len + 1;
	out = malloc(n);
	if (out)
		snprintf(out, n, "%s\n---\n%.*s", msg, (int)m->patch_len,
			 m->patch);
	return out;
}

/* The series around @p: titles by index, the cover's title and body,
 * and every part's text, as the review stage gives them. */
static int series_of(struct rb_eval_pair *pr, const struct build *b,
		     const struct pmail *p)
{
	size_t i, n = p->total > 0 ? (size_t)p->total : 1;

	pr->index = p->index > 0 ? p->index : 1;
	if ((size_t)pr->index > n)
		n = (size_t)pr->index;
	pr->subjects = calloc(n, sizeof(*pr->subjects));
	pr->series_patches = calloc(n, sizeof(*pr->series_patches));
	if (!pr->subjects || !pr->series_patches)
		return rb_err(RB_ENOMEM, "out of memory");
	pr->n_subjects = n;
	for (i = 0; i < b->n_pm; i++) {
		const struct pmail *q = &b->pm[i];

		if (strcmp(q->thread, p->thread) || q->version != p->version ||
		    q->total != p->total)
			continue;
		if (q->index == 0 && p->total > 0 && !pr->cover_title) {
			const struct rb_message *m = got(b, q->ord);

			pr->cover_title = xstrdup(q->title);
			if (m && m->body && !(pr->cover_body = strdup(m->body)))
				return rb_err(RB_ENOMEM, "out of memory");
		} else if (q->index >= 1 && (size_t)q->index <= n &&
			   !pr->subjects[q->index - 1]) {
			pr->subjects[q->index - 1] = xstrdup(q->title);
			if (q != p)
				pr->series_patches[q->index - 1] =
					part_text(got(b, q->ord));
		}
	}
	free(pr->subjects[pr->index - 1]);
	pr->subjects[pr->index - 1] = xstrdup(p->title);
	free(pr->series_patches[pr->index - 1]);
	pr->series_patches[pr->index - 1] = part_text(got(b, p->ord));
	for (i = 0; i < n; i++) {
		if (!pr->subjects[i] && !(pr->subjects[i] = strdup("")))
			return rb_err(RB_ENOMEM, "out of memory");
		if (!pr->series_patches[i] &&
		    !(pr->series_patches[i] = strdup("")))
			return rb_err(RB_ENOMEM, "out of memory");
	}
	return 0;
}

void rb_eval_pair_release(struct rb_eval_pair *p)
{
	size_t i;

	free(p->buggy_msgid);
	free(p->buggy_subject);
	free(p->cover_title);
	for (i = 0; i < p->n_subjects; i++)
		free(p->subjects[i]);
	free(p->subjects);
	free(p->commit_msg);
	free(p->patch);
	free(p->cover_body);
	free(p->changelog);
	for (i = 0; p->series_patches && i < p->n_subjects; i++)
		free(p->series_patches[i]);
	free(p->series_patches);
	for (i = 0; i < p->n_subsystems; i++)
		free(p->subsystems[i]);
	free(p->subsystems);
	free(p->fix_msgid);
	free(p->fix_subject);
	free(p->fixes);
	free(p->fix_patch);
	free(p->fix_commit_msg);
	free(p->buggy_from);
	free(p->fix_from);
	for (i = 0; i < p->n_changed; i++)
		changed_release(&p->changed[i]);
	free(p->changed);
	memset(p, 0, sizeof(*p));
}

/* "Name <addr>" of @m's From:, or NULL. */
static char *from_of(const struct rb_message *m)
{
	const struct rb_addr *a = &m->from;
	size_t n;
	char *out;

	if (!a->addr)
		return NULL;
	n = (a->name ? strlen(a->name) : 0) + strlen(a->addr) + 4;
	out = malloc(n);
	if (!out)
		return NULL;
	if (a->name && *a->name)
		snprintf(out, n, "%s <%s>", a->name, a->addr);
	else
		snprintf(out, n, "%s", a->addr);
	return out;
}

/* Builds the pair of fix reference @r and buggy mail @bug, or excludes. */
static int make_pair(struct build *b, const struct fixref *r,
		     const struct pmail *bug, int n_versions)
{
	const struct pmail *fix = &b->pm[r->pm];
	struct rb_message *fm = got(b, fix->ord), *bm = got(b, bug->ord);
	struct rb_diff *fd = NULL, *bd = NULL;
	struct rb_eval_set *s = b->set;
	struct rb_eval_pair p = { 0 }, *v;
	bool touched;
	int ret;

	if (!fm || !bm || !fm->patch || !bm->patch)
		return exclude(s, fix, r->named,
			       "the fix or the buggy patch has no diff");
	if (rb_diff_parse(&fd, fm->patch, fm->patch_len) ||
	    rb_diff_parse(&bd, bm->patch, bm->patch_len)) {
		ret = exclude(s, fix, r->named,
			      "the fix or the buggy patch has a corrupt diff");
		goto out;
	}
	ret = rb_eval_locate(&p, fd, bd, &touched);
	if (ret)
		goto out;
	if (!touched) {
		ret = exclude(s, fix, r->named,
			      "the fix touches no file of the buggy patch");
		goto out;
	}
	if (!p.n_changed) {
		ret = exclude(s, fix, r->named,
			      "no line or function the fix changed is in the "
			      "buggy patch");
		goto out;
	}
	p.buggy_msgid = xstrdup(bug->msgid);
	p.buggy_subject = xstrdup(bug->subject);
	p.buggy_version = bug->version;
	p.n_versions = n_versions;
	p.commit_msg = xstrdup(bm->commit_msg ? bm->commit_msg : "");
	if (bm->notes && !(p.changelog = strdup(bm->notes))) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	p.patch = strndup(bm->patch, bm->patch_len);
	p.fix_msgid = xstrdup(fix->msgid);
	p.fix_subject = xstrdup(fix->subject);
	p.fixes = xstrdup(r->value);
	p.fix_patch = strndup(fm->patch, fm->patch_len);
	p.fix_commit_msg = xstrdup(fm->commit_msg ? fm->commit_msg : "");
	p.buggy_from = from_of(bm);
	p.fix_from = from_of(fm);
	ret = series_of(&p, b, bug);
	if (ret)
		goto out;
	if (!p.buggy_msgid || !p.buggy_subject || !p.commit_msg || !p.patch ||
	    !p.fix_msgid || !p.fix_subject || !p.fixes || !p.fix_patch ||
	    !p.fix_commit_msg || (bm->from.addr && !p.buggy_from) ||
	    (fm->from.addr && !p.fix_from)) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	v = realloc(s->pairs, (s->n_pairs + 1) * sizeof(*v));
	if (!v) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	s->pairs = v;
	p.id = (int)s->n_pairs + 1;
	v[s->n_pairs++] = p;
	memset(&p, 0, sizeof(p));
out:
	rb_eval_pair_release(&p);
	rb_diff_free(fd);
	rb_diff_free(bd);
	return ret;
}

static int add_want(struct build *b, size_t ord)
{
	size_t *v = realloc(b->want, (b->n_want + 1) * sizeof(*v));

	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	b->want = v;
	b->want[b->n_want++] = ord;
	return 0;
}

static void build_release(struct build *b)
{
	size_t i;

	for (i = 0; i < b->n_pm; i++) {
		free(b->pm[i].key);
		free(b->pm[i].title);
		free(b->pm[i].subject);
		free(b->pm[i].msgid);
		free(b->pm[i].thread);
		free(b->pm[i].files);
		free(b->pm[i].from);
	}
	free(b->pm);
	for (i = 0; i < b->n_fx; i++) {
		free(b->fx[i].named);
		free(b->fx[i].key);
		free(b->fx[i].value);
	}
	free(b->fx);
	for (i = 0; b->got && i < b->n_want; i++)
		rb_message_free(b->got[i]);
	free(b->got);
	free(b->want);
}

/*
 * One fix, one pair: of the versions of a fix (the same title naming the
 * same subject) the latest is kept, as the one most likely merged; the
 * others are excluded as earlier versions. Stable backports go too.
 */
static int drop_versions(struct build *b)
{
	size_t i, k;
	int ret = 0;

	for (i = 0; !ret && i < b->n_fx; i++) {
		struct fixref *r = &b->fx[i];
		const struct pmail *p = &b->pm[r->pm];

		if (p->stable) {
			r->dropped = true;
			ret = exclude(b->set, p, r->named,
				      "the fix is a stable backport");
			continue;
		}
		for (k = 0; k < b->n_fx; k++) {
			const struct fixref *o = &b->fx[k];

			if (k == i || b->pm[o->pm].stable ||
			    strcmp(o->key, r->key) ||
			    strcmp(b->pm[o->pm].key, p->key) ||
			    !newer(&b->pm[o->pm], p))
				continue;
			r->dropped = true;
			ret = exclude(b->set, p, r->named,
				      "an earlier version of a fix kept in "
				      "a later version");
			break;
		}
	}
	return ret;
}

/* The buggy patch of each fix kept, or its exclusion with the reason. */
static int find_bugs(struct build *b, const struct pmail **bug, int *nver)
{
	const char *why;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < b->n_fx; i++) {
		if (b->fx[i].dropped)
			continue;
		bug[i] = buggy_for(b, &b->fx[i], &nver[i], &why);
		if (!bug[i])
			ret = exclude(b->set, &b->pm[b->fx[i].pm],
				      b->fx[i].named, why);
	}
	return ret;
}

/*
 * A fix retitled between its versions ("conditionally define X", then
 * "remove X") is one fix of one bug: the same sender, the same buggy
 * patch, the same files. The latest is kept; bug[i] of the others goes.
 */
static int drop_retitled(struct build *b, const struct pmail **bug, size_t i)
{
	const struct pmail *p = &b->pm[b->fx[i].pm];
	size_t k;

	for (k = 0; bug[i] && k < b->n_fx; k++) {
		const struct pmail *o = &b->pm[b->fx[k].pm];

		if (k == i || bug[k] != bug[i] || !p->from || !o->from ||
		    strcasecmp(p->from, o->from) || !p->files || !o->files ||
		    strcmp(p->files, o->files) || o->ord <= p->ord)
			continue;
		bug[i] = NULL;
		return exclude(b->set, p, b->fx[i].named,
			       "an earlier fix by the same sender of the same "
			       "files of the same patch (a retitled version)");
	}
	return 0;
}

/* The mails the second pass keeps whole: the fix, the buggy patch and
 * its series (the cover and the other parts, series_of()). */
static int want_pair(struct build *b, const struct pmail *bug, size_t i)
{
	size_t k;

	if (add_want(b, bug->ord) || add_want(b, b->pm[b->fx[i].pm].ord))
		return -RB_ENOMEM;
	for (k = 0; k < b->n_pm; k++) {
		const struct pmail *q = &b->pm[k];

		if (!strcmp(q->thread, bug->thread) &&
		    q->version == bug->version && q->total == bug->total &&
		    add_want(b, q->ord))
			return -RB_ENOMEM;
	}
	return 0;
}

/* The second pass over the archive: the wanted mails, sorted, once. */
static int read_wanted(struct build *b, const char *path)
{
	size_t i, k;

	qsort(b->want, b->n_want, sizeof(*b->want), cmp_size);
	for (i = k = 0; i < b->n_want; i++)
		if (!k || b->want[k - 1] != b->want[i])
			b->want[k++] = b->want[i];
	b->n_want = k;
	b->got = calloc(b->n_want + 1, sizeof(*b->got));
	if (!b->got)
		return rb_err(RB_ENOMEM, "out of memory");
	b->ord = 0;
	return b->n_want ? rb_mail_walk(path, RB_MSG_DEFAULT_MAX, pass2, b) : 0;
}

int rb_eval_build(struct rb_eval_set *out, const char *path)
{
	struct build b = { 0 };
	const struct pmail **bug = NULL;
	int *nver = NULL;
	const char *base = strrchr(path, '/');
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	b.set = out;
	out->source = strdup(base ? base + 1 : path);
	if (!out->source)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = rb_mail_walk(path, RB_MSG_DEFAULT_MAX, pass1, &b);
	if (!ret)
		ret = drop_versions(&b);
	if (ret)
		goto out;
	bug = calloc(b.n_fx + 1, sizeof(*bug));
	nver = calloc(b.n_fx + 1, sizeof(*nver));
	if (!bug || !nver) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	ret = find_bugs(&b, bug, nver);
	for (i = 0; !ret && i < b.n_fx; i++) {
		ret = drop_retitled(&b, bug, i);
		if (!ret && bug[i])
			ret = want_pair(&b, bug[i], i);
	}
	if (!ret)
		ret = read_wanted(&b, path);
	for (i = 0; i < b.n_fx && !ret; i++)
		if (bug[i])
			ret = make_pair(&b, &b.fx[i], bug[i], nver[i]);
out:
	free(bug);
	free(nver);
	build_release(&b);
	if (ret)
		rb_eval_set_release(out);
	return ret;
}

/* ---- scoring ---- */

bool rb_eval_hit(const struct rb_eval_pair *p, const struct rb_diff *d,
		 const struct rb_finding *f, char *how, size_t how_size)
{
	const char *file = f->file;
	char fn[FUNC_MAX];
	const char *in = NULL;
	bool have_fn = false;
	size_t i, k;

	if (how_size)
		how[0] = '\0';
	if (!file || f->line <= 0)
		return false;
	if (!strncmp(file, "a/", 2) || !strncmp(file, "b/", 2))
		file += 2;
	for (i = 0; i < p->n_changed; i++) {
		const struct rb_eval_changed *c = &p->changed[i];

		if (strcmp(c->file, file) && strcmp(c->file, f->file))
			continue;
		for (k = 0; k < c->n_categories; k++)
			if (f->category &&
			    !strcmp(c->categories[k], f->category))
				break;
		if (c->n_categories && k == c->n_categories)
			continue;
		for (k = 0; k < c->n_lines; k++) {
			if (abs(c->lines[k] - f->line) <= RB_EVAL_NEAR) {
				snprintf(how, how_size, "line %d", c->lines[k]);
				return true;
			}
		}
		if (!have_fn) {
			in = rb_eval_function_at(d, c->file, f->line, fn,
						 sizeof(fn));
			have_fn = true;
		}
		for (k = 0; in && k < c->n_functions; k++) {
			if (!strcmp(c->functions[k], in)) {
				snprintf(how, how_size, "function %s", in);
				return true;
			}
		}
	}
	return false;
}

/* ---- hand labels and the strict scorer ---- */

static bool in_strv(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

bool rb_eval_category_fits(const struct rb_eval_changed *c,
			   const struct rb_eval_label *lab, const char *cat)
{
	if (c && c->n_categories &&
	    !in_strv(c->categories, c->n_categories, cat))
		return false;
	if (lab && lab->n_categories &&
	    !in_strv(lab->categories, lab->n_categories, cat))
		return false;
	return true;
}

static bool same_path(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	if (!strncmp(a, "a/", 2) || !strncmp(a, "b/", 2))
		a += 2;
	if (!strncmp(b, "a/", 2) || !strncmp(b, "b/", 2))
		b += 2;
	return !strcmp(a, b);
}

static bool accepted(const struct rb_eval_accept *a, const struct rb_finding *f,
		     const char *fn)
{
	if (!same_path(a->file, f->file))
		return false;
	if (a->function && (!fn || strcmp(a->function, fn)))
		return false;
	if (a->code && (!f->code || !strstr(f->code, a->code)))
		return false;
	return !a->n_categories ||
	       in_strv(a->categories, a->n_categories, f->category);
}

bool rb_eval_hit_strict(const struct rb_eval_changed *changed, size_t n,
			const struct rb_eval_label *lab,
			const struct rb_finding *f, const char *fn, char *how,
			size_t how_size)
{
	size_t i, k;

	if (how_size)
		how[0] = '\0';
	if (!f->file || f->line <= 0 || !strcmp(f->file, "COMMIT_MSG"))
		return false;
	for (i = 0; i < n; i++) {
		const struct rb_eval_changed *c = &changed[i];

		if (!same_path(c->file, f->file) ||
		    !rb_eval_category_fits(c, lab, f->category))
			continue;
		for (k = 0; k < c->n_lines; k++) {
			if (abs(c->lines[k] - f->line) <= RB_EVAL_NEAR) {
				snprintf(how, how_size, "line %d", c->lines[k]);
				return true;
			}
		}
	}
	for (i = 0; lab && i < lab->n_accept; i++) {
		if (accepted(&lab->accept[i], f, fn)) {
			snprintf(how, how_size, "label");
			return true;
		}
	}
	return false;
}

bool rb_eval_pair_is_mm(const struct rb_eval_pair *p,
			const struct rb_eval_label *lab)
{
	size_t i;

	if (lab && lab->mm >= 0)
		return lab->mm == 1;
	for (i = 0; i < p->n_subsystems; i++)
		if (!strcmp(p->subsystems[i], "MEMORY MANAGEMENT"))
			return true;
	for (i = 0; i < p->n_changed; i++) {
		const char *f = p->changed[i].file;

		if (!strncmp(f, "a/", 2) || !strncmp(f, "b/", 2))
			f += 2;
		if (!strncmp(f, "mm/", 3) ||
		    !strncmp(f, "include/linux/mm", 16))
			return true;
	}
	return false;
}

const struct rb_eval_label *rb_eval_label_of(const struct rb_eval_labels *l,
					     const struct rb_eval_pair *p)
{
	size_t i;

	for (i = 0; l && p->fix_msgid && i < l->n; i++)
		if (!strcmp(l->v[i].fix_msgid, p->fix_msgid))
			return &l->v[i];
	return NULL;
}

static void label_release(struct rb_eval_label *lab)
{
	size_t i, k;

	free(lab->fix_msgid);
	for (i = 0; i < lab->n_categories; i++)
		free(lab->categories[i]);
	free(lab->categories);
	for (i = 0; i < lab->n_accept; i++) {
		struct rb_eval_accept *a = &lab->accept[i];

		free(a->file);
		free(a->function);
		free(a->code);
		for (k = 0; k < a->n_categories; k++)
			free(a->categories[k]);
		free(a->categories);
	}
	free(lab->accept);
}

void rb_eval_labels_release(struct rb_eval_labels *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		label_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int get_strv(char ***out, size_t *n, json_t *a, const char *key,
		    const char *path, size_t id);
static int get_str(char **out, json_t *o, const char *key, bool nullable,
		   const char *path, size_t id);

static int load_label(struct rb_eval_label *lab, json_t *o, const char *path,
		      size_t id)
{
	json_t *acc = json_object_get(o, "accept"), *mm;
	size_t i;
	int ret;

	lab->mm = -1;
	ret = get_str(&lab->fix_msgid, o, "fix_message_id", false, path, id);
	if (!ret && json_object_get(o, "categories"))
		ret = get_strv(&lab->categories, &lab->n_categories,
			       json_object_get(o, "categories"), "categories",
			       path, id);
	if (ret)
		return ret;
	mm = json_object_get(o, "mm");
	if (json_is_boolean(mm))
		lab->mm = json_is_true(mm);
	if (!acc)
		return 0;
	if (!json_is_array(acc))
		return rb_err(RB_EPARSE,
			      "%s: label %zu: \"accept\" is not an "
			      "array",
			      path, id);
	lab->accept = calloc(json_array_size(acc) + 1, sizeof(*lab->accept));
	if (!lab->accept)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < json_array_size(acc); i++) {
		struct rb_eval_accept *a = &lab->accept[i];
		json_t *e = json_array_get(acc, i);

		lab->n_accept++;
		if ((ret = get_str(&a->file, e, "file", false, path, id)) ||
		    (ret = get_str(&a->function, e, "function", true, path,
				   id)) ||
		    (ret = get_str(&a->code, e, "code", true, path, id)))
			return ret;
		if (json_object_get(e, "categories") &&
		    (ret = get_strv(&a->categories, &a->n_categories,
				    json_object_get(e, "categories"),
				    "categories", path, id)))
			return ret;
	}
	return 0;
}

/* The JSON document at @path into *root, or an error naming its line. */
static int load_json(json_t **root, const char *path)
{
	json_error_t je;

	*root = json_load_file(path, 0, &je);
	if (!*root)
		return rb_err(RB_EPARSE, "%s: line %d: %s", path, je.line,
			      je.text);
	return 0;
}

int rb_eval_labels_load(struct rb_eval_labels *out, const char *path)
{
	json_t *root, *v;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = load_json(&root, path);
	if (ret)
		return ret;
	v = json_object_get(root, "labels");
	if (!v)
		goto out;
	if (!json_is_array(v)) {
		ret = rb_err(RB_EPARSE, "%s: \"labels\" is not an array", path);
		goto out;
	}
	out->v = calloc(json_array_size(v) + 1, sizeof(*out->v));
	if (!out->v) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; !ret && i < json_array_size(v); i++) {
		out->n++;
		ret = load_label(&out->v[i], json_array_get(v, i), path, i + 1);
	}
out:
	json_decref(root);
	if (ret)
		rb_eval_labels_release(out);
	return ret;
}

/* ---- JSON ---- */

static json_t *strv(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *pair_json(const struct rb_eval_pair *p)
{
	json_t *o = json_object(), *ch = json_array(), *bug;
	size_t i, k;

	for (i = 0; i < p->n_changed; i++) {
		const struct rb_eval_changed *c = &p->changed[i];
		json_t *lines = json_array();

		for (k = 0; k < c->n_lines; k++)
			json_array_append_new(lines, json_integer(c->lines[k]));
		json_array_append_new(
			ch, json_pack("{s:s, s:o, s:o, s:o}", "file", c->file,
				      "lines", lines, "functions",
				      strv(c->functions, c->n_functions),
				      "categories",
				      strv(c->categories, c->n_categories)));
	}
	json_object_set_new(o, "id", json_integer(p->id));
	bug = json_pack("{s:s, s:s, s:i, s:i, s:o, s:o, s:i, s:s, s:s}",
			"message_id", p->buggy_msgid, "subject",
			p->buggy_subject, "version", p->buggy_version,
			"versions_before_fix", p->n_versions, "cover_title",
			str_or_null(p->cover_title), "series_subjects",
			strv(p->subjects, p->n_subjects), "index", p->index,
			"commit_msg", p->commit_msg, "patch", p->patch);
	if (bug) {
		json_object_set_new(bug, "subsystems",
				    strv(p->subsystems, p->n_subsystems));
		json_object_set_new(bug, "cover_body",
				    str_or_null(p->cover_body));
		json_object_set_new(bug, "changelog",
				    str_or_null(p->changelog));
		if (p->series_patches)
			json_object_set_new(bug, "series_patches",
					    strv(p->series_patches,
						 p->n_subjects));
	}
	if (bug)
		json_object_set_new(bug, "from", str_or_null(p->buggy_from));
	json_object_set_new(o, "buggy", bug);
	json_object_set_new(o, "fix",
			    json_pack("{s:s?, s:s?, s:s?, s:s?, s:o, s:o}",
				      "message_id", p->fix_msgid, "subject",
				      p->fix_subject, "fixes", p->fixes,
				      "patch", p->fix_patch, "commit_msg",
				      str_or_null(p->fix_commit_msg), "from",
				      str_or_null(p->fix_from)));
	json_object_set_new(o, "changed", ch);
	return o;
}

int rb_eval_set_save(const struct rb_eval_set *s, const char *path)
{
	json_t *root = json_object(), *pairs = json_array(), *ex = json_array();
	size_t i;
	int ret = 0;

	if (!root || !pairs || !ex) {
		json_decref(root);
		json_decref(pairs);
		json_decref(ex);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	for (i = 0; i < s->n_pairs; i++)
		json_array_append_new(pairs, pair_json(&s->pairs[i]));
	for (i = 0; i < s->n_excluded; i++) {
		const struct rb_eval_excluded *e = &s->excluded[i];

		json_array_append_new(
			ex,
			json_pack("{s:s, s:s, s:s, s:s}", "fix_message_id",
				  e->fix_msgid, "fix_subject", e->fix_subject,
				  "named", e->named, "reason", e->reason));
	}
	json_object_set_new(root, "reviewbot_eval_set",
			    json_integer(RB_EVAL_SET_VERSION));
	json_object_set_new(root, "source", json_string(s->source));
	json_object_set_new(root, "archive",
			    json_pack("{s:I, s:I, s:I, s:I}", "messages",
				      (json_int_t)s->messages, "patch_mails",
				      (json_int_t)s->patch_mails,
				      "fixes_trailers",
				      (json_int_t)s->fixes_trailers,
				      "fixes_naming_a_subject",
				      (json_int_t)s->fixes_named));
	json_object_set_new(root, "pairs", pairs);
	json_object_set_new(root, "excluded", ex);
	if (json_dump_file(root, path, JSON_INDENT(1) | JSON_ENSURE_ASCII))
		ret = rb_err(RB_EIO, "%s: cannot write the set", path);
	json_decref(root);
	return ret;
}

static int get_str(char **out, json_t *o, const char *key, bool nullable,
		   const char *path, size_t id)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (nullable && (!v || json_is_null(v)))
		return 0;
	if (!json_is_string(v))
		return rb_err(RB_EPARSE, "%s: pair %zu: \"%s\" is not a string",
			      path, id, key);
	*out = strdup(json_string_value(v));
	return *out ? 0 : rb_err(RB_ENOMEM, "out of memory");
}

static int get_strv(char ***out, size_t *n, json_t *a, const char *key,
		    const char *path, size_t id)
{
	size_t i;

	*out = NULL;
	*n = 0;
	if (!json_is_array(a))
		return rb_err(RB_EPARSE, "%s: pair %zu: \"%s\" is not an array",
			      path, id, key);
	*out = calloc(json_array_size(a) + 1, sizeof(**out));
	if (!*out)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < json_array_size(a); i++) {
		const char *s = json_string_value(json_array_get(a, i));

		if (!s)
			return rb_err(RB_EPARSE,
				      "%s: pair %zu: \"%s\" holds a non-string",
				      path, id, key);
		(*out)[i] = strdup(s);
		if (!(*out)[i])
			return rb_err(RB_ENOMEM, "out of memory");
		(*n)++;
	}
	return 0;
}

static int load_changed(struct rb_eval_pair *p, json_t *ch, const char *path,
			size_t id)
{
	size_t i, k;
	int ret;

	if (!json_is_array(ch))
		return rb_err(RB_EPARSE, "%s: pair %zu: no \"changed\" array",
			      path, id);
	p->changed = calloc(json_array_size(ch) + 1, sizeof(*p->changed));
	if (!p->changed)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < json_array_size(ch); i++) {
		struct rb_eval_changed *c = &p->changed[i];
		json_t *o = json_array_get(ch, i);
		json_t *lines = json_object_get(o, "lines");

		p->n_changed++;
		ret = get_str(&c->file, o, "file", false, path, id);
		if (!ret && json_object_get(o, "functions"))
			ret = get_strv(&c->functions, &c->n_functions,
				       json_object_get(o, "functions"),
				       "functions", path, id);
		if (!ret && json_object_get(o, "categories"))
			ret = get_strv(&c->categories, &c->n_categories,
				       json_object_get(o, "categories"),
				       "categories", path, id);
		if (ret)
			return ret;
		if (!json_is_array(lines))
			return rb_err(RB_EPARSE,
				      "%s: pair %zu: \"lines\" is not an array",
				      path, id);
		c->lines =
			calloc(json_array_size(lines) + 1, sizeof(*c->lines));
		if (!c->lines)
			return rb_err(RB_ENOMEM, "out of memory");
		for (k = 0; k < json_array_size(lines); k++) {
			json_t *l = json_array_get(lines, k);

			if (!json_is_integer(l))
				return rb_err(RB_EPARSE,
					      "%s: pair %zu: a line is not a "
					      "number",
					      path, id);
			c->lines[c->n_lines++] = (int)json_integer_value(l);
		}
	}
	return 0;
}

/*
 * A labelled set's "mail": a patch mail file, relative to the set's
 * directory, parsed as the pipeline parses mail.
 */
static int load_mail(struct rb_eval_pair *p, const char *rel, const char *path,
		     size_t id)
{
	struct rb_buf text = RB_BUF_INIT(RB_MSG_DEFAULT_MAX);
	struct rb_message *m = NULL;
	const char *slash = strrchr(path, '/');
	char file[4096];
	int ret;

	if (rel[0] == '/' || !slash)
		snprintf(file, sizeof(file), "%s", rel);
	else
		snprintf(file, sizeof(file), "%.*s/%s", (int)(slash - path),
			 path, rel);
	ret = rb_read_file(&text, file);
	if (!ret && rb_message_parse(&m, text.ptr, text.len, NULL))
		ret = -RB_EPARSE;
	if (!ret && !m->patch)
		ret = rb_err(RB_EPARSE, "%s: pair %zu: %s holds no patch", path,
			     id, file);
	if (!ret) {
		p->commit_msg = xstrdup(m->commit_msg ? m->commit_msg : "");
		p->patch = strndup(m->patch, m->patch_len);
		if (!p->buggy_subject)
			p->buggy_subject =
				xstrdup(m->subject_raw ? m->subject_raw : rel);
		if (!p->subjects) {
			p->subjects = calloc(1, sizeof(*p->subjects));
			if (p->subjects) {
				p->subjects[0] = xstrdup(
					m->subject.title ? m->subject.title :
							   "");
				p->n_subjects = 1;
			}
		}
		if (!p->commit_msg || !p->patch || !p->buggy_subject ||
		    !p->subjects || !p->subjects[0])
			ret = rb_err(RB_ENOMEM, "out of memory");
	}
	rb_message_free(m);
	rb_buf_release(&text);
	return ret;
}

static int load_pair(struct rb_eval_pair *p, json_t *o, const char *path,
		     size_t id)
{
	json_t *bug = json_object_get(o, "buggy"),
	       *fix = json_object_get(o, "fix");
	const char *mail;
	int ret;

	p->id = (int)json_integer_value(json_object_get(o, "id"));
	if (!p->id)
		p->id = (int)id;
	if (!json_is_object(bug))
		return rb_err(RB_EPARSE, "%s: pair %zu: no \"buggy\"", path,
			      id);
	if (!fix)
		fix = json_object();
	else
		json_incref(fix);
	p->buggy_version =
		(int)json_integer_value(json_object_get(bug, "version"));
	p->n_versions = (int)json_integer_value(
		json_object_get(bug, "versions_before_fix"));
	p->index = (int)json_integer_value(json_object_get(bug, "index"));
	mail = json_string_value(json_object_get(bug, "mail"));
	if ((ret = get_str(&p->buggy_msgid, bug, "message_id", true, path,
			   id)) ||
	    (ret = get_str(&p->buggy_subject, bug, "subject", mail != NULL,
			   path, id)) ||
	    (ret = get_str(&p->cover_title, bug, "cover_title", true, path,
			   id)) ||
	    (ret = get_str(&p->fix_msgid, fix, "message_id", true, path, id)) ||
	    (ret = get_str(&p->fix_subject, fix, "subject", true, path, id)) ||
	    (ret = get_str(&p->fixes, fix, "fixes", true, path, id)) ||
	    (ret = get_str(&p->fix_patch, fix, "patch", true, path, id)) ||
	    (ret = get_str(&p->fix_commit_msg, fix, "commit_msg", true, path,
			   id)) ||
	    (ret = get_str(&p->fix_from, fix, "from", true, path, id)) ||
	    (ret = get_str(&p->buggy_from, bug, "from", true, path, id)))
		goto out;
	if (json_object_get(bug, "series_subjects")) {
		ret = get_strv(&p->subjects, &p->n_subjects,
			       json_object_get(bug, "series_subjects"),
			       "series_subjects", path, id);
		if (ret)
			goto out;
	}
	if ((ret = get_str(&p->cover_body, bug, "cover_body", true, path,
			   id)) ||
	    (ret = get_str(&p->changelog, bug, "changelog", true, path, id)))
		goto out;
	if (json_object_get(bug, "series_patches")) {
		size_t n;

		ret = get_strv(&p->series_patches, &n,
			       json_object_get(bug, "series_patches"),
			       "series_patches", path, id);
		if (!ret && n != p->n_subjects)
			ret = rb_err(RB_EPARSE,
				     "%s: pair %zu: %zu series_patches for %zu "
				     "subjects",
				     path, id, n, p->n_subjects);
		if (ret) {
			/* Freed here: release() counts n_subjects. */
			for (n = 0; p->series_patches && p->series_patches[n];
			     n++)
				free(p->series_patches[n]);
			free(p->series_patches);
			p->series_patches = NULL;
			goto out;
		}
	}
	if (json_object_get(bug, "subsystems")) {
		ret = get_strv(&p->subsystems, &p->n_subsystems,
			       json_object_get(bug, "subsystems"), "subsystems",
			       path, id);
		if (ret)
			goto out;
	}
	if (mail)
		ret = load_mail(p, mail, path, id);
	else if (!(ret = get_str(&p->commit_msg, bug, "commit_msg", true, path,
				 id)))
		ret = get_str(&p->patch, bug, "patch", false, path, id);
	if (ret)
		goto out;
	if (p->index < 1 || (size_t)p->index > p->n_subjects)
		p->index = p->n_subjects ? 1 : 0;
	ret = load_changed(p, json_object_get(o, "changed"), path, id);
out:
	json_decref(fix);
	return ret;
}

int rb_eval_set_load(struct rb_eval_set *out, const char *path)
{
	json_t *root, *pairs;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = load_json(&root, path);
	if (ret)
		return ret;
	pairs = json_object_get(root, "pairs");
	if (!json_is_array(pairs)) {
		json_decref(root);
		return rb_err(RB_EPARSE, "%s: no \"pairs\" array", path);
	}
	out->source = xstrdup(
		json_string_value(json_object_get(root, "source")) ?: "");
	out->pairs = calloc(json_array_size(pairs) + 1, sizeof(*out->pairs));
	if (!out->pairs || !out->source) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < json_array_size(pairs) && !ret; i++) {
		out->n_pairs++;
		ret = load_pair(&out->pairs[i], json_array_get(pairs, i), path,
				i + 1);
	}
out:
	json_decref(root);
	if (ret)
		rb_eval_set_release(out);
	return ret;
}

void rb_eval_set_release(struct rb_eval_set *s)
{
	size_t i;

	for (i = 0; i < s->n_pairs; i++)
		rb_eval_pair_release(&s->pairs[i]);
	free(s->pairs);
	for (i = 0; i < s->n_excluded; i++) {
		free(s->excluded[i].fix_msgid);
		free(s->excluded[i].fix_subject);
		free(s->excluded[i].named);
		free(s->excluded[i].reason);
	}
	free(s->excluded);
	free(s->source);
	memset(s, 0, sizeof(*s));
}
