// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_prefetch.c - the tree context of the prompt. See
 * model_prefetch.h.
 *
 * The code comes from the trees the apply made (review/apply/apply.c: the tree
 * after this patch for the changed functions) and from the configured
 * base tree (definitions), through libgit2 and the tools' word index
 * (model_tools.h), never through the file system. Tree text is hostile:
 * every line goes out as the tools give it (valid UTF-8, no control
 * characters, hidden Unicode escaped) and inside the nonce's fence.
 *
 * Bounds: at most MAX_CHANGED changed functions and blocks, MAX_CALLERS
 * caller searches, MAX_LOOKUPS definitions looked up, MAX_SYMS symbols
 * collected; a function over FUNC_WHOLE lines is shown around its changed
 * lines; a definition is cut after a number of lines of its kind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>
#include <jansson.h>

#include "review/code/code_c.h"
#include "review/apply/diff.h"
#include "review/model/model.h"
#include "review/model/model_diff.h"
#include "review/model/model_prefetch.h"
#include "review/model/model_tools.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define MAX_BLOB (4u << 20)
#define MAX_CHANGED 64 /* changed functions and blocks */
#define MAX_CALLERS 8 /* caller searches */
#define MAX_LOOKUPS 48 /* definitions looked up */
#define COMMON_BLOBS 1500 /* a word in more files is not looked up */
#define MAX_SYMS 256 /* symbols collected */
#define MAX_SYMBOL 128
#define FUNC_WHOLE 400 /* a longer function is shown around its changes */
#define WINDOW 25 /* lines around a change in a long function */
#define DOC_LINES 40 /* a kernel-doc comment above a function */
#define DEF_FUNC_LINES 100 /* lines of a definition, by kind */
#define DEF_TYPE_LINES 200
#define DEF_MACRO_LINES 40
#define DEF_OTHER_LINES 30
#define ALSO_MAX 3 /* other definitions named */
#define NOTE_NAMES 16 /* items named in the coverage note */
#define MIN_ITEM 256 /* less room than this: stop looking */
#define CACHE 16 /* blobs kept while the context is built */

enum contract {
	C_HEAD = 1, /* the head: signature, return type */
	C_RETURN = 2, /* a return value */
	C_LOCK = 4, /* a lock taken or dropped */
	C_REF = 8, /* a reference taken or dropped */
};

/* One function (or struct, or macro) the patch changes. */
struct changed {
	const char *path; /* borrowed from the diff */
	const char *kind; /* "function", "struct", "union", "enum", "macro" */
	size_t start, body, end; /* 0-based, in the tree after the patch */
	char name[MAX_SYMBOL + 1];
	bool macro, is_static;
	size_t plus; /* its lines the patch adds */
	unsigned int contract;
	size_t *pos; /* changed lines (0-based), for a long function */
	size_t npos, cpos;
};

enum skind { S_CALL, S_TYPE, S_CONST };

struct sym {
	char name[MAX_SYMBOL + 1];
	enum skind kind;
	const char *path; /* where it is used (borrowed from the diff) */
	int tier; /* 0: added lines, 1: removed lines, 2: the functions */
	size_t order; /* found in this order */
};

struct cached {
	const git_oid *tree; /* borrowed */
	char *path;
	git_blob *blob;
	struct rb_c_lines l;
	unsigned long used;
};

struct pf {
	const struct rb_model_patch_ctx *ctx;
	const struct rb_diff *d;
	struct rb_buf body; /* the items that fit */
	struct rb_buf *note;
	size_t budget;
	size_t named; /* items named in the note */
	struct rb_model_prefetch_stats st;
	struct rb_model_tools *tools;
	bool tools_failed;
	struct changed *ch;
	size_t nch, cch;
	bool too_many; /* more changed functions than MAX_CHANGED */
	struct sym *sy;
	size_t nsy, csy;
	int tier; /* of the symbols being collected */
	struct cached cache[CACHE];
	unsigned long tick;
};

static bool is_c_path(const char *p)
{
	size_t l = p ? strlen(p) : 0;

	return l > 2 && p[l - 2] == '.' && (p[l - 1] == 'c' || p[l - 1] == 'h');
}

/* ---- blobs ---- */

