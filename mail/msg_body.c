// SPDX-License-Identifier: GPL-2.0-only
/*
 * msg_body.c - splits a patch mail's text the way git mailinfo and git am
 * do (git builtin/mailinfo.c patchbreak(), apply.c parse_fragment()):
 *
 *   commit message   the body up to the first "---" line or diff start
 *   trailers         the last paragraph of the commit message, if it is a
 *                    trailer block (git interpret-trailers' 25% rule),
 *                    plus b4's base-commit:, prerequisite-patch-id: and
 *                    change-id: lines found after the "---"
 *   notes, diffstat  between "---" and the diff
 *   patch            from the first "diff -", "Index: " or "--- "/"+++ "
 *                    pair to the end of the last hunk, counted with the
 *                    hunk headers as git apply counts them, so the mail
 *                    signature ("-- \n2.43.0", or the mangled "--\n2.43.0")
 *                    stays out.
 *
 * Damage is reported, never repaired: a context line that lost its
 * leading space (git apply accepts an empty line as empty context, so the
 * patch text keeps it as sent) and hunks that end too early.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/message.h"
#include "mail/msg_internal.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* Enough problem lines to name the damage; the rest are counted. */
#define MAX_DAMAGE_NOTES 3
/* Folded trailer values stop growing here (no quadratic copying). */
#define MAX_TRAILER_VALUE 4096

struct line {
	const char *p;
	size_t len; /* without the '\n' */
	size_t next; /* offset of the next line */
};

static bool next_line(const char *s, size_t n, size_t off, struct line *l)
{
	const char *nl;

	if (off >= n)
		return false;
	l->p = s + off;
	nl = memchr(l->p, '\n', n - off);
	l->len = nl ? (size_t)(nl - l->p) : n - off;
	l->next = off + l->len + (nl ? 1 : 0);
	return true;
}

static bool starts(const struct line *l, const char *prefix)
{
	size_t k = strlen(prefix);

	return l->len >= k && !memcmp(l->p, prefix, k);
}

/* git mailinfo.c patchbreak(), without scissors. */
static bool patchbreak(const struct line *l)
{
	size_t i;

	if (starts(l, "diff -") || starts(l, "Index: "))
		return true;
	if (l->len < 3 || memcmp(l->p, "---", 3))
		return false;
	if (l->len > 4 && l->p[3] == ' ' && !isspace((unsigned char)l->p[4]))
		return true;
	for (i = 3; i < l->len; i++)
		if (!isspace((unsigned char)l->p[i]))
			return false;
	return true;
}

/* Does a diff start at @l? */
static bool diff_start(const char *s, size_t n, const struct line *l)
{
	struct line nx;

	if (starts(l, "diff -") || starts(l, "Index: "))
		return true;
	if (starts(l, "--- ") && next_line(s, n, l->next, &nx) &&
	    starts(&nx, "+++ "))
		return true;
	return false;
}

static int add_trailer(struct rb_message *m, const char *k, size_t klen,
		       const char *v, size_t vlen)
{
	struct rb_trailer *t;

	while (vlen && isspace((unsigned char)v[vlen - 1]))
		vlen--;
	while (vlen && isspace((unsigned char)*v)) {
		v++;
		vlen--;
	}
	t = realloc(m->trailers, (m->n_trailers + 1) * sizeof(*t));
	if (!t)
		return rb_err(RB_ENOMEM, "out of memory for trailers");
	m->trailers = t;
	t = &m->trailers[m->n_trailers];
	t->key = strndup(k, klen);
	t->value = strndup(v, vlen);
	if (!t->key || !t->value) {
		free(t->key);
		free(t->value);
		return rb_err(RB_ENOMEM, "out of memory for trailers");
	}
	m->n_trailers++;
	return 0;
}

/*
 * "Key: value": the length of the key, or 0. The key is alphanumeric
 * with dashes (git trailer.c find_separator()); a colon must be followed
 * by a space or the end, so "https://..." is not a trailer.
 */
static size_t trailer_key(const struct line *l)
{
	size_t i = 0;

	if (!l->len || !isalnum((unsigned char)l->p[0]))
		return 0;
	while (i < l->len &&
	       (isalnum((unsigned char)l->p[i]) || l->p[i] == '-'))
		i++;
	if (i >= l->len || l->p[i] != ':')
		return 0;
	if (i + 1 < l->len && l->p[i + 1] != ' ' && l->p[i + 1] != '\t')
		return 0;
	return i;
}

