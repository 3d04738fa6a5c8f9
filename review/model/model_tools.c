// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_tools.c - the read-only tools the model calls while it reviews one
 * patch (model_tools.h): the tools object, its arguments and limits, the
 * pools, one call, read_file, the series tools and the evidence check.
 * The searches are model_tools_search.c, the history model_tools_git.c;
 * what they share is model_tools_priv.h.
 *
 * Every read goes through the git_repository the caller gives: the tip
 * tree exists only in the in-memory object store of the apply
 * (review/apply/apply.c), so nothing here looks at a work tree, spawns git or
 * writes. A path from the model is a tree path, checked (no leading "/",
 * no "." or ".." component, no NUL, bounded) and looked up with
 * git_tree_entry_bypath() only; symlinks and submodules are named, never
 * followed.
 *
 * Tree text is hostile: every line returned is valid UTF-8 (other bytes
 * become '?'), control characters are '?', hidden Unicode is escaped
 * (review/hidden.h), binary blobs are skipped, rows and lines are capped,
 * and each call stops at a deadline.
 */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>

#include <jansson.h>

#include "review/code/code_c.h"
#include "review/code/code_index.h"
#include "review/code/code_tree.h"
#include "review/hidden.h"
#include "review/model/model_diff.h"
#include "review/model/model_prompt.h"
#include "review/model/model_tools_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define DEF_MAX_CALLS 24
#define DEF_MAX_BYTES (200 * 1024)
#define DEF_MAX_RESULT (16 * 1024)
#define DEF_MAX_SECONDS 300

#define MAX_ARGS 4096 /* bytes of one call's JSON arguments */
#define READ_DEFAULT 200 /* lines read_file gives without an end */
#define READ_MAX 400
#define MIN_ROOM 64 /* bytes left under max_bytes worth a call */

double mt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double mt_call_deadline(const struct rb_model_tools *t)
{
	double end = (double)t->start.tv_sec + (double)t->start.tv_nsec / 1e9 +
		     t->lim.max_seconds;
	double call = mt_now() + CALL_SECONDS;

	return call < end ? call : end;
}

/*
 * Appends @s[0..@len) as text the model may read: valid UTF-8, no
 * control characters but tab (and newline with @nl), hidden Unicode
 * escaped.
 */
int mt_put_text_nl(struct rb_buf *b, const char *s, size_t len, bool nl)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int ret = 0;

	while (i < len && !ret) {
		unsigned int c = p[i];
		size_t n = 0, k;
		uint32_t cp;

		if (c < 0x80) {
			if ((c < 0x20 && c != '\t' && (c != '\n' || !nl)) ||
			    c == 0x7f)
				c = '?';
			ret = rb_buf_putc(b, (char)c);
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 2;
		else if (c >= 0xe0 && c <= 0xef)
			n = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 4;
		for (k = 1; n && k < n; k++)
			if (i + k >= len || (p[i + k] & 0xc0) != 0x80)
				n = 0;
		/* Overlong forms, surrogates and values past U+10FFFF. */
		if (n == 3 && ((c == 0xe0 && p[i + 1] < 0xa0) ||
			       (c == 0xed && p[i + 1] >= 0xa0)))
			n = 0;
		if (n == 4 && ((c == 0xf0 && p[i + 1] < 0x90) ||
			       (c == 0xf4 && p[i + 1] >= 0x90)))
			n = 0;
		if (!n) {
			ret = rb_buf_putc(b, '?');
			i++;
			continue;
		}
		if (rb_hidden_find(s + i, n, &cp, &k) == 0)
			ret = rb_buf_printf(b, "<U+%04X>", (unsigned int)cp);
		else
			ret = rb_buf_add(b, s + i, n);
		i += n;
	}
	return ret;
}

/* Text of many lines (a patch, a file range). */
int mt_put_text(struct rb_buf *b, const char *s, size_t len)
{
	return mt_put_text_nl(b, s, len, true);
}

/* A line of tree text in a search row, or a path: one line, capped. */
int mt_put_line(struct rb_buf *b, const char *s, size_t len)
{
	int ret;

	if (len <= LINE_MAX_OUT)
		return mt_put_text_nl(b, s, len, false);
	ret = mt_put_text_nl(b, s, LINE_MAX_OUT, false);
	return ret ? ret : rb_buf_puts(b, " [...]");
}

/*
 * Is @p a tree path the model may name? Relative, no empty, "." or ".."
 * component, no NUL (the caller passes the JSON length), bounded.
 * @dir allows a trailing "/" (a path prefix).
 */