/* The lines of @path in @tree, cached; NULL when there is no such file. */
static const struct rb_c_lines *lines_of(struct pf *p, const git_oid *tree,
					 const char *path, int *err)
{
	struct cached *c, *victim = &p->cache[0];
	git_tree *t = NULL;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	size_t i;

	*err = 0;
	for (i = 0; i < CACHE; i++) {
		c = &p->cache[i];
		if (c->path && c->tree == tree && !strcmp(c->path, path)) {
			c->used = ++p->tick;
			return c->blob ? &c->l : NULL;
		}
		if (c->used < victim->used)
			victim = c;
	}
	if (!git_tree_lookup(&t, p->ctx->repo, tree) &&
	    !git_tree_entry_bypath(&te, t, path) &&
	    git_tree_entry_type(te) == GIT_OBJECT_BLOB &&
	    git_tree_entry_filemode(te) != GIT_FILEMODE_LINK &&
	    !git_blob_lookup(&blob, p->ctx->repo, git_tree_entry_id(te)) &&
	    (git_blob_rawsize(blob) > MAX_BLOB || git_blob_is_binary(blob))) {
		git_blob_free(blob);
		blob = NULL;
	}
	git_tree_entry_free(te);
	git_tree_free(t);
	rb_c_lines_release(&victim->l);
	git_blob_free(victim->blob);
	free(victim->path);
	memset(victim, 0, sizeof(*victim));
	victim->path = strdup(path);
	if (!victim->path) {
		git_blob_free(blob);
		*err = rb_err(RB_ENOMEM, "out of memory");
		return NULL;
	}
	victim->tree = tree;
	victim->used = ++p->tick;
	if (blob && rb_c_lines_split(&victim->l, git_blob_rawcontent(blob),
				     (size_t)git_blob_rawsize(blob))) {
		git_blob_free(blob);
		*err = -RB_ENOMEM;
		return NULL;
	}
	victim->blob = blob;
	return blob ? &victim->l : NULL;
}

/* Lines [a, b] (0-based) of @l, numbered from 1, into @b. */
static int put_lines(struct rb_buf *out, const struct rb_c_lines *l, size_t a,
		     size_t b)
{
	size_t i, n;
	int ret = 0;

	for (i = a; !ret && i <= b && i < l->n; i++) {
		const char *s = rb_c_line(l, i, &n);

		ret = rb_buf_printf(out, "%5zu ", i + 1);
		if (!ret)
			ret = rb_model_tools_put_text(out, s, n);
		if (!ret)
			ret = rb_buf_putc(out, '\n');
	}
	return ret;
}

/* ---- the budget ---- */

/* @text goes in when it fits; else @what is named in the note. */
static int item(struct pf *p, const struct rb_buf *text, const char *what)
{
	if (p->body.len + text->len <= p->budget)
		return rb_buf_add(&p->body, text->ptr, text->len);
	p->st.left_out++;
	if (p->named++ < NOTE_NAMES)
		return rb_buf_printf(p->note, "%s; ", what);
	return 0;
}

static bool full(const struct pf *p)
{
	return p->body.len + MIN_ITEM > p->budget;
}

/* ---- what the patch changes ---- */

/* Does the name look like taking or dropping a lock, or a reference? */
static unsigned int contract_name(const char *s, size_t n)
{
	static const char *const refs[] = { "mmget", "mmput", "mmgrab",
					    "mmdrop" };
	const char *c = s, *e = s + n;
	bool first = true;
	unsigned int r = 0;
	size_t i;

	if ((n >= 5 && !memcmp(s, "down_", 5)) ||
	    (n >= 3 && !memcmp(s, "up_", 3)))
		r |= C_LOCK;
	for (i = 0; i < sizeof(refs) / sizeof(*refs); i++)
		if (strlen(refs[i]) == n && !memcmp(s, refs[i], n))
			r |= C_REF;
	while (c < e) {
		const char *u = memchr(c, '_', (size_t)(e - c));
		size_t k = (size_t)((u ? u : e) - c);
		bool last = !u;

#define IS(w) (k == strlen(w) && !memcmp(c, w, k))
		if (IS("lock") || IS("unlock") || IS("trylock"))
			r |= C_LOCK;
		if (((first || last) && (IS("get") || IS("put"))) ||
		    IS("ref") || IS("refcount") || IS("kref") || IS("hold") ||
		    (last && IS("zero") && n > 13) /* inc_not_zero */)
			r |= C_REF;
		if (first && IS("get") && u && !strncmp(u + 1, "user", 4))
			r &= ~(unsigned int)C_REF;
		if (first && IS("put") && u && !strncmp(u + 1, "user", 4))
			r &= ~(unsigned int)C_REF;
#undef IS
		first = false;
		c = u ? u + 1 : e;
	}
	return r;
}

/* What a changed line says about the contract of its function. */
static unsigned int contract_line(const char *s, size_t n)
{
	unsigned int r = 0;
	size_t i = 0;

	while (i < n) {
		size_t b, k;

		if (s[i] == '/' && i + 1 < n &&
		    (s[i + 1] == '/' || s[i + 1] == '*'))
			break;
		if (!rb_c_is_word((unsigned char)s[i])) {
			i++;
			continue;
		}
		b = i;
		i = rb_c_word_end(s, n, i, &k);
		if (i - b == 6 && !memcmp(s + b, "return", 6)) {
			if (k < n && s[k] != ';')
				r |= C_RETURN;
			continue;
		}
		if (k < n && s[k] == '(')
			r |= contract_name(s + b, i - b);
	}
	return r;
}

