// SPDX-License-Identifier: GPL-2.0-only
/*
 * render.c - the mail bodies (see render.h): the data each template gets,
 * the choice of quoted lines, and the 72-column layout pass.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "mail/trailer.h"
#include "review/apply/diff.h"
#include "review/hidden.h"
#include "review/render.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/tmpl.h"
#include "util/banned.h"

/* Lines of new-side context quoted on each side of a finding's line. */
#define QUOTE_CONTEXT 2
/* A rendered mail body never needs more than this before layout. */
#define RENDER_MAX (4u << 20)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* How untrusted text is cleaned (see clean()). */
enum {
	CL_TABS = 1 << 0, /* keep tabs (quoted code) */
	CL_PARA = 1 << 1, /* prose: collapse blanks, keep paragraph breaks */
	CL_LINE = 1 << 2, /* one line: newlines become spaces */
};

/* Length of a valid UTF-8 sequence at @s (at most @n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	/* C1 controls are as unwelcome as C0 ones. */
	if (cp >= 0x80 && cp <= 0x9f)
		return 0;
	return len;
}

/*
 * Drops the colon of a trailer name anywhere in @b, from @from on: the
 * bot's own words (a finding, a title it repeats) never carry one.
 */
static void neutralise(struct rb_buf *b, size_t from)
{
	size_t r = from, w = from, tl;

	while (r < b->len) {
		tl = rb_trailer_name_at(b->ptr + r, b->len - r,
					RB_TRAILER_REVIEW);
		if (tl) {
			/* Copy the name, skip its colon. */
			memmove(b->ptr + w, b->ptr + r, tl);
			w += tl;
			r += tl + 1;
		} else {
			b->ptr[w++] = b->ptr[r++];
		}
	}
	b->len = w;
	b->ptr[w] = '\0';
}

/*
 * Appends @s cleaned: invalid UTF-8 becomes U+FFFD, control characters
 * become spaces (CR goes), and trailer names lose their colon, except in
 * quoted code (CL_TABS): a "> " line is no trailer (b4 and patchwork
 * skip quoted lines, and the composer refuses only a line that starts
 * with one), and what the patch says is quoted as it says it.
 */
static int clean_para(struct rb_buf *out, const char *s, size_t n);

static int clean(struct rb_buf *out, const char *s, size_t n, unsigned int how)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t start = out->len, i = 0, hl;
	uint32_t cp;
	int ret = 0;

	if (how & CL_PARA)
		return clean_para(out, s, n);
	while (i < n && !ret) {
		unsigned char c = p[i];
		size_t l;

		if (c == '\r') {
			i++;
			continue;
		}
		if (c == '\n') {
			ret = rb_buf_putc(out, (how & CL_LINE) ? ' ' : '\n');
			i++;
			continue;
		} else if (c == '\t' && (how & CL_TABS)) {
			ret = rb_buf_putc(out, '\t');
			i++;
			continue;
		} else if (c < 0x20 || c == 0x7f) {
			ret = rb_buf_putc(out, ' ');
			i++;
			continue;
		}
		l = utf8_len(p + i, n - i);
		if (!l) {
			ret = rb_buf_puts(out, "\xef\xbf\xbd");
			i++;
		} else if (l == 3 && !rb_hidden_find(s + i, l, &cp, &hl)) {
			/* Shown, never passed on (review/hidden.h). */
			ret = rb_buf_printf(out, "<U+%04X>", (unsigned)cp);
			i += l;
		} else {
			ret = rb_buf_add(out, p + i, l);
			i += l;
		}
	}
	if (!ret && !(how & CL_TABS))
		neutralise(out, start);
	return ret;
}

/* A line that keeps its own line in prose: indented, or a list item. */
static bool structured(const char *s, size_t n, size_t indent)
{
	size_t i = 0;

	if (indent)
		return true;
	if (n >= 2 && strchr("-*+", s[0]) && s[1] == ' ')
		return true;
	while (i < n && i < 3 && s[i] >= '0' && s[i] <= '9')
		i++;
	return i && i + 1 < n && (s[i] == '.' || s[i] == ')') &&
	       s[i + 1] == ' ';
}

/*
 * Prose from a finding: lines are joined into paragraphs and runs of
 * blanks collapse, but blank lines stay paragraph breaks, and indented
 * lines (code) and list items keep their own lines, indentation as
 * spaces (a tab is 8, at most 16 in all); the line after an indented one
 * starts a line of its own too.
 */
static int clean_para(struct rb_buf *out, const char *s, size_t n)
{
	struct rb_buf line = RB_BUF_INIT(RENDER_MAX);
	const char *end = s + n;
	size_t start = out->len;
	bool para = false;
	size_t prev_indent = 0;
	int ret = 0;

	while (s < end && !ret) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		size_t len = e ? (size_t)(e - s) : (size_t)(end - s);
		size_t indent = 0, i = 0, k;
		bool space = false;

		while (i < len &&
		       (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) {
			if (s[i] != '\r')
				indent = s[i] == '\t' ?
						 (indent + 8) & ~(size_t)7 :
						 indent + 1;
			i++;
		}
		rb_buf_reset(&line);
		ret = clean(&line, s + i, len - i, CL_LINE);
		s = e ? e + 1 : end;
		if (ret)
			break;
		while (line.len && line.ptr[line.len - 1] == ' ')
			line.len--;
		if (!line.len) {
			para = out->len > start;
			continue;
		}
		if (out->len > start) {
			if (para)
				ret = rb_buf_puts(out, "\n\n");
			else if (prev_indent ||
				 structured(line.ptr, line.len, indent))
				ret = rb_buf_putc(out, '\n');
			else
				ret = rb_buf_putc(out, ' ');
		}
		para = false;
		prev_indent = indent;
		if (indent > 16)
			indent = 16;
		for (k = 0; k < indent && !ret; k++)
			ret = rb_buf_putc(out, ' ');
		for (k = 0; k < line.len && !ret; k++) {
			if (line.ptr[k] == ' ' && space)
				continue;
			space = line.ptr[k] == ' ';
			ret = rb_buf_putc(out, line.ptr[k]);
		}
	}
	rb_buf_release(&line);
	if (!ret)
		neutralise(out, start);
	return ret;
}

/* Sets @key of @obj to the cleaned @s (NULL: ""). */
static int set_text(json_t *obj, const char *key, const char *s, size_t n,
		    unsigned int how)
{
	struct rb_buf b = RB_BUF_INIT(RENDER_MAX);
	json_t *v;
	int ret;

	/* Set even when empty, so the name does not resolve outwards. */
	if (!s) {
		s = "";
		n = 0;
	}
	ret = clean(&b, s, n, how);
	if (ret)
		goto out;
	v = json_stringn_nocheck(b.ptr, b.len);
	if (!v || json_object_set_new(obj, key, v)) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
out:
	rb_buf_release(&b);
	return ret;
}

static int set_str(json_t *obj, const char *key, const char *s)
{
	return set_text(obj, key, s, s ? strlen(s) : 0, CL_LINE);
}

