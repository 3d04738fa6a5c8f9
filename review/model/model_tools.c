// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_tools.c - the read-only tools the model calls while it reviews one
 * patch (model_tools.h).
 *
 * Every read goes through the git_repository the caller gives: the tip
 * tree exists only in the in-memory object store of the apply
 * (review/apply/apply.c), so nothing here looks at a work tree, spawns git or
 * writes. A path from the model is a tree path, checked (no leading "/",
 * no "." or ".." component, no NUL, bounded) and looked up with
 * git_tree_entry_bypath() only; symlinks and submodules are named, never
 * followed.
 *
 * Search (grep, find_definition, find_callers) runs in this process over
 * the blobs of the tree, with libgit2, a word index and a small C line
 * recogniser, rather than with universal-ctags (/usr/bin/ctags 5.9) or
 * "git grep":
 *  - ctags reads files, so the patched tree (whoever sent the patch owns
 *    it) would be written out to disk for every patch, which the design
 *    forbids, and its tags answer definitions only, not callers or text,
 *    so a second engine would be needed anyway.
 *  - "git grep" on a tree cannot see the tip (it lives in memory) and
 *    inflates every blob of the kernel on each call (5 s of one core on
 *    linux 6.1 here): ten searches of a review would be a minute.
 * Instead, the searches go through the word index of the base tree
 * (review/code/code_index.h): each run of [A-Za-z0-9_] of every text blob,
 * with the blobs holding it (numbers left out), in a file per tree that
 * every process shares, built once (from the previous base's by reading
 * the blobs that differ). A search reads only the blobs that can match:
 * a fixed-string pattern's inner words must be words of the blob, its
 * edge words a suffix or prefix of one, and a symbol's definitions and
 * callers are in the blobs that hold the word. Blobs of the tip that the
 * series changed are not in the index and are always read. Patterns
 * without a usable word, and regular expressions, read every blob under
 * the deadline. On linux 6.1 a symbol's definition or callers take
 * 10-100 ms and a word search well under a second (docs/ARCHITECTURE.md).
 *
 * The recogniser of definitions (macros, functions, struct/union/enum,
 * typedefs, globals) is review/code/code_c.h, which the prompt shares; call
 * sites are lines in kernel style (a definition starts in column 0, a
 * call is in an indented line). It is a heuristic: a miss is "no
 * definition found", never an error.
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

#define PCRE2_CODE_UNIT_WIDTH 8
#include <jansson.h>
#include <pcre2.h>

#include "review/code/code_c.h"
#include "review/code/code_index.h"
#include "review/hidden.h"
#include "review/model/model_diff.h"
#include "review/model/model_prompt.h"
#include "review/model/model_tools.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define DEF_MAX_CALLS 24
#define DEF_MAX_BYTES (200 * 1024)
#define DEF_MAX_RESULT (16 * 1024)
#define DEF_MAX_SECONDS 300

#define MAX_ARGS 4096 /* bytes of one call's JSON arguments */
#define MAX_PATH 1024
#define MAX_PATTERN 256
#define MAX_SYMBOL 128
#define READ_DEFAULT 200 /* lines read_file gives without an end */
#define READ_MAX 400
#define LINE_MAX_OUT 240 /* bytes of one line in a search row */
#define MIN_ROOM 64 /* bytes left under max_bytes worth a call */
#define REGEX_LINE 4096 /* bytes of a line a regex is matched against */
/*
 * A regex runs under PCRE2's limits (grep_re below): steps of its
 * backtracking matcher and KiB of memory for one line, nesting of the
 * pattern. A search stops after REGEX_COSTLY lines hit them.
 */
#define REGEX_STEPS 200000
#define REGEX_DEPTH 2000
#define REGEX_HEAP_KIB 4096
#define REGEX_NEST 64
#define REGEX_COSTLY 8
#define DEADLINE_LINES 64 /* lines between two looks at the clock */
#define GREP_ROWS 100
#define CALLER_ROWS 60
#define DEFS_MAX 6
#define DEFS_KEEP 64 /* definitions ranked before DEFS_MAX are shown */
#define DEF_LINES 60
#define HIST_DEFAULT 20
#define HIST_MAX 100
#define HIST_WALK 20000 /* commits walked by path_history */
#define BLAME_DEFAULT 40 /* lines blame gives without an end */
#define BLAME_MAX 100
#define BLAME_DEPTH 5000 /* first parents blame walks at most */
#define BLAME_COMMITS 40 /* commits listed under a blame */
#define SHOW_WALK 1000000 /* commits walked to find one in the history */
#define SHOW_SKEW (7 * 24 * 3600) /* committer clocks run this far off */
#define SHOW_CHAIN 1024 /* first parents looked at for the base above */
#define SHOW_FILES 100 /* paths a show_commit lists */
#define SHOW_STAT_FILES 200 /* more files: no diffstat, no diff */
#define SHOW_DIFF (12 * 1024) /* bytes of a show_commit's diff */
#define LOG_DEFAULT 10
#define LOG_MAX 50
#define LOG_WALK 20000 /* commits walked by log */
#define LOG_BLOBS 4000 /* changed files looked into by log */
#define CALL_SECONDS 60 /* one search, whatever is left of the budget */
#define BLOB_MAX RB_CODE_INDEX_BLOB_MAX /* bigger blobs are not searched */
#define WORK_MAX (1u << 20) /* a tool's text before the result cap */

/* One blob of a tree. */
struct tfile {
	char *path;
	git_oid oid;
};

struct side {
	bool loaded;
	struct tfile *f;
	size_t n, cap;
};

struct rb_model_tools {
	struct rb_model_tools_ctx ctx;
	git_oid base_tree, tip_tree, base_commit;
	struct rb_model_tool_limits lim;
	struct rb_model_tools_usage use;
	struct timespec start;
	bool started;
	const char *stop; /* the limit reached, or NULL */
	struct rb_model_tools_pool *pool; /* borrowed, or NULL */
	struct side sides[2]; /* 0: base, 1: tip */
	struct rb_code_index *wi; /* the base tree's, shared (widx_get()) */
	bool wi_failed; /* building it failed: search without it */
};

/* ---- small helpers ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool is_word(int c)
{
	return isalnum(c) || c == '_';
}

/*
 * Appends @s[0..@len) as text the model may read: valid UTF-8, no
 * control characters but tab (and newline with @nl), hidden Unicode
 * escaped.
 */
static int put_text_nl(struct rb_buf *b, const char *s, size_t len, bool nl)
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
static int put_text(struct rb_buf *b, const char *s, size_t len)
{
	return put_text_nl(b, s, len, true);
}

/* A line of tree text in a search row, or a path: one line, capped. */
static int put_line(struct rb_buf *b, const char *s, size_t len)
{
	int ret;

	if (len <= LINE_MAX_OUT)
		return put_text_nl(b, s, len, false);
	ret = put_text_nl(b, s, LINE_MAX_OUT, false);
	return ret ? ret : rb_buf_puts(b, " [...]");
}

/*
 * Is @p a tree path the model may name? Relative, no empty, "." or ".."
 * component, no NUL (the caller passes the JSON length), bounded.
 * @dir allows a trailing "/" (a path prefix).
 */
static bool path_ok(const char *p, size_t len, bool dir)
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

struct args {
	json_t *root;
	struct rb_buf *err; /* "error: ..." goes here */
};

