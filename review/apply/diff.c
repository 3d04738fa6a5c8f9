// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff.c - unified-diff parsing, after git's apply.c (parse_chunk,
 * parse_git_diff_header, parse_fragment, parse_binary). The input is
 * hostile mail: every count is checked, nothing is trusted to end where a
 * header says it ends, and errors name the patch line.
 */
#include <stdlib.h>
#include <string.h>

#include "review/apply/diff.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* Counts above this in a hunk header are refused (hostile input). */
#define RB_DIFF_MAX_COUNT 50000000u

struct cursor {
	const char *p;
	const char *end;
	uint32_t lineno; /* of the line at p, 1-based */
};

/* Length of the line at c->p including its '\n' (if any). */
static size_t line_len(const struct cursor *c)
{
	const char *nl = memchr(c->p, '\n', c->end - c->p);

	return nl ? (size_t)(nl - c->p + 1) : (size_t)(c->end - c->p);
}

static void advance(struct cursor *c, size_t len)
{
	c->p += len;
	c->lineno++;
}

static bool starts(const char *p, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(p, prefix, n);
}

/* Length without the trailing '\n' and any '\r' before it. */
static size_t trim_eol(const char *p, size_t len)
{
	if (len && p[len - 1] == '\n')
		len--;
	if (len && p[len - 1] == '\r')
		len--;
	return len;
}

/*
 * Unquotes a C-style quoted name starting at the '"' at @p. Sets *used to
 * the bytes consumed including both quotes.
 */
static int unquote(char **out, const char *p, size_t len, size_t *used)
{
	struct rb_buf b = RB_BUF_INIT(4096);
	size_t i = 1;
	int ret;

	while (i < len && p[i] != '"') {
		char ch = p[i++];

		if (ch == '\n' || ch == '\0') {
			ret = -RB_EPARSE;
			goto out;
		}
		if (ch == '\\') {
			if (i >= len) {
				ret = -RB_EPARSE;
				goto out;
			}
			ch = p[i++];
			switch (ch) {
			case 'a':
				ch = '\a';
				break;
			case 'b':
				ch = '\b';
				break;
			case 'f':
				ch = '\f';
				break;
			case 'n':
				ch = '\n';
				break;
			case 'r':
				ch = '\r';
				break;
			case 't':
				ch = '\t';
				break;
			case 'v':
				ch = '\v';
				break;
			case '"':
			case '\\':
				break;
			case '0':
			case '1':
			case '2':
			case '3':
				if (i + 1 < len && p[i] >= '0' && p[i] <= '7' &&
				    p[i + 1] >= '0' && p[i + 1] <= '7') {
					ch = (char)(((ch - '0') << 6) |
						    ((p[i] - '0') << 3) |
						    (p[i + 1] - '0'));
					i += 2;
					break;
				}
				/* fall through */
			default:
				ret = -RB_EPARSE;
				goto out;
			}
			if (ch == '\0') {
				ret = -RB_EPARSE;
				goto out;
			}
		}
		ret = rb_buf_putc(&b, ch);
		if (ret)
			goto out;
	}
	if (i >= len) {
		ret = -RB_EPARSE;
		goto out;
	}
	*used = i + 1;
	*out = rb_buf_detach(&b, NULL);
	ret = *out ? 0 : -RB_ENOMEM;
out:
	rb_buf_release(&b);
	return ret;
}

/* Drops @strip leading components of @name in place; false if too few. */
static bool strip_components(char *name, int strip)
{
	char *p = name;

	while (strip-- > 0) {
		char *slash = strchr(p, '/');

		if (!slash)
			return false;
		p = slash + 1;
		while (*p == '/')
			p++;
	}
	memmove(name, p, strlen(p) + 1);
	return true;
}

/*
 * A name from a "---", "+++", "rename from" ... line: quoted, or up to a
 * TAB (git appends one to names with spaces; traditional diffs put the
 * timestamp after it), without trailing blanks. *out is NULL for
 * /dev/null.
 */