static struct changed *changed_at(struct pf *p, const char *path, size_t line)
{
	size_t i;

	for (i = 0; i < p->nch; i++)
		if (p->ch[i].path == path && p->ch[i].start <= line &&
		    p->ch[i].end >= line)
			return &p->ch[i];
	return NULL;
}

/* The function or block around @line of @l, added to the list. */
static int changed_add(struct pf *p, struct changed **out, const char *path,
		       const struct rb_c_lines *l, size_t line)
{
	struct rb_c_func fn;
	struct changed *c;
	const char *kind, *name = NULL;
	size_t start, end, nl = 0;

	*out = NULL;
	if (rb_c_func_at(&fn, l, line)) {
		kind = "function";
		start = fn.start;
		end = fn.end;
		name = fn.name;
		nl = fn.name_len;
	} else if (!rb_c_block_at(l, line, &start, &end, &kind, &name, &nl)) {
		return 0;
	}
	if (p->nch >= MAX_CHANGED) {
		if (p->too_many)
			return 0;
		p->too_many = true;
		p->st.left_out++;
		return rb_buf_printf(p->note,
				     "the changed functions after the first "
				     "%d; ",
				     MAX_CHANGED);
	}
	c = rb_grow(p->ch, &p->cch, p->nch, sizeof(*p->ch));
	if (!c)
		return rb_err(RB_ENOMEM, "out of memory");
	p->ch = c;
	c = &p->ch[p->nch++];
	memset(c, 0, sizeof(*c));
	c->path = path;
	c->kind = kind;
	c->start = start;
	c->end = end;
	c->body = kind[0] == 'f' ? fn.body : start;
	if (kind[0] == 'f') {
		c->macro = fn.macro;
		c->is_static = fn.is_static;
	}
	if (name && nl <= MAX_SYMBOL) {
		memcpy(c->name, name, nl);
		c->name[nl] = 0;
	}
	*out = c;
	return 0;
}

static int pos_add(struct changed *c, size_t line)
{
	size_t *v;

	if (c->npos && c->pos[c->npos - 1] == line)
		return 0;
	v = rb_grow(c->pos, &c->cpos, c->npos, sizeof(*c->pos));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	c->pos = v;
	c->pos[c->npos++] = line;
	return 0;
}

/* One changed line at @line (0-based, the tree after the patch). */
static int mark(struct pf *p, const char *path, const struct rb_c_lines *l,
		size_t line, const struct rb_diff_line *dl)
{
	struct changed *c = changed_at(p, path, line);
	unsigned int con;
	int ret = 0;

	if (!c)
		ret = changed_add(p, &c, path, l, line);
	if (ret || !c)
		return ret;
	/* A removal just before a head is not a change of that function. */
	if (dl->origin == '-' && line == c->start)
		return 0;
	if (dl->origin == '+')
		c->plus++;
	if (c->kind[0] == 'f') {
		if (line < c->body || (dl->origin == '-' && line == c->body))
			c->contract |= C_HEAD;
		con = contract_line(dl->text, dl->len);
		c->contract |= con;
	}
	return pos_add(c, line);
}

/* The changed functions and blocks of @f, from the tree after it. */
static int find_changed(struct pf *p, const struct rb_diff_file *f)
{
	const char *path = rb_diff_file_path(f);
	const struct rb_c_lines *l;
	size_t h, i;
	int ret = 0;

	if (f->status == RB_DIFF_DELETED || f->is_binary || !is_c_path(path))
		return 0;
	l = lines_of(p, p->ctx->tree, path, &ret);
	if (!l)
		return ret;
	for (h = 0; h < f->n_hunks && !ret; h++) {
		const struct rb_diff_hunk *hk = &f->hunks[h];
		size_t next = hk->new_start; /* 1-based: the next new line */

		for (i = 0; i < hk->n_lines && !ret; i++) {
			const struct rb_diff_line *dl = &hk->lines[i];

			if (dl->origin != '-')
				next = dl->new_lineno + 1;
			if (dl->origin == ' ')
				continue;
			if (dl->origin == '+') {
				if (dl->new_lineno && dl->new_lineno <= l->n)
					ret = mark(p, path, l,
						   dl->new_lineno - 1, dl);
				continue;
			}
			/* Removed: where its neighbour stands now. */
			if (next >= 1 && next <= l->n)
				ret = mark(p, path, l, next - 1, dl);
		}
	}
	/* A function the patch adds whole has no callers to check. */
	for (i = 0; i < p->nch; i++)
		if (p->ch[i].path == path &&
		    p->ch[i].plus >= p->ch[i].end - p->ch[i].start + 1)
			p->ch[i].contract = 0;
	return ret;
}