/* A string argument, or NULL (with *len) when absent. */
static int arg_str(struct args *a, const char *key, bool need, const char **out,
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

static int arg_int(struct args *a, const char *key, long long def, long long lo,
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

static int arg_bool(struct args *a, const char *key, bool *out)
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
static int arg_side(struct rb_model_tools *t, struct args *a, int *out)
{
	const char *s;
	size_t n;
	int ret = arg_str(a, "side", false, &s, &n, 8);

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

static const char *side_name(int side)
{
	return side ? "tip" : "base";
}

static const git_oid *side_tree(const struct rb_model_tools *t, int side)
{
	return side ? &t->tip_tree : &t->base_tree;
}

/* ---- blobs by path ---- */

/*
 * The blob at @path of tree @side: 0, or -RB_ENOTFOUND with the reason
 * as a line in @err (no such file, a directory, a symlink ...).
 */
static int blob_at(git_blob **out, const struct rb_model_tools *t, int side,
		   const char *path, struct rb_buf *err)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_object_t type;
	int ret = -RB_ENOTFOUND;
	const char *why = "no such file";

	*out = NULL;
	if (git_tree_lookup(&tree, t->ctx.repo, side_tree(t, side)) < 0) {
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
				      side_name(side));

		if (!r)
			r = put_line(err, path, strlen(path));
		if (!r)
			r = rb_buf_putc(err, '\n');
		if (r)
			ret = r;
	}
	git_tree_entry_free(e);
	git_tree_free(tree);
	return ret;
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

static void side_release(struct side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->f[i].path);
	free(s->f);
	memset(s, 0, sizeof(*s));
}

void rb_model_tools_free(struct rb_model_tools *t)
{
	if (!t)
		return;
	side_release(&t->sides[0]);
	side_release(&t->sides[1]);
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

/* ---- lines of a blob (review/code/code_c.h) ---- */

static void lines_release(struct rb_c_lines *l)
{
	rb_c_lines_release(l);
}

static int lines_split(struct rb_c_lines *l, const char *p, size_t len)
{
	return rb_c_lines_split(l, p, len);
}

/* Line @i (0-based) without its newline. */
static const char *line_at(const struct rb_c_lines *l, size_t i, size_t *len)
{
	return rb_c_line(l, i, len);
}

/* ---- read_file ---- */

static int tool_read_file(struct rb_model_tools *t, struct args *a,
			  struct rb_buf *out)
{
	const char *path;
	size_t plen, i, n;
	long long start, end;
	git_blob *blob = NULL;
	struct rb_c_lines l = { 0 };
	int side, ret;

	ret = arg_str(a, "path", true, &path, &plen, MAX_PATH);
	if (!ret)
		ret = arg_side(t, a, &side);
	if (!ret)
		ret = arg_int(a, "start", 1, 1, 100000000, &start);
	if (!ret)
		ret = arg_int(a, "end", start + READ_DEFAULT - 1, 1, 100000000,
			      &end);
	if (ret)
		return ret;
	if (!path_ok(path, plen, false))
		return rb_buf_puts(a->err, "error: path must be a relative "
					   "path in the tree, without \".\" "
					   "or \"..\"\n") ?:
		       -RB_EINVAL;
	if (end < start)
		return rb_buf_puts(a->err, "error: end is before start\n") ?:
			       -RB_EINVAL;
	ret = blob_at(&blob, t, side, path, a->err);
	if (ret)
		return ret;
	if (git_blob_is_binary(blob)) {
		ret = rb_buf_puts(a->err, "error: a binary file\n") ?:
								      -RB_EINVAL;
		goto out;
	}
	ret = lines_split(&l, git_blob_rawcontent(blob),
			  (size_t)git_blob_rawsize(blob));
	if (ret)
		goto out;
	if (end - start + 1 > READ_MAX)
		end = start + READ_MAX - 1;
	if ((size_t)start > l.n) {
		ret = rb_buf_printf(out, "%s at %s has %zu lines\n", path,
				    side_name(side), l.n);
		goto out;
	}
	if ((size_t)end > l.n)
		end = (long long)l.n;
	ret = rb_buf_printf(out, "%s at %s, lines %lld-%lld of %zu:\n", path,
			    side_name(side), start, end, l.n);
	for (i = (size_t)start - 1; !ret && i < (size_t)end; i++) {
		const char *s = line_at(&l, i, &n);

		ret = rb_buf_printf(out, "%zu\t", i + 1);
		if (!ret)
			ret = put_text(out, s, n);
		if (!ret)
			ret = rb_buf_putc(out, '\n');
	}
out:
	lines_release(&l);
	git_blob_free(blob);
	return ret;
}

/* ---- the files of a tree ---- */

struct walk {
	struct side *s;
	int ret;
};

static int walk_cb(const char *root, const git_tree_entry *e, void *arg)
{
	struct walk *w = arg;
	struct side *s = w->s;
	const char *name = git_tree_entry_name(e);
	struct tfile *v;
	size_t rl = strlen(root), nl = strlen(name);

	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    git_tree_entry_filemode(e) == GIT_FILEMODE_LINK)
		return 0;
	v = rb_grow(s->f, &s->cap, s->n, sizeof(*s->f));
	if (!v)
		goto nomem;
	s->f = v;
	v = &s->f[s->n];
	v->path = malloc(rl + nl + 1);
	if (!v->path)
		goto nomem;
	memcpy(v->path, root, rl);
	memcpy(v->path + rl, name, nl + 1);
	git_oid_cpy(&v->oid, git_tree_entry_id(e));
	s->n++;
	return 0;
nomem:
	w->ret = rb_err(RB_ENOMEM, "model tools: out of memory");
	return -1;
}

/* The blobs of tree @side, in tree order (read once per tools object). */
static int side_load(struct rb_model_tools *t, int side)
{
	struct side *s = &t->sides[side];
	struct walk w = { s, 0 };
	git_tree *tree = NULL;

	if (s->loaded)
		return 0;
	if (git_tree_lookup(&tree, t->ctx.repo, side_tree(t, side)) < 0)
		return rb_err(RB_EIO, "model tools: the %s tree cannot be read",
			      side_name(side));
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &w) < 0 && !w.ret)
		w.ret = rb_err(RB_EIO,
			       "model tools: the %s tree cannot be "
			       "walked",
			       side_name(side));
	git_tree_free(tree);
	if (w.ret) {
		side_release(s);
		return w.ret;
	}
	s->loaded = true;
	return 0;
}

/* ---- the search engine ---- */

enum smode { S_GREP, S_DEF, S_CALLERS };

/*
 * A regular expression from the model. glibc's regexec() has no bound:
 * ".*a" and 20 dots (issue 33) took one call 144 s and 669 MiB. PCRE2's
 * backtracking matcher runs here under a step limit, a depth limit and
 * a heap limit for each line (the pattern's own (*LIMIT_...) can only
 * lower them); a line that hits one counts as no match and as costly,
 * and a search stops after REGEX_COSTLY of them. Bytes, not UTF-8: tree
 * text may be anything, and (*UTF) is refused.
 */
struct grep_re {
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	size_t costly; /* lines whose match hit a limit */
};

static void grep_re_free(struct grep_re *g)
{
	pcre2_match_data_free(g->md);
	pcre2_match_context_free(g->mc);
	pcre2_code_free(g->code);
	memset(g, 0, sizeof(*g));
}

/* 0, -RB_EINVAL with the reason in @err, or -RB_ENOMEM. */
static int grep_re_compile(struct grep_re *g, const char *pat, size_t len,
			   struct rb_buf *err)
{
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE at = 0;
	int code = 0, ret = 0;

	memset(g, 0, sizeof(*g));
	if (!cc)
		return rb_err(RB_ENOMEM, "model tools: out of memory");
	pcre2_set_max_pattern_length(cc, MAX_PATTERN);
	pcre2_set_parens_nest_limit(cc, REGEX_NEST);
	g->code = pcre2_compile((PCRE2_SPTR)pat, len,
				PCRE2_NEVER_UTF | PCRE2_NEVER_UCP |
					PCRE2_NEVER_BACKSLASH_C,
				&code, &at, cc);
	pcre2_compile_context_free(cc);
	if (!g->code) {
		if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
			snprintf((char *)msg, sizeof(msg), "error %d", code);
		ret = rb_buf_printf(err,
				    "error: not a regex (PCRE2, Perl syntax): "
				    "%s at offset %zu\n",
				    (char *)msg, (size_t)at) ?:
			      -RB_EINVAL;
		grep_re_free(g);
		return ret;
	}
	g->md = pcre2_match_data_create(1, NULL);
	g->mc = pcre2_match_context_create(NULL);
	if (!g->md || !g->mc) {
		grep_re_free(g);
		return rb_err(RB_ENOMEM, "model tools: out of memory");
	}
	pcre2_set_match_limit(g->mc, REGEX_STEPS);
	pcre2_set_depth_limit(g->mc, REGEX_DEPTH);
	pcre2_set_heap_limit(g->mc, REGEX_HEAP_KIB);
	return 0;
}

/* Does the line @s[0..@n) match? A line over a limit is no match. */
static bool grep_re_match(struct grep_re *g, const char *s, size_t n)
{
	int rc = pcre2_match(g->code, (PCRE2_SPTR)s, n, 0, 0, g->md, g->mc);

	if (rc >= 0)
		return true;
	if (rc != PCRE2_ERROR_NOMATCH && rc != PCRE2_ERROR_PARTIAL)
		g->costly++; /* MATCHLIMIT, DEPTHLIMIT, HEAPLIMIT, NOMEMORY */
	return false;
}