static int parse_name(char **out, const char *p, size_t len, int strip,
		      uint32_t lineno)
{
	char *name = NULL;
	size_t used, n;

	len = trim_eol(p, len);
	if (len && p[0] == '"') {
		if (unquote(&name, p, len, &used))
			return rb_err(RB_EPARSE,
				      "patch line %u: badly quoted file name",
				      lineno);
	} else {
		const char *tab = memchr(p, '\t', len);

		n = tab ? (size_t)(tab - p) : len;
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\r'))
			n--;
		if (n == 9 && !memcmp(p, "/dev/null", 9)) {
			*out = NULL;
			return 0;
		}
		if (memchr(p, '\0', n))
			return rb_err(RB_EPARSE,
				      "patch line %u: NUL in a file name",
				      lineno);
		name = strndup(p, n);
		if (!name)
			return -RB_ENOMEM;
	}
	if (!strcmp(name, "/dev/null")) {
		free(name);
		*out = NULL;
		return 0;
	}
	if (!strip_components(name, strip) || !name[0]) {
		free(name);
		return rb_err(RB_EPARSE,
			      "patch line %u: file name lacks a leading "
			      "component to strip",
			      lineno);
	}
	*out = name;
	return 0;
}

/*
 * The name in "diff --git a/X b/X" when both halves agree (git's
 * git_header_name); NULL when it cannot tell (a rename with a space, say),
 * which is fine if later headers name the file.
 */
static char *git_header_name(const char *p, size_t len)
{
	char *first = NULL, *second = NULL, *res = NULL;
	size_t used, i;

	len = trim_eol(p, len);
	if (len && p[0] == '"') {
		if (unquote(&first, p, len, &used) || used >= len ||
		    p[used] != ' ')
			goto out;
		p += used + 1;
		len -= used + 1;
		if (len && p[0] == '"') {
			if (unquote(&second, p, len, &used))
				goto out;
		} else {
			second = strndup(p, len);
		}
		if (!second || !strip_components(first, 1) ||
		    !strip_components(second, 1) || strcmp(first, second))
			goto out;
		res = second;
		second = NULL;
		goto out;
	}
	if (memchr(p, '\0', len))
		goto out;
	for (i = 1; i + 1 < len; i++) {
		const char *a, *b, *sa, *sb;
		size_t la, lb;

		if (p[i] != ' ')
			continue;
		a = p;
		la = i;
		b = p + i + 1;
		lb = len - i - 1;
		sa = memchr(a, '/', la);
		sb = memchr(b, '/', lb);
		if (!sa || !sb)
			continue;
		la -= sa + 1 - a;
		lb -= sb + 1 - b;
		if (la == lb && la && !memcmp(sa + 1, sb + 1, la)) {
			res = strndup(sb + 1, lb);
			break;
		}
	}
out:
	free(first);
	free(second);
	return res;
}

static int parse_mode(uint32_t *out, const char *p, size_t len, uint32_t lineno)
{
	uint32_t v = 0;
	size_t i = 0;

	len = trim_eol(p, len);
	while (i < len && p[i] >= '0' && p[i] <= '7' && v < 01000000)
		v = v * 8 + (uint32_t)(p[i++] - '0');
	if (!i || (i < len && p[i] != ' ') || v >= 01000000 || !v)
		return rb_err(RB_EPARSE, "patch line %u: bad file mode",
			      lineno);
	*out = v;
	return 0;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* "index <old>..<new>[ mode]"; an odd line is ignored, as git does. */
static void parse_index(struct rb_diff_file *f, const char *p, size_t len)
{
	size_t i = 0, a, b;

	len = trim_eol(p, len);
	while (i < len && is_hex(p[i]))
		i++;
	a = i;
	if (a > 40 || i + 2 > len || p[i] != '.' || p[i + 1] != '.')
		return;
	i += 2;
	while (i < len && is_hex(p[i]))
		i++;
	b = i - a - 2;
	if (b > 40 || (i < len && p[i] != ' '))
		return;
	memcpy(f->old_id, p, a);
	f->old_id[a] = '\0';
	memcpy(f->new_id, p + a + 2, b);
	f->new_id[b] = '\0';
	if (i < len && !f->old_mode)
		parse_mode(&f->old_mode, p + i + 1, len - i - 1, 0);
	rb_err_clear();
}

static int parse_num(uint32_t *out, const char **pp, const char *end)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (p >= end || *p < '0' || *p > '9')
		return -1;
	while (p < end && *p >= '0' && *p <= '9') {
		v = v * 10 + (uint64_t)(*p++ - '0');
		if (v > RB_DIFF_MAX_COUNT)
			return -1;
	}
	*out = (uint32_t)v;
	*pp = p;
	return 0;
}

