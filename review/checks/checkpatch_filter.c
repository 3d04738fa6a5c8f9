// SPDX-License-Identifier: GPL-2.0-only
/*
 * checkpatch_filter.c - checkpatch reports the base tree shows to be
 * noise (checkpatch_filter.h). Everything here is read from the
 * configured tree through libgit2; the patch only chooses which file of
 * the base is read, by the path checkpatch reported, looked up in the
 * base's own tree (no filesystem access).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "review/checks/checkpatch_filter.h"
#include "review/findings.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A base file read once for all its findings. */
#define MAX_BLOB (8u << 20)
/* SPACING: the same spacing around the operator this close to the line. */
#define NEAR 30
#define SHAPE 1024

/*
 * Types about how code is laid out or spelled, where "the file does it
 * this way" wins: a reviewer does not ask one patch to differ from the
 * lines around it. Semantic reports (AVOID_BUG, TYPO_SPELLING, ...) and
 * whitespace errors are not here.
 */
static const char *const style_types[] = {
	"AVOID_EXTERNS",
	"BLOCK_COMMENT_STYLE",
	"BRACES",
	"CAMELCASE",
	"CODE_INDENT",
	"COMPLEX_MACRO",
	"CONST_STRUCT",
	"FUNCTION_ARGUMENTS",
	"GLOBAL_INITIALISERS",
	"INITIALISED_STATIC",
	"INLINE_LOCATION",
	"LEADING_SPACE",
	"LINE_SPACING",
	"LOGGING_CONTINUATION",
	"LONG_LINE",
	"LONG_LINE_COMMENT",
	"LONG_LINE_STRING",
	"MACRO_WITH_FLOW_CONTROL",
	"MISPLACED_INIT",
	"MULTISTATEMENT_MACRO_USE_DO_WHILE",
	"OPEN_BRACE",
	"PARENTHESIS_ALIGNMENT",
	"POINTER_LOCATION",
	"PREFER_DEFINED_ATTRIBUTE_MACRO",
	"PREFER_KERNEL_TYPES",
	"PREFER_PR_LEVEL",
	"SPACING",
	"SPLIT_STRING",
	"STATIC_CONST",
	"STRING_FRAGMENTS",
	"SUSPECT_CODE_INDENT",
	"SWITCH_CASE_INDENT_LEVEL",
	"SYMBOLIC_PERMS",
	"TABSTOP",
	"TRAILING_SEMICOLON",
	"TRAILING_STATEMENTS",
	"UNSPECIFIED_INT",
};

static bool is_style(const char *type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(style_types); i++)
		if (!strcmp(style_types[i], type))
			return true;
	return false;
}

/* One base file, split into lines (pointers into the blob's copy). */
struct file {
	char *path;
	bool missing;
	char *text;
	const char **line;
	size_t *len;
	size_t n;
};

static void file_release(struct file *f)
{
	free(f->path);
	free(f->text);
	free(f->line);
	free(f->len);
	memset(f, 0, sizeof(*f));
}

static int file_load(struct file *f, git_tree *tree, const char *path)
{
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	size_t size, i, k;
	int ret = 0;

	file_release(f);
	f->path = strdup(path);
	if (!f->path)
		return rb_err(RB_ENOMEM, "out of memory");
	if (git_tree_entry_bypath(&e, tree, path) ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(&blob, git_tree_owner(tree),
			    git_tree_entry_id(e))) {
		f->missing = true; /* a new file: nothing to compare with */
		goto out;
	}
	size = (size_t)git_blob_rawsize(blob);
	if (size > MAX_BLOB || git_blob_is_binary(blob)) {
		f->missing = true;
		goto out;
	}
	f->text = malloc(size + 1);
	if (!f->text) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(f->text, git_blob_rawcontent(blob), size);
	f->text[size] = '\0';
	for (i = 0, k = 1; i < size; i++)
		k += f->text[i] == '\n';
	f->line = calloc(k, sizeof(*f->line));
	f->len = calloc(k, sizeof(*f->len));
	if (!f->line || !f->len) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < size;) {
		const char *nl = memchr(f->text + i, '\n', size - i);
		size_t end = nl ? (size_t)(nl - f->text) : size;

		f->line[f->n] = f->text + i;
		f->len[f->n++] = end - i;
		i = end + 1;
	}
out:
	git_blob_free(blob);
	git_tree_entry_free(e);
	return ret;
}