struct search {
	struct rb_model_tools *t;
	enum smode mode;
	int side;
	const char *pat; /* fixed string or symbol */
	size_t plen;
	struct grep_re *re;
	const char *prefix;
	size_t prefix_len;
	double deadline;
	bool timed_out;
	bool too_costly; /* the regex hit its limits on too many lines */
	size_t rows, more, files;
	size_t max_rows;
	struct rb_buf *out;
	struct drow {
		int rank;
		size_t off, len;
	} * drows; /* find_definition's rows, in the order found */
	size_t ndcap;
	struct rb_code_index *wi; /* borrowed from t */
	uint8_t *cand; /* blobs of wi that can match, or NULL: any */
	bool collect; /* rb_model_tools_find_defs(): rows into coll */
	struct rb_model_tools_def *coll;
	size_t ccoll;
};

static struct rb_code_index *widx_get(struct rb_model_tools *t);
static double call_deadline(const struct rb_model_tools *t);

static bool c_file(const char *path)
{
	size_t n = strlen(path);

	return n > 2 && path[n - 2] == '.' &&
	       (path[n - 1] == 'c' || path[n - 1] == 'h');
}

/* Does @s[0..@n) hold @w as a whole word? Its offset, or -1. */
static long find_word(const char *s, size_t n, const char *w, size_t wl)
{
	return rb_c_find_word(s, n, w, wl);
}

static int emit_row(struct search *sr, const char *path, size_t line,
		    const char *text, size_t tlen, const char *fn, size_t fnlen)
{
	struct rb_buf *o = sr->out;
	int ret;

	if (sr->rows >= sr->max_rows) {
		sr->more++;
		return 0;
	}
	sr->rows++;
	ret = put_line(o, path, strlen(path));
	if (!ret)
		ret = rb_buf_printf(o, ":%zu:", line);
	if (!ret && fn) {
		ret = rb_buf_puts(o, " [");
		if (!ret)
			ret = put_line(o, fn, fnlen);
		if (!ret)
			ret = rb_buf_puts(o, "()] ");
	}
	if (!ret)
		ret = put_line(o, text, tlen);
	return ret ? ret : rb_buf_putc(o, '\n');
}

/*
 * Whether the call is over: its deadline passed (looked at every
 * DEADLINE_LINES lines, so that it holds inside a blob too), or its
 * regex was too costly. Sets what the footer says.
 */
static bool search_over(struct search *sr, size_t line)
{
	if (sr->re && sr->re->costly >= REGEX_COSTLY) {
		sr->too_costly = true;
		return true;
	}
	if (line % DEADLINE_LINES == 0 && now_s() > sr->deadline) {
		sr->timed_out = true;
		return true;
	}
	return sr->timed_out;
}

static int search_grep(struct search *sr, const char *path,
		       const struct rb_c_lines *l)
{
	size_t i, n;
	int ret = 0;

	for (i = 0; i < l->n && !ret && !search_over(sr, i); i++) {
		const char *s = line_at(l, i, &n);
		bool hit;

		if (sr->re)
			/* A regex sees the first REGEX_LINE bytes of a line. */
			hit = grep_re_match(sr->re, s,
					    n > REGEX_LINE ? REGEX_LINE : n);
		else
			hit = memmem(s, n, sr->pat, sr->plen) != NULL;
		if (hit)
			ret = emit_row(sr, path, i + 1, s, n, NULL, 0);
	}
	return ret;
}

/*
 * Where a definition is: the kernel's own first, then the architectures',
 * then the copies and stand-ins of tools/, scripts/ and the like, which
 * would otherwise come first in tree order.
 */
static int def_rank(const char *path)
{
	static const char *const far[] = { "tools/", "scripts/", "samples/",
					   "Documentation/", "usr/" };
	size_t i;

	for (i = 0; i < sizeof(far) / sizeof(*far); i++)
		if (!strncmp(path, far[i], strlen(far[i])))
			return 2;
	return strncmp(path, "arch/", 5) ? 0 : 1;
}

/* A definition row starts here: where, and of which rank. */
static int def_row(struct search *sr, const char *path)
{
	struct drow *v =
		rb_grow(sr->drows, &sr->ndcap, sr->rows, sizeof(*sr->drows));

	if (!v)
		return rb_err(RB_ENOMEM, "model tools: out of memory");
	sr->drows = v;
	v[sr->rows].rank = def_rank(path);
	v[sr->rows].off = sr->out->len;
	sr->rows++;
	return 0;
}