static int set_int(json_t *obj, const char *key, long long v)
{
	if (json_object_set_new(obj, key, json_integer(v)))
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

static int set_bool(json_t *obj, const char *key, bool v)
{
	if (json_object_set_new(obj, key, json_boolean(v)))
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

static int set_new(json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v))
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

static int push_new(json_t *arr, json_t *v)
{
	if (!v || json_array_append_new(arr, v))
		return rb_err(RB_ENOMEM, "out of memory");
	return 0;
}

/* Appends the item @o to @arr when filling it went well (@ret 0), else
 * drops it; the error either way. */
static int push_item(json_t *arr, json_t *o, int ret)
{
	if (ret) {
		json_decref(o);
		return ret;
	}
	return push_new(arr, o);
}

/* Fills the item @o from the @i-th element of a list of @ctx. */
typedef int (*item_fn)(json_t *o, const void *ctx, size_t i);

/* Sets @key of @d to an array of @n items, each filled by @fill. */
static int set_items(json_t *d, const char *key, size_t n, item_fn fill,
		     const void *ctx)
{
	json_t *arr = json_array();
	size_t i;
	int ret = arr ? 0 : rb_err(RB_ENOMEM, "out of memory");

	for (i = 0; i < n && !ret; i++) {
		json_t *o = json_object();

		ret = o ? 0 : rb_err(RB_ENOMEM, "out of memory");
		ret = ret ?: fill(o, ctx, i);
		ret = push_item(arr, o, ret);
	}
	if (ret) {
		json_decref(arr);
		return ret;
	}
	return set_new(d, key, arr);
}

/* "v2 4/9", "4/9", "v2" or "the patch". */
static int set_label(json_t *obj, int version, int index, int total)
{
	char b[64];

	if (total > 0 && version > 1)
		snprintf(b, sizeof(b), "v%d %d/%d", version, index, total);
	else if (total > 0)
		snprintf(b, sizeof(b), "%d/%d", index, total);
	else if (version > 1)
		snprintf(b, sizeof(b), "v%d", version);
	else
		snprintf(b, sizeof(b), "the patch");
	return set_str(obj, "label", b);
}

/* "vlabel": "v2" from version 2 on, else "". */
static int set_vlabel(json_t *obj, int version)
{
	char b[32];

	b[0] = '\0';
	if (version > 1)
		snprintf(b, sizeof(b), "v%d", version);
	return set_str(obj, "vlabel", b);
}

/*
 * What every template gets: mode, its flags and the subsystem. A context
 * left at RB_MODE_OFF (zero: never set) is advisory, the default; the
 * bot renders nothing for a subsystem that is off.
 */
static int set_common(json_t *d, enum rb_mode m, const char *subsystem,
		      const char *blocking_text)
{
	const char *mode;
	char cap[32];
	int ret;

	if (m == RB_MODE_OFF)
		m = RB_MODE_ADVISORY;
	mode = rb_mode_name(m);
	snprintf(cap, sizeof(cap), "%s", mode);
	cap[0] = (char)toupper((unsigned char)cap[0]);
	ret = set_str(d, "mode", mode);
	ret = ret ?: set_str(d, "Mode", cap);
	ret = ret ?: set_bool(d, "advisory", m == RB_MODE_ADVISORY);
	ret = ret ?: set_bool(d, "blocking", m == RB_MODE_BLOCKING);
	ret = ret ?: set_bool(d, "shadow", m == RB_MODE_SHADOW);
	ret = ret   ?:
		      set_str(d, "subsystem",
			      subsystem ? subsystem : "this list");
	ret = ret   ?:
		      set_str(d, "blocking_text",
			      blocking_text ?
				      blocking_text :
				      "please answer each finding before the series is merged.");
	return ret;
}

/* A new template object that starts with @h; *out owned by the caller. */
static int series_doc_new(json_t **out, const struct rb_render_head *h)
{
	json_t *d = json_object();
	int ret;

	if (!d)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = set_common(d, h->mode, h->subsystem, h->blocking_text);
	ret = ret ?: set_vlabel(d, h->version);
	ret = ret ?: set_int(d, "version", h->version);
	ret = ret ?: set_int(d, "total", h->total);
	ret = ret ?: set_str(d, "title", h->title);
	if (ret) {
		json_decref(d);
		return ret;
	}
	*out = d;
	return 0;
}

/* "summary" (array) and "summary_text" (one paragraph) from @lines. */
static int set_summary(json_t *d, const char *const *lines, size_t n)
{
	struct rb_buf all = RB_BUF_INIT(RENDER_MAX);
	struct rb_buf one = RB_BUF_INIT(RENDER_MAX);
	json_t *arr = json_array();
	size_t i;
	int ret = 0;

	if (!arr)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < n && !ret; i++) {
		if (!lines[i] || !*lines[i])
			continue;
		rb_buf_reset(&one);
		ret = clean(&one, lines[i], strlen(lines[i]), CL_LINE);
		ret = ret   ?:
			      push_new(arr,
				       json_stringn_nocheck(one.ptr, one.len));
		if (!ret && all.len)
			ret = rb_buf_putc(&all, ' ');
		ret = ret ?: rb_buf_add(&all, one.ptr, one.len);
	}
	ret = ret ?: set_new(d, "summary", json_incref(arr));
	ret = ret   ?:
		      set_new(d, "summary_text",
			      json_stringn_nocheck(all.ptr, all.len));
	json_decref(arr);
	rb_buf_release(&all);
	rb_buf_release(&one);
	return ret;
}

/* Where a finding shows up in the mail. */
enum loc_kind { LOC_COMMIT, LOC_DIFF, LOC_NONE };

struct loc {
	size_t fi; /* index into the patch's findings */
	enum loc_kind kind;
	size_t file_no, hunk_no; /* LOC_DIFF */
	size_t at; /* line index in the hunk, or commit-message line index */
	size_t from, to; /* quoted range, inclusive */
};

struct text_line {
	const char *s;
	size_t len;
};

/* The patch text as the renderer looks at it. */
struct source {
	struct rb_diff *diff; /* NULL when the patch did not parse */
	struct text_line *msg; /* commit-message lines */
	size_t n_msg;
};

static void source_release(struct source *src)
{
	rb_diff_free(src->diff);
	free(src->msg);
}

static int source_init(struct source *src, const struct rb_render_patch *p)
{
	const char *s = p->commit_msg;
	size_t cap = 0;

	memset(src, 0, sizeof(*src));
	if (p->patch && p->patch_len &&
	    rb_diff_parse(&src->diff, p->patch, p->patch_len))
		src->diff = NULL; /* findings then go to the end, unquoted */
	while (s && *s) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (src->n_msg == cap) {
			struct text_line *v;

			cap = cap ? cap * 2 : 64;
			v = realloc(src->msg, cap * sizeof(*v));
			if (!v)
				return rb_err(RB_ENOMEM, "out of memory");
			src->msg = v;
		}
		src->msg[src->n_msg].s = s;
		src->msg[src->n_msg].len = len;
		src->n_msg++;
		s = e ? e + 1 : s + len;
	}
	return 0;
}