/* Where a kernel-doc comment right above line @start begins, or @start. */
static size_t doc_above(const struct rb_c_lines *l, size_t start)
{
	size_t i, n;
	const char *s;

	if (!start)
		return start;
	s = rb_c_line(l, start - 1, &n);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n < 2 || s[n - 2] != '*' || s[n - 1] != '/')
		return start;
	for (i = start - 1; start - i <= DOC_LINES; i--) {
		s = rb_c_line(l, i, &n);
		if (n >= 3 && !memcmp(s, "/**", 3))
			return i;
		if (n >= 2 && !memcmp(s, "/*", 2))
			return start; /* a plain comment: not the contract */
		if (!i)
			break;
	}
	return start;
}

static const char *kind_word(const struct changed *c)
{
	return c->kind[0] == 'f' ? "function" : c->kind;
}

/* One changed function or block, whole or around its changes. */
static int show_changed(struct pf *p, const struct changed *c)
{
	struct rb_buf t = RB_BUF_INIT(RB_BUF_NOLIMIT);
	char what[MAX_SYMBOL + 1200];
	const struct rb_c_lines *l;
	size_t from, i, shown;
	int ret = 0;

	l = lines_of(p, p->ctx->tree, c->path, &ret);
	if (!l)
		return ret;
	from = c->kind[0] == 'f' ? doc_above(l, c->start) : c->start;
	snprintf(what, sizeof(what), "the %s %s%s in %.1000s", kind_word(c),
		 c->name[0] ? c->name : "(unnamed)",
		 c->kind[0] == 'f' ? "()" : "", c->path);
	ret = rb_buf_printf(&t,
			    "=== %s, lines %zu-%zu of the tree after this "
			    "patch%s\n",
			    what + 4, from + 1, c->end + 1,
			    c->end - from + 1 > FUNC_WHOLE ?
				    " (long: the head and the lines around "
				    "the changes)" :
				    "");
	if (!ret && c->end - from + 1 <= FUNC_WHOLE) {
		ret = put_lines(&t, l, from, c->end);
	} else if (!ret) {
		/* The head, then a window around each changed line. */
		ret = put_lines(&t, l, from, c->body);
		shown = c->body;
		for (i = 0; !ret && i < c->npos; i++) {
			size_t a = c->pos[i] > WINDOW ? c->pos[i] - WINDOW : 0;
			size_t b = c->pos[i] + WINDOW;

			if (b > c->end)
				b = c->end;
			if (b <= shown)
				continue;
			if (a <= shown)
				a = shown + 1;
			if (a > shown + 1)
				ret = rb_buf_printf(&t,
						    "      [... lines %zu-%zu: "
						    "read_file]\n",
						    shown + 2, a);
			if (!ret)
				ret = put_lines(&t, l, a, b);
			shown = b;
		}
		if (!ret && shown < c->end)
			ret = rb_buf_printf(&t,
					    "      [... lines %zu-%zu: "
					    "read_file]\n",
					    shown + 2, c->end + 1);
	}
	if (!ret) {
		size_t before = p->body.len;

		ret = item(p, &t, what);
		p->st.functions += !ret && p->body.len > before;
	}
	rb_buf_release(&t);
	return ret;
}

/* ---- the tools ---- */

static struct rb_model_tools *tools_of(struct pf *p)
{
	const struct rb_model_patch_ctx *ctx = p->ctx;
	struct rb_model_tools_ctx tc = {
		.repo = ctx->repo,
		.base_tree = ctx->base_tree,
		.tip_tree = ctx->tip_tree ? ctx->tip_tree : ctx->tree,
		.base_commit = ctx->base_commit,
	};
	/* Not the model's calls: limits of their own, never reached. */
	struct rb_model_tool_limits lim = {
		.max_calls = 1 << 20,
		.max_bytes = (size_t)1 << 30,
		.max_result = 32 * 1024,
		.max_seconds = 1 << 20,
	};

	if (!p->tools && !p->tools_failed &&
	    rb_model_tools_new(&p->tools, &tc, &lim))
		p->tools_failed = true;
	return p->tools;
}

static const char *contract_words(unsigned int c, char *b, size_t n)
{
	snprintf(b, n, "%s%s%s%s", c & C_HEAD ? ", its head" : "",
		 c & C_RETURN ? ", a return value" : "",
		 c & C_LOCK ? ", the locks it takes or drops" : "",
		 c & C_REF ? ", the references it takes or drops" : "");
	return b + 2;
}