bool mt_path_ok(const char *p, size_t len, bool dir)
{
	size_t i, c = 0;

	if (!len || len > MAX_PATH || strlen(p) != len || p[0] == '/')
		return false;
	if (dir && len > 1 && p[len - 1] == '/')
		len--;
	for (i = 0; i <= len; i++) {
		if (i < len && p[i] != '/') {
			if ((unsigned char)p[i] < 0x20)
				return false;
			continue;
		}
		if (i == c || (i - c == 1 && p[c] == '.') ||
		    (i - c == 2 && p[c] == '.' && p[c + 1] == '.'))
			return false;
		c = i + 1;
	}
	return true;
}

/* ---- arguments ---- */

/* A string argument, or NULL (with *len) when absent. */
int mt_arg_str(struct mt_args *a, const char *key, bool need, const char **out,
	       size_t *len, size_t max)
{
	json_t *v = json_object_get(a->root, key);

	*out = NULL;
	*len = 0;
	if (!v || json_is_null(v)) {
		if (need)
			return rb_buf_printf(a->err,
					     "error: argument \"%s\" is "
					     "missing\n",
					     key) ?:
			       -RB_EINVAL;
		return 0;
	}
	if (!json_is_string(v) || json_string_length(v) > max ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return rb_buf_printf(a->err,
				     "error: argument \"%s\" must be a "
				     "string of at most %zu bytes\n",
				     key, max) ?:
		       -RB_EINVAL;
	*out = json_string_value(v);
	*len = json_string_length(v);
	return 0;
}

int mt_arg_int(struct mt_args *a, const char *key, long long def, long long lo,
	       long long hi, long long *out)
{
	json_t *v = json_object_get(a->root, key);
	double d;

	*out = def;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
	} else if (json_is_real(v)) {
		d = json_real_value(v);
		if (!(d >= -1e12 && d <= 1e12 && d == (double)(long long)d))
			goto bad;
		*out = (long long)d;
	} else if (json_is_string(v) && json_string_length(v) < 12) {
		char *end;

		*out = strtoll(json_string_value(v), &end, 10);
		if (*end || end == json_string_value(v))
			goto bad;
	} else {
		goto bad;
	}
	if (*out >= lo && *out <= hi)
		return 0;
bad:
	return rb_buf_printf(a->err,
			     "error: argument \"%s\" must be an integer "
			     "from %lld to %lld\n",
			     key, lo, hi) ?:
	       -RB_EINVAL;
}

int mt_arg_bool(struct mt_args *a, const char *key, bool *out)
{
	json_t *v = json_object_get(a->root, key);

	*out = false;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return 0;
	}
	return rb_buf_printf(a->err, "error: argument \"%s\" must be true "
				     "or false\n",
			     key) ?:
	       -RB_EINVAL;
}

/* side: "base" or "tip" (default). *out: 0 base, 1 tip. */
int mt_arg_side(struct rb_model_tools *t, struct mt_args *a, int *out)
{
	const char *s;
	size_t n;
	int ret = mt_arg_str(a, "side", false, &s, &n, 8);

	if (ret)
		return ret;
	*out = 1;
	if (s && !strcmp(s, "base"))
		*out = 0;
	else if (s && strcmp(s, "tip"))
		return rb_buf_puts(a->err, "error: side must be \"base\" or "
					   "\"tip\"\n") ?:
		       -RB_EINVAL;
	if (*out == 1 && !t->ctx.tip_tree)
		*out = 0;
	if ((*out == 0 && !t->ctx.base_tree) || !t->ctx.repo)
		return rb_buf_puts(a->err, "error: no tree to read for this "
					   "patch\n") ?:
		       -RB_EINVAL;
	return 0;
}

const char *mt_side_name(int side)
{
	return side ? "tip" : "base";
}

const git_oid *mt_side_tree(const struct rb_model_tools *t, int side)
{
	return side ? &t->tip_tree : &t->base_tree;
}

/* ---- blobs by path ---- */

/*
 * The blob at @path of tree @side: 0, or -RB_ENOTFOUND with the reason
 * as a line in @err (no such file, a directory, a symlink ...).
 */