/* "-l[,s] +l[,s] @@": parse_range in git. */
static int parse_hunk_header(struct rb_diff_hunk *h, const char *p, size_t len)
{
	const char *end = p + trim_eol(p, len);

	p += 4; /* "@@ -" */
	if (parse_num(&h->old_start, &p, end))
		return -1;
	h->old_count = 1;
	if (p < end && *p == ',') {
		p++;
		if (parse_num(&h->old_count, &p, end))
			return -1;
	}
	if (end - p < 2 || p[0] != ' ' || p[1] != '+')
		return -1;
	p += 2;
	if (parse_num(&h->new_start, &p, end))
		return -1;
	h->new_count = 1;
	if (p < end && *p == ',') {
		p++;
		if (parse_num(&h->new_count, &p, end))
			return -1;
	}
	if (end - p < 3 || memcmp(p, " @@", 3))
		return -1;
	p += 3;
	if (p < end && *p == ' ')
		p++;
	h->section = p;
	h->section_len = (size_t)(end - p);
	return 0;
}

/* A hunk being read: the lines still due on each side (from its
 * header), the next line numbers, whether a line changed yet. */
struct hunk_walk {
	uint32_t oldl, newl, oldno, newno;
	bool changed;
	size_t cap; /* of the hunk's lines */
};

/* Appends the line at @c (@origin ' ', '-' or '+') to @h. */
static int hunk_add_line(struct rb_diff_hunk *h, struct hunk_walk *w,
			 const struct cursor *c, char origin)
{
	size_t len = line_len(c);
	struct rb_diff_line *l;

	l = rb_grow(h->lines, &w->cap, h->n_lines, sizeof(*h->lines));
	if (!l)
		return -RB_ENOMEM;
	h->lines = l;
	l = &h->lines[h->n_lines++];
	memset(l, 0, sizeof(*l));
	l->origin = origin;
	l->patch_lineno = c->lineno;
	if (c->p[0] == '\n') {
		l->text = c->p;
		l->len = 0;
	} else {
		l->text = c->p + 1;
		l->len = len - 1;
		if (l->len && l->text[l->len - 1] == '\n')
			l->len--;
	}
	switch (origin) {
	case ' ':
		w->oldl--;
		w->newl--;
		l->old_lineno = w->oldno++;
		l->new_lineno = w->newno++;
		if (!w->changed)
			h->leading++;
		h->trailing++;
		break;
	case '-':
		w->oldl--;
		l->old_lineno = w->oldno++;
		h->removed++;
		h->trailing = 0;
		w->changed = true;
		break;
	case '+':
		w->newl--;
		l->new_lineno = w->newno++;
		h->added++;
		h->trailing = 0;
		w->changed = true;
		break;
	}
	return 0;
}

/* Reads the hunk's next line at @c: context, removed or added, or the
 * "\ No newline" after one. */
static int hunk_line(struct rb_diff_hunk *h, struct hunk_walk *w,
		     struct cursor *c)
{
	size_t len;
	char origin;
	int ret;