/* The callers of a function whose contract the patch changes. */
static int show_callers(struct pf *p, const struct changed *c)
{
	struct rb_buf t = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_model_tools *tools = tools_of(p);
	char what[MAX_SYMBOL + 64], how[160];
	json_t *args;
	char *js = NULL;
	int ret;

	if (!tools)
		return 0;
	args = c->is_static ? json_pack("{s:s, s:s}", "symbol", c->name,
					"path_prefix", c->path) :
			      json_pack("{s:s}", "symbol", c->name);
	js = args ? json_dumps(args, JSON_COMPACT) : NULL;
	json_decref(args);
	if (!js)
		return rb_err(RB_ENOMEM, "out of memory");
	snprintf(what, sizeof(what), "the callers of %s()", c->name);
	ret = rb_buf_printf(&t,
			    "=== callers of %s()%s at the series tip: this "
			    "patch changes %s\n",
			    c->name, c->is_static ? " in its file" : "",
			    contract_words(c->contract, how, sizeof(how)));
	if (!ret)
		ret = rb_model_tools_call(tools, "find_callers", js, strlen(js),
					  &t);
	if (ret == -RB_ETOOBIG)
		ret = 0;
	if (!ret) {
		size_t before = p->body.len;

		ret = item(p, &t, what);
		p->st.callers += !ret && p->body.len > before;
	}
	free(js);
	rb_buf_release(&t);
	return ret;
}

/* ---- the symbols the changes use ---- */

/* Words a definition of would teach nothing: keywords, the well known. */
static bool boring(const char *s, size_t n)
{
	static const char *const v[] = {
		"if",
		"for",
		"while",
		"switch",
		"return",
		"sizeof",
		"typeof",
		"__typeof__",
		"__typeof",
		"defined",
		"do",
		"else",
		"case",
		"goto",
		"alignof",
		"_Alignof",
		"__alignof__",
		"asm",
		"__asm__",
		"volatile",
		"__builtin_expect",
		"offsetof",
		"__attribute__",
		"likely",
		"unlikely",
		"WARN_ON",
		"WARN_ON_ONCE",
		"WARN",
		"WARN_ONCE",
		"BUG_ON",
		"BUG",
		"BUILD_BUG_ON",
		"READ_ONCE",
		"WRITE_ONCE",
		"ARRAY_SIZE",
		"min",
		"max",
		"min_t",
		"max_t",
		"clamp",
		"container_of",
		"memset",
		"memcpy",
		"memcmp",
		"memmove",
		"strcmp",
		"strncmp",
		"strlen",
		"strscpy",
		"sprintf",
		"snprintf",
		"scnprintf",
		"kfree",
		"kmalloc",
		"kzalloc",
		"kcalloc",
		"kvfree",
		"vfree",
		"pr_err",
		"pr_warn",
		"pr_info",
		"pr_debug",
		"pr_notice",
		"pr_cont",
		"pr_warn_once",
		"pr_err_once",
		"printk",
		"dev_err",
		"dev_warn",
		"dev_info",
		"dev_dbg",
		"IS_ERR",
		"PTR_ERR",
		"ERR_PTR",
		"IS_ERR_OR_NULL",
		"ERR_CAST",
		"NULL",
		"true",
		"false",
		"spin_lock",
		"spin_unlock",
		"spin_lock_irq",
		"spin_unlock_irq",
		"spin_lock_irqsave",
		"spin_unlock_irqrestore",
		"mutex_lock",
		"mutex_unlock",
		"rcu_read_lock",
		"rcu_read_unlock",
		"list_add",
		"list_add_tail",
		"list_del",
		"list_del_init",
		"list_empty",
		"list_for_each_entry",
		"list_for_each_entry_safe",
		"INIT_LIST_HEAD",
		"atomic_read",
		"atomic_set",
		"atomic_inc",
		"atomic_dec",
		"set_bit",
		"clear_bit",
		"test_bit",
		"might_sleep",
		"EINVAL",
		"ENOMEM",
		"EFAULT",
		"EAGAIN",
		"ENOENT",
		"EBUSY",
		"EPERM",
		"ENODEV",
		"ENOSPC",
		"EIO",
		"EEXIST",
		"EOPNOTSUPP",
		"ERANGE",
		"EINTR",
		"ENOSYS",
		"GFP_KERNEL",
		"GFP_ATOMIC",
		"GFP_NOWAIT",
		"EXPORT_SYMBOL",
		"EXPORT_SYMBOL_GPL",
	};

	return n < 3 || rb_c_in_list(s, n, v, sizeof(v) / sizeof(*v));
}