int mt_blob_at(git_blob **out, const struct rb_model_tools *t, int side,
	       const char *path, struct rb_buf *err)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_object_t type;
	int ret = -RB_ENOTFOUND;
	const char *why = "no such file";

	*out = NULL;
	if (git_tree_lookup(&tree, t->ctx.repo, mt_side_tree(t, side)) < 0) {
		why = "the tree cannot be read";
		goto out;
	}
	if (git_tree_entry_bypath(&e, tree, path) < 0)
		goto out;
	type = git_tree_entry_type(e);
	if (type == GIT_OBJECT_TREE) {
		why = "a directory, not a file";
		goto out;
	}
	if (type != GIT_OBJECT_BLOB) {
		why = "a submodule, not a file";
		goto out;
	}
	if (git_tree_entry_filemode(e) == GIT_FILEMODE_LINK) {
		why = "a symbolic link (not followed)";
		goto out;
	}
	if (git_blob_lookup(out, t->ctx.repo, git_tree_entry_id(e)) < 0) {
		why = "the blob cannot be read";
		goto out;
	}
	ret = 0;
out:
	if (ret && err) {
		int r = rb_buf_printf(err, "error: %s at %s: ", why,
				      mt_side_name(side));

		if (!r)
			r = mt_put_line(err, path, strlen(path));
		if (!r)
			r = rb_buf_putc(err, '\n');
		if (r)
			ret = r;
	}
	git_tree_entry_free(e);
	git_tree_free(tree);
	return ret;
}

int mt_text_at(git_blob **blob, struct rb_c_lines *l,
	       const struct rb_model_tools *t, int side, const char *path,
	       struct rb_buf *err)
{
	int ret = mt_blob_at(blob, t, side, path, err);

	if (ret)
		return ret;
	if (git_blob_is_binary(*blob))
		return rb_buf_puts(err, "error: a binary file\n") ?: -RB_EINVAL;
	return rb_c_lines_split(l, git_blob_rawcontent(*blob),
				(size_t)git_blob_rawsize(*blob));
}

/* ---- the tools' lifecycle ---- */

int rb_model_tools_new(struct rb_model_tools **out,
		       const struct rb_model_tools_ctx *ctx,
		       const struct rb_model_tool_limits *lim)
{
	struct rb_model_tools *t = calloc(1, sizeof(*t));

	if (!t)
		return rb_err(RB_ENOMEM, "model tools: out of memory");
	t->ctx = *ctx;
	/* The ids are copied; the pointers in ctx are not used for them. */
	if (ctx->base_tree)
		git_oid_cpy(&t->base_tree, ctx->base_tree);
	if (ctx->tip_tree)
		git_oid_cpy(&t->tip_tree, ctx->tip_tree);
	if (ctx->base_commit)
		git_oid_cpy(&t->base_commit, ctx->base_commit);
	if (!ctx->repo) {
		t->ctx.base_tree = NULL;
		t->ctx.tip_tree = NULL;
		t->ctx.base_commit = NULL;
	}
	if (!ctx->patches)
		t->ctx.n_patches = 0;
	if (lim)
		t->lim = *lim;
	if (t->lim.max_calls <= 0)
		t->lim.max_calls = DEF_MAX_CALLS;
	if (!t->lim.max_bytes)
		t->lim.max_bytes = DEF_MAX_BYTES;
	if (!t->lim.max_result)
		t->lim.max_result = DEF_MAX_RESULT;
	if (t->lim.max_seconds <= 0)
		t->lim.max_seconds = DEF_MAX_SECONDS;
	*out = t;
	return 0;
}

void rb_model_tools_free(struct rb_model_tools *t)
{
	if (!t)
		return;
	rb_code_tree_release(&t->sides[0]);
	rb_code_tree_release(&t->sides[1]);
	rb_code_index_put(t->wi);
	free(t);
}

void rb_model_tools_get_usage(const struct rb_model_tools *t,
			      struct rb_model_tools_usage *u)
{
	if (t)
		*u = t->use;
	else
		memset(u, 0, sizeof(*u));
}

/* ---- the definitions ---- */

/*
 * Kept short: the definitions go with every request of every patch, and
 * every word costs tokens. The same text for every patch, so recordings
 * compare.
 */