	if (c->p >= c->end)
		return rb_err(RB_EPARSE,
			      "patch line %u: corrupt patch at line %u: hunk "
			      "at line %u is truncated",
			      c->lineno, c->lineno, h->patch_lineno);
	len = line_len(c);
	origin = c->p[0];
	if (origin == '\\') {
		/* "\ No newline at end of file", in any language */
		if (len < 12 || c->p[1] != ' ' || !h->n_lines)
			return rb_err(RB_EPARSE,
				      "patch line %u: stray '\\' line",
				      c->lineno);
		h->lines[h->n_lines - 1].no_newline = true;
		advance(c, len);
		return 0;
	}
	if (origin == '\n')
		origin = ' '; /* whitespace-damaged blank context */
	else if (origin != ' ' && origin != '-' && origin != '+')
		return rb_err(RB_EPARSE,
			      "patch line %u: corrupt patch at line %u: hunk "
			      "at line %u ends early (%u old and %u new lines "
			      "missing)",
			      c->lineno, c->lineno, h->patch_lineno, w->oldl,
			      w->newl);
	if ((origin != '+' && !w->oldl) || (origin != '-' && !w->newl))
		return rb_err(RB_EPARSE,
			      "patch line %u: corrupt patch at line %u: more "
			      "lines than the hunk header at line %u says",
			      c->lineno, c->lineno, h->patch_lineno);
	ret = hunk_add_line(h, w, c, origin);
	if (!ret)
		advance(c, len);
	return ret;
}

/* Reads one hunk; c points at its "@@ -" line. */
static int parse_hunk(struct rb_diff_file *f, struct cursor *c)
{
	struct rb_diff_hunk h = { 0 }, *nh;
	struct hunk_walk w = { 0 };
	size_t len;
	int ret = 0;

	len = line_len(c);
	h.patch_lineno = c->lineno;
	if (parse_hunk_header(&h, c->p, len))
		return rb_err(RB_EPARSE,
			      "patch line %u: corrupt patch at line %u: bad "
			      "hunk header",
			      c->lineno, c->lineno);
	advance(c, len);
	w.oldl = h.old_count;
	w.newl = h.new_count;
	w.oldno = h.old_start;
	w.newno = h.new_start;
	while (!ret && (w.oldl || w.newl))
		ret = hunk_line(&h, &w, c);
	if (ret)
		goto fail;
	/* The counts end before a final "\ No newline" line. */
	if (c->p < c->end) {
		len = line_len(c);
		if (len >= 12 && c->p[0] == '\\' && c->p[1] == ' ' &&
		    h.n_lines) {
			h.lines[h.n_lines - 1].no_newline = true;
			advance(c, len);
		}
	}
	if (!w.changed) {
		ret = rb_err(RB_EPARSE,
			     "patch line %u: hunk neither adds nor removes "
			     "anything",
			     h.patch_lineno);
		goto fail;
	}
	nh = realloc(f->hunks, (f->n_hunks + 1) * sizeof(*nh));
	if (!nh) {
		ret = -RB_ENOMEM;
		goto fail;
	}
	f->hunks = nh;
	f->hunks[f->n_hunks++] = h;
	f->added += h.added;
	f->removed += h.removed;
	return 0;
fail:
	free(h.lines);
	return ret;
}

static const char b85_chars[] =
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	"abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

static int b85_val(char c)
{
	const char *p = c ? strchr(b85_chars, c) : NULL;

	return p ? (int)(p - b85_chars) : -1;
}