static int drow_cmp(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * The definitions found, best ranked first, DEFS_MAX of them, from the
 * text in @tmp (each row from its offset to the next one's).
 */
static int def_output(struct search *sr, struct rb_buf *tmp, struct rb_buf *out)
{
	size_t i, n = sr->rows;
	int ret = 0;

	for (i = 0; i < n; i++)
		sr->drows[i].len =
			(i + 1 < n ? sr->drows[i + 1].off : tmp->len) -
			sr->drows[i].off;
	if (n)
		qsort(sr->drows, n, sizeof(*sr->drows), drow_cmp);
	for (i = 0; i < n && i < DEFS_MAX && !ret; i++) {
		if (i)
			ret = rb_buf_putc(out, '\n');
		if (!ret)
			ret = rb_buf_add(out, tmp->ptr + sr->drows[i].off,
					 sr->drows[i].len);
	}
	if (n > DEFS_MAX)
		sr->more += n - DEFS_MAX;
	sr->rows = n < DEFS_MAX ? n : DEFS_MAX;
	return ret;
}

/* A definition found for rb_model_tools_find_defs(): kept, not written. */
static int def_collect(struct search *sr, const char *path, size_t i,
		       const char *kind)
{
	struct rb_model_tools_def *v =
		rb_grow(sr->coll, &sr->ccoll, sr->rows, sizeof(*sr->coll));

	if (!v)
		return rb_err(RB_ENOMEM, "model tools: out of memory");
	sr->coll = v;
	v += sr->rows;
	memset(v, 0, sizeof(*v));
	v->path = strdup(path);
	if (!v->path)
		return rb_err(RB_ENOMEM, "model tools: out of memory");
	v->line = i + 1;
	v->kind = kind;
	v->rank = def_rank(path);
	sr->rows++;
	return 0;
}

static int search_def(struct search *sr, const char *path,
		      const struct rb_c_lines *l)
{
	size_t i, k, n, span;
	int ret = 0;

	for (i = 0; i < l->n && !ret && !search_over(sr, i); i++) {
		const char *kind = rb_c_def_kind(l, i, sr->pat, sr->plen);

		if (!kind)
			continue;
		if (sr->rows >= sr->max_rows) {
			sr->more++;
			continue;
		}
		if (sr->collect) {
			ret = def_collect(sr, path, i, kind);
			continue;
		}
		ret = def_row(sr, path);
		if (ret)
			break;
		span = rb_c_def_span(l, i, kind, DEF_LINES);
		ret = put_line(sr->out, path, strlen(path));
		if (!ret)
			ret = rb_buf_printf(sr->out, ":%zu: %s\n", i + 1, kind);
		for (k = i; !ret && k < i + span; k++) {
			const char *s = line_at(l, k, &n);

			ret = rb_buf_printf(sr->out, "%zu\t", k + 1);
			if (!ret)
				ret = put_line(sr->out, s, n);
			if (!ret)
				ret = rb_buf_putc(sr->out, '\n');
		}
		if (!ret && span == DEF_LINES)
			ret = rb_buf_puts(sr->out, "[... read_file for the "
						   "rest]\n");
	}
	return ret;
}

static int search_callers(struct search *sr, const char *path,
			  const struct rb_c_lines *l)
{
	const char *fn = NULL;
	size_t i, n, fnlen = 0;
	int ret = 0;

	for (i = 0; i < l->n && !ret && !search_over(sr, i); i++) {
		const char *s = line_at(l, i, &n), *nm;
		size_t nml;
		long at;

		if (n && s[0] == '}') {
			fn = NULL;
			continue;
		}
		if (n && rb_c_fn_header(s, n, &nm, &nml)) {
			fn = nm;
			fnlen = nml;
		}
		at = find_word(s, n, sr->pat, sr->plen);
		if (at < 0 || rb_c_comment_line(s, n))
			continue;
		/* Definitions and prototypes start in column 0. */
		if (s[0] != ' ' && s[0] != '\t' && s[0] != '#')
			continue;
		if (s[0] == '#' && rb_c_def_kind(l, i, sr->pat, sr->plen))
			continue;
		ret = emit_row(sr, path, i + 1, s, n, s[0] == '#' ? NULL : fn,
			       fnlen);
	}
	return ret;
}

/* Could blob @f hold a match? (The word index; true without it.) */
static bool may_match(struct search *sr, const struct tfile *f);

/* Before the lines are split: is the text there at all? */
static bool blob_may_match(const struct search *sr, const char *p, size_t n)
{
	if (sr->re)
		return true;
	if (sr->mode == S_GREP)
		return memmem(p, n, sr->pat, sr->plen) != NULL;
	return find_word(p, n, sr->pat, sr->plen) >= 0;
}

static int search_run(struct search *sr)
{
	struct rb_model_tools *t = sr->t;
	struct side *s;
	size_t i;
	int ret = side_load(t, sr->side);

	if (ret)
		return ret;
	/* Regular expressions read every blob (no literal is taken out). */
	if (!sr->re && t->ctx.base_tree) {
		sr->wi = widx_get(t);
		if (sr->wi)
			ret = rb_code_index_cand(&sr->cand, sr->wi, sr->pat,
						 sr->plen, sr->mode != S_GREP);
		if (ret)
			return ret;
		/* Building the index is not this call's time. */
		sr->deadline = call_deadline(t);
	}
	s = &t->sides[sr->side];
	for (i = 0; i < s->n && !ret; i++) {
		const struct tfile *f = &s->f[i];
		git_blob *blob = NULL;
		struct rb_c_lines l;

		if (sr->prefix_len &&
		    strncmp(f->path, sr->prefix, sr->prefix_len))
			continue;
		if (sr->mode != S_GREP && !c_file(f->path))
			continue;
		if (!may_match(sr, f))
			continue;
		if (search_over(sr, 0))
			break;
		/* Full: counting the rest would read every candidate. */
		if (sr->more)
			break;
		if (git_blob_lookup(&blob, t->ctx.repo, &f->oid) < 0)
			continue;
		if (git_blob_rawsize(blob) > BLOB_MAX ||
		    git_blob_is_binary(blob)) {
			git_blob_free(blob);
			continue;
		}
		sr->files++;
		if (!blob_may_match(sr, git_blob_rawcontent(blob),
				    (size_t)git_blob_rawsize(blob))) {
			git_blob_free(blob);
			continue;
		}
		ret = lines_split(&l, git_blob_rawcontent(blob),
				  (size_t)git_blob_rawsize(blob));
		if (!ret) {
			if (sr->mode == S_GREP)
				ret = search_grep(sr, f->path, &l);
			else if (sr->mode == S_DEF)
				ret = search_def(sr, f->path, &l);
			else
				ret = search_callers(sr, f->path, &l);
			lines_release(&l);
		}
		git_blob_free(blob);
	}
	free(sr->cand);
	sr->cand = NULL;
	return ret;
}

/* ---- the word index (review/code/code_index.h) ---- */

/* The index of @t's base tree: shared, loaded or built on first use. */
static struct rb_code_index *widx_get(struct rb_model_tools *t)
{
	if (t->wi || t->wi_failed)
		return t->wi;
	if (rb_code_index_get(&t->wi, t->ctx.repo, &t->base_tree)) {
		rb_log(RB_LOG_WARN, "model.tools_index", "error", rb_errmsg(),
		       NULL);
		rb_err_clear();
		t->wi = NULL;
	}
	t->wi_failed = !t->wi;
	return t->wi;
}

static bool may_match(struct search *sr, const struct tfile *f)
{
	uint32_t k;

	if (!sr->cand)
		return true;
	k = rb_code_index_blob(sr->wi, &f->oid);
	/* Not in the base tree's index (the series changed it): read it. */
	if (k == RB_CODE_INDEX_NONE)
		return true;
	return sr->cand[k >> 3] & (1u << (k & 7));
}

/* ---- grep, find_definition, find_callers ---- */

static double call_deadline(const struct rb_model_tools *t)
{
	double end = (double)t->start.tv_sec + (double)t->start.tv_nsec / 1e9 +
		     t->lim.max_seconds;
	double call = now_s() + CALL_SECONDS;

	return call < end ? call : end;
}

static int search_footer(struct search *sr, const char *none)
{
	int ret = 0;

	if (!sr->rows)
		ret = rb_buf_printf(sr->out, "%s\n", none);
	if (!ret && sr->more)
		ret = rb_buf_puts(sr->out,
				  "[more not shown: narrow the search, "
				  "e.g. with path_prefix]\n");
	if (!ret && sr->timed_out)
		ret = rb_buf_puts(sr->out, "[the search stopped at its time "
					   "limit: results are partial]\n");
	if (!ret && sr->too_costly)
		ret = rb_buf_printf(
			sr->out,
			"[the regex is too costly: it hit its "
			"step or memory limit on %d lines, and the "
			"search stopped there: results are partial; "
			"simplify it]\n",
			REGEX_COSTLY);
	return ret;
}

static int arg_prefix(struct args *a, struct search *sr)
{
	int ret = arg_str(a, "path_prefix", false, &sr->prefix, &sr->prefix_len,
			  MAX_PATH);

	if (!ret && sr->prefix_len &&
	    !path_ok(sr->prefix, sr->prefix_len, true))
		return rb_buf_puts(a->err, "error: path_prefix must be a "
					   "relative path in the tree\n") ?:
		       -RB_EINVAL;
	return ret;
}

static int tool_grep(struct rb_model_tools *t, struct args *a,
		     struct rb_buf *out)
{
	struct search sr = {
		.t = t, .mode = S_GREP, .out = out, .max_rows = GREP_ROWS
	};
	struct grep_re re;
	bool regex;
	int ret;

	ret = arg_str(a, "pattern", true, &sr.pat, &sr.plen, MAX_PATTERN);
	if (!ret)
		ret = arg_bool(a, "regex", &regex);
	if (!ret)
		ret = arg_side(t, a, &sr.side);
	if (!ret)
		ret = arg_prefix(a, &sr);
	if (ret)
		return ret;
	if (!sr.plen || memchr(sr.pat, '\n', sr.plen))
		return rb_buf_puts(a->err, "error: the pattern must be one "
					   "line, not empty\n") ?:
		       -RB_EINVAL;
	if (regex) {
		ret = grep_re_compile(&re, sr.pat, sr.plen, a->err);
		if (ret)
			return ret;
		sr.re = &re;
	}
	sr.deadline = call_deadline(t);
	ret = search_run(&sr);
	if (!ret)
		ret = search_footer(&sr, "no match");
	if (regex)
		grep_re_free(&re);
	return ret;
}

static int arg_symbol(struct rb_model_tools *t, struct args *a,
		      struct search *sr)
{
	size_t i;
	int ret;

	ret = arg_str(a, "symbol", true, &sr->pat, &sr->plen, MAX_SYMBOL);
	if (!ret)
		ret = arg_side(t, a, &sr->side);
	if (ret)
		return ret;
	for (i = 0; i < sr->plen; i++)
		if (!is_word((unsigned char)sr->pat[i]))
			break;
	if (!sr->plen || i < sr->plen || isdigit((unsigned char)sr->pat[0]))
		return rb_buf_puts(a->err, "error: symbol must be a C "
					   "identifier\n") ?:
		       -RB_EINVAL;
	sr->deadline = call_deadline(t);
	return 0;
}

static int tool_find_definition(struct rb_model_tools *t, struct args *a,
				struct rb_buf *out)
{
	struct rb_buf tmp = RB_BUF_INIT(WORK_MAX);
	struct search sr = {
		.t = t, .mode = S_DEF, .out = &tmp, .max_rows = DEFS_KEEP
	};
	int ret = arg_symbol(t, a, &sr);

	if (!ret)
		ret = search_run(&sr);
	/* Full: the rows kept are whole, the rest were not written. */
	if (ret == -RB_ETOOBIG && sr.rows)
		ret = 0;
	if (!ret)
		ret = def_output(&sr, &tmp, out);
	sr.out = out;
	if (!ret)
		ret = search_footer(&sr, "no definition found");
	free(sr.drows);
	rb_buf_release(&tmp);
	return ret;
}

static int tool_find_callers(struct rb_model_tools *t, struct args *a,
			     struct rb_buf *out)
{
	struct search sr = {
		.t = t, .mode = S_CALLERS, .out = out, .max_rows = CALLER_ROWS
	};
	int ret = arg_symbol(t, a, &sr);

	if (!ret)
		ret = arg_prefix(a, &sr);
	if (!ret)
		ret = search_run(&sr);
	if (!ret)
		ret = search_footer(&sr, "no callers found");
	return ret;
}

static int def_cmp(const void *a, const void *b)
{
	const struct rb_model_tools_def *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->order < y->order ? -1 : x->order > y->order;
}

void rb_model_tools_defs_free(struct rb_model_tools_def *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i].path);
	free(v);
}

