// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_guides.c - choosing subsystem guides (review/model/guides.h), the prompt
 * set's version (review/model/model_prompt.h), and the guides themselves: the
 * mm guides are chosen by what a patch touches (the seed series gets the
 * page-table and large-page guides), and every file, function and
 * identifier a guide cites is in the linux 6.1 tree, so that a guide
 * cannot drift into claims the tree does not back.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <git2.h>

#include "mail/message.h"
#include "review/apply/diff.h"
#include "review/model/guides.h"
#include "review/maint/maintainers.h"
#include "review/model/model_prompt.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

static char *src_path(const char *rel)
{
	const char *src = getenv("RB_SRC");
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", src ? src : "..", rel);
	return buf;
}

/* The linux 6.1 tree on disk (RB_LINUX_TREE, or where
 * scripts/setup-linux-tree.sh puts it), or NULL. Read only. */
static const char *linux_tree(void)
{
	static char path[4096];
	const char *env = getenv("RB_LINUX_TREE");
	const char *home = getenv("HOME");
	char probe[4200];

	if (env && *env)
		snprintf(path, sizeof(path), "%s", env);
	else
		snprintf(path, sizeof(path), "%s/.cache/reviewbot/linux-6.1",
			 home ? home : "/root");
	snprintf(probe, sizeof(probe), "%s/MAINTAINERS", path);
	if (access(probe, R_OK))
		return NULL;
	snprintf(probe, sizeof(probe), "%s/.git", path);
	return access(probe, F_OK) ? NULL : path;
}

static const struct rb_guide *find(const struct rb_guides *g, const char *n)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].name, n))
			return &g->v[i];
	fail_msg("no guide %s", n);
	return NULL;
}

static const char pte_patch[] =
	"diff --git a/mm/madvise.c b/mm/madvise.c\n"
	"--- a/mm/madvise.c\n"
	"+++ b/mm/madvise.c\n"
	"@@ -10,3 +10,3 @@ static int f(void)\n"
	" \tint x;\n"
	"-\tpte = pte_offset_map(pmd, addr);\n"
	"+\tpte = pte_offset_map_lock(mm, pmd, addr, &ptl);\n"
	" \treturn 0;\n";

/* The guides of the tree load, and each applies by what it names. */
static void test_choose(void **state)
{
	static const char *const mm[] = { "MEMORY MANAGEMENT - CORE" };
	static const char *const net[] = { "NETWORKING [GENERAL]" };
	static const char *const drv[] = { "MEMORY CONTROLLER DRIVERS" };
	static const char *const hpath[] = { "mm/hugetlb.c" };
	static const char *const other[] = { "drivers/gpu/x.c" };
	struct rb_guides g;
	const char *why = NULL;
	struct rb_guides_query q = { 0 };

	(void)state;
	assert_int_equal(rb_guides_load(&g, src_path("review/guides")), 0);
	assert_true(g.n >= 8);

	/* By section: MAINTAINERS names are prefixes of the guide's. */
	q.sections = mm;
	q.n_sections = 1;
	assert_true(rb_guide_applies(find(&g, "mm"), &q, &why));
	assert_string_equal(why, "MEMORY MANAGEMENT");
	assert_false(rb_guide_applies(find(&g, "net"), &q, NULL));
	q.sections = net;
	assert_true(rb_guide_applies(find(&g, "net"), &q, NULL));
	assert_false(rb_guide_applies(find(&g, "mm"), &q, NULL));
	/* drivers/memory/ is not the memory controller of mm/. */
	q.sections = drv;
	assert_false(rb_guide_applies(find(&g, "mm"), &q, NULL));
	assert_false(rb_guide_applies(find(&g, "mm-memcg"), &q, NULL));

	/* By path. */
	q.n_sections = 0;
	q.paths = hpath;
	q.n_paths = 1;
	assert_true(rb_guide_applies(find(&g, "mm-hugetlb"), &q, &why));
	assert_string_equal(why, "mm/hugetlb.c");
	assert_true(rb_guide_applies(find(&g, "mm"), &q, NULL));
	q.paths = other;
	assert_false(rb_guide_applies(find(&g, "mm-hugetlb"), &q, NULL));

	/* By symbol, in changed lines only. */
	q.patch = pte_patch;
	q.patch_len = strlen(pte_patch);
	assert_true(rb_guide_applies(find(&g, "mm-pgtable"), &q, &why));
	assert_string_equal(why, "pte_offset_map");
	assert_false(rb_guide_applies(find(&g, "mm-gup"), &q, NULL));
	{
		/* Only in context: not a trigger. */
		static const char ctx_only[] =
			"--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n"
			" \tpin_user_pages(a);\n-\tb();\n+\tc();\n";

		q.patch = ctx_only;
		q.patch_len = strlen(ctx_only);
		assert_false(rb_guide_applies(find(&g, "mm-gup"), &q, NULL));
	}
	{
		/* Only moved or re-indented: not a trigger either. */
		static const char moved[] =
			"--- a/x.c\n+++ b/x.c\n@@ -1,4 +1,4 @@\n"
			"-\t\tpin_user_pages(a);\n-\tb();\n"
			"+\tpin_user_pages(a);  \n+\tc();\n";
		static const char changed[] =
			"--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n"
			"-\tpin_user_pages(a);\n+\tpin_user_pages(b);\n";

		q.patch = moved;
		q.patch_len = strlen(moved);
		assert_false(rb_guide_applies(find(&g, "mm-gup"), &q, NULL));
		q.patch = changed;
		q.patch_len = strlen(changed);
		assert_true(rb_guide_applies(find(&g, "mm-gup"), &q, &why));
		assert_string_equal(why, "pin_user_pages");
	}
	rb_guides_release(&g);
}