/* One "literal N" or "delta N" block up to its empty line. */
static int parse_binary_hunk(struct rb_diff_binary *out, struct cursor *c)
{
	struct rb_buf b = RB_BUF_INIT(64u << 20);
	size_t len = line_len(c);
	const char *p = c->p;
	uint32_t start = c->lineno;
	uint64_t size = 0;
	int ret;

	if (starts(p, len, "literal ")) {
		out->type = RB_DIFF_BIN_LITERAL;
		p += 8;
	} else {
		out->type = RB_DIFF_BIN_DELTA;
		p += 6;
	}
	while (*p >= '0' && *p <= '9' && size < (1ull << 40))
		size = size * 10 + (uint64_t)(*p++ - '0');
	out->inflated_size = size;
	advance(c, len);
	for (;;) {
		size_t llen, bytes, i, max;
		char ch;

		if (c->p >= c->end)
			break; /* a missing final empty line is tolerated */
		llen = trim_eol(c->p, line_len(c));
		if (!llen) {
			advance(c, line_len(c));
			break;
		}
		ch = c->p[0];
		if (ch >= 'A' && ch <= 'Z')
			bytes = (size_t)(ch - 'A' + 1);
		else if (ch >= 'a' && ch <= 'z')
			bytes = (size_t)(ch - 'a' + 27);
		else
			goto corrupt;
		if (llen < 6 || (llen - 1) % 5)
			goto corrupt;
		max = (llen - 1) / 5 * 4;
		if (max < bytes || bytes + 4 <= max)
			goto corrupt;
		for (i = 1; i < llen && bytes; i += 5) {
			uint32_t acc = 0;
			unsigned char word[4];
			int k, v;

			for (k = 0; k < 5; k++) {
				v = b85_val(c->p[i + k]);
				if (v < 0)
					goto corrupt;
				if (k == 4 &&
				    acc > (0xffffffffu - (uint32_t)v) / 85)
					goto corrupt;
				acc = acc * 85 + (uint32_t)v;
			}
			word[0] = (unsigned char)(acc >> 24);
			word[1] = (unsigned char)(acc >> 16);
			word[2] = (unsigned char)(acc >> 8);
			word[3] = (unsigned char)acc;
			k = bytes < 4 ? (int)bytes : 4;
			ret = rb_buf_add(&b, word, (size_t)k);
			if (ret)
				goto out;
			bytes -= (size_t)k;
		}
		advance(c, line_len(c));
	}
	out->len = b.len;
	out->data = (unsigned char *)rb_buf_detach(&b, NULL);
	ret = out->data ? 0 : -RB_ENOMEM;
	goto out;
corrupt:
	ret = rb_err(RB_EPARSE,
		     "patch line %u: corrupt binary patch (block at line %u)",
		     c->lineno, start);
out:
	rb_buf_release(&b);
	return ret;
}

static int parse_binary(struct rb_diff_file *f, struct cursor *c)
{
	size_t len;
	int ret;

	f->is_binary = true;
	advance(c, line_len(c)); /* "GIT binary patch" */
	len = c->p < c->end ? line_len(c) : 0;
	if (!starts(c->p, len, "literal ") && !starts(c->p, len, "delta "))
		return rb_err(RB_EPARSE,
			      "patch line %u: binary patch lacks a literal or "
			      "delta block",
			      c->lineno);
	ret = parse_binary_hunk(&f->bin_forward, c);
	if (ret)
		return ret;
	len = c->p < c->end ? line_len(c) : 0;
	if (starts(c->p, len, "literal ") || starts(c->p, len, "delta "))
		ret = parse_binary_hunk(&f->bin_reverse, c);
	return ret;
}

static void file_release(struct rb_diff_file *f)
{
	size_t i;

	free(f->old_path);
	free(f->new_path);
	for (i = 0; i < f->n_hunks; i++)
		free(f->hunks[i].lines);
	free(f->hunks);
	free(f->bin_forward.data);
	free(f->bin_reverse.data);
}