static const char *const known_trailers[] = {
	"Signed-off-by",
	"Reviewed-by",
	"Acked-by",
	"Tested-by",
	"Reported-by",
	"Suggested-by",
	"Co-developed-by",
	"Fixes",
	"Cc",
	"Link",
	"Closes",
	"Reported-and-tested-by",
	NULL,
};

static bool known_key(const char *k, size_t len)
{
	size_t i;

	for (i = 0; known_trailers[i]; i++)
		if (strlen(known_trailers[i]) == len &&
		    !strncasecmp(known_trailers[i], k, len))
			return true;
	return false;
}

/* The trailer block: the last paragraph of @msg, if it qualifies. */
static int parse_trailers(struct rb_message *m, const char *msg, size_t n)
{
	size_t start = 0, off, nt = 0, nn = 0, first;
	bool known = false, prev_trailer = false;
	struct line l;
	int ret = 0;

	/* Start of the last paragraph. */
	for (off = 0; next_line(msg, n, off, &l); off = l.next) {
		size_t i;

		for (i = 0; i < l.len && isspace((unsigned char)l.p[i]); i++)
			;
		if (i == l.len && l.next < n)
			start = l.next;
	}
	for (off = start; next_line(msg, n, off, &l); off = l.next) {
		size_t k = trailer_key(&l);

		if (k) {
			nt++;
			known |= known_key(l.p, k);
			prev_trailer = true;
		} else if (prev_trailer && l.len &&
			   (l.p[0] == ' ' || l.p[0] == '\t')) {
			/* a continuation line */
		} else {
			nn++;
			prev_trailer = false;
		}
	}
	if (!nt || (nn && !(known && nt * 3 >= nn)))
		return 0;

	first = m->n_trailers;
	for (off = start; next_line(msg, n, off, &l) && !ret; off = l.next) {
		size_t k = trailer_key(&l);

		if (k) {
			ret = add_trailer(m, l.p, k, l.p + k + 1,
					  l.len - k - 1);
		} else if (m->n_trailers > first && l.len &&
			   (l.p[0] == ' ' || l.p[0] == '\t') &&
			   strlen(m->trailers[m->n_trailers - 1].value) <
				   MAX_TRAILER_VALUE) {
			/* RFC 822-style folding of a long trailer value. */
			struct rb_trailer *t = &m->trailers[m->n_trailers - 1];
			struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
			size_t i = 0;

			while (i < l.len && isspace((unsigned char)l.p[i]))
				i++;
			ret = rb_buf_puts(&b, t->value);
			if (!ret)
				ret = rb_buf_putc(&b, ' ');
			if (!ret)
				ret = rb_buf_add(&b, l.p + i, l.len - i);
			if (!ret) {
				free(t->value);
				t->value = rb_buf_detach(&b, NULL);
				if (!t->value)
					ret = rb_err(RB_ENOMEM,
						     "out of memory");
			}
			rb_buf_release(&b);
		}
	}
	return ret;
}

/* b4 writes these after the patch, before the signature. */
static bool b4_trailer(const struct line *l, size_t *klen)
{
	static const char *const keys[] = {
		"base-commit",
		"prerequisite-patch-id",
		"prerequisite-change-id",
		"prerequisite-message-id",
		"change-id",
		NULL,
	};
	size_t i, k = trailer_key(l);

	for (i = 0; k && keys[i]; i++) {
		if (strlen(keys[i]) == k && !strncasecmp(l->p, keys[i], k)) {
			*klen = k;
			return true;
		}
	}
	return false;
}

static int scan_b4_trailers(struct rb_message *m, const char *s, size_t n)
{
	struct line l;
	size_t off, k;
	int ret = 0;

	for (off = 0; next_line(s, n, off, &l) && !ret; off = l.next) {
		if (l.len == 3 && !memcmp(l.p, "-- ", 3))
			break;
		if (b4_trailer(&l, &k))
			ret = add_trailer(m, l.p, k, l.p + k + 1,
					  l.len - k - 1);
	}
	return ret;
}