static const char defs_json[] =
	"["
	"{\"name\": \"read_file\", \"description\": \"Lines of a file of "
	"the tree, numbered. side: base (before the series) or tip (after "
	"the whole series, the default). At most 400 lines a call.\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"path\": {\"type\": \"string\", \"description\": \"path in the "
	"tree, e.g. mm/memory.c\"}, "
	"\"side\": {\"type\": \"string\", \"enum\": [\"base\", \"tip\"]}, "
	"\"start\": {\"type\": \"integer\", \"description\": \"first line, "
	"from 1\"}, "
	"\"end\": {\"type\": \"integer\", \"description\": \"last line "
	"(inclusive)\"}}, "
	"\"required\": [\"path\"]}}, "
	"{\"name\": \"grep\", \"description\": \"Searches the tree like "
	"git grep -n: rows path:line:text, at most 100. The pattern is a "
	"fixed string unless regex is true (Perl syntax, PCRE2).\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"pattern\": {\"type\": \"string\"}, "
	"\"regex\": {\"type\": \"boolean\"}, "
	"\"side\": {\"type\": \"string\", \"enum\": [\"base\", \"tip\"]}, "
	"\"path_prefix\": {\"type\": \"string\", \"description\": \"only "
	"paths starting with this, e.g. mm/\"}}, "
	"\"required\": [\"pattern\"]}}, "
	"{\"name\": \"find_definition\", \"description\": \"Where a C "
	"function, macro, struct, union, enum, typedef or global is "
	"defined, with the definition's first lines.\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"symbol\": {\"type\": \"string\"}, "
	"\"side\": {\"type\": \"string\", \"enum\": [\"base\", \"tip\"]}}, "
	"\"required\": [\"symbol\"]}}, "
	"{\"name\": \"find_callers\", \"description\": \"Lines that call or "
	"reference a C symbol in .c and .h files: path:line: [function] "
	"text, at most 60.\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"symbol\": {\"type\": \"string\"}, "
	"\"side\": {\"type\": \"string\", \"enum\": [\"base\", \"tip\"]}, "
	"\"path_prefix\": {\"type\": \"string\", \"description\": \"only "
	"paths starting with this\"}}, "
	"\"required\": [\"symbol\"]}}, "
	"{\"name\": \"show_patch\", \"description\": \"Another patch of "
	"this series: commit message and diff.\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"index\": {\"type\": \"integer\", \"description\": \"1-based "
	"number in the series\"}}, "
	"\"required\": [\"index\"]}}, "
	"{\"name\": \"cover_letter\", \"description\": \"The series' cover "
	"letter.\", \"parameters\": {\"type\": \"object\", "
	"\"properties\": {}}}, "
	"{\"name\": \"previous_review\", \"description\": \"What was "
	"reviewed on the previous version of this series.\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": {}}}, "
	"{\"name\": \"path_history\", \"description\": \"git log --oneline "
	"of a path, newest first, from the base commit.\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"path\": {\"type\": \"string\"}, "
	"\"max\": {\"type\": \"integer\", \"description\": \"commits to "
	"list, default 20, at most 100\"}}, "
	"\"required\": [\"path\"]}}, "
	"{\"name\": \"blame\", \"description\": \"git blame of lines of a "
	"file at the base: the commit and date of each line. At most 100 "
	"lines a call.\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"path\": {\"type\": \"string\"}, "
	"\"start\": {\"type\": \"integer\"}, "
	"\"end\": {\"type\": \"integer\"}}, "
	"\"required\": [\"path\"]}}, "
	"{\"name\": \"show_commit\", \"description\": \"A commit of the "
	"base's history (e.g. a Fixes: target): message, files changed and "
	"the diff, cut at 12 KiB.\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"commit\": {\"type\": \"string\", \"description\": \"7 to 40 "
	"hex digits\"}, "
	"\"path\": {\"type\": \"string\", \"description\": \"only the "
	"diff of this path\"}}, "
	"\"required\": [\"commit\"]}}, "
	"{\"name\": \"log\", \"description\": \"git log -S / -G of a path "
	"from the base commit: the commits whose diff adds or removes a "
	"string (S) or a line matching a POSIX extended regex (G).\", "
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"path\": {\"type\": \"string\", \"description\": \"a file or "
	"a directory\"}, "
	"\"S\": {\"type\": \"string\"}, "
	"\"G\": {\"type\": \"string\"}, "
	"\"max\": {\"type\": \"integer\", \"description\": \"commits to "
	"list, default 10, at most 50\"}}, "
	"\"required\": [\"path\"]}}"
	"]";

const char *rb_model_tools_defs(void)
{
	return defs_json;
}

/* ---- read_file ---- */

static int tool_read_file(struct rb_model_tools *t, struct mt_args *a,
			  struct rb_buf *out)
{
	const char *path;
	size_t plen, i, n;
	long long start, end;
	git_blob *blob = NULL;
	struct rb_c_lines l = { 0 };
	int side, ret;