static int sym_add(struct pf *p, const char *s, size_t n, enum skind k,
		   const char *path)
{
	struct sym *v;
	size_t i;

	if (n > MAX_SYMBOL || p->nsy >= MAX_SYMS || boring(s, n) ||
	    (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; i < p->nsy; i++)
		if (!strncmp(p->sy[i].name, s, n) && !p->sy[i].name[n])
			return 0;
	/* The changed functions are shown already. */
	for (i = 0; i < p->nch; i++)
		if (!strncmp(p->ch[i].name, s, n) && !p->ch[i].name[n])
			return 0;
	v = rb_grow(p->sy, &p->csy, p->nsy, sizeof(*p->sy));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	p->sy = v;
	v = &p->sy[p->nsy++];
	memcpy(v->name, s, n);
	v->name[n] = 0;
	v->kind = k;
	v->path = path;
	v->tier = p->tier;
	v->order = p->nsy - 1;
	return 0;
}

/* By where they are used, then calls before types before constants. */
static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->tier != y->tier)
		return x->tier - y->tier;
	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * The symbols of one line of C: calls (a word before '('), types
 * (after struct, union, enum) and constants (SOME_CONSTANT); not the
 * members (after '.' or "->"), strings or comments.
 */
static int scan_syms(struct pf *p, const char *s, size_t n, const char *path)
{
	size_t i = 0;
	bool type_next = false;
	int ret = 0;

	while (i < n && !ret) {
		size_t b, k;
		char c = s[i];

		if (c == '"' || c == '\'') {
			for (i++; i < n && s[i] != c; i++)
				if (s[i] == '\\')
					i++;
			i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '/')
			break;
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			const char *e = i + 2 < n ? memmem(s + i + 2, n - i - 2,
							   "*/", 2) :
						    NULL;

			if (!e)
				break;
			i = (size_t)(e - s) + 2;
			continue;
		}
		if (!rb_c_is_word((unsigned char)c)) {
			i++;
			continue;
		}
		b = i;
		i = rb_c_word_end(s, n, i, &k);
		if (type_next) {
			type_next = false;
			ret = sym_add(p, s + b, i - b, S_TYPE, path);
			continue;
		}
		if ((i - b == 6 && !memcmp(s + b, "struct", 6)) ||
		    (i - b == 5 && !memcmp(s + b, "union", 5)) ||
		    (i - b == 4 && !memcmp(s + b, "enum", 4))) {
			type_next = true;
			continue;
		}
		/* A member: p->x, p.x. */
		if (b && (s[b - 1] == '.' ||
			  (b > 1 && s[b - 1] == '>' && s[b - 2] == '-')))
			continue;
		if (k < n && s[k] == '(')
			ret = sym_add(p, s + b, i - b, S_CALL, path);
		else if (rb_c_is_capitals(s + b, i - b))
			ret = sym_add(p, s + b, i - b, S_CONST, path);
	}
	return ret;
}

/* The symbols of the changed lines ('+' first, then '-'). */
static int syms_of_diff(struct pf *p, char origin)
{
	size_t f, h, i;
	int ret = 0;

	for (f = 0; f < p->d->n_files && !ret; f++) {
		const struct rb_diff_file *df = &p->d->files[f];
		const char *path = rb_diff_file_path(df);

		if (!is_c_path(path) || df->is_binary)
			continue;
		for (h = 0; h < df->n_hunks && !ret; h++)
			for (i = 0; i < df->hunks[h].n_lines && !ret; i++) {
				const struct rb_diff_line *dl =
					&df->hunks[h].lines[i];

				if (dl->origin == origin)
					ret = scan_syms(p, dl->text, dl->len,
							path);
			}
	}
	return ret;
}

/* The symbols of the changed functions' other lines. */
static int syms_of_functions(struct pf *p)
{
	size_t c, i, n;
	int ret = 0;

	for (c = 0; c < p->nch && !ret; c++) {
		const struct changed *ch = &p->ch[c];
		const struct rb_c_lines *l;

		if (ch->kind[0] != 'f')
			continue;
		l = lines_of(p, p->ctx->tree, ch->path, &ret);
		for (i = ch->start; l && !ret && i <= ch->end && i < l->n;
		     i++) {
			const char *s = rb_c_line(l, i, &n);

			ret = scan_syms(p, s, n, ch->path);
		}
	}
	return ret;
}

/* ---- definitions ---- */

static bool kind_fits(enum skind k, const char *kind)
{
	switch (k) {
	case S_TYPE:
		return !strcmp(kind, "struct") || !strcmp(kind, "union") ||
		       !strcmp(kind, "enum");
	case S_CALL:
		return !strcmp(kind, "function") || !strcmp(kind, "macro");
	default:
		return !strcmp(kind, "macro") ||
		       !strncmp(kind, "variable", 8) ||
		       !strncmp(kind, "typedef", 7);
	}
}