/* The first non-blank line of @code, trimmed, for matching. */
static void code_key(const char *code, const char **out, size_t *len)
{
	const char *s = code, *e;

	*out = NULL;
	*len = 0;
	while (s && *s) {
		e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		while (s < e && isspace((unsigned char)*s))
			s++;
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		/* A quoted diff line: match its text, not its marker. */
		if (e > s && (*s == '+' || *s == '-')) {
			s++;
			while (s < e && isspace((unsigned char)*s))
				s++;
		}
		if (e > s) {
			*out = s;
			*len = (size_t)(e - s);
			return;
		}
		s = *e ? e + 1 : e;
	}
}

static bool contains(const char *s, size_t n, const char *key, size_t kl)
{
	return kl && n >= kl && memmem(s, n, key, kl);
}

static bool new_side(const struct rb_diff_line *l)
{
	return l->origin == '+' || l->origin == ' ';
}

static bool blank_context(const struct rb_diff_line *l)
{
	size_t i;

	if (l->origin != ' ')
		return false;
	for (i = 0; i < l->len; i++)
		if (!isspace((unsigned char)l->text[i]))
			return false;
	return true;
}

static void quote_range(const struct rb_diff_hunk *h, size_t at, size_t *from,
			size_t *to)
{
	size_t i = at, seen = 0;

	while (i > 0 && seen < QUOTE_CONTEXT) {
		i--;
		if (new_side(&h->lines[i])) {
			seen++;
			*from = i;
		}
	}
	if (!seen)
		*from = at;
	*to = at;
	for (i = at + 1, seen = 0; i < h->n_lines && seen < QUOTE_CONTEXT;
	     i++) {
		if (new_side(&h->lines[i])) {
			seen++;
			*to = i;
		}
	}
	/* Blank context at the edges of a quote says nothing. */
	while (*from < at &&
	       (!new_side(&h->lines[*from]) || blank_context(&h->lines[*from])))
		(*from)++;
	while (*to > at &&
	       (!new_side(&h->lines[*to]) || blank_context(&h->lines[*to])))
		(*to)--;
}

static bool locate_diff(const struct source *src, const struct rb_finding *f,
			struct loc *l)
{
	const char *key;
	size_t kl, fno, hno, i;
	int pass;

	if (!src->diff || !f->file)
		return false;
	code_key(f->code, &key, &kl);
	for (fno = 0; fno < src->diff->n_files; fno++) {
		const struct rb_diff_file *df = &src->diff->files[fno];
		const char *np = df->new_path, *op = df->old_path;

		if (!(np && !strcmp(np, f->file)) &&
		    !(op && !strcmp(op, f->file)))
			continue;
		/* First the line it names; then, failing that, its code. */
		for (pass = 0; pass < 2; pass++) {
			for (hno = 0; hno < df->n_hunks; hno++) {
				const struct rb_diff_hunk *h = &df->hunks[hno];

				for (i = 0; i < h->n_lines; i++) {
					const struct rb_diff_line *dl =
						&h->lines[i];

					if (!new_side(dl))
						continue;
					if (pass == 0 ?
						    f->line > 0 &&
							    dl->new_lineno ==
								    (uint32_t)f
									    ->line :
						    contains(dl->text, dl->len,
							     key, kl)) {
						l->kind = LOC_DIFF;
						l->file_no = fno;
						l->hunk_no = hno;
						l->at = i;
						quote_range(h, i, &l->from,
							    &l->to);
						return true;
					}
				}
			}
		}
		return false;
	}
	return false;
}

static bool locate_commit(const struct source *src, const struct rb_finding *f,
			  struct loc *l)
{
	const char *key;
	size_t kl, i;

	if (f->file || !src->n_msg)
		return false;
	code_key(f->code, &key, &kl);
	for (i = 0; kl && i < src->n_msg; i++) {
		if (contains(src->msg[i].s, src->msg[i].len, key, kl))
			goto found;
	}
	if (f->line > 0 && (size_t)f->line <= src->n_msg &&
	    src->msg[f->line - 1].len) {
		i = (size_t)f->line - 1;
		goto found;
	}
	return false;
found:
	l->kind = LOC_COMMIT;
	l->at = l->from = l->to = i;
	return true;
}

static int cmp_size(size_t a, size_t b)
{
	return a < b ? -1 : a > b;
}

static int loc_cmp(const void *a, const void *b)
{
	const struct loc *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->file_no != y->file_no)
		return cmp_size(x->file_no, y->file_no);
	if (x->hunk_no != y->hunk_no)
		return cmp_size(x->hunk_no, y->hunk_no);
	if (x->at != y->at)
		return cmp_size(x->at, y->at);
	return cmp_size(x->fi, y->fi);
}

static int quote_diff_line(struct rb_buf *q, const struct rb_diff_line *dl)
{
	int ret;

	if (q->len)
		ret = rb_buf_putc(q, '\n');
	else
		ret = 0;
	if (!ret && dl->origin == ' ' && !dl->len)
		return rb_buf_putc(q, '>');
	ret = ret ?: rb_buf_puts(q, "> ");
	ret = ret ?: rb_buf_putc(q, dl->origin);
	ret = ret ?: clean(q, dl->text, dl->len, CL_TABS | CL_LINE);
	return ret;
}

/* The quote of one block: lines [from, to] of a hunk or the message. */
static int quote_block(json_t *blk, const struct source *src,
		       const struct loc *l, bool file_header)
{
	struct rb_buf q = RB_BUF_INIT(RENDER_MAX);
	size_t i;
	int ret = 0;

	if (l->kind == LOC_COMMIT) {
		for (i = l->from; i <= l->to && !ret; i++) {
			if (q.len)
				ret = rb_buf_putc(&q, '\n');
			if (!src->msg[i].len) {
				ret = ret ?: rb_buf_putc(&q, '>');
				continue;
			}
			ret = ret ?: rb_buf_puts(&q, "> ");
			ret = ret   ?:
				      clean(&q, src->msg[i].s, src->msg[i].len,
					    CL_TABS | CL_LINE);
		}
	} else {
		const struct rb_diff_file *df = &src->diff->files[l->file_no];
		const struct rb_diff_hunk *h = &df->hunks[l->hunk_no];

		if (file_header) {
			const char *op = df->old_path ? df->old_path :
							df->new_path;
			const char *np = df->new_path ? df->new_path :
							df->old_path;

			ret = rb_buf_puts(&q, "> diff --git a/");
			ret = ret ?: clean(&q, op, strlen(op), CL_LINE);
			ret = ret ?: rb_buf_puts(&q, " b/");
			ret = ret ?: clean(&q, np, strlen(np), CL_LINE);
		}
		for (i = l->from; i <= l->to && !ret; i++)
			if (new_side(&h->lines[i]))
				ret = quote_diff_line(&q, &h->lines[i]);
	}
	if (!ret)
		ret = set_new(blk, "quote", json_stringn_nocheck(q.ptr, q.len));
	rb_buf_release(&q);
	return ret;
}