/* "rename from X" and kin: the length of the keyword, or 0. */
static size_t name_header(const char *p, size_t len, bool *to, bool *copy)
{
	static const struct {
		const char *kw;
		bool to, copy;
	} kws[] = {
		{ "rename from ", false, false },
		{ "rename old ", false, false },
		{ "copy from ", false, true },
		{ "rename to ", true, false },
		{ "rename new ", true, false },
		{ "copy to ", true, true },
	};
	size_t i;

	for (i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if (starts(p, len, kws[i].kw)) {
			*to = kws[i].to;
			*copy = kws[i].copy;
			return strlen(kws[i].kw);
		}
	return 0;
}

static int set_name(char **slot, char *name)
{
	free(*slot);
	*slot = name;
	return 0;
}

/* What the extended header lines said so far. */
struct git_header {
	bool is_new, is_delete, rename, copy;
	bool have_old, have_new;
	bool dashes; /* a "--- " or "+++ " line: hunks must follow */
};

/*
 * The extended header line at @c. *@known is false for a line that is
 * none of them (the header ends there).
 */
static int git_header_line(struct rb_diff_file *f, struct git_header *g,
			   const struct cursor *c, bool *known)
{
	const char *p = c->p;
	size_t len = line_len(c);
	uint32_t no = c->lineno;
	char *name = NULL;
	bool to, is_copy;
	size_t skip;
	int ret = 0;

	*known = true;
	if (starts(p, len, "--- ")) {
		ret = parse_name(&name, p + 4, len - 4, 1, no);
		if (ret)
			return ret;
		set_name(&f->old_path, name);
		g->have_old = true;
		g->dashes = true;
		if (!name)
			g->is_new = true;
	} else if (starts(p, len, "+++ ")) {
		ret = parse_name(&name, p + 4, len - 4, 1, no);
		if (ret)
			return ret;
		set_name(&f->new_path, name);
		g->have_new = true;
		g->dashes = true;
		if (!name)
			g->is_delete = true;
	} else if (starts(p, len, "old mode ")) {
		ret = parse_mode(&f->old_mode, p + 9, len - 9, no);
	} else if (starts(p, len, "new mode ")) {
		ret = parse_mode(&f->new_mode, p + 9, len - 9, no);
	} else if (starts(p, len, "deleted file mode ")) {
		g->is_delete = true;
		ret = parse_mode(&f->old_mode, p + 18, len - 18, no);
	} else if (starts(p, len, "new file mode ")) {
		g->is_new = true;
		ret = parse_mode(&f->new_mode, p + 14, len - 14, no);
	} else if ((skip = name_header(p, len, &to, &is_copy))) {
		if (is_copy)
			g->copy = true;
		else
			g->rename = true;
		ret = parse_name(&name, p + skip, len - skip, 0, no);
		if (!ret && to) {
			set_name(&f->new_path, name);
			g->have_new = true;
		} else if (!ret) {
			set_name(&f->old_path, name);
			g->have_old = true;
		}
	} else if (starts(p, len, "similarity index ") ||
		   starts(p, len, "dissimilarity index ")) {
		const char *q = p + (p[0] == 's' ? 17 : 20);
		int v = 0;

		while (*q >= '0' && *q <= '9' && v <= 100)
			v = v * 10 + (*q++ - '0');
		if (v <= 100)
			f->similarity = v;
	} else if (starts(p, len, "index ")) {
		parse_index(f, p + 6, len - 6);
	} else {
		*known = false;
	}
	return ret;
}

/* The file's status and names from its header lines, with @def (the
 * name on the "diff --git" line, may be NULL) where they named none. */
static int git_header_finish(struct rb_diff_file *f, const struct git_header *g,
			     const char *def)
{
	f->has_dashes = g->dashes;
	f->meta_change =
		g->is_new || g->is_delete || g->rename || g->copy ||
		(f->old_mode && f->new_mode && f->old_mode != f->new_mode);
	if (g->is_new) {
		f->status = RB_DIFF_ADDED;
		free(f->old_path);
		f->old_path = NULL;
		if (!g->have_new && def)
			f->new_path = strdup(def);
	} else if (g->is_delete) {
		f->status = RB_DIFF_DELETED;
		free(f->new_path);
		f->new_path = NULL;
		if (!g->have_old && def)
			f->old_path = strdup(def);
	} else {
		f->status = g->rename ? RB_DIFF_RENAMED :
			    g->copy   ? RB_DIFF_COPIED :
					RB_DIFF_MODIFIED;
		if (!g->have_old && def)
			f->old_path = strdup(def);
		if (!g->have_new && def)
			f->new_path = strdup(def);
	}
	if ((f->status != RB_DIFF_ADDED && !f->old_path) ||
	    (f->status != RB_DIFF_DELETED && !f->new_path))
		return rb_err(RB_EPARSE,
			      "patch line %u: git diff header lacks file name "
			      "information",
			      f->patch_lineno);
	return 0;
}

/*
 * The extended header lines after "diff --git" (git's
 * parse_git_diff_header). Stops at the first line that is none of them.
 */
static int parse_git_header(struct rb_diff_file *f, struct cursor *c)
{
	struct git_header g = { 0 };
	char *def = NULL;
	size_t len = line_len(c);
	bool known = true;
	int ret = 0;

	f->is_git = true;
	def = git_header_name(c->p + 11, len - 11);
	advance(c, len);
	while (c->p < c->end) {
		len = line_len(c);
		ret = git_header_line(f, &g, c, &known);
		if (ret || !known)
			break;
		advance(c, len);
	}
	if (!ret)
		ret = git_header_finish(f, &g, def);
	free(def);
	return ret;
}

/* "--- a\n+++ b\n@@ -": a traditional diff (parse_traditional_patch). */
static int parse_traditional(struct rb_diff_file *f, struct cursor *c)
{
	char *first = NULL, *second = NULL;
	size_t len = line_len(c);
	int ret;

	ret = parse_name(&first, c->p + 4, len - 4, 1, c->lineno);
	if (ret)
		return ret;
	advance(c, len);
	len = line_len(c);
	ret = parse_name(&second, c->p + 4, len - 4, 1, c->lineno);
	if (ret) {
		free(first);
		return ret;
	}
	advance(c, len);
	if (!first && !second) {
		return rb_err(RB_EPARSE,
			      "patch line %u: both sides are /dev/null",
			      f->patch_lineno);
	}
	if (!first) {
		f->status = RB_DIFF_ADDED;
		f->new_path = second;
	} else if (!second) {
		f->status = RB_DIFF_DELETED;
		f->old_path = first;
	} else {
		f->status = RB_DIFF_MODIFIED;
		f->old_path = strdup(second);
		f->new_path = second;
		free(first);
		if (!f->old_path)
			return -RB_ENOMEM;
	}
	return 0;
}

static bool at_traditional(const struct cursor *c)
{
	struct cursor d = *c;
	size_t len = line_len(&d);

	if (!starts(d.p, len, "--- "))
		return false;
	advance(&d, len);
	if (d.p >= d.end)
		return false;
	len = line_len(&d);
	if (!starts(d.p, len, "+++ "))
		return false;
	advance(&d, len);
	if (d.p >= d.end)
		return false;
	return starts(d.p, line_len(&d), "@@ -");
}

/*
 * A git section that names "---"/"+++" but no hunk follows: git apply
 * says "corrupt patch at line N" (the line where a hunk header was due).
 * This is also where a hunk whose header counts cannot be right lands:
 * the mail's patch text ends before a header no parser accepts, e.g.
 * "@@ -4294967295,4294967295 +18446744073709551615,2147483648 @@", and
 * without this rule the section would apply as a change of nothing.
 * A section with neither hunks nor a metadata change is "patch with only
 * garbage" in git apply (parse_chunk); refuse it the same way.
 */
static int check_hunkless(const struct rb_diff_file *f, const struct cursor *c)
{
	if (f->n_hunks || f->is_binary || !f->is_git)
		return 0;
	if (f->has_dashes)
		return rb_err(RB_EPARSE,
			      "patch line %u: corrupt patch at line %u: no "
			      "valid hunk follows the \"---\"/\"+++\" lines",
			      c->lineno, c->lineno);
	if (!f->meta_change)
		return rb_err(RB_EPARSE,
			      "patch line %u: patch with only garbage at line "
			      "%u",
			      c->lineno, c->lineno);
	return 0;
}

int rb_diff_parse(struct rb_diff **out, const char *text, size_t len)
{
	struct rb_diff *d;
	struct cursor c;
	size_t cap = 0;
	int ret = 0;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -RB_ENOMEM;
	/*
	 * The copy always ends with '\n', so every line's text is followed
	 * by its newline (apply reads "text\n" in place).
	 */
	d->text = malloc(len + 2);
	if (!d->text) {
		free(d);
		return -RB_ENOMEM;
	}
	memcpy(d->text, text, len);
	if (len && text[len - 1] != '\n')
		d->text[len++] = '\n';
	d->text[len] = '\0';
	d->len = len;
	c.p = d->text;
	c.end = d->text + len;
	c.lineno = 1;
	while (c.p < c.end) {
		struct rb_diff_file *f;
		size_t ll = line_len(&c);
		bool git = starts(c.p, ll, "diff --git ");

		if (!git && !at_traditional(&c)) {
			advance(&c, ll);
			continue;
		}
		f = rb_grow(d->files, &cap, d->n_files, sizeof(*d->files));
		if (!f) {
			ret = -RB_ENOMEM;
			goto fail;
		}
		d->files = f;
		f = &d->files[d->n_files++];
		memset(f, 0, sizeof(*f));
		f->similarity = -1;
		f->patch_lineno = c.lineno;
		f->raw = c.p;
		ret = git ? parse_git_header(f, &c) : parse_traditional(f, &c);
		if (ret)
			goto fail;
		ll = c.p < c.end ? line_len(&c) : 0;
		if (git && starts(c.p, ll, "GIT binary patch")) {
			ret = parse_binary(f, &c);
		} else if (git && starts(c.p, ll, "Binary files ")) {
			f->is_binary = true;
			advance(&c, ll);
		} else {
			while (!ret && c.p < c.end &&
			       starts(c.p, line_len(&c), "@@ -"))
				ret = parse_hunk(f, &c);
		}
		if (ret)
			goto fail;
		f->raw_len = (size_t)(c.p - f->raw);
		if (!f->n_hunks && !git) {
			ret = rb_err(RB_EPARSE,
				     "patch line %u: diff without hunks",
				     f->patch_lineno);
			goto fail;
		}
		ret = check_hunkless(f, &c);
		if (ret)
			goto fail;
	}
	if (!d->n_files) {
		ret = rb_err(RB_EPARSE, "no diff found in the patch text");
		goto fail;
	}
	*out = d;
	return 0;
fail:
	rb_diff_free(d);
	return ret;
}

void rb_diff_free(struct rb_diff *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->n_files; i++)
		file_release(&d->files[i]);
	free(d->files);
	free(d->text);
	free(d);
}