int rb_model_tools_find_defs(struct rb_model_tools_def **out, size_t *n,
			     struct rb_model_tools *t, const char *sym,
			     bool base)
{
	struct search sr = {
		.t = t, .mode = S_DEF, .max_rows = DEFS_KEEP, .collect = true
	};
	size_t i, sl = sym ? strlen(sym) : 0;
	int ret;

	*out = NULL;
	*n = 0;
	if (!t || !t->ctx.repo || !sl || sl > MAX_SYMBOL ||
	    isdigit((unsigned char)sym[0]))
		return 0;
	for (i = 0; i < sl; i++)
		if (!is_word((unsigned char)sym[i]))
			return 0;
	sr.side = base ? 0 : 1;
	if (sr.side == 1 && !t->ctx.tip_tree)
		sr.side = 0;
	if (sr.side == 0 && !t->ctx.base_tree)
		return 0;
	sr.pat = sym;
	sr.plen = sl;
	if (!t->started) {
		clock_gettime(CLOCK_MONOTONIC, &t->start);
		t->started = true;
	}
	sr.deadline = call_deadline(t);
	ret = search_run(&sr);
	if (ret) {
		rb_model_tools_defs_free(sr.coll, sr.rows);
		return ret;
	}
	for (i = 0; i < sr.rows; i++)
		sr.coll[i].order = i;
	if (sr.rows)
		qsort(sr.coll, sr.rows, sizeof(*sr.coll), def_cmp);
	*out = sr.coll;
	*n = sr.rows;
	return 0;
}

size_t rb_model_tools_word_blobs(struct rb_model_tools *t, const char *word)
{
	struct rb_code_index *w;

	if (!t || !t->ctx.repo || !t->ctx.base_tree || !word)
		return SIZE_MAX;
	w = widx_get(t);
	if (!w)
		return SIZE_MAX;
	return rb_code_index_word_blobs(w, word, strlen(word));
}

void rb_model_tools_drop_index(void)
{
	rb_code_index_drop();
}

int rb_model_tools_put_text(struct rb_buf *b, const char *s, size_t len)
{
	return put_text_nl(b, s, len, false);
}

/* ---- the series ---- */

static int tool_show_patch(struct rb_model_tools *t, struct args *a,
			   struct rb_buf *out)
{
	long long i;
	int ret;
	const char *p;

	if (!t->ctx.n_patches)
		return rb_buf_puts(a->err, "error: no patches\n") ?: -RB_EINVAL;
	ret = arg_int(a, "index", 0, 1, (long long)t->ctx.n_patches, &i);
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
			ret = put_text(out, tmp.ptr, tmp.len);
		rb_buf_release(&tmp);
		return ret;
	}
	return ret ? ret : put_text(out, p, strlen(p));
}

static int tool_text(const char *text, const char *none, struct rb_buf *out)
{
	if (!text || !*text)
		return rb_buf_printf(out, "%s\n", none);
	return put_text(out, text, strlen(text));
}

/* ---- path_history ---- */

/* The entry id of @path in @c's tree; false when there is none. */
static bool path_id(git_commit *c, const char *path, git_oid *out)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	bool ok = false;

	if (git_commit_tree(&tree, c) == 0 &&
	    git_tree_entry_bypath(&e, tree, path) == 0) {
		git_oid_cpy(out, git_tree_entry_id(e));
		ok = true;
	}
	git_tree_entry_free(e);
	git_tree_free(tree);
	return ok;
}

static int tool_path_history(struct rb_model_tools *t, struct args *a,
			     struct rb_buf *out)
{
	git_revwalk *w = NULL;
	const char *path;
	size_t plen, walked = 0, listed = 0;
	long long max;
	git_oid id;
	double deadline = call_deadline(t);
	int ret;

	ret = arg_str(a, "path", true, &path, &plen, MAX_PATH);
	if (!ret)
		ret = arg_int(a, "max", HIST_DEFAULT, 1, HIST_MAX, &max);
	if (ret)
		return ret;
	if (!path_ok(path, plen, true))
		return rb_buf_puts(a->err, "error: path must be a relative "
					   "path in the tree, without \".\" "
					   "or \"..\"\n") ?:
		       -RB_EINVAL;
	if (plen > 1 && path[plen - 1] == '/')
		plen--;
	if (!t->ctx.base_commit)
		return rb_buf_puts(out, "no history: the base is not a commit "
					"of a tree with history\n");
	if (git_revwalk_new(&w, t->ctx.repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TIME) < 0 ||
	    git_revwalk_push(w, &t->base_commit) < 0) {
		ret = rb_buf_puts(out, "no history: the base commit cannot be "
				       "read\n");
		goto out;
	}
	{
		char *p = strndup(path, plen);

		if (!p) {
			ret = rb_err(RB_ENOMEM, "model tools: out of memory");
			goto out;
		}
		while (!ret && listed < (size_t)max && walked < HIST_WALK &&
		       git_revwalk_next(&id, w) == 0) {
			git_commit *c = NULL;
			git_oid mine, theirs;
			bool have, touched = true;
			unsigned int k, np;

			if (++walked % 64 == 0 && now_s() > deadline)
				break;
			if (git_commit_lookup(&c, t->ctx.repo, &id) < 0)
				continue;
			have = path_id(c, p, &mine);
			np = git_commit_parentcount(c);
			/* Like git log's default: same as some parent, skip. */
			for (k = 0; k < np && touched; k++) {
				git_commit *par = NULL;

				if (git_commit_parent(&par, c, k) < 0)
					continue;
				if (path_id(par, p, &theirs) ?
					    have && git_oid_equal(&mine,
								  &theirs) :
					    !have)
					touched = false;
				git_commit_free(par);
			}
			if (touched && (have || np)) {
				const char *sum = git_commit_summary(c);
				char hex[13];

				git_oid_tostr(hex, sizeof(hex), &id);
				ret = rb_buf_printf(out, "%s ", hex);
				if (!ret && sum)
					ret = put_line(out, sum, strlen(sum));
				if (!ret)
					ret = rb_buf_putc(out, '\n');
				listed++;
			}
			git_commit_free(c);
		}
		free(p);
	}
	if (!ret && !listed)
		ret = rb_buf_printf(out,
				    "no commit changes this path in the "
				    "%zu commits walked\n",
				    walked);
	else if (!ret && listed < (size_t)max && walked >= HIST_WALK)
		ret = rb_buf_printf(out, "[stopped after %zu commits]\n",
				    walked);
out:
	git_revwalk_free(w);
	return ret;
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

/* ---- history: blame, show_commit, log ---- */

/* "2024-05-01" of a commit's time, into @b (11 bytes). */
static void commit_date(const git_commit *c, char b[11])
{
	time_t tt = (time_t)git_commit_time(c);
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(b, 11, "%Y-%m-%d", &tm))
		snprintf(b, 11, "%s", "unknown");
}

/* "0123456789ab 2024-05-01 subject\n" */
static int commit_row(struct rb_buf *out, const git_commit *c)
{
	const char *sum = git_commit_summary((git_commit *)c);
	char hex[13], date[11];
	int ret;

	git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
	commit_date(c, date);
	ret = rb_buf_printf(out, "%s %s ", hex, date);
	if (!ret && sum)
		ret = put_line(out, sum, strlen(sum));
	return ret ? ret : rb_buf_putc(out, '\n');
}

/* The relative path argument "path" of a history tool, checked. */
static int arg_path(struct args *a, bool dir, const char **path, size_t *plen)
{
	int ret = arg_str(a, "path", true, path, plen, MAX_PATH);

	if (ret)
		return ret;
	if (!path_ok(*path, *plen, dir))
		return rb_buf_puts(a->err, "error: path must be a relative "
					   "path in the tree, without \".\" "
					   "or \"..\"\n") ?:
		       -RB_EINVAL;
	return 0;
}

/*
 * The commit BLAME_DEPTH first parents below the base, where blame
 * stops (libgit2's blame cannot be interrupted; this bounds its walk
 * along the first parents). false when the history is shorter.
 */