static const char *finding_where(const struct rb_finding *f, char *b, size_t n)
{
	if (f->file && f->line > 0)
		snprintf(b, n, "%s:%d", f->file, f->line);
	else if (f->file)
		snprintf(b, n, "%s", f->file);
	else
		return NULL;
	return b;
}

static int finding_json(json_t **out, const struct rb_finding *f, int id,
			bool with_where)
{
	json_t *o = json_object();
	char idb[32], where[512];
	int ret;

	if (!o)
		return rb_err(RB_ENOMEM, "out of memory");
	snprintf(idb, sizeof(idb), "F%d", id);
	ret = set_str(o, "id", idb);
	ret = ret ?: set_int(o, "n", id);
	ret = ret ?: set_str(o, "severity", rb_fsev_name(f->severity));
	ret = ret ?: set_str(o, "checker", f->checker);
	ret = ret ?: set_str(o, "category", f->category);
	ret = ret   ?:
		      set_text(o, "message", f->message,
			       f->message ? strlen(f->message) : 0, CL_PARA);
	if (!ret && with_where)
		ret = set_str(o, "where",
			      finding_where(f, where, sizeof(where)));
	if (ret) {
		json_decref(o);
		return ret;
	}
	*out = o;
	return 0;
}

/*
 * The findings of a mail that a language model wrote, and its names, for
 * the plain line every such mail carries (issue 36).
 */
#define LLM_IDS 8
struct llm_acc {
	int ids[LLM_IDS];
	size_t n; /* findings noted, ids[] holds the first LLM_IDS */
	char models[256]; /* "a, b" */
};

static void llm_note(struct llm_acc *a, const struct rb_finding *f, int id)
{
	const char *name, *p;
	size_t len, nl;

	if (!f->checker || strcmp(f->checker, "model"))
		return;
	name = f->checker_version && *f->checker_version ? f->checker_version :
							   "a model";
	len = strlen(a->models);
	nl = strlen(name);
	p = a->models;
	if (a->n < LLM_IDS)
		a->ids[a->n] = id;
	a->n++;
	/* Each name once. */
	while (*p) {
		size_t w = strcspn(p, ",");

		if (w == nl && !strncmp(p, name, nl))
			return;
		p += w;
		p += strspn(p, ", ");
	}
	if (len + nl + 3 < sizeof(a->models))
		snprintf(a->models + len, sizeof(a->models) - len, "%s%s",
			 len ? ", " : "", name);
}

/* "F1 and F2 were written with a language model (NAME)." */
static int set_llm_line(json_t *d, const struct llm_acc *a)
{
	struct rb_buf b = RB_BUF_INIT(RENDER_MAX);
	size_t i;
	int ret = 0;

	if (!a->n)
		return set_str(d, "llm_line", NULL);
	if (a->n > LLM_IDS) {
		ret = rb_buf_printf(&b, "%zu findings here were", a->n);
	} else {
		for (i = 0; i < a->n && !ret; i++)
			ret = rb_buf_printf(&b, "%sF%d",
					    !i		  ? "" :
					    i + 1 == a->n ? " and " :
							    ", ",
					    a->ids[i]);
		ret = ret ?: rb_buf_puts(&b, a->n == 1 ? " was" : " were");
	}
	ret = ret   ?:
		      rb_buf_printf(&b,
				    " written with a language model (%s), "
				    "not by a person.",
				    a->models);
	ret = ret ?: set_text(d, "llm_line", b.ptr, b.len, CL_PARA);
	rb_buf_release(&b);
	return ret;
}

/* The findings of one patch being laid out in quoted blocks. */
struct layout {
	const struct rb_render_patch *p;
	struct source src;
	json_t *blocks, *unloc; /* the arrays "blocks" and "unlocated" */
	json_t *blk, *fl; /* the open block and its findings, or NULL */
	struct loc span; /* what the open block quotes */
	const struct loc *cur; /* the last finding placed in a block */
	size_t last_file; /* the file of the last diff block closed */
	int *ids; /* each finding's number, by its index in the patch */
	struct llm_acc *llm; /* or NULL */
};

/*
 * Where each finding shown is quoted from, in patch order, into @locs
 * (room for all of them); returns how many.
 */
static size_t locate_all(struct loc *locs, const struct layout *lay)
{
	const struct rb_render_patch *p = lay->p;
	size_t i, m = 0;

	for (i = 0; i < p->n_findings; i++) {
		struct loc *l = &locs[m];

		if (p->show && !p->show[i])
			continue;
		m++;
		l->fi = i;
		l->kind = LOC_NONE;
		if (!locate_diff(&lay->src, &p->findings[i], l) &&
		    !locate_commit(&lay->src, &p->findings[i], l))
			l->kind = LOC_NONE;
	}
	qsort(locs, m, sizeof(*locs), loc_cmp);
	return m;
}

/* Quotes the open block and adds it to "blocks"; a diff block names its
 * file when the patch has several and the file changed. */
static int block_close(struct layout *lay)
{
	const struct loc *span = &lay->span;
	int ret;

	if (!lay->blk)
		return 0;
	ret = quote_block(lay->blk, &lay->src, span,
			  span->kind == LOC_DIFF &&
				  lay->src.diff->n_files > 1 &&
				  span->file_no != lay->last_file);
	if (!ret && span->kind == LOC_DIFF)
		lay->last_file = span->file_no;
	ret = push_item(lay->blocks, lay->blk, ret);
	lay->blk = NULL;
	return ret;
}

/* Overlapping or touching quotes in one hunk share a block. */
static bool joins(const struct layout *lay, const struct loc *l)
{
	const struct loc *cur = lay->cur;

	return cur && cur->kind == l->kind && cur->file_no == l->file_no &&
	       cur->hunk_no == l->hunk_no && l->from <= lay->span.to + 1;
}

/* Finding number @id, at @l, into its block or among the unlocated. */
static int place(struct layout *lay, const struct loc *l, int id)
{
	const struct rb_finding *f = &lay->p->findings[l->fi];
	json_t *fo = NULL;
	int ret;

	lay->ids[l->fi] = id;
	if (lay->llm)
		llm_note(lay->llm, f, id);
	if (l->kind == LOC_NONE) {
		ret = finding_json(&fo, f, id, true);
		return ret ?: push_new(lay->unloc, fo);
	}
	if (joins(lay, l)) {
		if (l->to > lay->span.to)
			lay->span.to = l->to;
	} else {
		ret = block_close(lay);
		if (ret)
			return ret;
		lay->blk = json_object();
		lay->fl = json_array();
		ret = set_new(lay->blk, "findings", lay->fl);
		if (ret)
			return ret;
		lay->span = *l;
	}
	lay->cur = l;
	ret = finding_json(&fo, f, id, false);
	return ret ?: push_new(lay->fl, fo);
}