/* "@@ -a[,b] +c[,d] @@": the line counts b and d (1 when left out). */
static bool hunk_header(const struct line *l, long *old, long *new)
{
	const char *p = l->p, *e = l->p + l->len;
	long v[4] = { 0, 1, 0, 1 };
	int i;

	if (l->len < 4 || memcmp(p, "@@ -", 4))
		return false;
	p += 4;
	for (i = 0; i < 4; i += 2) {
		if (i == 2) {
			if (p + 2 > e || p[0] != ' ' || p[1] != '+')
				return false;
			p += 2;
		}
		if (p >= e || !isdigit((unsigned char)*p))
			return false;
		v[i] = 0;
		while (p < e && isdigit((unsigned char)*p)) {
			if (v[i] > 100000000)
				return false;
			v[i] = v[i] * 10 + (*p++ - '0');
		}
		if (p < e && *p == ',') {
			p++;
			if (p >= e || !isdigit((unsigned char)*p))
				return false;
			v[i + 1] = 0;
			while (p < e && isdigit((unsigned char)*p)) {
				if (v[i + 1] > 100000000)
					return false;
				v[i + 1] = v[i + 1] * 10 + (*p++ - '0');
			}
		}
	}
	if (p + 3 > e || memcmp(p, " @@", 3))
		return false;
	*old = v[1];
	*new = v[3];
	return true;
}

static const char *const file_headers[] = {
	"diff ",
	"Index: ",
	"====",
	"--- ",
	"+++ ",
	"index ",
	"new file mode ",
	"deleted file mode ",
	"old mode ",
	"new mode ",
	"similarity index ",
	"dissimilarity index ",
	"rename from ",
	"rename to ",
	"copy from ",
	"copy to ",
	"Binary files ",
	"\\ ",
	NULL,
};

static bool file_header(const struct line *l)
{
	size_t i;

	for (i = 0; file_headers[i]; i++)
		if (starts(l, file_headers[i]))
			return true;
	return false;
}

static bool base85_line(const struct line *l)
{
	size_t i;

	if (!l->len || !isalpha((unsigned char)l->p[0]))
		return false;
	for (i = 1; i < l->len; i++) {
		char c = l->p[i];

		if (!isalnum((unsigned char)c) &&
		    !strchr("!#$%&()*+-;<=>?@^_`{|}~", c))
			return false;
	}
	return true;
}

struct walk {
	struct rb_message *m;
	const char *body;
	int notes; /* damage notes written */
	int damage; /* damaged lines seen */
};

static size_t line_no_of(const char *body, const char *p);

/* Notes damage at @at; only the first few are named (and counted). */
static int damage(struct walk *w, const char *at, const char *what)
{
	w->damage++;
	if (w->notes >= MAX_DAMAGE_NOTES)
		return 0;
	w->notes++;
	return rb_msg_problem(w->m, RB_MSG_WS_DAMAGE, "body line %zu: %s",
			      line_no_of(w->body, at), what);
}

static size_t line_no_of(const char *body, const char *p)
{
	size_t n = 1;
	const char *q = body;

	while ((q = memchr(q, '\n', (size_t)(p - q)))) {
		n++;
		q++;
	}
	return n;
}

/*
 * Walks the diff from @off; returns the offset where the patch ends (the
 * end of its last line). Hunks are counted as git apply counts them.
 */
static int walk_diff(struct walk *w, const char *s, size_t n, size_t off,
		     size_t *end)
{
	enum { HDR, HUNK, BIN } st = HDR;
	long old_rem = 0, new_rem = 0;
	struct line l;
	size_t good = off;
	int ret = 0;

	while (!ret && next_line(s, n, off, &l)) {
		if (st == HUNK && old_rem <= 0 && new_rem <= 0)
			st = HDR;
		if (st == HUNK) {
			char c = l.len ? l.p[0] : '\0';

			if (c == ' ' && old_rem > 0 && new_rem > 0) {
				old_rem--;
				new_rem--;
			} else if (c == '-' && old_rem > 0) {
				old_rem--;
			} else if (c == '+' && new_rem > 0) {
				new_rem--;
			} else if (c == '\\') {
				/* "\ No newline at end of file" */
			} else if (old_rem > 0 && new_rem > 0 &&
				   (!l.len || (l.len == 1 && l.p[0] == '\r'))) {
				/* git apply takes it as empty context. */
				ret = damage(w, l.p,
					     "context line lost its leading "
					     "space");
				old_rem--;
				new_rem--;
			} else {
				ret = damage(
					w, l.p,
					"hunk line starts with neither ' ', "
					"'+' nor '-': the hunk ends early");
				break;
			}
			good = l.next;
			off = l.next;
			continue;
		}
		if (st == BIN) {
			if (!l.len || starts(&l, "literal ") ||
			    starts(&l, "delta ") || base85_line(&l)) {
				good = l.next;
				off = l.next;
				continue;
			}
			st = HDR;
		}
		if (hunk_header(&l, &old_rem, &new_rem)) {
			st = HUNK;
		} else if (starts(&l, "GIT binary patch")) {
			st = BIN;
		} else if (starts(&l, "--- ") || starts(&l, "+++ ")) {
			/* only as a pair, or right after "diff" */
		} else if (!file_header(&l)) {
			break;
		}
		good = l.next;
		off = l.next;
	}
	if (!ret && st == HUNK && (old_rem > 0 || new_rem > 0) &&
	    !next_line(s, n, off, &l))
		ret = damage(w, s + n, "the patch ends inside a hunk");
	*end = good;
	return ret;
}

