// SPDX-License-Identifier: GPL-2.0-only
/*
 * apply.c - in-memory apply with git apply's semantics (see apply.h). The
 * hunk placement follows git's apply.c (apply_one_fragment, find_pos,
 * match_fragment, update_image) for the default options: no whitespace
 * fixing, no --recount, no --unidiff-zero, no --allow-overlap. The
 * objects it writes go to a store in memory (apply_mem.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <git2.h>

#include "review/apply/apply.h"
#include "review/apply/apply_binary.h"
#include "review/apply/apply_priv.h"
#include "review/apply/diff.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define MODE_TYPE 0170000
#define MODE_TREE 0040000
#define MODE_FILE 0100000
#define MODE_LINK 0120000
#define MODE_GITLINK 0160000

/* Blobs above this are not patched (a kernel source file is < 1 MiB). */
#define RB_APPLY_MAX_BLOB (64u << 20)

/* ---- images: a file as an array of lines (git's struct image) ---- */

struct iline {
	const char *p; /* borrowed: blob content or patch text */
	size_t len; /* including the '\n', when there is one */
	uint32_t hash;
	bool patched; /* written by an earlier hunk: never matched again */
};

struct image {
	struct iline *v;
	size_t n, cap;
};

static uint32_t line_hash(const char *p, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	return h;
}

static int image_push(struct image *img, const char *p, size_t len)
{
	struct iline *nv = rb_grow(img->v, &img->cap, img->n, sizeof(*nv));

	if (!nv)
		return -RB_ENOMEM;
	img->v = nv;
	img->v[img->n].p = p;
	img->v[img->n].len = len;
	img->v[img->n].hash = line_hash(p, len);
	img->v[img->n].patched = false;
	img->n++;
	return 0;
}

/*
 * The lines of @buf into @img, at most @max of them (0: any number):
 * 0, 1 when there are more, or -RB_ENOMEM.
 */
static int image_load(struct image *img, const char *buf, size_t len,
		      size_t max)
{
	size_t off = 0;
	int ret;

	img->n = 0;
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t l = nl ? (size_t)(nl - (buf + off)) + 1 : len - off;

		if (max && img->n == max)
			return 1;
		ret = image_push(img, buf + off, l);
		if (ret)
			return ret;
		off += l;
	}
	return 0;
}

static void image_release(struct image *img)
{
	free(img->v);
	memset(img, 0, sizeof(*img));
}

/* The bytes of @img as one blob. */
static size_t image_size(const struct image *img)
{
	size_t i, n = 0;

	for (i = 0; i < img->n; i++)
		n += img->v[i].len;
	return n;
}

static bool line_eq(const struct iline *a, const struct iline *b)
{
	return a->len == b->len && a->hash == b->hash &&
	       !memcmp(a->p, b->p, a->len);
}

/*
 * match_fragment() for exact matching. Adds the work done to *@cost: one
 * unit for the place, one for each line compared.
 */
static bool match_at(const struct image *img, const struct iline *pre,
		     size_t pre_n, size_t lno, bool match_beginning,
		     bool match_end, uint64_t *cost)
{
	size_t i;

	(*cost)++;
	if (pre_n + lno > img->n)
		return false;
	if (match_end && pre_n + lno != img->n)
		return false;
	if (match_beginning && lno)
		return false;
	for (i = 0; i < pre_n; i++) {
		(*cost)++;
		if (img->v[lno + i].patched ||
		    !line_eq(&img->v[lno + i], &pre[i]))
			return false;
	}
	return true;
}

#define POS_NONE (-1) /* no place fits */
#define POS_SPENT (-2) /* the work budget ran out before one was found */

/*
 * find_pos(): tries @line, then line+1, line-1, line+2, ... until both
 * ends of the image are reached. Returns the line, POS_NONE, or
 * POS_SPENT once the work done (*@work, units, counted on) reaches
 * @limit: the search is hunks times lines, and a hostile series chooses
 * both.
 */
static long find_pos(const struct image *img, const struct iline *pre,
		     size_t pre_n, long line, bool match_beginning,
		     bool match_end, uint64_t limit, uint64_t *work)
{
	size_t back, fwd, cur;
	unsigned long i;

	if (match_beginning)
		line = 0;
	else if (match_end)
		line = (long)img->n - (long)pre_n;
	if (line < 0 || (size_t)line > img->n)
		line = (long)img->n;
	back = fwd = cur = (size_t)line;
	for (i = 0;; i++) {
		if (*work >= limit)
			return POS_SPENT;
		if (match_at(img, pre, pre_n, cur, match_beginning, match_end,
			     work))
			return (long)cur;
again:
		if (back == 0 && fwd == img->n)
			break;
		if (i & 1) {
			if (back == 0) {
				i++;
				goto again;
			}
			cur = --back;
		} else {
			if (fwd == img->n) {
				i++;
				goto again;
			}
			cur = ++fwd;
		}
	}
	return POS_NONE;
}

/* update_image(): replaces pre_n lines at @at by the postimage. */
static int image_replace(struct image *img, size_t at, size_t pre_n,
			 const struct iline *post, size_t post_n)
{
	size_t i;

	if (post_n > pre_n) {
		size_t need = img->n + post_n - pre_n;

		if (need > img->cap) {
			struct iline *nv = realloc(img->v, need * sizeof(*nv));

			if (!nv)
				return -RB_ENOMEM;
			img->v = nv;
			img->cap = need;
		}
	}
	memmove(img->v + at + post_n, img->v + at + pre_n,
		(img->n - at - pre_n) * sizeof(*img->v));
	img->n = img->n + post_n - pre_n;
	for (i = 0; i < post_n; i++) {
		img->v[at + i] = post[i];
		img->v[at + i].patched = true;
	}
	return 0;
}

/* ---- the state of the tree while a patch is applied ---- */

struct change {
	char *path;
	bool deleted;
	git_oid oid;
	uint32_t mode;
};

struct work {
	git_repository *repo;
	git_tree *tree; /* the tree the current patch applies to */
	const struct rb_apply_opts *opts;
	struct change *chg;
	size_t n_chg, cap_chg;
	struct rb_apply_result *res;
	size_t patch_no; /* 1-based */
	/* the failure of the current patch */
	enum rb_apply_fail fail;
	char *fail_file;
	size_t fail_hunk;
	struct rb_buf reason;
	/* the budgets (apply.h) */
	size_t bytes; /* of the blobs made so far */
	uint64_t *work; /* opts->work, or &own_work */
	uint64_t own_work;
};

