// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_plan.c - the finder passes a patch gets (model_plan.h).
 *
 * Each focus is a model call of the whole prompt (20-100 KB on linux-mm
 * patches), so a focus with nothing to look at costs as much as one
 * that finds a bug. The rules here are deliberately generous: a focus
 * is left out only when the patch cannot concern it by the words it
 * touches (no lock primitive anywhere in the hunks, their context lines
 * and headers included, for the locking focus); anything that might
 * concern it keeps it. They read the diff only, never the tree, so the
 * plan of a patch does not depend on where it applied.
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "review/apply/diff.h"
#include "review/model/model_plan.h"
#include "util/banned.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define MAX_IDENT 64 /* longer identifiers are looked at cut */
#define MAX_PARTS 12 /* '_'-separated parts of one identifier */

enum ftype { F_DOC, F_SELFTEST, F_CODE, F_OTHER };

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static bool has_suffix(const char *s, const char *x)
{
	size_t a = strlen(s), b = strlen(x);

	return a >= b && !strcasecmp(s + a - b, x);
}

/* What a path is: documentation, a selftest, code the focuses read. */
static enum ftype file_type(const struct rb_diff_file *f)
{
	static const char *const doc_ext[] = { ".rst",	".txt", ".md",
					       ".html", ".svg", ".png",
					       ".jpg",	".dot", ".pdf" };
	static const char *const doc_names[] = { "README", "CREDITS",
						 "MAINTAINERS", "COPYING",
						 ".mailmap" };
	static const char *const code_ext[] = { ".c", ".h", ".S", ".s", ".rs" };
	const char *p = rb_diff_file_path(f), *base;
	size_t i;

	if (!p || f->is_binary)
		return F_DOC; /* nothing a finder can read */
	base = strrchr(p, '/');
	base = base ? base + 1 : p;
	if (has_prefix(p, "Documentation/") || has_prefix(p, "LICENSES/"))
		return F_DOC;
	for (i = 0; i < ARRAY_SIZE(doc_names); i++)
		if (!strcmp(base, doc_names[i]))
			return F_DOC;
	for (i = 0; i < ARRAY_SIZE(doc_ext); i++)
		if (has_suffix(base, doc_ext[i]))
			return F_DOC;
	if (has_prefix(p, "tools/testing/"))
		return F_SELFTEST;
	for (i = 0; i < ARRAY_SIZE(code_ext); i++) {
		size_t a = strlen(base), b = strlen(code_ext[i]);

		if (a > b && !strcmp(base + a - b, code_ext[i]))
			return F_CODE;
	}
	return F_OTHER;
}

/* An identifier, lowercased and cut into its '_'-separated parts. */
struct ident {
	char s[MAX_IDENT + 1];
	const char *part[MAX_PARTS];
	char buf[MAX_IDENT + 1];
	size_t n;
};

static void ident_split(struct ident *id)
{
	char *p, *save = NULL;

	memcpy(id->buf, id->s, sizeof(id->buf));
	id->n = 0;
	for (p = strtok_r(id->buf, "_", &save); p && id->n < MAX_PARTS;
	     p = strtok_r(NULL, "_", &save))
		id->part[id->n++] = p;
}

static bool part_is(const struct ident *id, const char *const *set, size_t n)
{
	size_t i, k;

	for (i = 0; i < id->n; i++)
		for (k = 0; k < n; k++)
			if (!strcmp(id->part[i], set[k]))
				return true;
	return false;
}

/* Two parts in a row: "this" "cpu", "wake" "up". */
static bool parts_pair(const struct ident *id, const char *a, const char *b)
{
	size_t i;

	for (i = 0; i + 1 < id->n; i++)
		if (!strcmp(id->part[i], a) && !strcmp(id->part[i + 1], b))
			return true;
	return false;
}

/* A lock, atomic, RCU, per-CPU or memory-ordering primitive. */
static bool lock_word(const struct ident *id)
{
	static const char *const parts[] = {
		"lock",	    "locks",	  "locked",   "unlock",	 "unlocked",
		"locking",  "trylock",	  "spinlock", "rwlock",	 "seqlock",
		"lockdep",  "lockless",	  "mutex",    "rwsem",	 "semaphore",
		"rcu",	    "srcu",	  "percpu",   "cmpxchg", "xchg",
		"barrier",  "ptl",	  "preempt",  "irqsave", "irqrestore",
		"seqcount", "completion", "smp",      "lockref",
	};
	static const char *const whole[] = { "read_once",    "write_once",
					     "mb",	     "rmb",
					     "wmb",	     "might_sleep",
					     "in_atomic",    "in_interrupt",
					     "irqs_disabled" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(whole); i++)
		if (!strcmp(id->s, whole[i]))
			return true;
	for (i = 0; i < id->n; i++)
		if (has_prefix(id->part[i], "atomic"))
			return true;
	return part_is(id, parts, ARRAY_SIZE(parts)) ||
	       parts_pair(id, "this", "cpu") || parts_pair(id, "per", "cpu") ||
	       parts_pair(id, "raw", "cpu") || parts_pair(id, "get", "cpu") ||
	       parts_pair(id, "put", "cpu") || parts_pair(id, "local", "irq") ||
	       parts_pair(id, "local", "bh") || parts_pair(id, "wake", "up") ||
	       parts_pair(id, "wait", "event") ||
	       parts_pair(id, "down", "read") ||
	       parts_pair(id, "down", "write") ||
	       parts_pair(id, "up", "read") || parts_pair(id, "up", "write");
}