static bool blame_bound(git_repository *repo, const git_oid *base, git_oid *out)
{
	git_commit *c = NULL, *p = NULL;
	int k;

	if (git_commit_lookup(&c, repo, base) < 0)
		return false;
	for (k = 0; k < BLAME_DEPTH; k++) {
		if (git_commit_parentcount(c) == 0 ||
		    git_commit_parent(&p, c, 0) < 0) {
			git_commit_free(c);
			return false;
		}
		git_commit_free(c);
		c = p;
		p = NULL;
	}
	git_oid_cpy(out, git_commit_id(c));
	git_commit_free(c);
	return true;
}

static int tool_blame(struct rb_model_tools *t, struct args *a,
		      struct rb_buf *out)
{
	git_blame_options bo = GIT_BLAME_OPTIONS_INIT;
	git_blame *bl = NULL;
	git_blob *blob = NULL;
	struct rb_c_lines l = { 0 };
	git_oid seen[BLAME_COMMITS];
	size_t nseen = 0, i, n, plen;
	const char *path;
	long long start, end;
	char *p = NULL;
	int ret;

	ret = arg_path(a, false, &path, &plen);
	if (!ret)
		ret = arg_int(a, "start", 1, 1, 100000000, &start);
	if (!ret)
		ret = arg_int(a, "end", start + BLAME_DEFAULT - 1, 1, 100000000,
			      &end);
	if (ret)
		return ret;
	if (end < start)
		return rb_buf_puts(a->err, "error: end is before start\n") ?:
			       -RB_EINVAL;
	if (!t->ctx.base_commit || !t->ctx.base_tree)
		return rb_buf_puts(out, "no history: the base is not a commit "
					"of a tree with history\n");
	ret = blob_at(&blob, t, 0, path, a->err);
	if (ret)
		return ret;
	if (git_blob_is_binary(blob)) {
		ret = rb_buf_puts(a->err, "error: a binary file\n") ?:
								      -RB_EINVAL;
		goto out;
	}
	ret = lines_split(&l, git_blob_rawcontent(blob),
			  (size_t)git_blob_rawsize(blob));
	if (ret)
		goto out;
	if ((size_t)start > l.n) {
		ret = rb_buf_printf(out, "%s at base has %zu lines\n", path,
				    l.n);
		goto out;
	}
	if (end - start + 1 > BLAME_MAX)
		end = start + BLAME_MAX - 1;
	if ((size_t)end > l.n)
		end = (long long)l.n;
	p = strndup(path, plen);
	if (!p) {
		ret = rb_err(RB_ENOMEM, "model tools: out of memory");
		goto out;
	}
	git_oid_cpy(&bo.newest_commit, &t->base_commit);
	blame_bound(t->ctx.repo, &t->base_commit, &bo.oldest_commit);
	bo.min_line = (size_t)start;
	bo.max_line = (size_t)end;
	if (git_blame_file(&bl, t->ctx.repo, p, &bo) < 0) {
		const git_error *e = git_error_last();

		ret = rb_buf_printf(a->err, "error: blame failed: %s\n", e && e->message ? e->message : "libgit2") ?:
			      -RB_EINVAL;
		goto out;
	}
	ret = rb_buf_printf(out,
			    "%s at base, lines %lld-%lld of %zu: commit "
			    "(\"^\": the oldest looked at, the line may be "
			    "older), date, text\n",
			    path, start, end, l.n);
	for (i = (size_t)start; !ret && i <= (size_t)end; i++) {
		const git_blame_hunk *h = git_blame_get_hunk_byline(bl, i);
		git_commit *c = NULL;
		char hex[13] = "?", date[11] = "?";
		const char *s = line_at(&l, i - 1, &n);
		size_t k;

		if (h &&
		    !git_commit_lookup(&c, t->ctx.repo, &h->final_commit_id)) {
			git_oid_tostr(hex, sizeof(hex), &h->final_commit_id);
			commit_date(c, date);
			for (k = 0; k < nseen; k++)
				if (git_oid_equal(&seen[k],
						  &h->final_commit_id))
					break;
			if (k == nseen && nseen < BLAME_COMMITS)
				git_oid_cpy(&seen[nseen++],
					    &h->final_commit_id);
		}
		git_commit_free(c);
		ret = rb_buf_printf(out, "%zu\t%s%s %s\t", i,
				    h && h->boundary ? "^" : "", hex, date);
		if (!ret)
			ret = put_line(out, s, n);
		if (!ret)
			ret = rb_buf_putc(out, '\n');
	}
	if (!ret && nseen)
		ret = rb_buf_puts(out, "commits:\n");
	for (i = 0; !ret && i < nseen; i++) {
		git_commit *c = NULL;

		if (git_commit_lookup(&c, t->ctx.repo, &seen[i]) < 0)
			continue;
		ret = commit_row(out, c);
		git_commit_free(c);
	}
out:
	free(p);
	git_blame_free(bl);
	lines_release(&l);
	git_blob_free(blob);
	return ret;
}

/* Does the base come within SHOW_CHAIN first parents below @c? */
static bool on_base(const struct rb_model_tools *t, const git_commit *c)
{
	git_commit *cur = NULL, *p = NULL;
	bool hit = false;
	int k;

	if (git_commit_dup(&cur, (git_commit *)c) < 0)
		return false;
	for (k = 0; k < SHOW_CHAIN && !hit; k++) {
		if (!git_commit_parentcount(cur) ||
		    git_commit_parent(&p, cur, 0) < 0)
			break;
		hit = git_oid_equal(git_commit_id(p), &t->base_commit);
		git_commit_free(cur);
		cur = p;
		p = NULL;
	}
	git_commit_free(cur);
	return hit;
}

/*
 * Is @id the base commit or one of its ancestors? A walk from the base,
 * newest first, that stops at commits older than @id by more than the
 * clock skew git tolerates, at SHOW_WALK commits and at the deadline.
 * 1 yes, 0 no, -1 the walk stopped before it could tell.
 */
static int in_history(struct rb_model_tools *t, const git_commit *c)
{
	git_revwalk *w = NULL;
	const git_oid *id = git_commit_id(c);
	git_time_t when = git_commit_time(c);
	double deadline = call_deadline(t);
	size_t walked = 0;
	git_oid x;
	int ret = -1;

	if (git_oid_equal(id, &t->base_commit))
		return 1;
	/*
	 * The apply's commits (whose dates come from the mail) sit on the
	 * base: said at once, not after a walk down to their date.
	 */
	if (on_base(t, c))
		return 0;
	if (git_revwalk_new(&w, t->ctx.repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TIME) < 0 ||
	    git_revwalk_push(w, &t->base_commit) < 0)
		goto out;
	while (git_revwalk_next(&x, w) == 0) {
		git_commit *o = NULL;
		bool old;

		if (git_oid_equal(&x, id)) {
			ret = 1;
			goto out;
		}
		if (++walked > SHOW_WALK ||
		    (walked % 256 == 0 && now_s() > deadline))
			goto out;
		if (git_commit_lookup(&o, t->ctx.repo, &x) < 0)
			continue;
		old = git_commit_time(o) < when - SHOW_SKEW;
		git_commit_free(o);
		if (old)
			break;
	}
	ret = 0;
out:
	git_revwalk_free(w);
	return ret;
}

/* A commit id (hex, at least 7 digits) into *out, looked up. */
static int arg_commit(struct rb_model_tools *t, struct args *a,
		      git_commit **out)
{
	const char *s;
	size_t n, i;
	git_oid id;
	int ret = arg_str(a, "commit", true, &s, &n, GIT_OID_HEXSZ), r;

	*out = NULL;
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			break;
	if (n < 7 || i < n)
		return rb_buf_puts(a->err, "error: commit must be 7 to 40 hex "
					   "digits\n") ?:
		       -RB_EINVAL;
	r = git_oid_fromstrn(&id, s, n);
	if (!r)
		r = git_commit_lookup_prefix(out, t->ctx.repo, &id, n);
	if (r < 0) {
		*out = NULL;
		ret = rb_buf_printf(a->err, "error: %s %.40s in the tree\n",
				    r == GIT_EAMBIGUOUS ?
					    "more than one commit starts with" :
					    "no commit",
				    s);
		return ret ? ret : -RB_EINVAL;
	}
	r = in_history(t, *out);
	if (r != 1) {
		git_commit_free(*out);
		*out = NULL;
		ret = rb_buf_printf(a->err,
				    r ? "error: could not tell within the "
					"limits whether %.40s is in the "
					"history of the base commit\n" :
					"error: %.40s is not in the history of "
					"the base commit\n",
				    s);
		return ret ? ret : -RB_EINVAL;
	}
	return 0;
}

