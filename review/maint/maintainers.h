/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * maintainers.h - who looks after a patch: the kernel's MAINTAINERS file,
 * matched exactly the way scripts/get_maintainer.pl (v0.26, linux 6.1)
 * matches it, so that the recipients and the subsystem of a patch are the
 * ones a kernel developer gets from
 *   get_maintainer.pl --nogit --nogit-fallback [--norolestats] PATCH
 *
 * What is replicated (see review/maint/maintainers.c for each rule):
 * - every letter M R L S W Q B C P T F X N K is parsed; F:/X: globs are
 *   turned into regexes the way get_maintainer does it (. -> \., * -> .*,
 *   ? -> ., a directory gets a trailing /), then matched with its
 *   slash-count rule; X: excludes a section first; N: is a Perl regex on
 *   the path; K: is a Perl regex on each patch line (on "^[+-].*" lines
 *   once the first ---/+++ line was seen), /x flag included;
 * - sections sorted by pattern depth, per file in sorted file order, then
 *   the K: sections in get_maintainer's (string) index order;
 * - e-mail de-duplication by name and by address, .mailmap as
 *   get_maintainer applies it, the "chief penguin" removal, the lists'
 *   open/moderated/subscribers-only rules, roles ("maintainer:SUBSYSTEM",
 *   "open list:SUBSYSTEM") and the "in file" addresses of .yaml files.
 * - Perl regexes are translated into POSIX extended regexes (glibc): \b,
 *   \B, \w, \s, \d (and negations), (?:...), (?i) and (?i:...), lazy
 *   quantifiers (as greedy: only match/no-match matters), /x whitespace and
 *   comments; a pattern using anything else (look-around, back-references)
 *   never matches and is reported by rb_maint_warnings();
 * - "Fixes: <commit>" lines: the Signed-off-by:, Reviewed-by: and
 *   Acked-by: people of that commit in the tree's repository (libgit2, as
 *   get_maintainer's "git log -1"), without Linus Torvalds and the
 *   tree's .get_maintainer.ignore, role "blamed_fixes:N/1=100%";
 * - M:/R: values that are RFC 822 address lists are split as
 *   get_maintainer's rfc822_validlist() splits them.
 *
 * Where get_maintainer's own order depends on Perl's hash order (sections
 * of equal pattern depth for one file; "Fixes:" signers with equal
 * counts), this module orders them by their position in MAINTAINERS, and
 * the signers by string. Not replicated: the git options (--git, the git
 * fallback, --git-blame: off with --nogit --nogit-fallback), and a
 * .get_maintainer.conf in the tree or in $HOME (linux 6.1 has none).
 *
 * Thread safety: a loaded struct rb_maint is read-only apart from a memo
 * of directory tests that is updated with atomics; lookups may run in
 * parallel on one handle.
 */
#ifndef RB_REVIEW_MAINTAINERS_H
#define RB_REVIEW_MAINTAINERS_H

#include <stdbool.h>
#include <stddef.h>

struct rb_buf;
struct rb_maint;
struct rb_maint_cache;

/* One MAINTAINERS section, as written (values not converted). */
struct rb_maint_section {
	const char *name; /* the header line, e.g. "MEMORY MANAGEMENT" */
	const char *status; /* the last S: value, "" when none */
	const char *const *maintainers; /* M: values, raw */
	size_t nmaintainers;
	const char *const *reviewers; /* R: values, raw */
	size_t nreviewers;
	const char *const *lists; /* L: values, raw ("a@b (moderated ...)") */
	size_t nlists;
	const char *const *trees; /* T: values ("git git://... branch") */
	size_t ntrees;
	const char *const *webs; /* W: values */
	size_t nwebs;
};

enum rb_maint_kind {
	RB_MAINT_PERSON, /* an M:/R: person, or an address found in a file */
	RB_MAINT_LIST, /* an L: mailing list */
};

/* One recipient line of get_maintainer's output. */
struct rb_maint_recipient {
	char *addr; /* "Name <a@b>" or "list@host", mailmapped */
	char *role; /* "maintainer:MEMORY MANAGEMENT", "open list", ... */
	enum rb_maint_kind kind;
};

struct rb_maint_result {
	/* Touched sections in get_maintainer's order, each once; borrowed
	 * from the struct rb_maint the lookup ran on.
	 */
	const struct rb_maint_section **sections;
	size_t nsections;
	/* Recipients: M:/R: people then lists, deduplicated exactly as
	 * get_maintainer does it (its output order).
	 */
	struct rb_maint_recipient *to;
	size_t nto;
	/* The file names read from the patch (sorted, unique). */
	char **files;
	size_t nfiles;
};

/*
 * Loading. rb_maint_load_git() reads MAINTAINERS and .mailmap from the
 * tree of @rev ("HEAD" when NULL) in the git repository @repo_path through
 * libgit2, never from a worktree; directory tests (F: patterns) and .yaml
 * files are read from that tree too. rb_maint_load_file() reads a plain
 * MAINTAINERS file (for tests); @mailmap_path and @tree_dir may be NULL
 * (no .mailmap; no directory tests and no file reads). On success *out is
 * owned by the caller (rb_maint_free()). Errors: -RB_ENOTFOUND (no such
 * repository, revision or file), -RB_EIO, -RB_ETOOBIG, -RB_ENOMEM.
 */