	ret = mt_arg_str(a, "path", true, &path, &plen, MAX_PATH);
	if (!ret)
		ret = mt_arg_side(t, a, &side);
	if (!ret)
		ret = mt_arg_int(a, "start", 1, 1, 100000000, &start);
	if (!ret)
		ret = mt_arg_int(a, "end", start + READ_DEFAULT - 1, 1,
				 100000000, &end);
	if (ret)
		return ret;
	if (!mt_path_ok(path, plen, false))
		return rb_buf_puts(a->err, "error: path must be a relative "
					   "path in the tree, without \".\" "
					   "or \"..\"\n") ?:
		       -RB_EINVAL;
	if (end < start)
		return rb_buf_puts(a->err, "error: end is before start\n") ?:
			       -RB_EINVAL;
	ret = mt_text_at(&blob, &l, t, side, path, a->err);
	if (ret)
		goto out;
	if (end - start + 1 > READ_MAX)
		end = start + READ_MAX - 1;
	if ((size_t)start > l.n) {
		ret = rb_buf_printf(out, "%s at %s has %zu lines\n", path,
				    mt_side_name(side), l.n);
		goto out;
	}
	if ((size_t)end > l.n)
		end = (long long)l.n;
	ret = rb_buf_printf(out, "%s at %s, lines %lld-%lld of %zu:\n", path,
			    mt_side_name(side), start, end, l.n);
	for (i = (size_t)start - 1; !ret && i < (size_t)end; i++) {
		const char *s = rb_c_line(&l, i, &n);

		ret = rb_buf_printf(out, "%zu\t", i + 1);
		if (!ret)
			ret = mt_put_text(out, s, n);
		if (!ret)
			ret = rb_buf_putc(out, '\n');
	}
out:
	rb_c_lines_release(&l);
	git_blob_free(blob);
	return ret;
}

/* ---- the files of a tree (review/code/code_tree.h) ---- */

/* The blobs of tree @side (read once per tools object). */
int mt_side_load(struct rb_model_tools *t, int side)
{
	return rb_code_tree_load(&t->sides[side], t->ctx.repo,
				 mt_side_tree(t, side), mt_side_name(side));
}

int rb_model_tools_put_text(struct rb_buf *b, const char *s, size_t len)
{
	return mt_put_text_nl(b, s, len, false);
}

/* ---- the series ---- */

static int tool_show_patch(struct rb_model_tools *t, struct mt_args *a,
			   struct rb_buf *out)
{
	long long i;
	int ret;
	const char *p;

	if (!t->ctx.n_patches)
		return rb_buf_puts(a->err, "error: no patches\n") ?: -RB_EINVAL;
	ret = mt_arg_int(a, "index", 0, 1, (long long)t->ctx.n_patches, &i);
	if (ret)
		return ret;
	if (!i)
		return rb_buf_puts(a->err, "error: argument \"index\" is "
					   "missing\n") ?:
		       -RB_EINVAL;
	p = t->ctx.patches[i - 1];
	if (!p)
		return rb_buf_printf(out,
				     "patch %lld/%zu is missing from the "
				     "series\n",
				     i, t->ctx.n_patches);
	ret = rb_buf_printf(out, "patch %lld/%zu%s:\n", i, t->ctx.n_patches,
			    i == t->ctx.index ? " (the one under review)" : "");
	/* Its hunks numbered as the tree, as the prompt's diff is. */
	if (!ret && t->ctx.applied && t->ctx.applied[i - 1] && t->ctx.repo) {
		struct rb_buf tmp = RB_BUF_INIT(RB_BUF_NOLIMIT);

		ret = rb_model_diff_text(&tmp, p, strlen(p),
					 t->ctx.applied[i - 1], t->ctx.repo);
		if (!ret)
			ret = mt_put_text(out, tmp.ptr, tmp.len);
		rb_buf_release(&tmp);
		return ret;
	}
	return ret ? ret : mt_put_text(out, p, strlen(p));
}

static int tool_text(const char *text, const char *none, struct rb_buf *out)
{
	if (!text || !*text)
		return rb_buf_printf(out, "%s\n", none);
	return mt_put_text(out, text, strlen(text));
}

/* ---- the pools: budgets shared between tools objects and threads ---- */

struct rb_model_tools_pool {
	pthread_mutex_t lock; /* the root's serves the reserves carved out */
	struct rb_model_tools_pool *root, *parent;
	int max_calls, calls; /* calls: spent, in flight or carved out */
	size_t max_bytes, bytes; /* the same for bytes */
	struct rb_model_tools_usage spent; /* through this pool and below */
	char calls_msg[96], bytes_msg[96]; /* the refusals the model reads */
};