/* Stops git_patch_print() once @out holds @max bytes. */
struct print_cap {
	struct rb_buf *out;
	size_t max;
	bool cut;
	int ret;
};

static int print_line(const git_diff_delta *d, const git_diff_hunk *h,
		      const git_diff_line *l, void *arg)
{
	struct print_cap *pc = arg;
	int ret = 0;

	(void)d;
	(void)h;
	if (pc->out->len > pc->max) {
		pc->cut = true;
		return 1;
	}
	if (l->origin == '+' || l->origin == '-' || l->origin == ' ')
		ret = rb_buf_putc(pc->out, l->origin);
	if (!ret)
		ret = put_text(pc->out, l->content, l->content_len);
	pc->ret = ret;
	return ret ? 1 : 0;
}

static int tool_show_commit(struct rb_model_tools *t, struct args *a,
			    struct rb_buf *out)
{
	git_diff_options dopt = GIT_DIFF_OPTIONS_INIT;
	struct rb_buf msg = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct print_cap pc = { .out = out };
	git_commit *c = NULL, *par = NULL;
	git_tree *ct = NULL, *pt = NULL;
	git_diff *diff = NULL;
	const char *path = NULL, *m, *e;
	size_t plen = 0, nd, i, adds = 0, dels = 0;
	char hex[GIT_OID_HEXSZ + 1], date[11], *ps = NULL;
	unsigned int k;
	int ret;

	if (!t->ctx.base_commit)
		return rb_buf_puts(out, "no history: the base is not a commit "
					"of a tree with history\n");
	ret = arg_str(a, "path", false, &path, &plen, MAX_PATH);
	if (!ret && path && !path_ok(path, plen, true))
		ret = rb_buf_puts(a->err, "error: path must be a relative "
					  "path in the tree\n") ?:
			      -RB_EINVAL;
	if (!ret)
		ret = arg_commit(t, a, &c);
	if (ret)
		return ret;
	git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
	commit_date(c, date);
	ret = rb_buf_printf(out, "commit %s\nDate: %s\n", hex, date);
	for (k = 0; !ret && k < git_commit_parentcount(c); k++) {
		git_oid_tostr(hex, 13, git_commit_parent_id(c, k));
		ret = rb_buf_printf(out, "%s%s", k ? " " : "Parents: ", hex);
	}
	if (!ret && k)
		ret = rb_buf_putc(out, '\n');
	/* The message, without who signed what (model_prompt.h). */
	if (!ret)
		ret = rb_model_strip_trailers(&msg, git_commit_message(c));
	while (!ret && msg.len && isspace((unsigned char)msg.ptr[msg.len - 1]))
		rb_buf_truncate(&msg, msg.len - 1);
	if (!ret)
		ret = rb_buf_putc(out, '\n');
	for (m = msg.ptr; !ret && *m; m = e + 1) {
		e = strchr(m, '\n');
		ret = rb_buf_puts(out, "    ");
		if (!ret)
			ret = put_line(out, m, e ? (size_t)(e - m) : strlen(m));
		if (!ret)
			ret = rb_buf_putc(out, '\n');
		if (!e)
			break;
	}
	if (ret)
		goto out;
	/* The diff against the first parent (a root commit: everything). */
	if (git_commit_tree(&ct, c) < 0 ||
	    (git_commit_parentcount(c) && (git_commit_parent(&par, c, 0) < 0 ||
					   git_commit_tree(&pt, par) < 0))) {
		ret = rb_buf_puts(out, "\n(the trees of the commit cannot be "
				       "read)\n");
		goto out;
	}
	if (path) {
		if (plen > 1 && path[plen - 1] == '/')
			plen--;
		ps = strndup(path, plen);
		if (!ps) {
			ret = rb_err(RB_ENOMEM, "model tools: out of memory");
			goto out;
		}
		dopt.pathspec.strings = &ps;
		dopt.pathspec.count = 1;
		dopt.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	}
	if (git_diff_tree_to_tree(&diff, t->ctx.repo, pt, ct, &dopt) < 0) {
		ret = rb_buf_puts(out, "\n(the diff cannot be made)\n");
		goto out;
	}
	nd = git_diff_num_deltas(diff);
	ret = rb_buf_printf(out, "\n%zu file%s changed%s\n", nd,
			    nd == 1 ? "" : "s",
			    nd > SHOW_FILES ? ": the first paths (too many "
					      "for a diff; ask with path)" :
					      "");
	for (i = 0; !ret && i < nd && i < SHOW_FILES; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		git_patch *p = NULL;
		size_t pa = 0, pd = 0;
		const char *fp = d->new_file.path ? d->new_file.path :
						    d->old_file.path;

		ret = rb_buf_printf(out, " %c ",
				    git_diff_status_char(d->status));
		if (!ret)
			ret = put_line(out, fp, strlen(fp));
		if (!ret && nd <= SHOW_STAT_FILES &&
		    !git_patch_from_diff(&p, diff, i) && p &&
		    !git_patch_line_stats(NULL, &pa, &pd, p)) {
			ret = rb_buf_printf(out, " | +%zu -%zu", pa, pd);
			adds += pa;
			dels += pd;
		}
		git_patch_free(p);
		if (!ret)
			ret = rb_buf_putc(out, '\n');
	}
	if (!ret && nd > SHOW_FILES)
		ret = rb_buf_printf(out, " [%zu more]\n", nd - SHOW_FILES);
	if (!ret && nd <= SHOW_STAT_FILES)
		ret = rb_buf_printf(out, " +%zu -%zu\n\n", adds, dels);
	pc.max = out->len + SHOW_DIFF;
	for (i = 0; !ret && nd <= SHOW_STAT_FILES && i < nd && !pc.cut; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		git_patch *p = NULL;

		if (d->flags & GIT_DIFF_FLAG_BINARY ||
		    git_patch_from_diff(&p, diff, i) < 0 || !p)
			continue;
		git_patch_print(p, print_line, &pc);
		ret = pc.ret;
		git_patch_free(p);
	}
	if (!ret && pc.cut)
		ret = rb_buf_puts(out, "[diff cut: ask for one path with "
				       "\"path\"]\n");
out:
	free(ps);
	git_diff_free(diff);
	git_tree_free(ct);
	git_tree_free(pt);
	git_commit_free(par);
	git_commit_free(c);
	rb_buf_release(&msg);
	return ret;
}

/* Occurrences of @s (@n bytes) in @p (@len bytes), not overlapping. */
static size_t count_in(const char *p, size_t len, const char *s, size_t n)
{
	const char *e = p + len, *m;
	size_t k = 0;

	while (p < e && (m = memmem(p, (size_t)(e - p), s, n))) {
		k++;
		p = m + n;
	}
	return k;
}

/* The text of blob @id, or NULL (a zero id, binary or too big). */
static git_blob *text_blob(git_repository *repo, const git_diff_file *f)
{
	git_blob *b = NULL;

	if (git_oid_is_zero(&f->id) || git_blob_lookup(&b, repo, &f->id) < 0)
		return NULL;
	if (git_blob_rawsize(b) > BLOB_MAX || git_blob_is_binary(b)) {
		git_blob_free(b);
		return NULL;
	}
	return b;
}

struct pickaxe {
	const char *s; /* -S: a fixed string */
	size_t n;
	struct grep_re *re; /* -G: a regex over added and removed lines */
	size_t blobs; /* blob pairs looked at, against LOG_BLOBS */
};