static bool ident(int c)
{
	return isalnum(c) || c == '_';
}

void rb_checkpatch_line_shape(char *out, size_t n, const char *s, size_t len)
{
	size_t i = 0, o = 0;

#define PUT(c)                          \
	do {                            \
		if (o + 1 < n)          \
			out[o++] = (c); \
	} while (0)
	if (!n)
		return;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		PUT(s[i++]);
	while (i < len) {
		unsigned char c = (unsigned char)s[i];

		if (c == '/' && i + 1 < len && s[i + 1] == '/')
			break; /* comments say anything */
		if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			const char *end = NULL;

			for (i += 2; i + 1 < len && !end; i++)
				if (s[i] == '*' && s[i + 1] == '/')
					end = s + i;
			i = end ? (size_t)(end - s) + 2 : len;
			continue;
		}
		if (ident(c)) {
			while (i < len &&
			       (ident((unsigned char)s[i]) || s[i] == '.'))
				i++;
			PUT('V');
			continue;
		}
		if (c == '"' || c == '\'') {
			for (i++; i < len && s[i] != (char)c; i++)
				if (s[i] == '\\')
					i++;
			i++;
			PUT('S');
			continue;
		}
		if (c == ' ' || c == '\t') {
			while (i < len && (s[i] == ' ' || s[i] == '\t'))
				i++;
			PUT(' ');
			continue;
		}
		PUT((char)c);
		i++;
	}
	/* Trailing blanks and a macro's continuation go. */
	while (o && (out[o - 1] == ' ' || out[o - 1] == '\\'))
		o--;
	out[o] = '\0';
#undef PUT
}

/*
 * The added line checkpatch quoted: "+code", where some types show tabs
 * as "^I" and the end of the line as "$". False when it is not an added
 * line.
 */
static bool added_line(struct rb_buf *b, const char *code)
{
	size_t n;

	rb_buf_reset(b);
	if (!code || code[0] != '+' || code[1] == '+')
		return false;
	code++;
	n = strlen(code);
	if (n && code[n - 1] == '$') {
		for (; n > 1; code++, n--) {
			if (code[0] == '^' && code[1] == 'I') {
				rb_buf_putc(b, '\t');
				code++;
				n--;
			} else {
				rb_buf_putc(b, code[0]);
			}
		}
		return true;
	}
	return !rb_buf_add(b, code, n);
}

/* A character of class @cls in checkpatch's "ctx:LxR" (0: line end). */
static bool ctx_class(char cls, int c)
{
	switch (cls) {
	case 'W':
		return c == ' ' || c == '\t';
	case 'V':
		return ident(c) || c == ')' || c == ']';
	case 'E':
	case 'N':
		return !c;
	case 'B':
		return c == '(' || c == '[' || c == '{';
	case 'O':
		return c && strchr("+-*/%&|^!~=<>?:,;.", c);
	case 'C':
		return c == '/';
	default:
		return false;
	}
}

/* Whether @line holds @op with the context @l x @r. */
static bool has_ctx(const char *line, size_t len, const char *op, char l,
		    char r)
{
	size_t k = strlen(op), i;

	for (i = 0; k && i + k <= len; i++) {
		int before = i ? (unsigned char)line[i - 1] : 0;
		int after = i + k < len ? (unsigned char)line[i + k] : 0;

		if (!memcmp(line + i, op, k) && ctx_class(l, before) &&
		    ctx_class(r, after))
			return true;
	}
	return false;
}

/*
 * SPACING: the base file spaces the same operator the same way within
 * NEAR lines of @at (the new-side line, close to where the base has it).
 */