const char *rb_diff_file_path(const struct rb_diff_file *f)
{
	return f->new_path ? f->new_path : f->old_path;
}

const struct rb_diff_file *rb_diff_find_file(const struct rb_diff *d,
					     const char *path)
{
	size_t i;

	for (i = 0; i < d->n_files; i++) {
		const struct rb_diff_file *f = &d->files[i];

		if ((f->new_path && !strcmp(f->new_path, path)) ||
		    (f->old_path && !strcmp(f->old_path, path)))
			return f;
	}
	return NULL;
}

const struct rb_diff_line *rb_diff_new_line(const struct rb_diff_file *f,
					    uint32_t lineno)
{
	size_t i, j;

	for (i = 0; i < f->n_hunks; i++) {
		const struct rb_diff_hunk *h = &f->hunks[i];

		if (lineno < h->new_start ||
		    lineno >= (uint64_t)h->new_start + h->new_count)
			continue;
		for (j = 0; j < h->n_lines; j++)
			if (h->lines[j].new_lineno == lineno)
				return &h->lines[j];
	}
	return NULL;
}

int rb_diff_foreach_line(const struct rb_diff_file *f, rb_diff_line_fn fn,
			 void *payload)
{
	size_t i, j;
	int ret;

	for (i = 0; i < f->n_hunks; i++)
		for (j = 0; j < f->hunks[i].n_lines; j++) {
			ret = fn(&f->hunks[i], i + 1, &f->hunks[i].lines[j],
				 payload);
			if (ret)
				return ret;
		}
	return 0;
}
