// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchid.c - git patch-id --stable (git builtin/patch-id.c,
 * get_one_patchid() with stable = 1, verbatim = 0), and the line
 * tracking of the look-ahead. See patchid.h.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "review/apply/diff.h"
#include "review/apply/patchid.h"
#include "util/err.h"
#include "util/banned.h"

#define SHA1_LEN 20

struct pid_state {
	EVP_MD_CTX *ctx;
	unsigned char result[SHA1_LEN];
};

/* The 20-byte sum with carry of git's flush_one_hunk(). */
static void flush_one(struct pid_state *s)
{
	unsigned char hash[EVP_MAX_MD_SIZE];
	unsigned int hl = 0;
	unsigned short carry = 0;
	int i;

	EVP_DigestFinal_ex(s->ctx, hash, &hl);
	EVP_DigestInit_ex(s->ctx, EVP_sha1(), NULL);
	for (i = 0; i < SHA1_LEN; i++) {
		carry += (unsigned short)(s->result[i] + hash[i]);
		s->result[i] = (unsigned char)carry;
		carry >>= 8;
	}
}

/* git's remove_space(): the line without any whitespace, hashed. */
static size_t hash_line(struct pid_state *s, const char *p, size_t len)
{
	char buf[512];
	size_t i, n = 0, total = 0;

	for (i = 0; i < len; i++) {
		if (isspace((unsigned char)p[i]))
			continue;
		buf[n++] = p[i];
		if (n == sizeof(buf)) {
			EVP_DigestUpdate(s->ctx, buf, n);
			total += n;
			n = 0;
		}
	}
	if (n)
		EVP_DigestUpdate(s->ctx, buf, n);
	return total + n;
}

static bool starts(const char *p, size_t len, const char *pfx)
{
	size_t n = strlen(pfx);

	return len >= n && !memcmp(p, pfx, n);
}

/* "@@ -a[,b] +c[,d] @@": git's scan_hunk_header(), counts only. */
static void hunk_counts(const char *p, size_t len, int *before, int *after)
{
	const char *e = p + len, *q = p + 4;
	long v;

	*before = *after = 1;
	while (q < e && isdigit((unsigned char)*q))
		q++;
	if (q < e && *q == ',') {
		for (v = 0, q++; q < e && isdigit((unsigned char)*q); q++)
			v = v < 100000000 ? v * 10 + (*q - '0') : v;
		*before = (int)v;
	}
	q = memchr(q, '+', (size_t)(e - q));
	if (!q)
		return;
	for (q++; q < e && isdigit((unsigned char)*q); q++)
		;
	if (q < e && *q == ',') {
		for (v = 0, q++; q < e && isdigit((unsigned char)*q); q++)
			v = v < 100000000 ? v * 10 + (*q - '0') : v;
		*after = (int)v;
	}
}

int rb_patch_id(char out[RB_PATCH_ID_HEX], const char *text, size_t len)
{
	struct pid_state s = { 0 };
	const char *p = text, *end = text + len;
	int before = -1, after = -1;
	bool binary = false;
	size_t patchlen = 0;
	int i;

	out[0] = '\0';
	s.ctx = EVP_MD_CTX_new();
	if (!s.ctx)
		return rb_err(RB_ENOMEM, "out of memory");
	EVP_DigestInit_ex(s.ctx, EVP_sha1(), NULL);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		const char *line = p;

		p += ll;
		if (starts(line, ll, "\\ ") && ll > 12)
			continue; /* "\ No newline at end of file" */
		if (!patchlen && !starts(line, ll, "diff "))
			continue; /* the commit message */
		if (before == -1) {
			if (starts(line, ll, "GIT binary patch") ||
			    starts(line, ll, "Binary files")) {
				/* git hashes the index ids it kept; the
				 * binary body itself is not read. */
				binary = true;
				before = 0;
				flush_one(&s);
				continue;
			}
			if (starts(line, ll, "index "))
				continue;
			if (starts(line, ll, "--- "))
				before = after = 1;
			else if (!isalpha((unsigned char)line[0]))
				break;
		}
		if (binary) {
			if (starts(line, ll, "diff ")) {
				binary = false;
				before = -1;
			} else {
				continue;
			}
		}
		if (before == 0 && after == 0) {
			if (starts(line, ll, "@@ -")) {
				hunk_counts(line, ll, &before, &after);
				continue;
			}
			if (!starts(line, ll, "diff "))
				break; /* the end of the patch */
			flush_one(&s);
			before = after = -1;
		}
		if (line[0] == '-' || line[0] == ' ')
			before--;
		if (line[0] == '+' || line[0] == ' ')
			after--;
		patchlen += hash_line(&s, line, ll);
	}
	flush_one(&s);
	EVP_MD_CTX_free(s.ctx);
	if (!patchlen)
		return rb_err(RB_EINVAL, "no diff to take a patch-id of");
	for (i = 0; i < SHA1_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", s.result[i]);
	return 0;
}