/* Drops "-- \n2.43.0\n" or the mangled "--\n2.43.0\n" from the end. */
static size_t strip_signature(const char *p, size_t len)
{
	size_t e = len, ls;

	while (e && p[e - 1] == '\n')
		e--;
	ls = e;
	while (ls && p[ls - 1] != '\n')
		ls--;
	/* the last line: a version such as "2.43.0" */
	if (ls == e || !isdigit((unsigned char)p[ls]))
		return len;
	if (ls >= 4 && !memcmp(p + ls - 4, "-- \n", 4) &&
	    (ls == 4 || p[ls - 5] == '\n'))
		return ls - 4;
	if (ls >= 3 && !memcmp(p + ls - 3, "--\n", 3) &&
	    (ls == 3 || p[ls - 4] == '\n'))
		return ls - 3;
	return len;
}

/* *out = the text with blank edges trimmed, or NULL when it is blank. */
static int dup_trim(char **out, const char *p, size_t len)
{
	while (len && (p[0] == '\n' || p[0] == '\r'))
		p++, len--;
	while (len && isspace((unsigned char)p[len - 1]))
		len--;
	*out = NULL;
	if (!len)
		return 0;
	*out = strndup(p, len);
	return *out ? 0 : rb_err(RB_ENOMEM, "out of memory");
}

static bool diffstat_line(const struct line *l)
{
	const char *bar;

	if (!l->len || l->p[0] != ' ')
		return false;
	bar = memchr(l->p, '|', l->len);
	return bar && bar > l->p + 1 && bar[-1] == ' ';
}

static bool diffstat_summary(const struct line *l)
{
	size_t i = 0;

	while (i < l->len && l->p[i] == ' ')
		i++;
	if (i >= l->len || !isdigit((unsigned char)l->p[i]))
		return false;
	while (i < l->len && isdigit((unsigned char)l->p[i]))
		i++;
	return l->len - i >= 5 && (!memcmp(l->p + i, " file", 5));
}

/* Between "---" and the diff: notes (changes since vN), then diffstat. */
static int split_region(struct rb_message *m, const char *s, size_t n)
{
	size_t off, ds_start = n, ds_end = n;
	struct line l;
	int ret;

	for (off = 0; next_line(s, n, off, &l); off = l.next) {
		if (ds_start == n && diffstat_line(&l))
			ds_start = off;
		if (ds_start != n && diffstat_summary(&l)) {
			ds_end = l.next;
			/* create mode / rename lines follow the summary */
			while (next_line(s, n, ds_end, &l) &&
			       (starts(&l, " create mode ") ||
				starts(&l, " delete mode ") ||
				starts(&l, " rename ") ||
				starts(&l, " copy ") ||
				starts(&l, " mode change ")))
				ds_end = l.next;
			break;
		}
	}
	if (ds_start == n || ds_end == n) {
		ds_start = n;
	} else {
		ret = dup_trim(&m->diffstat, s + ds_start, ds_end - ds_start);
		if (ret)
			return ret;
	}
	ret = dup_trim(&m->notes, s, ds_start);
	if (ret)
		return ret;
	return scan_b4_trailers(m, s, n);
}