static int fail(struct work *w, enum rb_apply_fail kind, const char *file,
		size_t hunk, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Records why the current patch failed; returns 1 (a patch failure). */
static int fail(struct work *w, enum rb_apply_fail kind, const char *file,
		size_t hunk, const char *fmt, ...)
{
	va_list ap;

	if (w->fail)
		return 1;
	w->fail = kind;
	free(w->fail_file);
	w->fail_file = file ? strdup(file) : NULL;
	w->fail_hunk = hunk;
	rb_buf_reset(&w->reason);
	va_start(ap, fmt);
	rb_buf_vprintf(&w->reason, fmt, ap);
	va_end(ap);
	return 1;
}

/* Work units left of the budget; UINT64_MAX without one. */
static uint64_t work_left(const struct work *w)
{
	uint64_t max = w->opts->max_work;

	if (!max)
		return UINT64_MAX;
	return *w->work < max ? max - *w->work : 0;
}

/* Bytes of blobs the apply may still make; SIZE_MAX without a limit. */
static size_t bytes_left(const struct work *w)
{
	size_t max = w->opts->max_bytes;

	if (!max)
		return SIZE_MAX;
	return w->bytes < max ? max - w->bytes : 0;
}

/* The time budget ran out @while (a hunk of a file, or reading one). */
static int fail_work(struct work *w, const char *path, size_t hunk,
		     const char *what)
{
	return fail(w, RB_APPLY_FAIL_LIMIT, path, hunk,
		    "the series exceeds the review's time budget (%llu work "
		    "units, about %.1f s of one core) while %s",
		    (unsigned long long)w->opts->max_work,
		    (double)w->opts->max_work /
			    (double)RB_APPLY_WORK_PER_SECOND,
		    what);
}

/*
 * @need more bytes of blobs for @path: 0 when they fit the memory
 * budget, else 1 after fail(). Asked before the memory is taken.
 */
static int take_bytes(struct work *w, const char *path, uint64_t need)
{
	if (need <= bytes_left(w)) {
		w->bytes += (size_t)need;
		return 0;
	}
	return fail(w, RB_APPLY_FAIL_LIMIT, path, 0,
		    "the series exceeds the review's memory budget: the files "
		    "it makes would pass %zu MiB (%s needs %llu bytes, %zu "
		    "are left)",
		    w->opts->max_bytes >> 20, path, (unsigned long long)need,
		    bytes_left(w));
}

/*
 * The lines of a blob of @path into @img, within the line cap and the
 * time budget (one unit a line and one per 64 bytes). 0, 1 after
 * fail(), negative on error.
 */
static int load_lines(struct work *w, struct image *img, const char *buf,
		      size_t len, const char *path)
{
	uint64_t cost = len / 64;
	int ret;

	if (cost >= work_left(w)) {
		char what[64 + 4096];

		snprintf(what, sizeof(what), "reading %.4096s", path);
		return fail_work(w, path, 0, what);
	}
	ret = image_load(img, buf, len, w->opts->max_file_lines);
	if (ret > 0)
		return fail(w, RB_APPLY_FAIL_LIMIT, path, 0,
			    "%s has more than %zu lines: too big to patch",
			    path, w->opts->max_file_lines);
	if (!ret)
		*w->work += cost + img->n;
	return ret;
}

static struct change *change_find(struct work *w, const char *path)
{
	size_t i;

	for (i = 0; i < w->n_chg; i++)
		if (!strcmp(w->chg[i].path, path))
			return &w->chg[i];
	return NULL;
}

static int change_set(struct work *w, const char *path, bool deleted,
		      const git_oid *oid, uint32_t mode)
{
	struct change *c = change_find(w, path);

	if (!c) {
		struct change *nv =
			rb_grow(w->chg, &w->cap_chg, w->n_chg, sizeof(*nv));

		if (!nv)
			return -RB_ENOMEM;
		w->chg = nv;
		c = &w->chg[w->n_chg];
		memset(c, 0, sizeof(*c));
		c->path = strdup(path);
		if (!c->path)
			return -RB_ENOMEM;
		w->n_chg++;
	}
	c->deleted = deleted;
	if (oid)
		git_oid_cpy(&c->oid, oid);
	c->mode = mode;
	return 0;
}

static void changes_clear(struct work *w)
{
	size_t i;

	for (i = 0; i < w->n_chg; i++)
		free(w->chg[i].path);
	w->n_chg = 0;
}

/*
 * What is at @path now: *mode 0 when nothing is there, MODE_TREE for a
 * directory. Returns 0 or a negative code.
 */
static int state_get(struct work *w, const char *path, git_oid *oid,
		     uint32_t *mode)
{
	struct change *c = change_find(w, path);
	git_tree_entry *e = NULL;
	int ret;

	if (c) {
		*mode = c->deleted ? 0 : c->mode;
		if (!c->deleted)
			git_oid_cpy(oid, &c->oid);
		return 0;
	}
	ret = git_tree_entry_bypath(&e, w->tree, path);
	if (ret == GIT_ENOTFOUND) {
		*mode = 0;
		return 0;
	}
	if (ret < 0)
		return rb_apply__git_fail("tree lookup");
	*mode = (uint32_t)git_tree_entry_filemode(e);
	git_oid_cpy(oid, git_tree_entry_id(e));
	git_tree_entry_free(e);
	return 0;
}

/*
 * A path is safe when it is relative, has no "", ".", ".." or ".git"
 * component, and no parent of it is (now) a file or a symlink. Returns 0
 * when safe, 1 after fail(), negative on error.
 */
static int check_path(struct work *w, const char *path)
{
	const char *p = path, *slash;
	char *prefix = NULL;
	int ret = 0;

	if (!*path || *path == '/')
		return fail(w, RB_APPLY_FAIL_UNSAFE, path, 0,
			    "refusing the absolute or empty path '%s'", path);
	for (;;) {
		size_t n;

		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (!n || (n == 1 && p[0] == '.') ||
		    (n == 2 && !memcmp(p, "..", 2)) ||
		    (n == 4 && !strncasecmp(p, ".git", 4)))
			return fail(w, RB_APPLY_FAIL_UNSAFE, path, 0,
				    "refusing the path '%s': it has a '%.*s' "
				    "component",
				    path, (int)n, p);
		if (!slash)
			break;
		p = slash + 1;
	}
	/* Every parent must be a directory or absent. */
	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		git_oid oid;
		uint32_t mode;

		free(prefix);
		prefix = strndup(path, (size_t)(slash - path));
		if (!prefix)
			return -RB_ENOMEM;
		ret = state_get(w, prefix, &oid, &mode);
		if (ret)
			goto out;
		if (mode && (mode & MODE_TYPE) != MODE_TREE) {
			ret = fail(w, RB_APPLY_FAIL_UNSAFE, path, 0,
				   "refusing to write '%s' beyond %s '%s'",
				   path,
				   (mode & MODE_TYPE) == MODE_LINK ?
					   "the symbolic link" :
					   "the file",
				   prefix);
			goto out;
		}
	}
out:
	free(prefix);
	return ret;
}