/* The mm guides split the way the code is split; "mm" itself is the
 * false-positive guide every mm patch gets. */
static const char *const mm_split[] = {
	"mm-folio",   "mm-vma",	    "mm-alloc",
	"mm-pgtable", "mm-reclaim", "mm-large",
};
#define N_SPLIT (sizeof(mm_split) / sizeof(mm_split[0]))

/* The names of the split guides @q picks, as a " a b" string in @out. */
static size_t split_chosen(const struct rb_guides *g,
			   const struct rb_guides_query *q, char *out,
			   size_t size)
{
	size_t i, n = 0, len = 0;

	out[0] = '\0';
	for (i = 0; i < N_SPLIT; i++)
		if (rb_guide_applies(find(g, mm_split[i]), q, NULL)) {
			len += (size_t)snprintf(out + len, size - len, " %s",
						mm_split[i]);
			n++;
		}
	return n;
}

/* A one-file patch of @path whose one added line is @line. */
static void one_line_patch(char *out, size_t size, const char *path,
			   const char *line)
{
	snprintf(out, size,
		 "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n"
		 "@@ -1,2 +1,3 @@\n int x;\n+%s\n int y;\n",
		 path, path, path, path, line);
}

/*
 * Each split guide is chosen for a patch in its area, by path or by a
 * symbol a driver might use, and a patch in one area of mm gets at most
 * two of the six; none is chosen for a patch outside mm.
 */
static void test_mm_split(void **state)
{
	static const struct {
		const char *path, *line, *want;
	} cases[] = {
		/* By path. */
		{ "mm/folio-compat.c", "\tx = 1;", " mm-folio" },
		{ "mm/mmap.c", "\tx = 1;", " mm-vma" },
		{ "mm/page_alloc.c", "\tx = 1;", " mm-alloc" },
		{ "mm/slub.c", "\tx = 1;", " mm-alloc" },
		{ "mm/pagewalk.c", "\tx = 1;", " mm-pgtable" },
		{ "mm/vmscan.c", "\tx = 1;", " mm-reclaim" },
		{ "mm/huge_memory.c", "\tx = 1;", " mm-large" },
		/* Two areas in one file. */
		{ "mm/mprotect.c", "\tx = 1;", " mm-vma mm-pgtable" },
		/* By symbol, from a driver. */
		{ "drivers/x/y.c", "\tfolio_put(folio);", " mm-folio" },
		{ "drivers/x/y.c", "\tmmap_read_lock(mm);", " mm-vma" },
		{ "drivers/x/y.c", "\tp = kvmalloc(n, GFP_KERNEL);",
		  " mm-alloc" },
		{ "drivers/x/y.c", "\tpte_unmap_unlock(pte, ptl);",
		  " mm-pgtable" },
		{ "drivers/x/y.c", "\tregister_shrinker(&s->shrinker);",
		  " mm-reclaim" },
		{ "drivers/x/y.c", "\tsplit_huge_pmd(vma, pmd, addr);",
		  " mm-large" },
		/* Nothing of mm. */
		{ "drivers/gpu/drm/x.c", "\tp = kzalloc(n, GFP_KERNEL);", "" },
		{ "net/core/dev.c", "\tspin_lock(&dev->lock);", "" },
		{ "Documentation/x.rst", "Some text.", "" },
	};
	struct rb_guides g;
	size_t i;

	(void)state;
	assert_int_equal(rb_guides_load(&g, src_path("review/guides")), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *paths[] = { cases[i].path };
		struct rb_guides_query q = { 0 };
		char patch[512], got[256];
		size_t n;

		one_line_patch(patch, sizeof(patch), cases[i].path,
			       cases[i].line);
		q.paths = paths;
		q.n_paths = 1;
		q.patch = patch;
		q.patch_len = strlen(patch);
		n = split_chosen(&g, &q, got, sizeof(got));
		if (strcmp(got, cases[i].want))
			fail_msg("%s \"%s\": chose \"%s\", want \"%s\"",
				 cases[i].path, cases[i].line, got,
				 cases[i].want);
		assert_true(n <= 2);
		/* The false-positive guide: every mm path, nothing else. */
		assert_int_equal(rb_guide_applies(find(&g, "mm"), &q, NULL),
				 !strncmp(cases[i].path, "mm/", 3));
	}
	rb_guides_release(&g);
}