/*
 * Fills @d with "blocks" (quote + findings, in patch order), "unlocated"
 * and "n_findings" for patch @p; numbers findings from *next_id on.
 */
static int patch_findings(json_t *d, const struct rb_render_patch *p,
			  int *next_id, struct llm_acc *llm)
{
	struct layout lay = { .p = p, .last_file = (size_t)-1, .llm = llm };
	struct loc *locs = NULL;
	size_t i, m = 0, n = p->n_findings;
	int ret;

	lay.blocks = json_array();
	lay.unloc = json_array();
	ret = source_init(&lay.src, p);
	if (ret)
		goto out;
	if (!lay.blocks || !lay.unloc) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	locs = calloc(n ? n : 1, sizeof(*locs));
	lay.ids = calloc(n ? n : 1, sizeof(*lay.ids));
	if (!locs || !lay.ids) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	m = locate_all(locs, &lay);
	/* A forward keeps the numbers the review gave (issue 36). */
	for (i = 0; i < m && !ret; i++)
		ret = place(&lay, &locs[i],
			    p->given_ids ? p->given_ids[locs[i].fi] :
					   (*next_id)++);
	ret = ret ?: block_close(&lay);
	if (ret)
		goto out;
	ret = set_bool(d, "unlocated_heading",
		       json_array_size(lay.blocks) &&
			       json_array_size(lay.unloc));
	ret = ret ?: set_new(d, "blocks", json_incref(lay.blocks));
	ret = ret ?: set_new(d, "unlocated", json_incref(lay.unloc));
	ret = ret ?: set_int(d, "n_findings", (long long)m);
	ret = ret ?: set_bool(d, "has_findings", m > 0);
	if (!ret && p->ids)
		memcpy(p->ids, lay.ids, n * sizeof(*lay.ids));
out:
	json_decref(lay.blk);
	json_decref(lay.blocks);
	json_decref(lay.unloc);
	free(locs);
	free(lay.ids);
	source_release(&lay.src);
	return ret;
}

/* One quoted line "> +code" (or "> code" for a context line) into @q. */
static int quote_text(struct rb_buf *q, char origin, const char *s)
{
	int ret = q->len ? rb_buf_putc(q, '\n') : 0;

	if (!ret && origin == ' ' && !*s)
		return rb_buf_putc(q, '>');
	ret = ret ?: rb_buf_puts(q, "> ");
	ret = ret ?: rb_buf_putc(q, origin);
	return ret ?: clean(q, s, strlen(s), CL_TABS | CL_LINE);
}

/* "raised" (issue 37): each line raised on the previous version, quoted,
 * with its note; and the part's interdiff, quoted. */
static int patch_raised(json_t *d, const struct rb_render_patch *p)
{
	struct rb_buf q = RB_BUF_INIT(RENDER_MAX);
	json_t *arr = json_array();
	const char *s, *e;
	size_t i, k;
	int ret = arr ? 0 : rb_err(RB_ENOMEM, "out of memory");

	for (i = 0; i < p->n_raised && !ret; i++) {
		const struct rb_render_raised *r = &p->raised[i];
		json_t *o = json_object();

		rb_buf_reset(&q);
		for (k = 0; k < 2 && !ret; k++)
			if (r->before[k] && *r->before[k])
				ret = quote_text(
					&q, r->before[k][0] == '+' ? '+' : ' ',
					r->before[k] + 1);
		ret = ret ?: quote_text(&q, '+', r->line ? r->line : "");
		ret = ret ?: (o ? 0 : rb_err(RB_ENOMEM, "out of memory"));
		ret = ret   ?:
			      set_new(o, "quote",
				      json_stringn_nocheck(q.ptr, q.len));
		ret = ret ?: set_str(o, "note", r->note);
		ret = push_item(arr, o, ret);
	}
	ret = ret ?: set_new(d, "raised", json_incref(arr));
	ret = ret ?: set_bool(d, "has_raised", p->n_raised > 0);
	/* The interdiff, each line quoted as it is. */
	rb_buf_reset(&q);
	for (s = p->interdiff; !ret && s && *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, "\n");
		ret = q.len ? rb_buf_putc(&q, '\n') : 0;
		ret = ret ?: rb_buf_puts(&q, "> ");
		ret = ret ?: clean(&q, s, (size_t)(e - s), CL_TABS | CL_LINE);
	}
	if (!ret && q.len)
		ret = set_new(d, "interdiff",
			      json_stringn_nocheck(q.ptr, q.len));
	json_decref(arr);
	rb_buf_release(&q);
	return ret;
}

/* Joins the strings of @arr as "a", "a and b" or "a, b and c". */
static int set_list_text(json_t *d, const char *key, const json_t *arr)
{
	struct rb_buf b = RB_BUF_INIT(RENDER_MAX);
	size_t i, n = json_array_size(arr);
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		if (i)
			ret = rb_buf_puts(&b, i + 1 == n ? " and " : ", ");
		ret = ret   ?:
			      rb_buf_puts(&b, json_string_value(
						      json_array_get(arr, i)));
	}
	ret = ret ?: set_new(d, key, json_stringn_nocheck(b.ptr, b.len));
	rb_buf_release(&b);
	return ret;
}

/* How many findings of @p the mail shows. */
static size_t shown(const struct rb_render_patch *p)
{
	size_t i, m = 0;

	for (i = 0; i < p->n_findings; i++)
		m += !p->show || p->show[i];
	return m;
}

/* "1 finding.", "3 findings.", "No findings." */
static int set_findings_line(json_t *d, size_t n, const char *suffix)
{
	char b[128];

	if (!n)
		snprintf(b, sizeof(b), "No findings%s.", suffix);
	else
		snprintf(b, sizeof(b), "%zu finding%s%s.", n, n == 1 ? "" : "s",
			 suffix);
	return set_str(d, "findings_line", b);
}

static int set_base(json_t *d, const char *name, const char *commit)
{
	char c[13];
	int ret;

	ret = set_str(d, "base_name", name);
	if (!ret && commit) {
		snprintf(c, sizeof(c), "%s", commit);
		ret = set_str(d, "base_commit", c);
	}
	return ret;
}

/*
 * When the line @s (@n bytes) starts with a trailer name and its colon
 * (blanks allowed around the name), returns the colon's offset + 1; else 0.
 */
static size_t trailer_colon(const char *s, size_t n)
{
	return rb_trailer_colon(s, n, RB_TRAILER_REVIEW);
}

static bool is_trailer_line(const char *s, size_t n)
{
	return trailer_colon(s, n) != 0;
}

/*
 * Wrapping can bring an untrusted word that a template followed with ':'
 * (a file name, say) to the start of a line: drop that colon in the
 * continuation lines from @from on.
 */
static void neutralise_wrapped(struct rb_buf *b, size_t from)
{
	char *s = memchr(b->ptr + from, '\n', b->len - from);

	while (s) {
		size_t off = (size_t)(s + 1 - b->ptr);
		char *e = memchr(s + 1, '\n', b->len - off);
		size_t n = e ? (size_t)(e - (s + 1)) : b->len - off, c;

		c = trailer_colon(s + 1, n);
		if (c) {
			memmove(s + c, s + c + 1, b->len - off - c);
			b->len--;
			e = memchr(s + 1, '\n', b->len - off);
		}
		s = e;
	}
}