static struct rb_model_tools_pool *pool_alloc(const char *what)
{
	struct rb_model_tools_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	snprintf(p->calls_msg, sizeof(p->calls_msg),
		 "the limit of tool calls for %.48s", what ? what : "the pool");
	snprintf(p->bytes_msg, sizeof(p->bytes_msg),
		 "the limit of bytes the tools return for %.48s",
		 what ? what : "the pool");
	return p;
}

int rb_model_tools_pool_new(struct rb_model_tools_pool **out, int max_calls,
			    size_t max_bytes, const char *what)
{
	struct rb_model_tools_pool *p = pool_alloc(what);

	if (!p)
		return rb_err(RB_ENOMEM, "model tools: out of memory");
	pthread_mutex_init(&p->lock, NULL);
	p->root = p;
	p->max_calls = max_calls > 0 ? max_calls : INT_MAX;
	p->max_bytes = max_bytes ? max_bytes : SIZE_MAX;
	*out = p;
	return 0;
}

int rb_model_tools_pool_carve(struct rb_model_tools_pool **out,
			      struct rb_model_tools_pool *parent, int calls,
			      size_t bytes, const char *what)
{
	struct rb_model_tools_pool *p = pool_alloc(what);
	int left;
	size_t bleft;

	if (!p)
		return rb_err(RB_ENOMEM, "model tools: out of memory");
	p->root = parent->root;
	p->parent = parent;
	pthread_mutex_lock(&p->root->lock);
	left = parent->max_calls - parent->calls;
	bleft = parent->max_bytes - parent->bytes;
	p->max_calls = calls < left ? calls : left;
	p->max_bytes = bytes < bleft ? bytes : bleft;
	if (p->max_calls < 0)
		p->max_calls = 0;
	parent->calls += p->max_calls;
	parent->bytes += p->max_bytes;
	pthread_mutex_unlock(&p->root->lock);
	*out = p;
	return 0;
}

void rb_model_tools_pool_free(struct rb_model_tools_pool *p)
{
	if (!p)
		return;
	if (p->parent) {
		/* What the reserve did not spend goes back. */
		pthread_mutex_lock(&p->root->lock);
		p->parent->calls -= p->max_calls - p->calls;
		p->parent->bytes -= p->max_bytes - p->bytes;
		pthread_mutex_unlock(&p->root->lock);
	} else {
		pthread_mutex_destroy(&p->lock);
	}
	free(p);
}

void rb_model_tools_pool_get_usage(struct rb_model_tools_pool *p,
				   struct rb_model_tools_usage *u)
{
	if (!p) {
		memset(u, 0, sizeof(*u));
		return;
	}
	pthread_mutex_lock(&p->root->lock);
	*u = p->spent;
	pthread_mutex_unlock(&p->root->lock);
}

void rb_model_tools_set_pool(struct rb_model_tools *t,
			     struct rb_model_tools_pool *pool)
{
	if (t)
		t->pool = pool;
}

/*
 * Takes one call and up to @want bytes of room from @p for a call about
 * to run: *room gets the room, which pool_settle() gives back in part.
 * NULL, or the refusal when @p has no call or too little room left.
 */
static const char *pool_take(struct rb_model_tools_pool *p, size_t want,
			     size_t *room)
{
	const char *why = NULL;
	size_t left;

	pthread_mutex_lock(&p->root->lock);
	left = p->max_bytes - p->bytes;
	if (p->calls >= p->max_calls) {
		why = p->calls_msg;
	} else if (left < MIN_ROOM) {
		why = p->bytes_msg;
	} else {
		*room = want < left ? want : left;
		p->calls++;
		p->bytes += *room;
	}
	if (why) {
		struct rb_model_tools_pool *q;

		for (q = p; q; q = q->parent)
			q->spent.refused++;
	}
	pthread_mutex_unlock(&p->root->lock);
	return why;
}

/* The call that took @room from @p returned @used bytes (or failed: 0). */
static void pool_settle(struct rb_model_tools_pool *p, size_t room, size_t used,
			bool ran)
{
	struct rb_model_tools_pool *q;

	if (used > room)
		used = room;
	pthread_mutex_lock(&p->root->lock);
	p->bytes -= room - used;
	if (!ran)
		p->calls--;
	for (q = p; ran && q; q = q->parent) {
		q->spent.calls++;
		q->spent.bytes += used;
	}
	pthread_mutex_unlock(&p->root->lock);
}