/* Sections that choose nothing, as bot/stages/scope.c leaves them out of
 * a series' scope (a review/ test cannot link bot/). */
static bool catch_all(const char *name)
{
	static const char *const v[] = {
		"THE REST",
		"GENERIC INCLUDE/ASM HEADER FILES",
		"KERNEL SELFTEST FRAMEWORK",
		"DOCUMENTATION",
	};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(v[i], name))
			return true;
	return false;
}

/* One patch mail: its diff, the files it changes, and its sections. */
struct mail {
	char label[64];
	struct rb_message *m;
	struct rb_diff *d;
	const char **paths;
	const char *sections[32];
	size_t n_sections;
};

static void mail_load(struct mail *x, const char *path, const char *label)
{
	struct rb_buf raw = RB_BUF_INIT(8u << 20);
	size_t i;

	memset(x, 0, sizeof(*x));
	snprintf(x->label, sizeof(x->label), "%s", label);
	assert_int_equal(rb_read_file(&raw, path), 0);
	assert_int_equal(rb_message_parse(&x->m, raw.ptr, raw.len, NULL), 0);
	rb_buf_release(&raw);
	assert_non_null(x->m->patch);
	assert_int_equal(rb_diff_parse(&x->d, x->m->patch, x->m->patch_len), 0);
	x->paths = calloc(x->d->n_files + 1, sizeof(*x->paths));
	assert_non_null(x->paths);
	for (i = 0; i < x->d->n_files; i++)
		x->paths[i] = rb_diff_file_path(&x->d->files[i]);
}

static void mail_release(struct mail *x)
{
	free(x->paths);
	rb_diff_free(x->d);
	rb_message_free(x->m);
}

/* Adds the MAINTAINERS sections of @x (not the catch-alls) to @to. */
static void add_sections(struct mail *to, const struct rb_maint *maint,
			 const struct mail *x)
{
	struct rb_maint_result *r = NULL;
	size_t i, k;

	if (!maint)
		return;
	assert_int_equal(rb_maint_lookup_patch(&r, maint, x->m->patch,
					       x->m->patch_len),
			 0);
	for (i = 0; i < r->nsections; i++) {
		const char *s = r->sections[i]->name; /* owned by maint */

		if (catch_all(s))
			continue;
		for (k = 0; k < to->n_sections; k++)
			if (!strcmp(to->sections[k], s))
				break;
		if (k == to->n_sections && k < 32)
			to->sections[to->n_sections++] = s;
	}
	rb_maint_result_free(r);
}

/*
 * The guides model_prompt.c's add_guides() puts in the system prompt for
 * @x with the series' sections @secs: their names into @names, and the
 * bytes they add (the "SUBSYSTEM GUIDE (name)" line and the body).
 */
static size_t guide_bytes(const struct rb_guides *g, const struct mail *x,
			  const struct mail *secs, char *names, size_t size)
{
	struct rb_guides_query q = {
		.sections = secs->sections,
		.n_sections = secs->n_sections,
		.paths = x->paths,
		.n_paths = x->d->n_files,
		.patch = x->m->patch,
		.patch_len = x->m->patch_len,
	};
	size_t i, bytes = 0, len = 0;

	names[0] = '\0';
	for (i = 0; i < g->n; i++) {
		if (!rb_guide_applies(&g->v[i], &q, NULL))
			continue;
		bytes += strlen("\nSUBSYSTEM GUIDE ()\n") +
			 strlen(g->v[i].name) + strlen(g->v[i].body);
		len += (size_t)snprintf(names + len, size - len, "%s%s",
					len ? "," : "", g->v[i].name);
		if (len >= size)
			len = size - 1;
	}
	return bytes;
}

/* The seed series and a few corpus mails that apply to linux 6.1. */
static const char *const corpus[] = {
	"147adf9d8d731cc320f3d45410cf5662cf6657ef", /* mm/gup.c */
	"1d84caceac61c08755e995eb48225ad4ab1d5f65", /* VM_DROPPABLE */
	"2607d6440f0c12067233b3e9d052b168b806b7f1", /* mm/mmap.c */
	"4f2dac16238e881c9e2c494ad8f2e33ec0d1d30f", /* pte_mkwrite() */
	"56bd956636199315d6497976d2daf9e9b7b22e39", /* mm/mprotect.c */
	"eaef5cbdf520530b9c80dbc9525cfbaea4fad077", /* cachestat */
	"1406cb0603897cbedcd4a66a69afe582bce2a1a7", /* x86 pgtable.h */
	"b8290e5abfd9f945af1ac44cb8fff447c442208c", /* drm */
	"0f25d5fe8566da8bf5e33686602ad025a252d020", /* proc */
};