static uint32_t normalize_mode(uint32_t mode)
{
	switch (mode & MODE_TYPE) {
	case MODE_LINK:
		return MODE_LINK;
	case MODE_GITLINK:
		return MODE_GITLINK;
	default:
		return (mode & 0100) ? 0100755 : 0100644;
	}
}

static void note_mode(struct work *w, const char *path, uint32_t mode)
{
	struct rb_apply_result *r = w->res;

	if (!(mode & 06000) || r->setuid)
		return;
	r->setuid = true;
	r->setuid_path = strdup(path);
}

#define HUNK_SPENT 2 /* apply_hunk(): the time budget ran out */

/*
 * Builds the preimage and postimage of @h (apply_one_fragment) and places
 * it in @img. Returns 0 and fills @hr, 1 when it does not fit, HUNK_SPENT
 * when the time budget ran out (no fail() recorded: the caller decides),
 * negative on error.
 */
static int apply_hunk(struct work *w, struct image *img,
		      const struct rb_diff_hunk *h, int fuzz,
		      struct rb_apply_hunk_result *hr)
{
	struct iline *pre = NULL, *post = NULL, *pr, *po;
	size_t pre_n = 0, post_n = 0, i;
	unsigned long leading = h->leading, trailing = h->trailing;
	unsigned long p_context = fuzz < 0 ? (unsigned long)-1 :
					     (unsigned long)fuzz;
	bool match_beginning, match_end;
	long pos, at;
	uint32_t dropped = 0;
	uint64_t limit = w->opts->max_work ? w->opts->max_work : UINT64_MAX;
	uint64_t moved;
	int ret = 0;

	pre = malloc((h->n_lines + 1) * sizeof(*pre));
	post = malloc((h->n_lines + 1) * sizeof(*post));
	if (!pre || !post) {
		ret = -RB_ENOMEM;
		goto out;
	}
	for (i = 0; i < h->n_lines; i++) {
		const struct rb_diff_line *l = &h->lines[i];
		struct iline il;

		/* An empty context line followed by "\ No newline": nothing */
		if (l->no_newline && !l->len && l->origin == ' ')
			continue;
		il.p = l->len ? l->text : "\n";
		il.len = l->len + (l->no_newline ? 0 : 1);
		il.hash = line_hash(il.p, il.len);
		il.patched = false;
		if (l->origin != '+')
			pre[pre_n++] = il;
		if (l->origin != '-')
			post[post_n++] = il;
	}
	match_beginning = !h->old_start || h->old_start == 1;
	match_end = !trailing;
	pos = h->new_start ? (long)h->new_start - 1 : 0;
	pr = pre;
	po = post;
	for (;;) {
		at = find_pos(img, pr, pre_n, pos, match_beginning, match_end,
			      limit, w->work);
		if (at >= 0 || at == POS_SPENT)
			break;
		if (leading <= p_context && trailing <= p_context)
			break;
		if (match_beginning || match_end) {
			match_beginning = match_end = false;
			continue;
		}
		if (leading >= trailing) {
			pr++;
			po++;
			pre_n--;
			post_n--;
			pos--;
			leading--;
			dropped++;
		}
		if (trailing > leading) {
			pre_n--;
			post_n--;
			trailing--;
			dropped++;
		}
	}
	if (at < 0) {
		ret = at == POS_SPENT ? HUNK_SPENT : 1;
		goto out;
	}
	/* update_image() moves the rest of the file: that is work too. */
	moved = (uint64_t)(img->n - (size_t)at - pre_n) + post_n;
	if (moved >= work_left(w)) {
		ret = HUNK_SPENT;
		goto out;
	}
	*w->work += moved;
	ret = image_replace(img, (size_t)at, pre_n, po, post_n);
	if (ret)
		goto out;
	hr->line = (uint32_t)at + 1;
	hr->offset = (int32_t)(at - pos);
	hr->context_dropped = dropped;
out:
	free(pre);
	free(post);
	return ret;
}

static int image_apply_all(struct work *w, struct image *img,
			   const struct rb_diff_file *f, int fuzz,
			   struct rb_apply_hunk_result *hrs,
			   size_t *failed_hunk)
{
	size_t i;
	int ret;

	for (i = 0; i < f->n_hunks; i++) {
		ret = apply_hunk(w, img, &f->hunks[i], fuzz, &hrs[i]);
		if (ret) {
			*failed_hunk = i + 1;
			return ret;
		}
	}
	return 0;
}

static int image_flatten(struct rb_buf *out, const struct image *img)
{
	size_t i;
	int ret;

	rb_buf_reset(out);
	for (i = 0; i < img->n; i++) {
		ret = rb_buf_add(out, img->v[i].p, img->v[i].len);
		if (ret)
			return ret;
	}
	return 0;
}

/* The time budget ran out placing hunk @hunk of @path: 1 after fail(). */
static int hunk_spent(struct work *w, const char *path, size_t hunk)
{
	char what[64 + 4096];

	snprintf(what, sizeof(what), "placing hunk #%zu of %.4096s", hunk,
		 path);
	return fail_work(w, path, hunk, what);
}

/*
 * The @size bytes a patched text file of @path will take, asked before
 * they are: 0, or 1 after fail(). A NULL @path (a deleted file) takes
 * nothing.
 */
static int blob_room(struct work *w, const char *path, size_t size)
{
	if (!path)
		return 0;
	if (size > RB_APPLY_MAX_BLOB)
		return fail(w, RB_APPLY_FAIL_LIMIT, path, 0,
			    "%s would be %zu bytes: too big to patch", path,
			    size);
	return take_bytes(w, path, size);
}