/* How much two paths share: the file, else its directory. */
static int nearness(const char *a, const char *b)
{
	const char *sa, *sb;

	if (!strcmp(a, b))
		return 2;
	sa = strrchr(a, '/');
	sb = strrchr(b, '/');
	if (sa && sb && sa - a == sb - b && !memcmp(a, b, (size_t)(sa - a)))
		return 1;
	return 0;
}

/* The definition to show: of the right kind, nearest to its use. */
static const struct rb_model_tools_def *
pick_def(const struct rb_model_tools_def *v, size_t n, const struct sym *s)
{
	const struct rb_model_tools_def *best = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!kind_fits(s->kind, v[i].kind))
			continue;
		if (!best || nearness(v[i].path, s->path) >
				     nearness(best->path, s->path))
			best = &v[i];
	}
	return best;
}

static size_t def_lines(const char *kind)
{
	if (!strcmp(kind, "function"))
		return DEF_FUNC_LINES;
	if (!strcmp(kind, "macro"))
		return DEF_MACRO_LINES;
	if (!strcmp(kind, "struct") || !strcmp(kind, "union") ||
	    !strcmp(kind, "enum"))
		return DEF_TYPE_LINES;
	return DEF_OTHER_LINES;
}

static int show_def(struct pf *p, const struct sym *s)
{
	struct rb_model_tools *tools = tools_of(p);
	struct rb_model_tools_def *v = NULL;
	struct rb_buf t = RB_BUF_INIT(RB_BUF_NOLIMIT);
	const struct rb_model_tools_def *d;
	const struct rb_c_lines *l;
	struct rb_c_func fn;
	char what[MAX_SYMBOL + 64];
	size_t n = 0, i, a, b, cap, also = 0;
	int ret;

	if (!tools)
		return 0;
	p->st.lookups++;
	ret = rb_model_tools_find_defs(&v, &n, tools, s->name, true);
	if (ret == -RB_ENOMEM)
		return ret;
	ret = 0;
	d = pick_def(v, n, s);
	if (!d)
		goto out;
	l = lines_of(p, p->ctx->base_tree, d->path, &ret);
	if (!l || d->line > l->n)
		goto out;
	a = d->line - 1;
	cap = def_lines(d->kind);
	if (!strcmp(d->kind, "function") && rb_c_func_at(&fn, l, a)) {
		a = fn.start;
		b = fn.end;
	} else {
		b = a + rb_c_def_span(l, a, d->kind, cap) - 1;
	}
	snprintf(what, sizeof(what), "the definition of %s%s", s->name,
		 s->kind == S_CALL ? "()" : "");
	ret = rb_buf_printf(&t, "=== %s %s in ", d->kind, s->name);
	if (!ret)
		ret = rb_model_tools_put_text(&t, d->path, strlen(d->path));
	if (!ret)
		ret = rb_buf_printf(&t, ", lines %zu-%zu of the base tree\n",
				    a + 1, b + 1);
	if (!ret)
		ret = put_lines(&t, l, a, b - a + 1 > cap ? a + cap - 1 : b);
	if (!ret && b - a + 1 > cap)
		ret = rb_buf_printf(&t,
				    "      [... lines %zu-%zu: read_file]\n",
				    a + cap + 1, b + 1);
	/* Other places that define it: #ifdef stubs, other arches. */
	for (i = 0; !ret && i < n && also < ALSO_MAX; i++) {
		if (&v[i] == d)
			continue;
		ret = rb_buf_puts(&t, also++ ? ", " : "(also defined at ");
		if (!ret)
			ret = rb_model_tools_put_text(&t, v[i].path,
						      strlen(v[i].path));
		if (!ret)
			ret = rb_buf_printf(&t, ":%zu", v[i].line);
	}
	if (!ret && also)
		ret = rb_buf_printf(&t, "%s)\n", n - 1 > also ? ", ..." : "");
	if (!ret) {
		size_t before = p->body.len;

		ret = item(p, &t, what);
		p->st.defs += !ret && p->body.len > before;
	}
out:
	rb_model_tools_defs_free(v, n);
	rb_buf_release(&t);
	return ret;
}

/* The symbols from @i on, not looked up: the first few named. */
static int note_rest(struct pf *p, size_t i)
{
	size_t k, named = 0;
	int ret;

	p->st.left_out += p->nsy - i;
	ret = rb_buf_puts(p->note, "the definitions of ");
	for (k = i; !ret && k < p->nsy && p->named < NOTE_NAMES; k++) {
		const struct sym *s = &p->sy[k];

		ret = rb_buf_printf(p->note, "%s%s%s%s", named++ ? ", " : "",
				    s->kind == S_TYPE ? "struct " : "", s->name,
				    s->kind == S_CALL ? "()" : "");
		p->named++;
	}
	if (!ret && k < p->nsy)
		ret = rb_buf_printf(p->note, "%s%zu more symbols",
				    named ? " and " : "", p->nsy - k);
	return ret ? ret : rb_buf_puts(p->note, "; ");
}