/*
 * The seed series (zap_huge_pmd(), 8 of its 9 patches) gets the
 * page-table and the large-page guides, and no patch of it more than
 * two of the six split guides. Prints what the guides add to each
 * prompt, for the seed and for a few corpus mails: with RB_GUIDES set to
 * another guides directory (an older checkout), it prints that set's
 * figures and checks nothing else, for a before/after comparison.
 */
static void test_seed(void **state)
{
	const char *shared = getenv("RB_SHARED"), *tree = linux_tree();
	const char *dir = getenv("RB_GUIDES");
	struct mail seeds[8], series, x;
	struct rb_maint *maint = NULL;
	struct rb_guides g;
	size_t i, n = 0, total = 0;
	bool pgtable = false, large = false, own = !dir || !*dir;
	char path[4096], names[512];
	struct dirent **ents = NULL;
	int k;

	(void)state;
	snprintf(path, sizeof(path), "%s/seeds", shared ? shared : "");
	if (!shared || access(path, R_OK)) {
		print_message("SKIP: test_seed: needs shared/seeds, not found "
			      "(RB_SHARED=%s): set RB_SHARED=/path/to/shared\n",
			      shared ? shared : "unset");
		skip();
	}
	assert_int_equal(
		rb_guides_load(&g, own ? src_path("review/guides") : dir), 0);
	if (tree)
		assert_int_equal(rb_maint_load_git(&maint, tree, "HEAD"), 0);
	else
		print_message("note: no linux 6.1 tree: sections not looked "
			      "up, guides chosen by paths and symbols only\n");

	k = scandir(path, &ents, NULL, alphasort);
	assert_true(k > 0);
	memset(&series, 0, sizeof(series));
	for (i = 0; i < (size_t)k; i++) {
		char file[4400];

		if (strstr(ents[i]->d_name, "-patch-") && n < 8) {
			snprintf(file, sizeof(file), "%s/%s", path,
				 ents[i]->d_name);
			mail_load(&seeds[n], file, ents[i]->d_name);
			n++;
		}
		free(ents[i]);
	}
	free(ents);
	assert_int_equal(n, 8);
	/* A series' sections are those of all its patches (scope.c). */
	for (i = 0; i < n; i++)
		add_sections(&series, maint, &seeds[i]);

	print_message("guides: %s\n", own ? "review/guides" : dir);
	for (i = 0; i < n; i++) {
		struct rb_guides_query q = {
			.sections = series.sections,
			.n_sections = series.n_sections,
			.paths = seeds[i].paths,
			.n_paths = seeds[i].d->n_files,
			.patch = seeds[i].m->patch,
			.patch_len = seeds[i].m->patch_len,
		};
		size_t bytes = guide_bytes(&g, &seeds[i], &series, names,
					   sizeof(names));
		char split[256];

		print_message("seed %.3s: %5zu bytes: %s\n", seeds[i].label,
			      bytes, names);
		total += bytes;
		if (!own)
			continue;
		assert_true(split_chosen(&g, &q, split, sizeof(split)) <= 2);
		pgtable |= strstr(split, "mm-pgtable") != NULL;
		large |= strstr(split, "mm-large") != NULL;
		/* Every patch of it is in mm/huge_memory.c. */
		assert_non_null(strstr(split, "mm-large"));
		assert_true(rb_guide_applies(find(&g, "mm"), &q, NULL));
	}
	print_message("seed total: %zu bytes over %zu patches\n", total, n);
	if (own) {
		assert_true(pgtable);
		assert_true(large);
	}
	for (i = 0; i < n; i++)
		mail_release(&seeds[i]);

	for (i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		struct mail one = { 0 };
		size_t bytes;

		snprintf(path, sizeof(path), "%s/corpus/apply-6.1/%s.eml",
			 shared, corpus[i]);
		if (access(path, R_OK))
			continue;
		mail_load(&x, path, corpus[i]);
		add_sections(&one, maint, &x);
		bytes = guide_bytes(&g, &x, &one, names, sizeof(names));
		print_message("corpus %.8s: %5zu bytes: %s (%s)\n", corpus[i],
			      bytes, names, x.m->subject.title);
		mail_release(&x);
	}
	rb_maint_free(maint);
	rb_guides_release(&g);
}