/*
 * Writes a blob into the result's store. Not git_blob_create_from_buffer():
 * with a backend that has no write stream, libgit2 copies the whole
 * buffer into a stream first (64 MiB more for a 64 MiB blob); the
 * odb's write hands it to the store as it is. 0 or a libgit2 error.
 */
static int write_blob(git_oid *out, git_repository *repo, const void *data,
		      size_t len)
{
	git_odb *odb = NULL;
	int ret = git_repository_odb(&odb, repo);

	if (!ret)
		ret = git_odb_write(out, odb, data, len, GIT_OBJECT_BLOB);
	git_odb_free(odb);
	return ret;
}

/* Looks up a blob by the hex prefix of an index line. */
static int find_blob(git_blob **out, git_repository *repo, const char *hex)
{
	git_oid oid;
	size_t len = strlen(hex);

	if (len < 7 || git_oid_fromstrn(&oid, hex, len) < 0)
		return GIT_ENOTFOUND;
	return git_blob_lookup_prefix(out, repo, &oid, len);
}

/*
 * The 3-way fallback (git apply --3way): apply @f to its preimage blob,
 * then merge the result into @ours. On success @out holds the merged
 * content. Returns 0, 1 when it cannot help (reason recorded only for
 * conflicts), negative on error.
 */
static int three_way(struct work *w, struct rb_buf *out,
		     const struct rb_diff_file *f, const char *ours,
		     size_t ours_len, const char *path)
{
	git_blob *base = NULL;
	struct image img = { 0 };
	struct rb_buf theirs = RB_BUF_INIT(RB_APPLY_MAX_BLOB);
	struct rb_apply_hunk_result *hrs = NULL;
	git_merge_file_input a = GIT_MERGE_FILE_INPUT_INIT;
	git_merge_file_input o = GIT_MERGE_FILE_INPUT_INIT;
	git_merge_file_input t = GIT_MERGE_FILE_INPUT_INIT;
	git_merge_file_result mr = { 0 };
	size_t bad = 0;
	int ret;

	if (!f->old_id[0] || find_blob(&base, w->repo, f->old_id) < 0) {
		git_error_clear();
		return 1;
	}
	hrs = calloc(f->n_hunks + 1, sizeof(*hrs));
	if (!hrs) {
		ret = -RB_ENOMEM;
		goto out;
	}
	ret = load_lines(w, &img, git_blob_rawcontent(base),
			 (size_t)git_blob_rawsize(base), path);
	if (ret)
		goto out;
	ret = image_apply_all(w, &img, f, -1, hrs, &bad);
	if (ret == HUNK_SPENT)
		ret = hunk_spent(w, path, bad);
	if (ret)
		goto out;
	if (image_size(&img) > RB_APPLY_MAX_BLOB) {
		ret = 1;
		goto out;
	}
	ret = image_flatten(&theirs, &img);
	if (ret)
		goto out;
	a.ptr = git_blob_rawcontent(base);
	a.size = (size_t)git_blob_rawsize(base);
	a.path = path;
	o.ptr = ours;
	o.size = ours_len;
	o.path = path;
	t.ptr = theirs.ptr;
	t.size = theirs.len;
	t.path = path;
	if (git_merge_file(&mr, &a, &o, &t, NULL) < 0) {
		ret = rb_apply__git_fail("merge_file");
		goto out;
	}
	if (!mr.automergeable) {
		ret = fail(w, RB_APPLY_FAIL_MERGE, path, 0,
			   "%s does not apply, and the 3-way merge with its "
			   "preimage %s has conflicts",
			   path, f->old_id);
		goto out;
	}
	rb_buf_reset(out);
	ret = rb_buf_add(out, mr.ptr, mr.len);
out:
	git_merge_file_result_free(&mr);
	rb_buf_release(&theirs);
	image_release(&img);
	free(hrs);
	git_blob_free(base);
	return ret;
}

static bool blob_exists(git_repository *repo, const git_oid *oid)
{
	git_odb *odb = NULL;
	bool ok;

	if (git_repository_odb(&odb, repo) < 0)
		return false;
	ok = git_odb_exists(odb, oid);
	git_odb_free(odb);
	return ok;
}

/*
 * Decodes the forward data of a binary patch: a literal is the new
 * content, a delta applies to the current blob @cur. Returns 0 with the
 * new blob in *out, 1 after fail(), negative on error.
 */
static int binary_decode(struct work *w, const struct rb_diff_file *f,
			 const char *path, const git_oid *cur, git_oid *out)
{
	const struct rb_diff_binary *bin = &f->bin_forward;
	struct rb_buf data = RB_BUF_INIT(RB_APPLY_MAX_BLOB);
	struct rb_buf res = RB_BUF_INIT(RB_APPLY_MAX_BLOB);
	git_blob *blob = NULL;
	uint64_t src_size, dst_size;
	int ret;

	if (bin->inflated_size > RB_APPLY_MAX_BLOB) {
		ret = fail(w, RB_APPLY_FAIL_LIMIT, path, 0,
			   "the binary patch to %s is too big", path);
		goto out;
	}
	/*
	 * What the section declares is checked before anything is
	 * inflated: the data (a literal's is the file; a delta's is held
	 * while it is decoded), then a delta's result.
	 */
	if (bin->inflated_size > bytes_left(w)) {
		ret = take_bytes(w, path, bin->inflated_size);
		goto out;
	}
	ret = rb_binary_inflate(&data, bin->data, bin->len, bin->inflated_size);
	if (!ret && bin->type == RB_DIFF_BIN_DELTA) {
		if (!f->old_path) {
			ret = fail(w, RB_APPLY_FAIL_BINARY, path, 0,
				   "binary delta for the new file %s", path);
			goto out;
		}
		ret = rb_binary_delta_sizes(&src_size, &dst_size,
					    (const unsigned char *)data.ptr,
					    data.len);
		if (!ret && dst_size > RB_APPLY_MAX_BLOB) {
			ret = fail(w, RB_APPLY_FAIL_LIMIT, path, 0,
				   "the binary patch to %s makes a file of "
				   "%llu bytes: too big",
				   path, (unsigned long long)dst_size);
			goto out;
		}
		if (!ret && take_bytes(w, path, dst_size)) {
			ret = 1;
			goto out;
		}
		if (!ret && git_blob_lookup(&blob, w->repo, cur) < 0) {
			ret = rb_apply__git_fail("blob lookup");
			goto out;
		}
		if (!ret)
			ret = rb_binary_delta(&res, git_blob_rawcontent(blob),
					      (size_t)git_blob_rawsize(blob),
					      (const unsigned char *)data.ptr,
					      data.len);
		/* The source (up to 64 MiB) goes before the result is stored. */
		git_blob_free(blob);
		blob = NULL;
	}
	if (ret == -RB_EINVAL || ret == -RB_ETOOBIG) {
		ret = fail(w, RB_APPLY_FAIL_BINARY, path, 0,
			   "the binary patch to %s does not apply: %s", path,
			   rb_errmsg());
		goto out;
	}
	if (ret)
		goto out;
	if (bin->type == RB_DIFF_BIN_DELTA) {
		ret = write_blob(out, w->repo, res.ptr, res.len);
	} else {
		if (take_bytes(w, path, data.len)) {
			ret = 1;
			goto out;
		}
		ret = write_blob(out, w->repo, data.ptr, data.len);
	}
	if (ret < 0)
		ret = rb_apply__git_fail("blob write");
out:
	git_blob_free(blob);
	rb_buf_release(&data);
	rb_buf_release(&res);
	return ret;
}