int rb_maint_load_git(struct rb_maint **out, const char *repo_path,
		      const char *rev);
/*
 * rb_maint_load_git() with an on-disk cache of the parsed index in
 * @cache_dir (created 0700 when missing; NULL: no cache). The cache file
 * is keyed by the MAINTAINERS and .mailmap blob ids and by the build of
 * this parser, so it is never stale; a missing or damaged one is parsed
 * again and rewritten. Worth it for one process per lookup: the parse is
 * most of a one-shot run.
 */
int rb_maint_load_git_cached(struct rb_maint **out, const char *repo_path,
			     const char *rev, const char *cache_dir);
/*
 * The one-shot's quick load: the index and what the cache keeps of the
 * tree of the commit HEAD names in @repo_path (files the cached load of
 * HEAD wrote), read without libgit2. -RB_ENOTFOUND when the cache has no
 * such files, or HEAD is not a branch or commit of a plain repository.
 * A lookup on this handle that needs more of the tree (a .yaml file, a
 * Fixes: commit, a path of --file) is incomplete: rb_maint_incomplete()
 * says so, and the caller makes it again with rb_maint_load_git_cached().
 */
int rb_maint_load_cache_only(struct rb_maint **out, const char *repo_path,
			     const char *cache_dir);
bool rb_maint_incomplete(const struct rb_maint *m);
int rb_maint_load_file(struct rb_maint **out, const char *maintainers_path,
		       const char *mailmap_path, const char *tree_dir);
/* Parses MAINTAINERS and .mailmap text held in memory (the fuzz target);
 * the texts are copied. @mailmap may be NULL.
 */
int rb_maint_load_mem(struct rb_maint **out, const char *text, size_t len,
		      const char *mailmap, size_t mailmap_len);
void rb_maint_free(struct rb_maint *m);

/* The number of sections, and the section at @i (borrowed). */
size_t rb_maint_nsections(const struct rb_maint *m);
const struct rb_maint_section *rb_maint_section_at(const struct rb_maint *m,
						   size_t i);
/* The first section whose name is @name, or NULL. */
const struct rb_maint_section *rb_maint_find_section(const struct rb_maint *m,
						     const char *name);
/* Patterns that could not be translated (one per line), "" when none. */
const char *rb_maint_warnings(const struct rb_maint *m);

/*
 * A cache for a daemon: one parsed index per MAINTAINERS/.mailmap blob
 * pair. rb_maint_cache_get() resolves @rev in @repo_path and returns a
 * handle bound to that tree; the index is parsed again only when either
 * blob changed. The handle is owned by the caller (rb_maint_free()) and
 * stays valid after the cache moves on or is freed.
 */
int rb_maint_cache_new(struct rb_maint_cache **out);
int rb_maint_cache_get(struct rb_maint **out, struct rb_maint_cache *c,
		       const char *repo_path, const char *rev);
/* How many times the cache parsed MAINTAINERS (for tests). */
unsigned int rb_maint_cache_loads(const struct rb_maint_cache *c);
void rb_maint_cache_free(struct rb_maint_cache *c);

/*
 * A lookup collects inputs the way one get_maintainer run collects its
 * arguments: patches (file names from the diff, keywords from the text)
 * and plain file paths (like -f). Then rb_maint_query_run() resolves it.
 */
struct rb_maint_query;

int rb_maint_query_new(struct rb_maint_query **out, const struct rb_maint *m);
/* A patch or a whole mail, raw bytes, read line by line as get_maintainer
 * reads its PATCH argument.
 */
int rb_maint_query_add_patch(struct rb_maint_query *q, const char *text,
			     size_t len);
/* A path relative to the tree's top (like get_maintainer -f PATH): its
 * content, read from the tree, is scanned for K: keywords.
 */
int rb_maint_query_add_path(struct rb_maint_query *q, const char *path);
/* Resolves; *out is owned by the caller (rb_maint_result_free()). */
int rb_maint_query_run(struct rb_maint_result **out, struct rb_maint_query *q);
void rb_maint_query_free(struct rb_maint_query *q);

/* Shortcuts: one patch, or a list of paths. */
int rb_maint_lookup_patch(struct rb_maint_result **out,
			  const struct rb_maint *m, const char *text,
			  size_t len);
int rb_maint_lookup_paths(struct rb_maint_result **out,
			  const struct rb_maint *m, const char *const *paths,
			  size_t npaths);
void rb_maint_result_free(struct rb_maint_result *r);

/* Output formats of rb_maint_format(). */
enum {
	RB_MAINT_FMT_ROLES = 1 << 0, /* "addr (role)", like --roles */
};

/* Appends get_maintainer's output for @r: one recipient per line. */
int rb_maint_format(struct rb_buf *out, const struct rb_maint_result *r,
		    unsigned int flags);
/* Appends the touched sections: name, status, T:, L:, M:, R: lines. */
int rb_maint_format_sections(struct rb_buf *out,
			     const struct rb_maint_result *r);

#endif