/*
 * What a guide cites: files and directories of the tree ("mm/rmap.c",
 * "Documentation/mm/transhuge.rst"), functions and macros ("name()",
 * which must be defined in the tree), and identifiers with an
 * underscore or in CamelCase ("__GFP_NOFAIL", "i_mmap_rwsem",
 * "PageAnonExclusive"), which must occur in its code. A kernel version
 * above 6.1 ("6.5+") is refused outright: the tree cannot back it.
 */
enum { CITE_WORD, CITE_CALL };

struct cite {
	char *name;
	const char *guide; /* the first guide citing it (borrowed) */
	int kind;
	bool seen, defined;
};

struct cites {
	struct cite *v; /* open addressing, n_slots a power of two */
	size_t n_slots, n;
	size_t min_len, max_len;
};

static uint32_t hash_name(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static struct cite *cite_find(struct cites *c, const char *s, size_t len)
{
	size_t i;

	if (len < c->min_len || len > c->max_len)
		return NULL;
	for (i = hash_name(s, len) & (c->n_slots - 1); c->v[i].name;
	     i = (i + 1) & (c->n_slots - 1))
		if (!strncmp(c->v[i].name, s, len) && !c->v[i].name[len])
			return &c->v[i];
	return NULL;
}

static void cite_add(struct cites *c, const char *s, size_t len, int kind,
		     const char *guide)
{
	struct cite *x = cite_find(c, s, len);
	size_t i;

	if (x) {
		if (kind == CITE_CALL)
			x->kind = CITE_CALL;
		return;
	}
	assert_true(c->n * 2 < c->n_slots);
	for (i = hash_name(s, len) & (c->n_slots - 1); c->v[i].name;
	     i = (i + 1) & (c->n_slots - 1))
		;
	c->v[i].name = strndup(s, len);
	assert_non_null(c->v[i].name);
	c->v[i].guide = guide;
	c->v[i].kind = kind;
	c->n++;
	if (!c->min_len || len < c->min_len)
		c->min_len = len;
	if (len > c->max_len)
		c->max_len = len;
}

static bool ident_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

static bool path_char(char ch)
{
	return ident_char(ch) || ch == '/' || ch == '.' || ch == '-' ||
	       ch == '+';
}

/* A "6.5"-style kernel version later than 6.1 at @p? */
static bool later_version(const char *body, const char *p)
{
	char *end;
	long major, minor;

	if (p > body && (ident_char(p[-1]) || p[-1] == '.'))
		return false;
	major = strtol(p, &end, 10);
	if (end == p || *end != '.' || !isdigit((unsigned char)end[1]))
		return false;
	minor = strtol(end + 1, &end, 10);
	if (ident_char(*end) || (*end == '.' && isdigit((unsigned char)end[1])))
		return false; /* an address or a longer number */
	return major >= 3 && major <= 9 &&
	       (major > 6 || (major == 6 && minor > 1));
}

/* The citations of guide @g into @c; bad paths and versions into
 * @errs. */
static void collect(struct cites *c, const struct rb_guide *g, const char *tree,
		    struct rb_buf *errs)
{
	const char *b = g->body, *p = b;

	while (*p) {
		const char *s = p, *e;
		char top[256], full[4600];
		struct stat st;

		if (!path_char(*p)) {
			p++;
			continue;
		}
		while (path_char(*p))
			p++;
		e = p;
		while (e > s && e[-1] == '.')
			e--; /* a full stop */
		if (isdigit((unsigned char)*s) && later_version(b, s))
			assert_int_equal(rb_buf_printf(errs,
						       "%s: names linux %.*s, "
						       "later than the tree\n",
						       g->name, (int)(e - s),
						       s),
					 0);
		/* A path: its first component is at the top of the tree. */
		if (memchr(s, '/', (size_t)(e - s)) && ident_char(*s)) {
			size_t tl = strcspn(s, "/");

			snprintf(top, sizeof(top), "%.*s", (int)tl, s);
			snprintf(full, sizeof(full), "%s/%s", tree, top);
			if (tl < sizeof(top) && !stat(full, &st) &&
			    S_ISDIR(st.st_mode)) {
				snprintf(full, sizeof(full), "%s/%.*s", tree,
					 (int)(e - s), s);
				if (stat(full, &st))
					assert_int_equal(
						rb_buf_printf(errs,
							      "%s: no file "
							      "%.*s\n",
							      g->name,
							      (int)(e - s), s),
						0);
				continue;
			}
		}
		/* Identifiers inside the run. */
		for (p = s; p < e;) {
			const char *w = p;
			bool under = false, camel = false, caps = false;
			size_t i, len;

			if (!ident_char(*p) || isdigit((unsigned char)*p)) {
				/* skip the rest of a number or a symbol */
				p++;
				while (p < e && isdigit((unsigned char)w[0]) &&
				       ident_char(*p))
					p++;
				continue;
			}
			while (p < e && ident_char(*p))
				p++;
			len = (size_t)(p - w);
			for (i = 0; i < len; i++) {
				under |= w[i] == '_' && i > 0;
				camel |= i > 0 &&
					 islower((unsigned char)w[i - 1]) &&
					 isupper((unsigned char)w[i]);
				/* "HugeTLB" is a word, "PageHead" a name */
				caps |= isupper((unsigned char)w[i]) &&
					(i + 1 == len ||
					 !islower((unsigned char)w[i + 1]));
			}
			camel = camel && !caps && isupper((unsigned char)w[0]);
			/* "*_locked", "_irq()", "ndo_*": patterns, not
			 * names. */
			if ((w > b && w[-1] == '*') ||
			    (w[0] == '_' && w[1] != '_') || w[len - 1] == '_')
				continue;
			if (*p == '(' && p == e)
				cite_add(c, w, len, CITE_CALL, g->name);
			else if (under || camel || (w[0] == '_' && len > 2))
				cite_add(c, w, len, CITE_WORD, g->name);
		}
		p = e;
		while (*p == '.')
			p++;
	}
}

/*
 * Marks in @c what file @t (@len bytes, one C source or header) defines
 * and uses. Comments are skipped; string contents count as uses. A
 * definition is "#define NAME", or NAME( on a line that starts in column
 * one with an identifier (kernel style puts a function's head there),
 * either first on that line or after a type name or '*'.
 */
static void scan_file(struct cites *c, const char *t, size_t len)
{
	const char *p = t, *end = t + len, *line = t;

	while (p < end) {
		char ch = *p;

		if (ch == '\n') {
			line = ++p;
			continue;
		}
		if (ch == '/' && p + 1 < end && p[1] == '*') {
			const char *q = p + 2;

			while (q + 1 < end && !(q[0] == '*' && q[1] == '/'))
				q++;
			/* keep the line start right across the comment */
			for (; p < q; p++)
				if (*p == '\n')
					line = p + 1;
			p = q + 2 <= end ? q + 2 : end;
			continue;
		}
		if (ch == '/' && p + 1 < end && p[1] == '/') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		if (ch == '"' || ch == '\'') {
			/* a literal: its words are uses, nothing more */
			const char *q = p + 1, *w;
			struct cite *x;

			while (q < end && *q != ch && *q != '\n')
				q += *q == '\\' ? 2 : 1;
			for (p++; p < q && p < end;) {
				if (!ident_char(*p) || ch == '\'') {
					p++;
					continue;
				}
				for (w = p; p < q && ident_char(*p); p++)
					;
				x = cite_find(c, w, (size_t)(p - w));
				if (x)
					x->seen = true;
			}
			p = q < end ? q + 1 : end;
			continue;
		}
		if (ch == '#' && p == line) {
			const char *q = p + 1;

			while (q < end && (*q == ' ' || *q == '\t'))
				q++;
			if (end - q > 7 && !strncmp(q, "define", 6) &&
			    (q[6] == ' ' || q[6] == '\t')) {
				const char *w;
				struct cite *x;

				q += 7;
				while (q < end && (*q == ' ' || *q == '\t'))
					q++;
				for (w = q; q < end && ident_char(*q); q++)
					;
				x = cite_find(c, w, (size_t)(q - w));
				if (x)
					x->seen = x->defined = true;
				p = q;
				continue;
			}
			p++;
			continue;
		}
		if (ident_char(ch) && !(p > t && ident_char(p[-1]))) {
			const char *w = p, *q;
			struct cite *x;

			while (p < end && ident_char(*p))
				p++;
			if (isdigit((unsigned char)*w))
				continue;
			x = cite_find(c, w, (size_t)(p - w));
			if (!x)
				continue;
			x->seen = true;
			if (x->defined || x->kind != CITE_CALL ||
			    !ident_char(*line))
				continue;
			for (q = p; q < end && (*q == ' ' || *q == '\t'); q++)
				;
			if (q == end || *q != '(')
				continue;
			for (q = w; q > line && (q[-1] == ' ' || q[-1] == '\t');
			     q--)
				;
			if (q == line || ident_char(q[-1]) || q[-1] == '*')
				x->defined = true;
			continue;
		}
		p++;
	}
}

/* Page flags are functions made by macros in include/linux/page-flags.h
 * (PAGEFLAG(Locked, locked, ...) makes folio_test_locked(), PageLocked()
 * and the rest): each such line defines the names it makes. */
static void page_flag_names(struct cites *c, const char *tree)
{
	static const char *const lower[] = {
		"folio_test_",	     "folio_set_",     "folio_clear_",
		"__folio_set_",	     "__folio_clear_", "folio_test_set_",
		"folio_test_clear_",
	};
	static const char *const upper[] = {
		"Page",	       "SetPage",     "ClearPage",     "__SetPage",
		"__ClearPage", "TestSetPage", "TestClearPage",
	};
	struct rb_buf f = RB_BUF_INIT(4u << 20);
	char path[4200];
	const char *p;

	snprintf(path, sizeof(path), "%s/include/linux/page-flags.h", tree);
	assert_int_equal(rb_read_file(&f, path), 0);
	for (p = f.ptr; p && *p;) {
		const char *nl = strchr(p, '\n'), *q = p, *u, *l;
		size_t ul, ll, k, ml;
		char name[160];
		struct cite *x;

		/* "PAGEFLAG(Uptodate, uptodate, PF_NO_TAIL)" and kin */
		while (*q == '_' || isupper((unsigned char)*q))
			q++;
		ml = (size_t)(q - p);
		if (*q++ != '(' || ml < 4 ||
		    (!memmem(p, ml, "FLAG", 4) &&
		     strncmp(p, "PAGE_TYPE_OPS(", 14)))
			goto next;
		for (u = q; isalnum((unsigned char)*q); q++)
			;
		ul = (size_t)(q - u);
		if (*q++ != ',')
			goto next;
		while (*q == ' ')
			q++;
		for (l = q; islower((unsigned char)*q) ||
			    isdigit((unsigned char)*q) || *q == '_';
		     q++)
			;
		ll = (size_t)(q - l);
		if (!ul || !ll || ul > 60 || ll > 60)
			goto next;
		for (k = 0; k < 7; k++) {
			char arg[64];

			snprintf(arg, sizeof(arg), "%.*s", (int)ll, l);
			snprintf(name, sizeof(name), "%s%s", lower[k], arg);
			x = cite_find(c, name, strlen(name));
			if (x)
				x->seen = x->defined = true;
			snprintf(arg, sizeof(arg), "%.*s", (int)ul, u);
			snprintf(name, sizeof(name), "%s%s", upper[k], arg);
			x = cite_find(c, name, strlen(name));
			if (x)
				x->seen = x->defined = true;
		}
next:
		p = nl ? nl + 1 : NULL;
	}
	rb_buf_release(&f);
}

/* Every .c and .h file under @dir (a path inside the tree), scanned. */
static void scan_dir(struct cites *c, const char *dir, struct rb_buf *f,
		     size_t *files)
{
	DIR *dh = opendir(dir);
	struct dirent *e;

	if (!dh)
		return;
	while ((e = readdir(dh))) {
		char path[4096];
		size_t l = strlen(e->d_name);
		struct stat st;

		if (e->d_name[0] == '.')
			continue; /* ., .., .git and hidden files */
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     e->d_name) >= sizeof(path) ||
		    lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			scan_dir(c, path, f, files);
			continue;
		}
		if (!S_ISREG(st.st_mode) || l < 3 || e->d_name[l - 2] != '.' ||
		    (e->d_name[l - 1] != 'c' && e->d_name[l - 1] != 'h'))
			continue;
		rb_buf_reset(f);
		if (rb_read_file(f, path))
			continue;
		scan_file(c, f->ptr, f->len);
		(*files)++;
	}
	closedir(dh);
}