/* Is @want the blob of @f's file as it is (@cur) or as its new path is
 * in the tree the patch applies to? */
static bool own_blob(struct work *w, const struct rb_diff_file *f,
		     const git_oid *cur, const git_oid *want)
{
	git_tree_entry *e = NULL;
	bool same;

	if (f->old_path && git_oid_equal(cur, want))
		return true;
	if (!w->tree || !f->new_path ||
	    git_tree_entry_bypath(&e, w->tree, f->new_path) < 0) {
		git_error_clear();
		return false;
	}
	same = git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
	       git_oid_equal(git_tree_entry_id(e), want);
	git_tree_entry_free(e);
	return same;
}

/*
 * A binary section, as git apply_binary(): the index line must carry
 * full ids, the file must be the preimage it names, and the result must
 * have the postimage id. When the repository already has the postimage
 * blob it is used as it is; else the literal or delta data is decoded
 * (apply_binary.c) and applied.
 */
static int apply_binary(struct work *w, const struct rb_diff_file *f,
			const char *path, const git_oid *cur, git_oid *out)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_oid want, got;
	int ret;

	if (strlen(f->old_id) != 40 || strlen(f->new_id) != 40)
		return fail(w, RB_APPLY_FAIL_BINARY, path, 0,
			    "cannot apply the binary patch to %s without a "
			    "full index line",
			    path);
	if (f->old_path) {
		git_oid_tostr(hex, sizeof(hex), cur);
		if (strcmp(hex, f->old_id))
			return fail(w, RB_APPLY_FAIL_BINARY, path, 0,
				    "the binary patch to %s does not apply: "
				    "the file is %.12s, the patch expects "
				    "%.12s",
				    path, hex, f->old_id);
	}
	if (!f->new_path)
		return 0;
	if (git_oid_fromstr(&want, f->new_id) < 0)
		return fail(w, RB_APPLY_FAIL_BINARY, path, 0,
			    "bad index line for %s", path);
	/*
	 * Without data ("Binary files differ") the result can only be an
	 * object the repository has, and any object would do: a mail could
	 * make a file of the review tree any blob it names, another
	 * branch's or an unreleased one (issue 33). Only the file's own
	 * blob in the tree it applies to is taken: the patch is already
	 * applied there, or changes nothing.
	 */
	if (f->bin_forward.type == RB_DIFF_BIN_NONE &&
	    !own_blob(w, f, cur, &want))
		return fail(w, RB_APPLY_FAIL_BINARY, path, 0,
			    "binary patch to %s without data (\"Binary files "
			    "differ\"): its result %.12s is not that file in "
			    "the tree",
			    path, f->new_id);
	if (blob_exists(w->repo, &want)) {
		git_oid_cpy(out, &want);
		return 0;
	}
	ret = binary_decode(w, f, path, cur, &got);
	if (ret)
		return ret;
	if (!git_oid_equal(&got, &want)) {
		git_oid_tostr(hex, sizeof(hex), &got);
		return fail(w, RB_APPLY_FAIL_BINARY, path, 0,
			    "the binary patch to %s gives %.12s, not %.12s",
			    path, hex, f->new_id);
	}
	git_oid_cpy(out, &got);
	return 0;
}

/* One file section on its way through apply_file(). */
struct file_apply {
	const char *opath, *npath; /* NULL: created, deleted */
	const char *path; /* the name to report */
	git_oid old_oid, new_oid;
	uint32_t old_mode, new_mode; /* in the tree, and after the patch */
};

/*
 * The preimage of @fa: the old file is in the tree (or a traditional diff
 * creates it, and fa->opath becomes NULL) and has the type the patch
 * says. 0, 1 (failed), <0.
 */
static int check_old(struct work *w, const struct rb_diff_file *f,
		     struct file_apply *fa)
{
	const char *opath = fa->opath;
	uint32_t mode;
	int ret;

	ret = state_get(w, opath, &fa->old_oid, &fa->old_mode);
	if (ret)
		return ret;
	mode = fa->old_mode;
	/*
	 * A traditional diff of a file that does not exist, with one
	 * hunk that has no old lines, creates it (git's is_new < 0).
	 */
	if (!mode && !f->is_git && f->n_hunks == 1 && !f->hunks[0].old_count)
		fa->opath = NULL;
	else if (!mode)
		return fail(w, RB_APPLY_FAIL_FILE, opath, 0,
			    "%s does not exist in the tree", opath);
	if ((mode & MODE_TYPE) == MODE_TREE)
		return fail(w, RB_APPLY_FAIL_FILE, opath, 0,
			    "%s is a directory in the tree", opath);
	if ((mode & MODE_TYPE) == MODE_GITLINK)
		return fail(w, RB_APPLY_FAIL_FILE, opath, 0,
			    "%s is a submodule: not applied", opath);
	if (fa->opath && f->old_mode && ((f->old_mode ^ mode) & MODE_TYPE))
		return fail(w, RB_APPLY_FAIL_FILE, opath, 0,
			    "%s: wrong type (the tree has %o, the "
			    "patch expects %o)",
			    opath, mode, f->old_mode);
	return 0;
}

/*
 * Both paths are ones we may write, the preimage is as the patch says,
 * and a new name is not in the tree yet. 0, 1 (failed), <0.
 */
static int check_paths(struct work *w, const struct rb_diff_file *f,
		       struct file_apply *fa)
{
	git_oid tmp;
	uint32_t mode = 0;
	int ret;