/* ---- one call ---- */

static const char *limit_reached(struct rb_model_tools *t)
{
	if (t->stop)
		return t->stop;
	if (t->use.calls >= t->lim.max_calls)
		t->stop = "the limit of tool calls for this review pass";
	/* Less room than a useful answer: as good as none. */
	else if (t->use.bytes + MIN_ROOM > t->lim.max_bytes)
		t->stop = "the limit of bytes the tools return for this "
			  "review pass";
	else if (t->started && mt_now() - ((double)t->start.tv_sec +
					   (double)t->start.tv_nsec / 1e9) >=
				       t->lim.max_seconds)
		t->stop = "the time limit of the tools for this review pass";
	return t->stop;
}

/*
 * Cuts @b to @max bytes, the note that says so included: at a line end
 * when one is near, else at a UTF-8 boundary.
 */
static int cap_result(struct rb_buf *b, size_t max)
{
	char note[80];
	size_t keep, nl, k;

	if (b->len <= max)
		return 0;
	nl = (size_t)snprintf(note, sizeof(note),
			      "\n[result cut at %zu bytes: ask for less]\n",
			      max);
	if (nl > max)
		nl = max;
	keep = max - nl;
	for (k = keep; k && keep - k < 256 && b->ptr[k - 1] != '\n'; k--)
		;
	if (k && b->ptr[k - 1] == '\n')
		keep = k;
	else
		while (keep && ((unsigned char)b->ptr[keep] & 0xc0) == 0x80)
			keep--;
	rb_buf_truncate(b, keep);
	b->max = RB_BUF_NOLIMIT;
	return rb_buf_add(b, note, nl);
}

int rb_model_tools_call(struct rb_model_tools *t, const char *name,
			const char *args, size_t args_len, struct rb_buf *out)
{
	struct rb_buf res = RB_BUF_INIT(WORK_MAX);
	struct rb_buf err = RB_BUF_INIT(4096);
	struct mt_args a = { NULL, &err };
	json_error_t je;
	const char *why;
	size_t room;
	int ret = 0;

	if (!t)
		return rb_buf_puts(out, "error: no tools for this patch\n");
	if (!t->started) {
		clock_gettime(CLOCK_MONOTONIC, &t->start);
		t->started = true;
	}
	why = limit_reached(t);
	/* The pool's room for this result: what the own limits leave. */
	room = t->lim.max_bytes - t->use.bytes;
	if (room > t->lim.max_result)
		room = t->lim.max_result;
	if (!why && t->pool) {
		why = pool_take(t->pool, room, &room);
		if (why)
			t->stop = why; /* a pool only shrinks: latched */
	}
	if (why) {
		t->use.refused++;
		ret = rb_buf_printf(out,
				    "error: refused: %s is reached; "
				    "answer with what you have\n",
				    why);
		return ret ? ret : -RB_ETOOBIG;
	}
	t->use.calls++;
	if (!name)
		name = "";
	if (args_len > MAX_ARGS) {
		ret = rb_buf_printf(&err, "error: arguments over %d bytes\n",
				    MAX_ARGS);
		goto done;
	}
	if (!args || !args_len || (args_len == 2 && !memcmp(args, "{}", 2)))
		a.root = json_object();
	else
		a.root =
			json_loadb(args, args_len, JSON_REJECT_DUPLICATES, &je);
	if (!a.root || !json_is_object(a.root)) {
		ret = rb_buf_puts(&err, "error: the arguments must be a JSON "
					"object\n");
		goto done;
	}
	if (!strcmp(name, "read_file"))
		ret = tool_read_file(t, &a, &res);
	else if (!strcmp(name, "grep"))
		ret = mt_tool_grep(t, &a, &res);
	else if (!strcmp(name, "find_definition"))
		ret = mt_tool_find_definition(t, &a, &res);
	else if (!strcmp(name, "find_callers"))
		ret = mt_tool_find_callers(t, &a, &res);
	else if (!strcmp(name, "show_patch"))
		ret = tool_show_patch(t, &a, &res);
	else if (!strcmp(name, "cover_letter"))
		ret = tool_text(t->ctx.cover, "no cover letter", &res);
	else if (!strcmp(name, "previous_review"))
		ret = tool_text(t->ctx.prev_review,
				"no review of a previous version", &res);
	else if (!strcmp(name, "path_history") && t->ctx.repo)
		ret = mt_tool_path_history(t, &a, &res);
	else if (!strcmp(name, "path_history"))
		ret = rb_buf_puts(&res, "no history: no tree\n");
	else if (!strcmp(name, "blame") && t->ctx.repo)
		ret = mt_tool_blame(t, &a, &res);
	else if (!strcmp(name, "show_commit") && t->ctx.repo)
		ret = mt_tool_show_commit(t, &a, &res);
	else if (!strcmp(name, "log") && t->ctx.repo)
		ret = mt_tool_log(t, &a, &res);
	else if (!strcmp(name, "blame") || !strcmp(name, "show_commit") ||
		 !strcmp(name, "log"))
		ret = rb_buf_puts(&res, "no history: no tree\n");
	else
		ret = rb_buf_puts(&err, "error: no tool has that name\n");
	/* A tool's own cap (WORK_MAX) only cuts its text. */
	if (ret == -RB_ETOOBIG && !err.len)
		ret = 0;
	/*
	 * -RB_EINVAL and the like: a result the model reads, the reason in
	 * err (or the one recorded where it failed: a tree that cannot be
	 * read).
	 */
	if (ret && ret != -RB_ENOMEM) {
		ret = err.len ? 0 :
				rb_buf_printf(&err, "error: %s\n", rb_errmsg());
		rb_err_clear();
	}
done:
	json_decref(a.root);
	if (!ret && err.len) {
		rb_buf_reset(&res);
		res.max = RB_BUF_NOLIMIT;
		ret = rb_buf_add(&res, err.ptr, err.len);
	}
	if (!ret)
		ret = cap_result(&res, room);
	if (!ret)
		ret = rb_buf_add(out, res.ptr, res.len);
	if (!ret)
		t->use.bytes += res.len;
	if (t->pool)
		pool_settle(t->pool, room, ret ? 0 : res.len, !ret);
	rb_buf_release(&res);
	rb_buf_release(&err);
	return ret;
}