/* Does one changed file of a commit match -S or -G? */
static int pickaxe_file(struct pickaxe *pk, git_repository *repo,
			git_diff *diff, size_t i, bool *hit)
{
	const git_diff_delta *d = git_diff_get_delta(diff, i);
	git_patch *p = NULL;
	size_t h, nh, j, nl;
	int ret = 0;

	*hit = false;
	pk->blobs++;
	if (!pk->re) {
		git_blob *a = text_blob(repo, &d->old_file);
		git_blob *b = text_blob(repo, &d->new_file);

		*hit = (a || b) &&
		       count_in(a ? git_blob_rawcontent(a) : "",
				a ? (size_t)git_blob_rawsize(a) : 0, pk->s,
				pk->n) !=
			       count_in(b ? git_blob_rawcontent(b) : "",
					b ? (size_t)git_blob_rawsize(b) : 0,
					pk->s, pk->n);
		git_blob_free(a);
		git_blob_free(b);
		return 0;
	}
	if (d->flags & GIT_DIFF_FLAG_BINARY || d->old_file.size > BLOB_MAX ||
	    d->new_file.size > BLOB_MAX ||
	    git_patch_from_diff(&p, diff, i) < 0 || !p)
		return 0;
	nh = git_patch_num_hunks(p);
	for (h = 0; h < nh && !*hit; h++) {
		nl = (size_t)git_patch_num_lines_in_hunk(p, h);
		for (j = 0; j < nl && !*hit; j++) {
			const git_diff_line *l = NULL;
			size_t n;

			if (git_patch_get_line_in_hunk(&l, p, h, j) < 0 ||
			    (l->origin != '+' && l->origin != '-'))
				continue;
			/* A regex sees the first REGEX_LINE bytes of a line,
			 * under grep's limits (grep_re). */
			n = l->content_len;
			if (n && l->content[n - 1] == '\n')
				n--;
			if (n > REGEX_LINE)
				n = REGEX_LINE;
			*hit = grep_re_match(pk->re, l->content, n);
			if (pk->re->costly >= REGEX_COSTLY)
				break;
		}
	}
	git_patch_free(p);
	return ret;
}

static int tool_log(struct rb_model_tools *t, struct args *a,
		    struct rb_buf *out)
{
	git_diff_options dopt = GIT_DIFF_OPTIONS_INIT;
	struct pickaxe pk = { 0 };
	git_revwalk *w = NULL;
	const char *path, *s, *g;
	size_t plen, sn, gn, walked = 0, listed = 0, i;
	long long max;
	double deadline = call_deadline(t);
	const char *why = NULL;
	char *p = NULL;
	struct grep_re re = { 0 };
	bool have_re = false;
	git_oid id;
	int ret;

	ret = arg_path(a, true, &path, &plen);
	if (!ret)
		ret = arg_str(a, "S", false, &s, &sn, MAX_PATTERN);
	if (!ret)
		ret = arg_str(a, "G", false, &g, &gn, MAX_PATTERN);
	if (!ret)
		ret = arg_int(a, "max", LOG_DEFAULT, 1, LOG_MAX, &max);
	if (ret)
		return ret;
	if (!s == !g || (s && !sn) || (g && !gn) ||
	    (s && memchr(s, '\n', sn)) || (g && memchr(g, '\n', gn)))
		return rb_buf_puts(a->err, "error: give one of S (a string) or "
					   "G (a regex), one line, not "
					   "empty\n") ?:
		       -RB_EINVAL;
	if (g) {
		/* The grep tool's regular expressions, under its limits. */
		ret = grep_re_compile(&re, g, gn, a->err);
		if (ret)
			return ret;
		have_re = true;
		pk.re = &re;
	} else {
		pk.s = s;
		pk.n = sn;
	}
	if (plen > 1 && path[plen - 1] == '/')
		plen--;
	if (!t->ctx.base_commit) {
		ret = rb_buf_puts(out, "no history: the base is not a commit "
				       "of a tree with history\n");
		goto out;
	}
	p = strndup(path, plen);
	if (!p) {
		ret = rb_err(RB_ENOMEM, "model tools: out of memory");
		goto out;
	}
	dopt.pathspec.strings = &p;
	dopt.pathspec.count = 1;
	dopt.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if (git_revwalk_new(&w, t->ctx.repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TIME) < 0 ||
	    git_revwalk_push(w, &t->base_commit) < 0) {
		ret = rb_buf_puts(out, "no history: the base commit cannot be "
				       "read\n");
		goto out;
	}
	while (!ret && listed < (size_t)max && git_revwalk_next(&id, w) == 0) {
		git_commit *c = NULL, *par = NULL;
		git_tree *ct = NULL, *pt = NULL;
		git_diff *diff = NULL;
		git_oid mine, theirs;
		bool have, hit = false;

		if (++walked > LOG_WALK) {
			why = "commits";
			break;
		}
		if (walked % 64 == 0 && now_s() > deadline) {
			why = "time";
			break;
		}
		if (pk.blobs >= LOG_BLOBS) {
			why = "files";
			break;
		}
		if (pk.re && pk.re->costly >= REGEX_COSTLY) {
			why = "a regex's cost";
			break;
		}
		/* Like git log -S: merges are not looked into. */
		if (git_commit_lookup(&c, t->ctx.repo, &id) < 0 ||
		    git_commit_parentcount(c) > 1)
			goto next;
		have = path_id(c, p, &mine);
		if (git_commit_parentcount(c) == 1) {
			if (git_commit_parent(&par, c, 0) < 0)
				goto next;
			if (path_id(par, p, &theirs) ?
				    have && git_oid_equal(&mine, &theirs) :
				    !have)
				goto next;
			if (git_commit_tree(&pt, par) < 0)
				goto next;
		} else if (!have) {
			goto next;
		}
		if (git_commit_tree(&ct, c) < 0 ||
		    git_diff_tree_to_tree(&diff, t->ctx.repo, pt, ct, &dopt) <
			    0)
			goto next;
		for (i = 0; !ret && !hit && i < git_diff_num_deltas(diff) &&
			    pk.blobs < LOG_BLOBS;
		     i++)
			ret = pickaxe_file(&pk, t->ctx.repo, diff, i, &hit);
		if (!ret && hit) {
			ret = commit_row(out, c);
			listed++;
		}
next:
		git_diff_free(diff);
		git_tree_free(ct);
		git_tree_free(pt);
		git_commit_free(par);
		git_commit_free(c);
	}
	if (!ret && !listed)
		ret = rb_buf_printf(out,
				    "no commit in the %zu walked adds or "
				    "removes it there\n",
				    walked > LOG_WALK ? LOG_WALK : walked);
	if (!ret && why)
		ret = rb_buf_printf(out,
				    "[stopped at the limit of %s after %zu "
				    "commits: results are partial]\n",
				    why, walked > LOG_WALK ? LOG_WALK : walked);
out:
	if (have_re)
		grep_re_free(&re);
	free(p);
	git_revwalk_free(w);
	return ret;
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
	else if (t->started && now_s() - ((double)t->start.tv_sec +
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
	struct args a = { NULL, &err };
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
		ret = tool_grep(t, &a, &res);
	else if (!strcmp(name, "find_definition"))
		ret = tool_find_definition(t, &a, &res);
	else if (!strcmp(name, "find_callers"))
		ret = tool_find_callers(t, &a, &res);
	else if (!strcmp(name, "show_patch"))
		ret = tool_show_patch(t, &a, &res);
	else if (!strcmp(name, "cover_letter"))
		ret = tool_text(t->ctx.cover, "no cover letter", &res);
	else if (!strcmp(name, "previous_review"))
		ret = tool_text(t->ctx.prev_review,
				"no review of a previous version", &res);
	else if (!strcmp(name, "path_history") && t->ctx.repo)
		ret = tool_path_history(t, &a, &res);
	else if (!strcmp(name, "path_history"))
		ret = rb_buf_puts(&res, "no history: no tree\n");
	else if (!strcmp(name, "blame") && t->ctx.repo)
		ret = tool_blame(t, &a, &res);
	else if (!strcmp(name, "show_commit") && t->ctx.repo)
		ret = tool_show_commit(t, &a, &res);
	else if (!strcmp(name, "log") && t->ctx.repo)
		ret = tool_log(t, &a, &res);
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
	if (!path_ok(path, strlen(path), false))
		return -RB_ENOTFOUND;
	ret = blob_at(&blob, t, side, path, NULL);
	if (ret)
		return -RB_ENOTFOUND;
	ret = lines_split(&l, git_blob_rawcontent(blob),
			  (size_t)git_blob_rawsize(blob));
	if (!ret)
		ret = lines_split(&q, quote, strlen(quote));
	if (ret)
		goto out;
	/* Blank lines around the quote do not count. */
	for (qa = 0; qa < q.n; qa++) {
		const char *x = line_at(&q, qa, &k);

		trim(&x, &k);
		if (k)
			break;
	}
	for (qb = q.n; qb > qa; qb--) {
		const char *x = line_at(&q, qb - 1, &k);

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
			const char *x = line_at(&l, (size_t)s - 1 + j, &an);
			const char *y = line_at(&q, qa + j, &bn);

			trim(&x, &an);
			trim(&y, &bn);
			if (an != bn || memcmp(x, y, an))
				break;
		}
		if (j == qb - qa)
			ret = 0;
	}
out:
	lines_release(&l);
	lines_release(&q);
	git_blob_free(blob);
	return ret;
}