	if ((fa->opath && (ret = check_path(w, fa->opath))) ||
	    (fa->npath && (ret = check_path(w, fa->npath))))
		return ret;
	if (fa->opath) {
		ret = check_old(w, f, fa);
		if (ret)
			return ret;
	}
	if (fa->npath && (!fa->opath || strcmp(fa->opath, fa->npath))) {
		ret = state_get(w, fa->npath, &tmp, &mode);
		if (ret)
			return ret;
		if (mode)
			return fail(w, RB_APPLY_FAIL_FILE, fa->npath, 0,
				    "%s already exists in the tree", fa->npath);
	}
	return 0;
}

/* A file applied whole (binary, or by the 3-way merge) has no hunks. */
static void drop_hunks(struct rb_apply_file_result *fr)
{
	free(fr->hunks);
	fr->hunks = NULL;
	fr->n_hunks = 0;
}

/*
 * The hunks of @f applied to the preimage as git apply places them (or,
 * when that fails and it is asked for, the 3-way merge), the result
 * written as a blob into fa->new_oid. 0, 1 (failed), <0.
 */
static int apply_text(struct work *w, const struct rb_diff_file *f,
		      struct file_apply *fa, struct rb_apply_file_result *fr)
{
	const char *opath = fa->opath, *path = fa->path;
	struct rb_buf content = RB_BUF_INIT(RB_APPLY_MAX_BLOB);
	struct image img = { 0 };
	git_blob *blob = NULL;
	const char *data = "";
	size_t size = 0, bad = 0;
	int ret = 0;

	if (opath) {
		if (git_blob_lookup(&blob, w->repo, &fa->old_oid) < 0) {
			ret = rb_apply__git_fail("blob lookup");
			goto out;
		}
		data = git_blob_rawcontent(blob);
		size = (size_t)git_blob_rawsize(blob);
		if (size > RB_APPLY_MAX_BLOB) {
			ret = fail(w, RB_APPLY_FAIL_LIMIT, opath, 0,
				   "%s is too big to patch (%zu bytes)", opath,
				   size);
			goto out;
		}
	}
	if (!f->n_hunks && opath) {
		/* a pure rename, copy or mode change */
		git_oid_cpy(&fa->new_oid, &fa->old_oid);
		goto out;
	}
	ret = load_lines(w, &img, data, size, path);
	if (ret)
		goto out;
	ret = image_apply_all(w, &img, f, w->opts->fuzz, fr->hunks, &bad);
	if (ret < 0)
		goto out;
	if (ret == HUNK_SPENT) {
		ret = hunk_spent(w, path, bad);
		goto out;
	}
	if (ret == 0) {
		ret = blob_room(w, fa->npath ? path : NULL, image_size(&img));
		if (!ret)
			ret = image_flatten(&content, &img);
		if (ret)
			goto out;
		for (size_t i = 0; i < f->n_hunks; i++)
			if (fr->hunks[i].context_dropped)
				w->res->fuzzed = true;
	} else {
		const struct rb_diff_hunk *h = &f->hunks[bad - 1];

		ret = 1;
		if (w->opts->three_way && opath)
			ret = three_way(w, &content, f, data, size, path);
		if (ret < 0 || w->fail)
			goto out;
		if (ret) {
			ret = fail(w, RB_APPLY_FAIL_HUNK, path, bad,
				   "hunk #%zu of %s does not match at line %u "
				   "or nearby",
				   bad, path, h->old_start);
			goto out;
		}
		fr->merged = true;
		w->res->merged = true;
		drop_hunks(fr);
		if (fa->npath && take_bytes(w, path, content.len)) {
			ret = 1;
			goto out;
		}
	}
	if (!fa->npath) {
		if (content.len)
			ret = fail(w, RB_APPLY_FAIL_FILE, opath, 0,
				   "removal patch leaves %s with content",
				   opath);
	} else if (write_blob(&fa->new_oid, w->repo, content.ptr, content.len) <
		   0) {
		ret = rb_apply__git_fail("blob write");
	}
out:
	rb_buf_release(&content);
	image_release(&img);
	git_blob_free(blob);
	return ret;
}

/* Applies one file section of the current patch. 0, 1 (failed), <0. */
static int apply_file(struct work *w, const struct rb_diff_file *f,
		      struct rb_apply_file_result *fr)
{
	struct file_apply fa = { .opath = f->old_path,
				 .npath = f->new_path,
				 .path = rb_diff_file_path(f) };
	uint32_t mode;
	int ret;

	fr->path = strdup(fa.path);
	if (!fr->path)
		return -RB_ENOMEM;
	ret = check_paths(w, f, &fa);
	if (ret)
		return ret;
	fr->hunks = calloc(f->n_hunks + 1, sizeof(*fr->hunks));
	if (!fr->hunks)
		return -RB_ENOMEM;
	fr->n_hunks = f->n_hunks;

	mode = f->new_mode ? f->new_mode : fa.old_mode ? fa.old_mode : 0100644;
	if (fa.npath)
		note_mode(w, fa.npath, mode);
	fa.new_mode = normalize_mode(mode);
	if ((fa.new_mode & MODE_TYPE) == MODE_GITLINK)
		return fail(w, RB_APPLY_FAIL_FILE, fa.path, 0,
			    "%s: submodule changes are not applied", fa.path);

	if (f->is_binary) {
		ret = apply_binary(w, f, fa.path, &fa.old_oid, &fa.new_oid);
		if (!ret)
			drop_hunks(fr);
	} else {
		ret = apply_text(w, f, &fa, fr);
	}
	if (ret)
		return ret;

	if (fa.opath && (!fa.npath || f->status == RB_DIFF_RENAMED)) {
		ret = change_set(w, fa.opath, true, NULL, 0);
		if (ret)
			return ret;
	}
	if (fa.npath)
		ret = change_set(w, fa.npath, false, &fa.new_oid, fa.new_mode);
	return ret;
}

/* ---- rebuilding the trees along the touched paths ---- */

/* strcmp with '/' sorting first, so a directory's entries stay together. */
static int path_cmp(const void *a, const void *b)
{
	const unsigned char *p =
		(const unsigned char *)((const struct change *)a)->path;
	const unsigned char *q =
		(const unsigned char *)((const struct change *)b)->path;

	for (; *p && *p == *q; p++, q++)
		;
	return (*p == '/' ? 1 : *p + 1) - (*q == '/' ? 1 : *q + 1);
}