/*
 * git mailinfo's in-body headers: "From:", "Subject:" and "Date:" lines
 * at the top of the body (someone sending another author's patch), then
 * a blank line. The in-body From: becomes m->author. Returns where the
 * commit message starts (within @n); *ret is 0 or -RB_ENOMEM.
 */
static size_t inbody_headers(struct rb_message *m, const char *s, size_t n,
			     int *ret)
{
	size_t off = 0, start = 0;
	bool any = false;
	struct line l;

	*ret = 0;
	while (next_line(s, n, off, &l) && !l.len)
		off = l.next;
	for (; next_line(s, n, off, &l); off = l.next) {
		if (!l.len) {
			if (any)
				start = l.next;
			break;
		}
		if (l.len > 5 && !strncasecmp(l.p, "From:", 5)) {
			struct rb_addr_list a = { 0 };
			size_t i;

			*ret = rb_msg_parse_addrs(&a, l.p + 5, l.len - 5,
						  false);
			if (!*ret && a.n && !m->author.addr) {
				m->author = a.v[0];
				a.v[0].name = NULL;
				a.v[0].addr = NULL;
			}
			for (i = 0; i < a.n; i++) {
				free(a.v[i].name);
				free(a.v[i].addr);
			}
			free(a.v);
			if (*ret)
				return 0;
		} else if (!(l.len > 8 && !strncasecmp(l.p, "Subject:", 8)) &&
			   !(l.len > 5 && !strncasecmp(l.p, "Date:", 5))) {
			break;
		}
		any = true;
	}
	return start;
}

/*
 * Where the text of a mail without a patch ends: before the signature
 * ("-- " line), or before a mangled one ("--" then a version line such
 * as "2.53.0" at the very end).
 */
static size_t body_end(const char *s, size_t n)
{
	size_t off, sig = n, last = n, prev = n;
	struct line l;

	for (off = 0; next_line(s, n, off, &l); off = l.next) {
		if (l.len == 3 && !memcmp(l.p, "-- ", 3))
			sig = off;
		if (l.len) {
			prev = last;
			last = off;
		}
	}
	if (sig != n)
		return sig;
	if (prev != n && last != n && isdigit((unsigned char)s[last]) &&
	    n - last < 24 && !memcmp(s + prev, "--\n", 3))
		return prev;
	return n;
}

int rb_msg_split_body(struct rb_message *m)
{
	const char *s = m->body;
	size_t n = s ? strlen(s) : 0, off, brk = n, brk_next = n, dstart = n;
	size_t start;
	size_t pend, plen;
	struct walk w = { m, s, 0, 0 };
	struct line l;
	int ret;

	if (!n)
		return 0;
	for (off = 0; next_line(s, n, off, &l); off = l.next) {
		if (patchbreak(&l)) {
			brk = off;
			brk_next = l.next;
			break;
		}
	}
	start = inbody_headers(m, s, brk, &ret);
	if (ret)
		return ret;
	ret = dup_trim(&m->commit_msg, s + start,
		       (brk == n ? body_end(s, n) : brk) - start);
	if (ret)
		return ret;
	if (m->commit_msg) {
		ret = parse_trailers(m, m->commit_msg, strlen(m->commit_msg));
		if (ret)
			return ret;
	}
	if (brk == n)
		return 0;

	for (off = brk; next_line(s, n, off, &l); off = l.next) {
		if (diff_start(s, n, &l)) {
			dstart = off;
			break;
		}
	}
	if (dstart > brk_next || (dstart == n && brk_next < n)) {
		ret = split_region(m, s + brk_next,
				   (dstart == n ? n : dstart) - brk_next);
		if (ret)
			return ret;
	}
	if (dstart == n)
		return 0;

	ret = walk_diff(&w, s, n, dstart, &pend);
	if (ret)
		return ret;
	if (w.damage > w.notes)
		ret = rb_msg_problem(m, RB_MSG_WS_DAMAGE,
				     "%d more damaged patch lines",
				     w.damage - w.notes);
	if (ret)
		return ret;
	plen = strip_signature(s + dstart, pend - dstart);
	if (plen) {
		m->patch = strndup(s + dstart, plen);
		if (!m->patch)
			return rb_err(RB_ENOMEM, "out of memory for the patch");
		m->patch_len = plen;
	}
	return scan_b4_trailers(m, s + pend, n - pend);
}