/* What user space or other kernel code sees. */
static bool api_word(const struct ident *id)
{
	static const char *const prefixes[] = {
		"export_symbol",
		"syscall_define",
		"compat_syscall",
		"module_param",
		"device_attr",
		"driver_attr",
		"bus_attr",
		"class_attr",
		"bin_attr",
		"__attr",
		"attribute_group",
		"proc_create",
		"nla_",
		"nlmsg_",
		"genl_",
		"ksys_",
		"trace_event",
		"memdup_user",
		"strncpy_from_user",
	};
	static const char *const parts[] = { "ioctl",	 "sysfs",   "procfs",
					     "uapi",	 "prctl",   "sysctl",
					     "netlink",	 "syscall", "attribute",
					     "proc_ops", "compat",  "fsparam" };
	static const char *const whole[] = { "__user", "_io",	"_ior",
					     "_iow",   "_iowr", "ctl_table" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(whole); i++)
		if (!strcmp(id->s, whole[i]))
			return true;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (has_prefix(id->s, prefixes[i]))
			return true;
	/* copy_to_user, get_user, put_user, clear_user, ... */
	return has_suffix(id->s, "_user") || parts_pair(id, "ctl", "table") ||
	       part_is(id, parts, ARRAY_SIZE(parts));
}

struct scan {
	bool lock, api;
};

/* The identifiers of one line of text. */
static void scan_text(struct scan *sc, const char *s, size_t len)
{
	struct ident id;
	size_t i = 0, k;

	while (i < len && !(sc->lock && sc->api)) {
		if (!(isalpha((unsigned char)s[i]) || s[i] == '_')) {
			i++;
			continue;
		}
		for (k = 0;
		     i < len && (isalnum((unsigned char)s[i]) || s[i] == '_');
		     i++)
			if (k < MAX_IDENT)
				id.s[k++] = (char)tolower((unsigned char)s[i]);
		id.s[k] = '\0';
		ident_split(&id);
		sc->lock = sc->lock || lock_word(&id);
		sc->api = sc->api || api_word(&id);
	}
}

static void scan_file(struct scan *sc, const struct rb_diff_file *f)
{
	const char *p = rb_diff_file_path(f);
	size_t h, i;

	if (p && (has_prefix(p, "include/uapi/") || strstr(p, "/uapi/") ||
		  has_suffix(p, ".tbl")))
		sc->api = true;
	for (h = 0; h < f->n_hunks && !(sc->lock && sc->api); h++) {
		const struct rb_diff_hunk *hk = &f->hunks[h];

		scan_text(sc, hk->section, hk->section_len);
		for (i = 0; i < hk->n_lines; i++)
			scan_text(sc, hk->lines[i].text, hk->lines[i].len);
	}
}

/* A trailer that says who, not what: "Signed-off-by:", "Cc:", "Link:". */
static bool who_trailer(const char *s, size_t n)
{
	static const char *const names[] = { "cc",	  "to",
					     "from",	  "link",
					     "closes",	  "message-id",
					     "change-id", "base-commit" };
	size_t w = 0, i;

	while (w < n && (isalnum((unsigned char)s[w]) || s[w] == '-'))
		w++;
	if (!w || w >= n || s[w] != ':')
		return false;
	if (w > 3 && !strncasecmp(s + w - 3, "-by", 3))
		return true;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (w == strlen(names[i]) && !strncasecmp(s, names[i], w))
			return true;
	return false;
}

/* Does the message say anything besides such trailers and blank lines? */
static bool says_something(const char *msg)
{
	const char *s = msg, *e;

	while (s && *s) {
		size_t n, k = 0;

		e = strchr(s, '\n');
		n = e ? (size_t)(e - s) : strlen(s);
		while (k < n && isspace((unsigned char)s[k]))
			k++;
		if (k < n && !who_trailer(s + k, n - k))
			return true;
		s = e ? e + 1 : NULL;
	}
	return false;
}

static void skip(struct rb_model_plan *p, const char *focus, const char *why)
{
	if (p->n_skipped < RB_MODEL_PLAN_MAX) {
		p->skipped[p->n_skipped] = focus;
		p->why[p->n_skipped++] = why;
	}
}

void rb_model_plan_focuses(struct rb_model_plan *out, const struct rb_diff *d,
			   const char *commit_msg, const char *const *focuses,
			   size_t n)
{
	struct scan sc = { 0 };
	bool code = false, lang = false, selftest = false;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; d && i < d->n_files; i++) {
		enum ftype t = file_type(&d->files[i]);

		selftest = selftest || t == F_SELFTEST;
		if (t != F_CODE && t != F_OTHER)
			continue;
		code = true;
		lang = lang || t == F_CODE;
		scan_file(&sc, &d->files[i]);
	}
	out->kind = code ? "code" : selftest ? "selftests" : "documentation";
	if (!focuses) {
		if (code || selftest)
			out->run[out->n_run++] = NULL;
		else
			skip(out, "review", "documentation only");
		return;
	}
	for (i = 0; i < n && i < RB_MODEL_PLAN_MAX; i++) {
		const char *f = focuses[i];
		const char *why = NULL;

		if (!code && !selftest)
			why = "documentation only";
		else if (!code && strcmp(f, "correctness"))
			why = "selftests only";
		else if (!strcmp(f, "locking") && !sc.lock)
			why = "no lock, atomic, RCU or per-CPU primitive";
		else if (!strcmp(f, "api") && !sc.api)
			why = "no uapi, ioctl, sysfs, system call or exported "
			      "symbol";
		else if (!strcmp(f, "memory") && !lang)
			why = "no C, assembly or Rust code";
		else if (!strcmp(f, "claims") && !says_something(commit_msg))
			why = "no commit message";
		if (why)
			skip(out, f, why);
		else
			out->run[out->n_run++] = f;
	}
}