static int build_tree(git_oid *out, bool *empty, git_repository *repo,
		      const git_tree *base, const struct change *chg, size_t n,
		      size_t skip)
{
	git_treebuilder *tb = NULL;
	size_t i = 0;
	int ret = 0;

	if (git_treebuilder_new(&tb, repo, base) < 0)
		return rb_apply__git_fail("treebuilder");
	while (i < n) {
		const char *name = chg[i].path + skip;
		const char *slash = strchr(name, '/');
		size_t clen = slash ? (size_t)(slash - name) : strlen(name);
		const struct change *leaf = NULL;
		size_t j = i, sub_start, sub_n;
		char *comp = strndup(name, clen);
		bool sub_empty = true;

		if (!comp) {
			ret = -RB_ENOMEM;
			goto out;
		}
		if (!slash) {
			leaf = &chg[i];
			j++;
		}
		sub_start = j;
		while (j < n && !strncmp(chg[j].path + skip, comp, clen) &&
		       chg[j].path[skip + clen] == '/')
			j++;
		sub_n = j - sub_start;
		if (sub_n) {
			const git_tree_entry *e = git_treebuilder_get(tb, comp);
			git_tree *sub = NULL;
			git_oid sub_oid;

			if (e && git_tree_entry_type(e) == GIT_OBJECT_TREE &&
			    git_tree_lookup(&sub, repo, git_tree_entry_id(e)) <
				    0) {
				free(comp);
				ret = rb_apply__git_fail("tree lookup");
				goto out;
			}
			ret = build_tree(&sub_oid, &sub_empty, repo, sub,
					 chg + sub_start, sub_n,
					 skip + clen + 1);
			git_tree_free(sub);
			if (!ret && sub_empty && e)
				ret = git_treebuilder_remove(tb, comp) < 0 ?
					      rb_apply__git_fail(
						      "tree remove") :
					      0;
			else if (!ret && !sub_empty &&
				 git_treebuilder_insert(NULL, tb, comp,
							&sub_oid,
							GIT_FILEMODE_TREE) < 0)
				ret = rb_apply__git_fail("tree insert");
		}
		if (!ret && leaf) {
			if (leaf->deleted) {
				const git_tree_entry *e =
					git_treebuilder_get(tb, comp);

				if (e && sub_empty &&
				    git_tree_entry_type(e) != GIT_OBJECT_TREE &&
				    git_treebuilder_remove(tb, comp) < 0)
					ret = rb_apply__git_fail("tree remove");
			} else if (git_treebuilder_insert(
					   NULL, tb, comp, &leaf->oid,
					   (git_filemode_t)leaf->mode) < 0) {
				ret = rb_apply__git_fail("tree insert");
			}
		}
		free(comp);
		if (ret)
			goto out;
		i = j;
	}
	*empty = git_treebuilder_entrycount(tb) == 0;
	if (git_treebuilder_write(out, tb) < 0)
		ret = rb_apply__git_fail("tree write");
out:
	git_treebuilder_free(tb);
	return ret;
}

/* ---- the series ---- */

static int make_commit(git_oid *out, git_repository *repo,
		       const struct rb_apply_patch *p, size_t no,
		       const git_tree *tree, const git_commit *parent)
{
	git_signature *author = NULL, *committer = NULL;
	struct rb_buf msg = RB_BUF_INIT(1u << 20);
	int64_t when = p->date;
	int ret = 0;

	if (git_signature_new(
		    &author,
		    p->author_name && *p->author_name ? p->author_name :
							"unknown",
		    p->author_email && *p->author_email ? p->author_email :
							  "unknown@invalid",
		    when, p->tz_offset) < 0 &&
	    git_signature_new(&author, "unknown", "unknown@invalid", when,
			      p->tz_offset) < 0) {
		ret = rb_apply__git_fail("signature");
		goto out;
	}
	if (git_signature_new(&committer, "reviewbot",
			      "reviewbot@reviewbot.invalid", when,
			      p->tz_offset) < 0) {
		ret = rb_apply__git_fail("signature");
		goto out;
	}
	if (p->message && *p->message)
		ret = rb_buf_puts(&msg, p->message);
	else
		ret = rb_buf_printf(&msg, "patch %zu\n", no);
	if (!ret && msg.ptr[msg.len - 1] != '\n')
		ret = rb_buf_putc(&msg, '\n');
	if (ret)
		goto out;
	if (git_commit_create(out, repo, NULL, author, committer, NULL, msg.ptr,
			      tree, 1, &parent) < 0)
		ret = rb_apply__git_fail("commit");
out:
	rb_buf_release(&msg);
	git_signature_free(author);
	git_signature_free(committer);
	return ret;
}

static void record_fail(struct work *w, enum rb_apply_fail kind,
			const char *reason)
{
	struct rb_apply_result *r = w->res;

	r->fail = kind;
	r->failed_patch = w->patch_no;
	r->failed_file = w->fail_file;
	w->fail_file = NULL;
	r->failed_hunk = w->fail_hunk;
	r->reason = strdup(reason);
}

/* Applies one parsed patch to w->tree; sets pr->tree. 0, 1, <0. */
static int apply_one(struct work *w, const struct rb_diff *d,
		     struct rb_apply_patch_result *pr)
{
	size_t i;
	bool empty;
	int ret;

	changes_clear(w);
	pr->files = calloc(d->n_files, sizeof(*pr->files));
	if (!pr->files)
		return -RB_ENOMEM;
	for (i = 0; i < d->n_files; i++) {
		pr->n_files++;
		ret = apply_file(w, &d->files[i], &pr->files[i]);
		if (ret)
			return ret;
	}
	qsort(w->chg, w->n_chg, sizeof(*w->chg), path_cmp);
	return build_tree(&pr->tree, &empty, w->repo, w->tree, w->chg, w->n_chg,
			  0);
}

/*
 * Parses every patch and checks the limits before anything is applied.
 * 1 when a patch does not parse (recorded in w->res); @over says why the
 * series is over a limit, when it is.
 */
static int parse_all(struct work *w, struct rb_diff **diffs,
		     const struct rb_apply_patch *patches, size_t n,
		     struct rb_buf *over)
{
	const struct rb_apply_opts *opts = w->opts;
	size_t i, j, lines = 0, files = 0;
	int ret;