/* Display columns of @n bytes of UTF-8 (continuation bytes are free). */
static size_t columns(const char *s, size_t n)
{
	size_t c = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\t')
			c = (c + 8) & ~(size_t)7;
		else if (((unsigned char)s[i] & 0xc0) != 0x80)
			c++;
	}
	return c;
}

/* Bytes of @s (length @n) that fit in @cols columns, at least 1 char. */
static size_t fit(const char *s, size_t n, size_t cols)
{
	size_t i = 0, c = 0;

	while (i < n) {
		size_t l = 1;

		while (i + l < n && ((unsigned char)s[i + l] & 0xc0) == 0x80)
			l++;
		if (c + 1 > cols && i)
			break;
		c++;
		i += l;
	}
	return i;
}

static int wrap_line(struct rb_buf *out, const char *s, size_t n, int width)
{
	size_t ind = 0, i, col, w = (size_t)width;
	int ret = 0;

	while (ind < n && s[ind] == ' ')
		ind++;
	if (ind > w / 2)
		ind = 0; /* deep indentation would leave no room */
	ret = rb_buf_add(out, s, ind);
	col = ind;
	i = ind;
	while (i < n && !ret) {
		size_t ws, we, wl;

		ws = i;
		while (ws < n && s[ws] == ' ')
			ws++;
		if (ws == n)
			break;
		we = ws;
		while (we < n && s[we] != ' ')
			we++;
		wl = columns(s + ws, we - ws);
		if (col > ind && col + 1 + wl > w) {
			ret = rb_buf_putc(out, '\n');
			ret = ret ?: rb_buf_add(out, s, ind);
			col = ind;
		} else if (col > ind) {
			ret = rb_buf_putc(out, ' ');
			col++;
		}
		/* A word wider than the line is split where it must be. */
		while (!ret && col + wl > w && we > ws) {
			size_t take = fit(s + ws, we - ws, w - col);

			ret = rb_buf_add(out, s + ws, take);
			ret = ret ?: rb_buf_putc(out, '\n');
			ret = ret ?: rb_buf_add(out, s, ind);
			col = ind;
			ws += take;
			wl = columns(s + ws, we - ws);
		}
		ret = ret ?: rb_buf_add(out, s + ws, we - ws);
		col += wl;
		i = we;
	}
	return ret;
}

int rb_render_layout(struct rb_buf *buf, int width, const char *name)
{
	struct rb_buf out = RB_BUF_INIT(buf->max);
	const char *s = buf->ptr, *end = buf->ptr + buf->len;
	int line = 0, ret = 0;

	while (s < end && !ret) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		size_t n = e ? (size_t)(e - s) : (size_t)(end - s);

		line++;
		if (n && s[0] == '>') {
			ret = rb_buf_add(&out, s, n);
		} else if (n == 3 && !memcmp(s, "-- ", 3)) {
			ret = rb_buf_add(&out, s, n);
		} else {
			while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
				n--;
			if (is_trailer_line(s, n)) {
				ret = rb_err(
					RB_EINVAL,
					"%s: line %d would carry a trailer (\"%.*s\"); reviewbot never sends one",
					name, line, (int)(n > 40 ? 40 : n), s);
				break;
			}
			if (columns(s, n) > (size_t)width) {
				size_t from = out.len;

				ret = wrap_line(&out, s, n, width);
				if (!ret)
					neutralise_wrapped(&out, from);
			} else
				ret = rb_buf_add(&out, s, n);
		}
		if (!ret && e)
			ret = rb_buf_putc(&out, '\n');
		s = e ? e + 1 : end;
	}
	if (ret) {
		rb_buf_release(&out);
		return ret;
	}
	rb_buf_release(buf);
	*buf = out;
	return 0;
}

/* Renders @file with @d, lays it out and appends it to @out. */
static int render(struct rb_buf *out, const struct rb_render_dirs *dirs,
		  const char *file, const json_t *d)
{
	const char *dv[2];
	struct rb_buf tmp;
	int ret;

	if (!dirs->templates_dir && !dirs->override_dir)
		return rb_err(RB_EINVAL, "%s: no template directory given",
			      file);
	dv[0] = dirs->override_dir;
	dv[1] = dirs->templates_dir;
	rb_buf_init(&tmp, out->max < RENDER_MAX ? out->max : RENDER_MAX);
	ret = rb_tmpl_render_file(&tmp, dv, 2, file, d);
	ret = ret ?: rb_render_layout(&tmp, RB_RENDER_WIDTH, file);
	ret = ret ?: rb_buf_add(out, tmp.ptr, tmp.len);
	rb_buf_release(&tmp);
	return ret;
}

int rb_render_review(struct rb_buf *out, const struct rb_render_ctx *ctx)
{
	struct rb_render_patch p;
	struct llm_acc llm = { 0 };
	json_t *d = json_object();
	int next = 1, ret;

	if (!d)
		return rb_err(RB_ENOMEM, "out of memory");
	memset(&p, 0, sizeof(p));
	p.index = ctx->index;
	p.title = ctx->title;
	p.findings = ctx->findings;
	p.n_findings = ctx->n_findings;
	p.show = ctx->show;
	p.commit_msg = ctx->commit_msg;
	p.patch = ctx->patch;
	p.patch_len = ctx->patch_len;
	p.ids = ctx->ids;
	p.raised = ctx->raised;
	p.n_raised = ctx->n_raised;

	ret = set_common(d, ctx->mode, ctx->subsystem, ctx->blocking_text);
	ret = ret ?: set_label(d, ctx->version, ctx->index, ctx->total);
	ret = ret ?: set_int(d, "version", ctx->version);
	ret = ret ?: set_int(d, "index", ctx->index);
	ret = ret ?: set_int(d, "total", ctx->total);
	ret = ret ?: set_str(d, "title", ctx->title);
	ret = ret ?: set_base(d, ctx->base_name, ctx->base_commit);
	ret = ret ?: set_summary(d, ctx->summary, ctx->n_summary);
	ret = ret ?: set_str(d, "model_line", ctx->model_line);
	ret = ret ?: set_bool(d, "shadow_maintainers", ctx->shadow_maintainers);
	ret = ret ?: patch_findings(d, &p, &next, &llm);
	ret = ret ?: patch_raised(d, &p);
	ret = ret ?: set_llm_line(d, &llm);
	ret = ret ?: set_findings_line(d, shown(&p), "");
	ret = ret ?: set_str(d, "first_id", "F1");
	ret = ret ?: render(out, &ctx->dirs, "review.txt", d);
	json_decref(d);
	return ret;
}