/* ---- all of it ---- */

static const char intro[] =
	"Code from the tree, read for this patch before the review: "
	"the functions it changes, whole and numbered as the tree "
	"after this patch; the callers of those whose contract it "
	"changes; the definitions of what the changed code uses, "
	"numbered as the base tree (before the series), but for the "
	"most common ones (struct page, kfree(), ...). Read more "
	"with the tools when they are offered.\n<<<DATA-%s "
	"tree-context\n";

const char *rb_model_prefetch_intro(void)
{
	return intro;
}

static void pf_release(struct pf *p)
{
	size_t i;

	for (i = 0; i < CACHE; i++) {
		rb_c_lines_release(&p->cache[i].l);
		git_blob_free(p->cache[i].blob);
		free(p->cache[i].path);
	}
	for (i = 0; i < p->nch; i++)
		free(p->ch[i].pos);
	free(p->ch);
	free(p->sy);
	rb_model_tools_free(p->tools);
	rb_buf_release(&p->body);
}

int rb_model_prefetch(struct rb_buf *out, struct rb_buf *note,
		      const struct rb_model_patch_ctx *ctx,
		      const struct rb_model_diff *md, const char *nonce,
		      size_t budget, struct rb_model_prefetch_stats *stats)
{
	struct pf p = { .ctx = ctx, .d = md->d, .note = note };
	size_t i, ncallers = 0, fence = sizeof(intro) + 64;
	int ret = 0;

	rb_buf_init(&p.body, RB_BUF_NOLIMIT);
	if (!ctx->repo || !ctx->tree || !md->d || budget < fence + MIN_ITEM)
		goto out;
	p.budget = budget - fence;
	for (i = 0; i < md->d->n_files && !ret; i++)
		ret = find_changed(&p, &md->d->files[i]);
	/* 1. The changed functions, in the diff's order. */
	for (i = 0; i < p.nch && !ret; i++)
		ret = show_changed(&p, &p.ch[i]);
	/*
	 * 2. The callers of those whose contract changes. This and 3 search
	 * only with the base tree's word index: a search without it reads
	 * every blob and may stop at its time limit, which would make the
	 * prompt depend on the machine's load.
	 */
	for (i = 0; i < p.nch && !ret; i++) {
		const struct changed *c = &p.ch[i];

		if (!ctx->base_tree || !c->contract || c->kind[0] != 'f' ||
		    c->macro || !c->name[0])
			continue;
		if (ncallers++ >= MAX_CALLERS || full(&p)) {
			char what[MAX_SYMBOL + 64];

			snprintf(what, sizeof(what), "the callers of %s()",
				 c->name);
			p.st.left_out++;
			if (p.named++ < NOTE_NAMES)
				ret = rb_buf_printf(note, "%s; ", what);
			continue;
		}
		ret = show_callers(&p, c);
	}
	/* 3. What the changes use, then what the functions use. */
	if (!ret && ctx->base_tree)
		ret = syms_of_diff(&p, '+');
	p.tier = 1;
	if (!ret && ctx->base_tree)
		ret = syms_of_diff(&p, '-');
	p.tier = 2;
	if (!ret && ctx->base_tree)
		ret = syms_of_functions(&p);
	if (p.nsy)
		qsort(p.sy, p.nsy, sizeof(*p.sy), sym_cmp);
	for (i = 0; ctx->base_tree && i < p.nsy && !ret; i++) {
		size_t nb;

		if (p.st.lookups >= MAX_LOOKUPS || full(&p)) {
			ret = note_rest(&p, i);
			break;
		}
		/*
		 * A word in thousands of files ("page", "task_struct") costs
		 * seconds to search and names what the model knows best: left
		 * to find_definition. One no file holds has no definition.
		 */
		nb = tools_of(&p) ?
			     rb_model_tools_word_blobs(p.tools, p.sy[i].name) :
			     0;
		if (!nb || nb > COMMON_BLOBS) {
			p.st.common += nb > COMMON_BLOBS;
			continue;
		}
		ret = show_def(&p, &p.sy[i]);
	}
	if (!ret && p.body.len)
		ret = rb_buf_printf(out, intro, nonce);
	if (!ret && p.body.len)
		ret = rb_buf_printf(out, "%sDATA-%s>>>\n\n", p.body.ptr, nonce);
out:
	if (stats)
		*stats = p.st;
	pf_release(&p);
	return ret;
}