	for (i = 0; i < n; i++) {
		w->patch_no = i + 1;
		ret = rb_diff_parse(&diffs[i], patches[i].patch,
				    patches[i].len);
		if (ret == -RB_EPARSE) {
			record_fail(w, RB_APPLY_FAIL_PARSE, rb_errmsg());
			return 1;
		}
		if (ret)
			return ret;
		for (j = 0; j < diffs[i]->n_files; j++)
			lines += diffs[i]->files[j].added +
				 diffs[i]->files[j].removed;
		files += diffs[i]->n_files;
	}
	/*
	 * Too big to review: not applied at all (issue 33: applying what
	 * will not be reviewed only spends the budgets on a hostile series).
	 */
	if ((opts->max_lines && lines > opts->max_lines) ||
	    (opts->max_files && files > opts->max_files))
		return rb_buf_printf(over,
				     RB_APPLY_TOO_BIG
				     ": %zu "
				     "changed lines in %zu files (limits: %zu "
				     "lines, %zu files)",
				     lines, files, opts->max_lines,
				     opts->max_files);
	return 0;
}

/*
 * After patch @no (@p) applied: its tree becomes w->tree and, when asked,
 * its commit on top of *@commit.
 */
static int advance(struct work *w, struct rb_apply_patch_result *pr,
		   const struct rb_apply_patch *p, size_t no,
		   git_commit **commit)
{
	struct rb_apply_result *r = w->res;
	git_commit *c = NULL;
	git_tree *next = NULL;
	int ret;

	if (git_tree_lookup(&next, w->repo, &pr->tree) < 0)
		return rb_apply__git_fail("tree lookup");
	git_tree_free(w->tree);
	w->tree = next;
	if (w->opts->commit) {
		ret = make_commit(&pr->commit, w->repo, p, no, next, *commit);
		if (ret)
			return ret;
		if (git_commit_lookup(&c, w->repo, &pr->commit) < 0)
			return rb_apply__git_fail("commit lookup");
		git_commit_free(*commit);
		*commit = c;
		git_oid_cpy(&r->commit, &pr->commit);
	}
	pr->applied = true;
	git_oid_cpy(&r->tree, &pr->tree);
	r->n_applied++;
	return 0;
}

/* The result's own object store over @repo's, and the base commit. */
static int start(struct work *w, git_commit **commit, git_repository *repo,
		 const git_oid *base_commit)
{
	struct rb_apply_result *r = w->res;
	int ret;

	/* Never written: everything goes to the result's own store. */
	ret = rb_apply__mem_new(&r->mem, repo);
	if (!ret)
		ret = rb_apply__mem_repo_open(&r->repo, r->mem);
	if (ret)
		return ret;
	w->repo = r->repo;
	if (git_commit_lookup(commit, w->repo, base_commit) < 0) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), base_commit);
		return rb_err(RB_ENOTFOUND, "base commit %s is not in %s", hex,
			      git_repository_path(repo));
	}
	git_oid_cpy(&r->base, base_commit);
	git_oid_cpy(&r->commit, base_commit);
	git_oid_cpy(&r->tree, git_commit_tree_id(*commit));
	if (git_commit_tree(&w->tree, *commit) < 0)
		return rb_apply__git_fail("commit tree");
	return 0;
}

int rb_apply_series(struct rb_apply_result **out, git_repository *repo,
		    const git_oid *base_commit,
		    const struct rb_apply_patch *patches, size_t n,
		    const struct rb_apply_opts *opts)
{
	struct rb_apply_opts defaults = RB_APPLY_OPTS_INIT;
	struct rb_apply_result *r = NULL;
	struct rb_diff **diffs = NULL;
	git_commit *commit = NULL;
	struct rb_buf over = RB_BUF_INIT(4096); /* over a limit: why */
	struct work w = { 0 };
	size_t i;
	int ret = 0;

	rb_buf_init(&w.reason, 4096);
	r = calloc(1, sizeof(*r));
	diffs = calloc(n + 1, sizeof(*diffs));
	if (!r || !diffs ||
	    !(r->patches = calloc(n + 1, sizeof(*r->patches)))) {
		ret = -RB_ENOMEM;
		goto out;
	}
	r->n_patches = n;
	w.opts = opts ? opts : &defaults;
	w.work = w.opts->work ? w.opts->work : &w.own_work;
	w.res = r;
	ret = start(&w, &commit, repo, base_commit);
	if (!ret)
		ret = parse_all(&w, diffs, patches, n, &over);
	if (ret < 0)
		goto out;
	if (!ret && over.len) {
		w.patch_no = 0;
		record_fail(&w, RB_APPLY_FAIL_LIMIT, over.ptr);
		goto done;
	}
	for (i = 0; i < n && !ret; i++) {
		w.patch_no = i + 1;
		ret = apply_one(&w, diffs[i], &r->patches[i]);
		if (!ret)
			ret = advance(&w, &r->patches[i], &patches[i], i + 1,
				      &commit);
	}
	if (ret < 0)
		goto out;
	if (ret > 0 && !r->fail)
		record_fail(&w, w.fail, w.reason.ptr);
	else if (!ret)
		r->ok = true;
done:
	ret = 0;
	*out = r;
	r = NULL;
out:
	for (i = 0; diffs && i < n; i++)
		rb_diff_free(diffs[i]);
	free(diffs);
	changes_clear(&w);
	free(w.chg);
	free(w.fail_file);
	rb_buf_release(&w.reason);
	rb_buf_release(&over);
	git_tree_free(w.tree);
	git_commit_free(commit);
	rb_apply_result_free(r);
	return ret;
}

void rb_apply_result_free(struct rb_apply_result *r)
{
	size_t i, j;

	if (!r)
		return;
	for (i = 0; r->patches && i < r->n_patches; i++) {
		struct rb_apply_patch_result *pr = &r->patches[i];

		for (j = 0; j < pr->n_files; j++) {
			free(pr->files[j].path);
			free(pr->files[j].hunks);
		}
		free(pr->files);
	}
	free(r->patches);
	free(r->failed_file);
	free(r->reason);
	free(r->setuid_path);
	git_repository_free(r->repo);
	rb_apply__mem_unref(r->mem);
	free(r);
}

void rb_apply_result_drop_objects(struct rb_apply_result *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	r->repo = NULL;
	rb_apply__mem_unref(r->mem);
	r->mem = NULL;
}

const char *rb_apply_fail_name(enum rb_apply_fail f)
{
	static const char *const names[] = {
		"ok",	  "parse", "hunk",   "file",
		"unsafe", "limit", "binary", "merge",
	};

	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] :
								"unknown";
}