static bool spacing_like_base(const struct file *f, int at, const char *msg)
{
	const char *q, *ctx = strstr(msg, "(ctx:");
	char op[8], l = 0, r = 0;
	size_t i, lo, hi, k;
	bool before_close = strstr(msg, "before that close parenthesis");
	bool after_open = strstr(msg, "after that open parenthesis");

	q = strchr(msg, '\'');
	if (!q || !strchr(q + 1, '\''))
		return false;
	k = (size_t)(strchr(q + 1, '\'') - (q + 1));
	if (!k || k >= sizeof(op))
		return false;
	memcpy(op, q + 1, k);
	op[k] = '\0';
	if (ctx && ctx[5] && ctx[6] == 'x' && ctx[7]) {
		l = ctx[5];
		r = ctx[7];
	} else if (before_close) {
		l = 'W';
		r = 0;
	} else if (after_open) {
		l = 0;
		r = 'W';
	} else {
		return false;
	}
	lo = at > NEAR ? (size_t)(at - NEAR) : 0;
	hi = (size_t)at + NEAR;
	for (i = lo; i < f->n && i < hi; i++) {
		const char *s = f->line[i];
		size_t n = f->len[i], j;

		if (l && r) {
			if (has_ctx(s, n, op, l, r))
				return true;
			continue;
		}
		/* "( x" or "x )": a blank on the one side that matters. */
		for (j = 0; j + 1 < n; j++)
			if ((l && (s[j] == ' ' || s[j] == '\t') &&
			     s[j + 1] == op[0]) ||
			    (r && s[j] == op[0] &&
			     (s[j + 1] == ' ' || s[j + 1] == '\t')))
				return true;
	}
	return false;
}

/* A line of the same shape as @added anywhere in the base file. */
static bool shape_in_base(const struct file *f, const struct rb_buf *added)
{
	char want[SHAPE], got[SHAPE];
	size_t i;

	rb_checkpatch_line_shape(want, sizeof(want), added->ptr, added->len);
	if (!want[strspn(want, " \t")])
		return false; /* an empty line says nothing */
	for (i = 0; i < f->n; i++) {
		rb_checkpatch_line_shape(got, sizeof(got), f->line[i],
					 f->len[i]);
		if (!strcmp(want, got))
			return true;
	}
	return false;
}

static bool no_history(git_repository *repo, git_commit *commit)
{
	return git_repository_is_shallow(repo) == 1 ||
	       git_commit_parentcount(commit) == 0;
}

/*
 * A commit-message line that quotes a command or program output: by
 * convention indented, often with a "#" or "$" prompt. "mount -t proc
 * proc /tmp" repeats no word by mistake (the replay of linux-api,
 * bench/RESULTS-replay.md).
 */
static bool quoted_command(const char *code)
{
	const char *p = code;

	if (*p != ' ' && *p != '\t' && *p != '#' && *p != '$')
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '#' || *p == '$' || p - code >= 2;
}

int rb_checkpatch_filter(struct rb_findings *fs, git_repository *repo,
			 const git_oid *base, size_t *dropped)
{
	struct rb_buf added = RB_BUF_INIT(1 << 20);
	struct file file = { 0 };
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	bool *gone = NULL, unknown_says_nothing;
	size_t i, n = 0;
	int ret = 0;

	if (dropped)
		*dropped = 0;
	if (!fs->n)
		return 0;
	if (git_commit_lookup(&commit, repo, base) ||
	    git_commit_tree(&tree, commit)) {
		ret = rb_err(
			RB_EIO, "checkpatch filter: cannot read base %s: %s",
			git_oid_tostr_s(base),
			git_error_last() ? git_error_last()->message : "?");
		goto out;
	}
	unknown_says_nothing = no_history(repo, commit);
	gone = calloc(fs->n, sizeof(*gone));
	if (!gone) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < fs->n && !ret; i++) {
		const struct rb_finding *f = &fs->v[i];

		if (strcmp(f->checker, "checkpatch"))
			continue;
		if (!strcmp(f->category, "UNKNOWN_COMMIT_ID")) {
			gone[i] = unknown_says_nothing;
			continue;
		}
		if (!strcmp(f->category, "REPEATED_WORD") && !f->file &&
		    f->code && quoted_command(f->code)) {
			gone[i] = true;
			continue;
		}
		if (!is_style(f->category) || !f->file || f->line <= 0 ||
		    !added_line(&added, f->code))
			continue;
		if (!file.path || strcmp(file.path, f->file))
			ret = file_load(&file, tree, f->file);
		if (ret || file.missing)
			continue;
		gone[i] = (!strcmp(f->category, "SPACING") &&
			   spacing_like_base(&file, f->line - 1, f->message)) ||
			  shape_in_base(&file, &added);
	}
	if (!ret) {
		for (i = 0; i < fs->n; i++)
			n += gone[i];
		rb_findings_remove(fs, gone);
		if (dropped)
			*dropped = n;
	}
out:
	file_release(&file);
	rb_buf_release(&added);
	free(gone);
	git_tree_free(tree);
	git_commit_free(commit);
	return ret;
}