int rb_render_summary(struct rb_buf *out,
		      const struct rb_render_summary_ctx *ctx)
{
	json_t *d = NULL, *patches = json_array(), *clean_arr;
	size_t i, total_findings = 0, with = 0;
	struct llm_acc llm = { 0 };
	char suffix[64];
	int next = 1, ret;

	clean_arr = json_array();
	if (!patches || !clean_arr) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	ret = series_doc_new(&d, &ctx->head);
	ret = ret ?: set_base(d, ctx->base_name, ctx->base_commit);
	ret = ret ?: set_summary(d, ctx->summary, ctx->n_summary);
	ret = ret ?: set_str(d, "model_line", ctx->model_line);
	for (i = 0; i < ctx->n_patches && !ret; i++) {
		const struct rb_render_patch *p = &ctx->patches[i];
		json_t *po = json_object();

		ret = po ? 0 : rb_err(RB_ENOMEM, "out of memory");
		ret = ret ?: set_label(po, 1, p->index, ctx->head.total);
		ret = ret ?: set_str(po, "title", p->title);
		ret = ret ?: set_summary(po, p->summary, p->n_summary);
		ret = ret ?: patch_findings(po, p, &next, &llm);
		ret = ret ?: patch_raised(po, p);
		if (ret) {
			json_decref(po);
			break;
		}
		total_findings += shown(p);
		with += shown(p) > 0;
		/* A patch without findings is listed when it has something
		 * to say (a new version: "Unchanged since v1 ..."). */
		if (shown(p) || p->n_summary || p->n_raised) {
			ret = push_new(patches, po);
		} else {
			ret = push_new(clean_arr, json_incref(json_object_get(
							  po, "label")));
			json_decref(po);
		}
	}
	if (ret)
		goto out;
	if (total_findings)
		snprintf(suffix, sizeof(suffix), " in %zu of %zu patches", with,
			 ctx->n_patches);
	else
		suffix[0] = '\0';
	ret = set_findings_line(d, total_findings, suffix);
	ret = ret ?: set_llm_line(d, &llm);
	ret = ret   ?:
		      set_bool(d, "shadow_maintainers",
			       ctx->head.shadow_maintainers);
	ret = ret ?: set_int(d, "n_findings", (long long)total_findings);
	ret = ret ?: set_new(d, "patches", json_incref(patches));
	ret = ret ?: set_new(d, "clean", json_incref(clean_arr));
	ret = ret ?: set_list_text(d, "clean_text", clean_arr);
	ret = ret   ?:
		      set_bool(d, "has_clean",
			       total_findings && json_array_size(clean_arr));
	ret = ret ?: set_str(d, "first_id", "F1");
	ret = ret ?: render(out, &ctx->dirs, "summary.txt", d);
out:
	json_decref(d);
	json_decref(patches);
	json_decref(clean_arr);
	return ret;
}

/* One place the series was tried, an item of "attempts". */
static int apply_attempt(json_t *o, const void *arg, size_t i)
{
	const struct rb_render_apply_ctx *ctx = arg;
	const struct rb_render_apply_attempt *a = &ctx->attempts[i];
	char pl[64];
	int ret;

	if (a->note)
		return set_str(o, "note", a->note);
	ret = set_base(o, a->base_name ? a->base_name : "?", a->base_commit);
	ret = ret ?: set_str(o, "age", a->age);
	if (!ret && a->patch_index > 0) {
		if (ctx->head.total > 0)
			snprintf(pl, sizeof(pl), "%d/%d", a->patch_index,
				 ctx->head.total);
		else
			snprintf(pl, sizeof(pl), "%d", a->patch_index);
		ret = set_str(o, "patch", pl);
	}
	ret = ret ?: set_str(o, "patch_title", a->patch_title);
	ret = ret ?: set_str(o, "file", a->file);
	if (!ret && a->hunk > 0)
		ret = set_int(o, "hunk", a->hunk);
	if (!ret && a->hunk_header)
		ret = set_text(o, "hunk_header", a->hunk_header,
			       strlen(a->hunk_header), CL_TABS | CL_LINE);
	return ret   ?:
		       set_str(o, "reason",
			       a->reason ? a->reason : "it did not apply");
}

int rb_render_apply_failure(struct rb_buf *out,
			    const struct rb_render_apply_ctx *ctx)
{
	json_t *d = NULL;
	int ret;

	ret = series_doc_new(&d, &ctx->head);
	ret = ret ?: set_bool(d, "series", ctx->head.total > 1);
	ret = ret ?: set_str(d, "prereq_applied", ctx->prereq_applied);
	ret = ret ?: set_str(d, "prereq_missing", ctx->prereq_missing);
	ret = ret ?: set_bool(d, "too_big", ctx->too_big);
	ret = ret ?: set_bool(d, "admins", ctx->to_admins);
	ret = ret ?: set_str(d, "author", ctx->author);
	ret = ret ?: set_str(d, "rebase_on", ctx->rebase_on);
	ret = ret ?: set_summary(d, ctx->summary, ctx->n_summary);
	ret = ret   ?:
		      set_items(d, "attempts", ctx->n_attempts, apply_attempt,
				ctx);
	ret = ret ?: render(out, &ctx->dirs, "apply-failure.txt", d);
	json_decref(d);
	return ret;
}

/*
 * "3/9 and 8/9", "3/9, 5/9 and 8/9", or with runs of three or more
 * "14/28 to 28/28": a list a person reads at a glance.
 */
static int missing_text(struct rb_buf *m, const int *v, size_t n, int total)
{
	size_t i = 0, runs = 0, k;
	int ret = 0;

	/* How many items the list has, to put "and" before the last. */
	for (k = 0; k < n; runs++) {
		size_t e = k;

		while (e + 1 < n && v[e + 1] == v[e] + 1)
			e++;
		k = e - k >= 2 ? e + 1 : k + 1;
	}
	for (k = 0; i < n && !ret; k++) {
		size_t e = i;

		while (e + 1 < n && v[e + 1] == v[e] + 1)
			e++;
		if (k)
			ret = rb_buf_puts(m, k + 1 == runs ? " and " : ", ");
		if (!ret && e - i >= 2) {
			ret = rb_buf_printf(m, "%d/%d to %d/%d", v[i], total,
					    v[e], total);
			i = e + 1;
		} else if (!ret) {
			ret = rb_buf_printf(m, "%d/%d", v[i], total);
			i++;
		}
	}
	return ret;
}

int rb_render_incomplete(struct rb_buf *out,
			 const struct rb_render_incomplete_ctx *ctx)
{
	json_t *d = NULL;
	struct rb_buf m = RB_BUF_INIT(1 << 16);
	int ret;

	ret = series_doc_new(&d, &ctx->head);
	ret = ret   ?:
		      set_int(d, "received",
			      ctx->head.total - (long long)ctx->n_missing);
	ret = ret ?: set_int(d, "wait_minutes", ctx->wait_minutes);
	ret = ret ?: set_bool(d, "one_minute", ctx->wait_minutes == 1);
	ret = ret ?: set_int(d, "reviewed", ctx->reviewed);
	ret = ret ?: set_bool(d, "one_reviewed", ctx->reviewed == 1);
	ret = ret   ?:
		      missing_text(&m, ctx->missing, ctx->n_missing,
				   ctx->head.total);
	ret = ret ?: set_str(d, "missing", m.ptr);
	ret = ret ?: set_bool(d, "one_missing", ctx->n_missing == 1);
	ret = ret ?: render(out, &ctx->dirs, "incomplete.txt", d);
	json_decref(d);
	rb_buf_release(&m);
	return ret;
}

