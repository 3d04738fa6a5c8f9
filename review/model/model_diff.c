// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_diff.c - the patch numbered as the tree it applied to. See
 * model_diff.h.
 *
 * review/apply/apply.c places hunk after hunk in the image of the file being
 * patched, so the line where hunk k went in (rb_apply_hunk_result.line)
 * counts the lines hunks 1..k-1 added and removed: it is hunk k's first
 * line on the new side of the tree, and the header's new_start plus the
 * offset. The old side moves by the same amount, because the hunks
 * before it add and remove in the tree what they do in the mail.
 */
#include <stdlib.h>
#include <string.h>
#include <git2.h>

#include "review/apply/apply.h"
#include "review/code/code_c.h"
#include "review/apply/diff.h"
#include "review/model/model.h"
#include "review/model/model_diff.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define MAX_BLOB (4u << 20) /* files searched for a merged hunk */

void rb_model_diff_release(struct rb_model_diff *md)
{
	rb_diff_free(md->d);
	free(md->shift);
	free(md->first);
	free(md->approx);
	memset(md, 0, sizeof(*md));
}

/* Moves every number of @h by @by (never below 0). */
static void shift_hunk(struct rb_diff_hunk *h, int32_t by)
{
	size_t i;

#define MOVE(x) ((x) = (int64_t)(x) + by < 0 ? 0 : (uint32_t)((x) + by))
	MOVE(h->old_start);
	MOVE(h->new_start);
	for (i = 0; i < h->n_lines; i++) {
		if (h->lines[i].old_lineno)
			MOVE(h->lines[i].old_lineno);
		if (h->lines[i].new_lineno)
			MOVE(h->lines[i].new_lineno);
	}
#undef MOVE
}

/* Does @h's postimage (context and '+' lines) start at line @at of @l? */
static bool post_at(const struct rb_c_lines *l, const struct rb_diff_hunk *h,
		    size_t at)
{
	size_t i, k = at, n;

	for (i = 0; i < h->n_lines; i++) {
		const struct rb_diff_line *dl = &h->lines[i];
		const char *s;

		if (dl->origin == '-')
			continue;
		if (k >= l->n)
			return false;
		s = rb_c_line(l, k++, &n);
		if (n != dl->len || memcmp(s, dl->text, n))
			return false;
	}
	return k > at;
}

/*
 * Where @h's postimage is in @l, the nearest to line @near (1-based), as
 * the 1-based line; 0 when it is not there.
 */
static size_t find_post(const struct rb_c_lines *l,
			const struct rb_diff_hunk *h, int64_t near)
{
	size_t want = near > 1 ? (size_t)near - 1 : 0, d;

	for (d = 0; d <= l->n; d++) {
		if (want >= d && want - d < l->n && post_at(l, h, want - d))
			return want - d + 1;
		if (d && want + d < l->n && post_at(l, h, want + d))
			return want + d + 1;
		if (want < d && want + d >= l->n)
			break;
	}
	return 0;
}

/* The file @path of tree @tree, split into lines (@l borrows @blob). */
static int file_lines(git_blob **blob, struct rb_c_lines *l,
		      const struct rb_model_patch_ctx *ctx, const char *path)
{
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	int ret = -RB_ENOTFOUND;

	*blob = NULL;
	if (!ctx->repo || !ctx->tree ||
	    git_tree_lookup(&tree, ctx->repo, ctx->tree) ||
	    git_tree_entry_bypath(&te, tree, path) ||
	    git_tree_entry_type(te) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(blob, ctx->repo, git_tree_entry_id(te)))
		goto out;
	if (git_blob_rawsize(*blob) > MAX_BLOB)
		goto out;
	ret = rb_c_lines_split(l, git_blob_rawcontent(*blob),
			       (size_t)git_blob_rawsize(*blob));
out:
	if (ret) {
		git_blob_free(*blob);
		*blob = NULL;
	}
	git_tree_entry_free(te);
	git_tree_free(tree);
	return ret;
}

/* The shifts of one file's hunks; approximate when not all are known. */
static int place_file(struct rb_model_diff *md, size_t fno,
		      const struct rb_model_patch_ctx *ctx,
		      const struct rb_apply_file_result *fr)
{
	struct rb_diff_file *f = &md->d->files[fno];
	int32_t *sh = md->shift + md->first[fno];
	struct rb_c_lines l = { 0 };
	git_blob *blob = NULL;
	bool have_lines = false, tried = false, approx = false;
	int32_t last = 0;
	size_t h;
	int ret = 0;

	for (h = 0; h < f->n_hunks; h++) {
		const struct rb_diff_hunk *hk = &f->hunks[h];
		bool known = fr && fr->hunks && fr->n_hunks == f->n_hunks;
		size_t at;

		sh[h] = 0;
		if (known && !fr->hunks[h].context_dropped) {
			sh[h] = (int32_t)((int64_t)fr->hunks[h].line -
					  hk->new_start);
			last = sh[h];
			continue;
		}
		/* Merged or fuzzed: find the postimage in the tree. */
		if (!tried) {
			tried = true;
			ret = file_lines(&blob, &l, ctx, rb_diff_file_path(f));
			if (ret == -RB_ENOMEM)
				goto out;
			ret = 0;
			have_lines = blob != NULL;
		}
		/* Nearest to where the hunk before it moved it. */
		at = have_lines ?
			     find_post(&l, hk, (int64_t)hk->new_start + last) :
			     0;
		if (at) {
			sh[h] = (int32_t)((int64_t)at - hk->new_start);
		} else if (known) {
			sh[h] = (int32_t)((int64_t)fr->hunks[h].line -
					  hk->new_start);
		} else {
			/* Not found: as far as the hunk before it moved. */
			sh[h] = last;
			approx = true;
		}
		last = sh[h];
	}
	md->approx[fno] = approx;
	md->n_approx += approx;
out:
	rb_c_lines_release(&l);
	git_blob_free(blob);
	return ret;
}