/* The next word of @p (up to @n) from *@i: its start and length. */
static size_t next_word(const char *p, size_t n, size_t *i, const char **w)
{
	size_t k;

	while (*i < n && isspace((unsigned char)p[*i]))
		(*i)++;
	*w = p + *i;
	for (k = *i; k < n && !isspace((unsigned char)p[k]); k++)
		;
	k -= *i;
	*i += k;
	return k;
}

/* @a and @b equal with runs of whitespace as one space, edges trimmed;
 * never for an empty @b. */
static bool same_code(const char *a, size_t na, const char *b, size_t nb)
{
	size_t i = 0, j = 0, la, lb;
	const char *wa, *wb;
	bool any = false;

	for (;;) {
		la = next_word(a, na, &i, &wa);
		lb = next_word(b, nb, &j, &wb);
		if (la != lb || memcmp(wa, wb, la))
			return false;
		if (!la)
			return any;
		any = true;
	}
}

static const struct rb_diff_file *file_of(const struct rb_diff *d,
					  const char *path)
{
	size_t i;

	for (i = 0; i < d->n_files; i++) {
		const struct rb_diff_file *f = &d->files[i];

		if (f->old_path && !strcmp(f->old_path, path))
			return f;
	}
	return NULL;
}

/* The first line of @code, for comparing with one diff line. */
static size_t first_line(const char *code)
{
	const char *nl = strchr(code, '\n');

	return nl ? (size_t)(nl - code) : strlen(code);
}

/*
 * Where old-side line @line of @f goes: 0 and *@to set when a context
 * line carries it over (or no hunk touches it), 1 when a hunk removes it
 * (*@kept: the hunk adds back a line equal to @code).
 */
static int track(const struct rb_diff_file *f, int line, const char *code,
		 int *to, bool *kept)
{
	long shift = 0;
	size_t h, l;

	for (h = 0; h < f->n_hunks; h++) {
		const struct rb_diff_hunk *hk = &f->hunks[h];
		uint64_t end = (uint64_t)hk->old_start + hk->old_count;
		bool hit = false;

		/* A pure insertion (count 0) goes after line old_start. */
		if (!hk->old_count ? (uint32_t)line <= hk->old_start :
				     (uint32_t)line < hk->old_start)
			break;
		if ((uint64_t)line >= end && hk->old_count) {
			shift += (long)hk->new_count - (long)hk->old_count;
			continue;
		}
		if (!hk->old_count) {
			shift += (long)hk->new_count;
			continue;
		}
		for (l = 0; l < hk->n_lines; l++) {
			const struct rb_diff_line *dl = &hk->lines[l];

			if (dl->origin == ' ' &&
			    dl->old_lineno == (uint32_t)line) {
				*to = (int)dl->new_lineno;
				return 0;
			}
			if (dl->origin == '-' &&
			    dl->old_lineno == (uint32_t)line)
				hit = true;
			if (hit && dl->origin == '+' && code &&
			    same_code(dl->text, dl->len, code,
				      first_line(code)))
				*kept = true;
		}
		if (hit)
			return 1;
		break;
	}
	*to = (int)(line + shift);
	return 0;
}

int rb_patch_later_change(const struct rb_diff *const *later, size_t n,
			  const char *path, int line, const char *code,
			  bool *kept)
{
	bool k_kept = false;
	size_t k;

	if (kept)
		*kept = false;
	if (!path || line <= 0)
		return -1;
	for (k = 0; k < n; k++) {
		const struct rb_diff_file *f;
		int to = line;

		if (!later[k] || !(f = file_of(later[k], path)))
			continue;
		if (f->status == RB_DIFF_DELETED)
			return (int)k;
		if (track(f, line, code, &to, &k_kept)) {
			if (kept)
				*kept = k_kept;
			return (int)k;
		}
		if (f->new_path && strcmp(f->new_path, path))
			return -1; /* renamed: not followed */
		line = to;
		if (line <= 0)
			return -1;
	}
	return -1;
}

bool rb_patch_adds_code(const struct rb_diff *d, const char *path,
			const char *code)
{
	size_t i, h, l, n;

	if (!d || !code)
		return false;
	n = strlen(code);
	for (i = 0; i < d->n_files; i++) {
		const struct rb_diff_file *f = &d->files[i];
		const char *fp = rb_diff_file_path(f);

		if (path && (!fp || strcmp(fp, path)))
			continue;
		for (h = 0; h < f->n_hunks; h++)
			for (l = 0; l < f->hunks[h].n_lines; l++) {
				const struct rb_diff_line *dl =
					&f->hunks[h].lines[l];

				if (dl->origin == '+' &&
				    same_code(dl->text, dl->len, code, n))
					return true;
			}
	}
	return false;
}