/* ---- the evidence check ---- */

static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

int rb_model_tools_quote_at(const struct rb_model_tools *t, const char *path,
			    bool base_side, int line, const char *quote,
			    int near)
{
	struct rb_c_lines l = { 0 }, q = { 0 };
	git_blob *blob = NULL;
	int side = base_side ? 0 : 1, ret;
	long s, from, to;
	size_t qa, qb, k;

	if (!t || !t->ctx.repo || !path || !quote)
		return -RB_ENOTFOUND;
	if (side == 1 && !t->ctx.tip_tree)
		side = 0;
	if (side == 0 && !t->ctx.base_tree)
		return -RB_ENOTFOUND;
	if (!mt_path_ok(path, strlen(path), false))
		return -RB_ENOTFOUND;
	ret = mt_blob_at(&blob, t, side, path, NULL);
	if (ret)
		return -RB_ENOTFOUND;
	ret = rb_c_lines_split(&l, git_blob_rawcontent(blob),
			       (size_t)git_blob_rawsize(blob));
	if (!ret)
		ret = rb_c_lines_split(&q, quote, strlen(quote));
	if (ret)
		goto out;
	/* Blank lines around the quote do not count. */
	for (qa = 0; qa < q.n; qa++) {
		const char *x = rb_c_line(&q, qa, &k);

		trim(&x, &k);
		if (k)
			break;
	}
	for (qb = q.n; qb > qa; qb--) {
		const char *x = rb_c_line(&q, qb - 1, &k);

		trim(&x, &k);
		if (k)
			break;
	}
	ret = -RB_EINVAL;
	if (qa == qb)
		goto out;
	if (near < 0)
		near = 0;
	from = (long)line - near;
	to = (long)line + near;
	if (from < 1)
		from = 1;
	for (s = from; s <= to && ret; s++) {
		size_t j;

		if ((size_t)s - 1 + (qb - qa) > l.n)
			break;
		for (j = 0; j < qb - qa; j++) {
			size_t an, bn;
			const char *x = rb_c_line(&l, (size_t)s - 1 + j, &an);
			const char *y = rb_c_line(&q, qa + j, &bn);

			trim(&x, &an);
			trim(&y, &bn);
			if (an != bn || memcmp(x, y, an))
				break;
		}
		if (j == qb - qa)
			ret = 0;
	}
out:
	rb_c_lines_release(&l);
	rb_c_lines_release(&q);
	git_blob_free(blob);
	return ret;
}