int rb_model_diff_parse(struct rb_model_diff *out,
			const struct rb_model_patch_ctx *ctx)
{
	const struct rb_apply_patch_result *pr = ctx->applied;
	size_t i, h, nh = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = rb_diff_parse(&out->d, ctx->patch, ctx->patch_len);
	if (ret)
		return ret;
	for (i = 0; i < out->d->n_files; i++)
		nh += out->d->files[i].n_hunks;
	out->shift = calloc(nh + 1, sizeof(*out->shift));
	out->first = calloc(out->d->n_files + 1, sizeof(*out->first));
	out->approx = calloc(out->d->n_files + 1, sizeof(*out->approx));
	if (!out->shift || !out->first || !out->approx)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0, nh = 0; i < out->d->n_files; i++) {
		out->first[i] = nh;
		nh += out->d->files[i].n_hunks;
	}
	/* The apply parsed the same text: its files are these, in order. */
	if (!pr || !pr->applied || pr->n_files != out->d->n_files)
		return 0;
	for (i = 0; i < out->d->n_files && !ret; i++) {
		struct rb_diff_file *f = &out->d->files[i];
		const struct rb_apply_file_result *fr = &pr->files[i];

		if (!f->n_hunks)
			continue;
		if (!fr->path || strcmp(fr->path, rb_diff_file_path(f))) {
			out->approx[i] = true;
			out->n_approx++;
			continue;
		}
		ret = place_file(out, i, ctx, fr);
		for (h = 0; !ret && h < f->n_hunks; h++) {
			int32_t by = out->shift[out->first[i] + h];

			if (by)
				out->moved++;
			shift_hunk(&f->hunks[h], by);
		}
	}
	return ret;
}

/* The hunk whose header is line @no of the text, or NULL. */
static const struct rb_diff_hunk *hunk_at(const struct rb_diff *d, uint32_t no)
{
	size_t i, h;

	for (i = 0; i < d->n_files; i++)
		for (h = 0; h < d->files[i].n_hunks; h++)
			if (d->files[i].hunks[h].patch_lineno == no)
				return &d->files[i].hunks[h];
	return NULL;
}

int rb_model_diff_text(struct rb_buf *out, const char *text, size_t len,
		       const struct rb_apply_patch_result *pr,
		       git_repository *repo)
{
	struct rb_model_patch_ctx ctx = {
		.patch = text,
		.patch_len = len,
		.repo = repo,
		.tree = pr ? &pr->tree : NULL,
		.applied = pr,
	};
	struct rb_model_diff md = { 0 };
	const char *s = text, *e = text + len;
	uint32_t no = 1;
	int ret;

	ret = rb_model_diff_parse(&md, &ctx);
	if (ret == -RB_ENOMEM)
		goto out;
	if (ret || !md.moved) {
		rb_err_clear();
		ret = rb_buf_add(out, text, len);
		goto out;
	}
	while (!ret && s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		const char *le = nl ? nl + 1 : e;
		const struct rb_diff_hunk *h = hunk_at(md.d, no++);
		const char *rest =
			h && le - s > 2 ?
				memmem(s + 2, (size_t)(le - s - 2), "@@", 2) :
				NULL;

		if (h && rest)
			ret = rb_buf_printf(out, "@@ -%u,%u +%u,%u ",
					    h->old_start, h->old_count,
					    h->new_start, h->new_count);
		else
			rest = s;
		if (!ret)
			ret = rb_buf_add(out, rest, (size_t)(le - rest));
		s = le;
	}
out:
	rb_model_diff_release(&md);
	return ret;
}

int rb_model_diff_mail_line(const struct rb_model_diff *md, const char *path,
			    bool old_side, int line)
{
	const struct rb_diff_file *f;
	size_t fno, h, best = 0;
	int64_t best_d = -1;

	if (!md->d || !path)
		return line;
	f = rb_diff_find_file(md->d, path);
	if (!f || !f->n_hunks)
		return line;
	fno = (size_t)(f - md->d->files);
	for (h = 0; h < f->n_hunks; h++) {
		const struct rb_diff_hunk *hk = &f->hunks[h];
		int64_t a = old_side ? hk->old_start : hk->new_start;
		int64_t n = old_side ? hk->old_count : hk->new_count;
		int64_t d = line < a	  ? a - line :
			    line >= a + n ? line - a - n + 1 :
					    0;

		if (best_d < 0 || d < best_d) {
			best_d = d;
			best = h;
		}
	}
	line -= md->shift[md->first[fno] + best];
	return line < 1 ? 1 : line;
}