int rb_render_forward(struct rb_buf *out,
		      const struct rb_render_forward_ctx *ctx)
{
	struct rb_render_patch p;
	struct llm_acc llm = { 0 };
	json_t *d = json_object();
	char first[32];
	int next = 1, ret;

	if (!d)
		return rb_err(RB_ENOMEM, "out of memory");
	memset(&p, 0, sizeof(p));
	p.index = ctx->index;
	p.title = ctx->title;
	p.findings = ctx->findings;
	p.n_findings = ctx->n_findings;
	p.commit_msg = ctx->commit_msg;
	p.patch = ctx->patch;
	p.patch_len = ctx->patch_len;
	p.given_ids = ctx->ids;
	snprintf(first, sizeof(first), "F%d",
		 ctx->n_findings && ctx->ids ? ctx->ids[0] : 1);
	ret = set_common(d, ctx->mode, ctx->subsystem, ctx->blocking_text);
	ret = ret ?: set_label(d, ctx->version, ctx->index, ctx->total);
	ret = ret ?: set_str(d, "title", ctx->title);
	ret = ret   ?:
		      set_text(d, "by", ctx->by, ctx->by ? strlen(ctx->by) : 0,
			       CL_PARA);
	ret = ret ?: set_str(d, "role", ctx->role ? ctx->role : "maintainer");
	ret = ret ?: patch_findings(d, &p, &next, &llm);
	ret = ret ?: set_llm_line(d, &llm);
	ret = ret ?: set_bool(d, "one", shown(&p) == 1);
	ret = ret ?: set_str(d, "first_id", first);
	ret = ret ?: render(out, &ctx->dirs, "forward.txt", d);
	json_decref(d);
	return ret;
}

/* An open blocking finding of the ledger, an item of "open". */
static int ledger_item(json_t *o, const void *arg, size_t i)
{
	const struct rb_render_ledger_ctx *ctx = arg;
	const struct rb_render_ledger_item *it = &ctx->items[i];
	const char *m = it->finding.message ? it->finding.message : "";
	size_t len = strlen(m), cut = len;
	bool trunc = false;
	char id[32];
	int ret;

	/* Short: the first sentence (or paragraph), 160 bytes at most, cut
	 * at a blank. */
	for (size_t k = 0; k + 1 < len && cut == len; k++)
		if ((strchr(".?!", m[k]) && isspace((unsigned char)m[k + 1])) ||
		    (m[k] == '\n' && m[k + 1] == '\n'))
			cut = m[k] == '\n' ? k : k + 1;
	if (cut > 160) {
		cut = 160;
		while (cut > 80 && !isspace((unsigned char)m[cut]))
			cut--;
		trunc = true;
	}
	snprintf(id, sizeof(id), "F%d", it->id);
	ret = set_str(o, "id", id);
	ret = ret ?: set_int(o, "version", it->version);
	if (!ret && it->index > 0) {
		ret = set_label(o, it->version, it->index, ctx->head.total);
	} else if (!ret) {
		char l[48];

		if (it->version > 1)
			snprintf(l, sizeof(l), "v%d of the series",
				 it->version);
		else
			snprintf(l, sizeof(l), "the series");
		ret = set_str(o, "label", l);
	}
	ret = ret ?: set_str(o, "severity", rb_fsev_name(it->finding.severity));
	ret = ret ?: set_text(o, "message", m, cut, CL_PARA);
	return ret ?: set_bool(o, "cut", trunc);
}

int rb_render_ledger(struct rb_buf *out, const struct rb_render_ledger_ctx *ctx)
{
	struct llm_acc llm = { 0 };
	json_t *d = NULL;
	char c[13];
	size_t i;
	int ret;

	ret = series_doc_new(&d, &ctx->head);
	ret = ret   ?:
		      set_text(d, "author", ctx->author,
			       ctx->author ? strlen(ctx->author) : 0, CL_PARA);
	ret = ret ?: set_str(d, "tree", ctx->tree);
	snprintf(c, sizeof(c), "%s", ctx->commit ? ctx->commit : "");
	ret = ret ?: set_str(d, "commit", c);
	ret = ret ?: set_int(d, "parts", ctx->parts);
	ret = ret ?: set_int(d, "n_open", (long long)ctx->n_items);
	ret = ret ?: set_bool(d, "one", ctx->n_items == 1);
	ret = ret ?: set_bool(d, "one_part", ctx->parts == 1);
	ret = ret ?: set_items(d, "open", ctx->n_items, ledger_item, ctx);
	for (i = 0; i < ctx->n_items; i++)
		llm_note(&llm, &ctx->items[i].finding, ctx->items[i].id);
	ret = ret ?: set_llm_line(d, &llm);
	ret = ret ?: render(out, &ctx->dirs, "ledger.txt", d);
	json_decref(d);
	return ret;
}

int rb_render_not_reviewed(struct rb_buf *out,
			   const struct rb_render_not_reviewed_ctx *ctx)
{
	json_t *d = NULL;
	int ret;

	ret = series_doc_new(&d, &ctx->head);
	ret = ret ?: set_bool(d, "series", ctx->head.total > 1);
	ret = ret ?: set_int(d, "tries", ctx->tries);
	ret = ret ?: render(out, &ctx->dirs, "not-reviewed.txt", d);
	json_decref(d);
	return ret;
}

/* One verdict a reply gave, an item of "items". */
static int ack_item(json_t *o, const void *arg, size_t i)
{
	static const char *const words[] = { "false positive", "valid",
					     "fixed" };
	const struct rb_render_ack_ctx *ctx = arg;
	const struct rb_render_ack_item *it = &ctx->items[i];
	char id[32];
	int ret;

	if ((unsigned int)it->verdict > RB_VK_FIXED)
		return rb_err(RB_EINVAL, "unknown verdict %d",
			      (int)it->verdict);
	snprintf(id, sizeof(id), "F%d", it->id);
	ret = set_str(o, "id", id);
	ret = ret ?: set_str(o, "verdict", words[it->verdict]);
	ret = ret   ?:
		      set_bool(o, "false_positive",
			       it->verdict == RB_VK_FALSE_POSITIVE);
	return ret ?: set_bool(o, "last", i + 1 == ctx->n_items);
}

int rb_render_ack(struct rb_buf *out, const struct rb_render_ack_ctx *ctx)
{
	json_t *d = json_object();
	int ret;

	if (!d)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = set_items(d, "items", ctx->n_items, ack_item, ctx);
	ret = ret ?: render(out, &ctx->dirs, "ack.txt", d);
	json_decref(d);
	return ret;
}