/*
 * The code a guide may cite: the core kernel and the two architectures
 * the guides name. drivers/, sound/ and the other architectures (two
 * thirds of the tree) are left out to keep the scan short; a name
 * defined only there reads as missing, which errs on the safe side.
 * tools/ is left out because it copies kernel headers for user space.
 */
static void scan_tree(struct cites *c, const char *tree, struct rb_buf *f,
		      size_t *files)
{
	static const char *const dirs[] = {
		"arch/x86", "arch/arm64", "block",    "crypto",	  "fs",
		"include",  "init",	  "io_uring", "ipc",	  "kernel",
		"lib",	    "mm",	  "net",      "security", "virt",
	};
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/%s", tree, dirs[i]);
		scan_dir(c, path, f, files);
	}
}

/*
 * Every path a guide cites exists in the linux 6.1 tree, every function
 * it cites is defined there and every identifier occurs in its code.
 * The selectors of the header are not claims (patches against newer
 * trees change files and names 6.1 does not have) and are not checked.
 */
static void test_citations(void **state)
{
	/* A guide that cites what 6.1 does not have, beside what it does
	 * (the names page-flags.h makes, patterns, older versions). */
	static char bad_body[] =
		"- no_such_function_here() in mm/no_such_file.c, with\n"
		"  FOLL_NO_SUCH_FLAG, since 6.5+. Not errors: folio_try_get(),\n"
		"  PageHead(), folio_test_locked(), __GFP_NOFAIL in mm/rmap.c\n"
		"  and Documentation/mm/transhuge.rst, *_locked, ndo_*, _irq(),\n"
		"  linux 6.1 and 4.12, HugeTLB, PageAnonExclusive.\n";
	static const char *const bad_want[] = {
		"bad-example: no_such_function_here() is not defined in the "
		"tree\n",
		"bad-example: no file mm/no_such_file.c\n",
		"bad-example: FOLL_NO_SUCH_FLAG does not occur in the tree's "
		"code\n",
		"bad-example: names linux 6.5+, later than the tree\n",
	};
	struct rb_guide bad = { .name = "bad-example", .body = bad_body };
	const char *tree = linux_tree();
	struct rb_buf errs = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf f = RB_BUF_INIT(256u << 20);
	struct cites c = { 0 };
	struct rb_guides g;
	size_t i, files = 0, calls = 0;

	(void)state;
	if (!tree) {
		print_message("SKIP: test_citations: needs the linux 6.1 git "
			      "tree, not found (RB_LINUX_TREE=%s): run "
			      "scripts/setup-linux-tree.sh\n",
			      getenv("RB_LINUX_TREE") ?: "unset");
		skip();
	}
	assert_int_equal(rb_guides_load(&g, src_path("review/guides")), 0);
	assert_true(g.n >= 8);
	c.n_slots = 4096;
	c.v = calloc(c.n_slots, sizeof(*c.v));
	assert_non_null(c.v);
	for (i = 0; i < g.n; i++)
		collect(&c, &g.v[i], tree, &errs);
	collect(&c, &bad, tree, &errs);
	page_flag_names(&c, tree);
	scan_tree(&c, tree, &f, &files);
	for (i = 0; i < c.n_slots; i++) {
		const struct cite *x = &c.v[i];

		if (!x->name)
			continue;
		calls += x->kind == CITE_CALL;
		if (x->kind == CITE_CALL && !x->defined)
			assert_int_equal(rb_buf_printf(&errs,
						       "%s: %s() is not "
						       "defined in the tree\n",
						       x->guide, x->name),
					 0);
		else if (!x->seen)
			assert_int_equal(rb_buf_printf(&errs,
						       "%s: %s does not occur "
						       "in the tree's code\n",
						       x->guide, x->name),
					 0);
		free(x->name);
	}
	print_message("%zu guides cite %zu names (%zu functions); %zu files "
		      "scanned\n",
		      g.n, c.n, calls, files);
	free(c.v);
	rb_buf_release(&f);
	rb_guides_release(&g);

	/* The made-up guide's errors, exactly; then none of the tree's. */
	for (i = 0; i < sizeof(bad_want) / sizeof(bad_want[0]); i++) {
		char *at = errs.ptr ? strstr(errs.ptr, bad_want[i]) : NULL;
		size_t l = strlen(bad_want[i]);

		if (!at)
			fail_msg("the check missed \"%s\" in:\n%s", bad_want[i],
				 errs.ptr ? errs.ptr : "");
		memmove(at, at + l, strlen(at + l) + 1);
		errs.len -= l;
	}
	if (errs.len)
		fail_msg("citations the linux 6.1 tree does not back:\n%s",
			 errs.ptr);
	rb_buf_release(&errs);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A guide without a header is an error naming the file; the version
 * changes with any guide's text. */
static void test_bad_and_version(void **state)
{
	char dir[] = "/tmp/rb-guides-XXXXXX";
	char path[4200], v1[13], v2[13];
	struct rb_guides g;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.md", dir);
	write_file(path, "Paths: x/\nRule one.\n");
	assert_int_equal(rb_guides_load(&g, dir), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.v[0].body, "Rule one.\n");
	rb_guides_release(&g);
	assert_int_equal(rb_model_prompt_version(v1, dir, NULL, 0), 0);
	assert_int_equal(strlen(v1), 12);

	write_file(path, "Paths: x/\nRule one, changed.\n");
	assert_int_equal(rb_model_prompt_version(v2, dir, NULL, 0), 0);
	assert_string_not_equal(v1, v2);
	{
		const char *const t[] = { "a finder text" };

		assert_int_equal(rb_model_prompt_version(v1, dir, t, 1), 0);
		assert_string_not_equal(v1, v2);
	}

	snprintf(path, sizeof(path), "%s/b.md", dir);
	write_file(path, "No header here.\n");
	assert_int_equal(rb_guides_load(&g, dir), -RB_EPARSE);
	assert_non_null(strstr(rb_errmsg(), "b.md:1"));
	assert_int_equal(g.n, 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a.md", dir);
	unlink(path);
	rmdir(dir);

	/* No directory: no guides, not an error. */
	assert_int_equal(rb_guides_load(&g, "/nonexistent/guides"), 0);
	assert_int_equal(g.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_mm_split),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_citations),
		cmocka_unit_test(test_bad_and_version),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
