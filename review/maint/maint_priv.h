/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * maint_priv.h - internal to the MAINTAINERS lookup (review/maint_*.c and
 * review/maint/maintainers.c): the parsed index and the helpers its files share.
 *
 *   maintainers.c    the handle: loads, section accessors, the in-memory
 *                    cache of the daemon
 *   maint_mem.c      the arena, string lists and vectors
 *   maint_tree.c     the kernel tree: a git revision or a directory
 *   maint_parse.c    MAINTAINERS into the index (read_maintainer_file)
 *   maint_mailmap.c  .mailmap (read_mailmap, mailmap_email)
 *   maint_email.c    Perl's e-mail helpers (parse_email, format_email,
 *                    RFC 822 checks, the addresses of .yaml files)
 *   maint_match.c    F:/X:/N: patterns and K: keywords against files
 *   maint_query.c    a query: the files and keywords of patches or paths
 *   maint_collect.c  the run: sections, lists and people, as get_maintainer
 *   maint_format.c   the output lines
 *   maint_cache.c    the index on disk
 *
 * Ownership in a parsed index: strings live in @text (MAINTAINERS, cut
 * into lines in place) and in the arena; the sections' M:/R:/L:/T:/W:
 * arrays are slices of @ptrs; regex texts and literal sets are malloc'd
 * one by one. An index read from the cache keeps every string in @text
 * (the file's string table) and no arena.
 */
#ifndef RB_REVIEW_MAINT_PRIV_H
#define RB_REVIEW_MAINT_PRIV_H

#include <ctype.h>
#include <git2.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "review/maint/maint_regex.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"

#define MAINT_MAX (64u << 20) /* MAINTAINERS, .mailmap, a patch, a file */

struct arena {
	char *chunk;
	size_t used, size;
	char **chunks;
	size_t nchunks;
};

/* One element of get_maintainer's @typevalue. */
struct tv {
	char type; /* 'A'..'Z', or 0: a line that is not "X: value" */
	const char *str; /* a line that is not a type line; else NULL */
	const char *val; /* for type lines: after "X:" */
	size_t vlen;
};

/* A pattern's regexes: re[1] is re[0] with "/" appended (a directory);
 * an N: pattern has re[0] only.
 */
struct pat_rx {
	struct rb_perl_re re[2];
	char *perl[2]; /* the Perl texts to compile lazily */
	int state[2]; /* 0 not compiled, 1 compiled, -1 failed */
};

/*
 * A pattern: 32 bytes, numbers only, the same in memory and in the cache
 * file, where a one-shot lookup reads the 7,000 of linux 6.1 in place
 * (maint_cache.c): decoding them into fresh memory was a sixth of its
 * run. Lengths are below MAINT_MAX.
 */
struct pat {
	uint32_t val; /* the value, at pat_val(): converted (F/X) or raw (N) */
	uint32_t vlen;
	uint32_t slashes; /* ($value =~ tr@/@@) */
	uint32_t litlen; /* leading literal bytes (quick reject) */
	int32_t depth; /* $value_pd */
	/* 1 + the index in ix->rx of the regexes of an N: pattern, or of an
	 * F:/X: pattern beyond the glob subset; 0 for none.
	 */
	uint32_t rx;
	int16_t first; /* the first byte when it is literal, else -1 */
	char type; /* 'F', 'X' or 'N' */
	uint8_t trailing; /* 1: ends with "/" */
	uint8_t may_dir; /* 1: -d $value can add a "/" */
	uint8_t glob; /* 1: matched by glob_match(), else by the regexes */
	uint8_t pad[2]; /* 0 */
};

enum cat_kind { CAT_LIST, CAT_M, CAT_R };

/* A line add_categories() acts on, with its role worked out. */
struct cat {
	enum cat_kind kind;
	const char *val; /* M:/R: value; L: the list address */
	const char *role; /* "maintainer:NAME", "open list:NAME", ... */
	bool skip; /* a subscribers-only list */
};

/*
 * What matching reads first of every pattern: b[15] (at most 15) bytes a
 * file must start with to match it (the literal prefix of a glob), in
 * b[0..14], zero-padded; 0 for a pattern tried on every file. 16 bytes
 * each, beside the patterns: rejecting a pattern here touches neither its
 * record nor its value, and most are rejected (2,900 patterns of linux
 * 6.1 start with "d", and every file under drivers/ was tried on each).
 */
struct pat_key {
	uint8_t b[16];
};

#define KEY_BLOCKS 17 /* struct index's kblock[] */

/* What matching reads of every section (struct sect has it too). */
struct sect_m {
	uint32_t pat0, npat; /* F:/N: patterns in line order */
	uint32_t x0, nx; /* X: patterns */
};

struct sect {
	size_t tvi; /* the loop's $tvi: the hash key */
	size_t start, end; /* typevalue range */
	size_t pat0, npat; /* F:/N: patterns in line order */
	size_t x0, nx; /* X: patterns */
	size_t cat0, ncat;
	struct rb_maint_section pub;
};

struct kw {
	size_t tvi; /* the K: line's index */
	size_t sect;
	char key[24]; /* the index as a decimal string (the sort key) */
	struct rb_perl_re re[2]; /* plain; with "^[+-].*" in front */
	char *perl[2];
	int state[2];
	int translate_err[2];
};

struct mm_ent {
	const char *key;
	const char *val;
};

struct index {
	int refs;
	char *text; /* MAINTAINERS, cut into lines in place */
	struct arena ar;
	struct tv *tv;
	size_t ntv;
	size_t *tv_sect; /* typevalue index -> section, (size_t)-1 */
	/* Use rb_maint__sect(): an index read from the cache decodes a
	 * section, its categories and its slices of @ptrs when first asked.
	 */
	struct sect *sect;
	size_t nsect;
	struct sect_m *sm; /* every section's patterns, for matching */
	const struct pat *pat;
	size_t npat;
	const char *pstr; /* the patterns' values (@pstr_buf, or the cache's) */
	char *pstr_buf;
	const struct pat_key *pkey; /* one per pattern */
	struct pat_key *pkey_buf;
	/* The patterns by key: their numbers sorted by (key length, key
	 * bytes, number), the keys of length L at korder[kblock[L]] to
	 * korder[kblock[L + 1]] (L = 0 to 15; kblock[16] = npat), so that
	 * a file's candidates are found by bisection, not by trying every
	 * key (rb_maint__match_file()).
	 */
	const uint32_t *korder;
	uint32_t *korder_buf;
	uint32_t kblock[KEY_BLOCKS];
	struct pat_rx *rx;
	size_t nrx;
	struct cat *cat;
	size_t ncat;
	struct kw *kw;
	size_t nkw;
	struct mm_ent *mm_names, *mm_addrs;
	size_t nmm_names, nmm_addrs;
	/* The sections' M:/R:/L:/T:/W: arrays, one slice each. */
	const char **ptrs;
	size_t nptrs, ptrs_used;
	pthread_mutex_t lock; /* lazy regex compilation */
	/* rfc822_valid() and rfc822_validlist(), compiled when a value
	 * with a "," first needs them.
	 */
	struct rb_perl_re rfc[2];
	char *rfc_perl[2];
	int rfc_state[2];
	struct rb_buf warnings;
	git_oid maint_id, mailmap_id; /* for the cache */
	/* An index read from the cache: the file mapped read-only (its
	 * string table is where the strings live), or NULL with @text.
	 */
	void *map;
	size_t maplen;
	/* An index read from the cache: the arrays decoded as it loads
	 * (sm, pat, kw, the .mailmap maps) in one mapping, freed as one;
	 */
	void *block;
	size_t blocklen;
	/* and those decoded when first asked (sect, cat, ptrs, sect_done)
	 * in another, whose pages come as they are written; the records
	 * they are decoded from, checked as the file loaded.
	 */
	void *lazy;
	size_t lazylen;
	unsigned char *sect_done; /* NULL: every section is decoded */
	const unsigned char *raw_sect, *raw_ptrs, *raw_cat;
	const char *raw_tab;
	size_t raw_tablen;
};

/* Section @i of @ix (< ix->nsect), decoded when it is the first ask. */
const struct sect *rb_maint__sect(struct index *ix, size_t i);

/* The value of pattern @p: vlen bytes, then a NUL. */
static inline const char *pat_val(const struct index *ix, const struct pat *p)
{
	return ix->pstr + p->val;
}

static inline struct pat_rx *pat_rx(const struct index *ix, const struct pat *p)
{
	return &ix->rx[p->rx - 1];
}

/* ---- memory (maint_mem.c) ------------------------------------------ */

void *rb_maint__arena_alloc(struct arena *a, size_t len);
char *rb_maint__arena_strndup(struct arena *a, const char *s, size_t len);
void rb_maint__arena_release(struct arena *a);
char *rb_maint__arena_printf(struct arena *ar, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "a" "b" "c" concatenated in the arena (no printf: this runs for
 * every line of MAINTAINERS).
 */
char *rb_maint__arena_cat(struct arena *ar, const char *a, const char *b,
			  size_t blen, const char *c);

/* A malloc'd string list. */
struct strv {
	char **v;
	size_t n, cap;
};

/* Appends @s (taken, freed on failure; NULL is an out-of-memory error). */
int rb_maint__strv_push(struct strv *sv, char *s /* taken */);
bool rb_maint__strv_has(const struct strv *sv, const char *s);
void rb_maint__strv_release(struct strv *sv);

/* A growable array of @size-byte elements. */
struct vec {
	void *v;
	size_t n, cap, size;
};

/* A zeroed new element at the end, or NULL when out of memory. */
void *rb_maint__vec_push(struct vec *v);

size_t rb_maint__count_char(const char *s, size_t len, char c);

/* Perl's \s (5.18+): space, \t \n \v \f \r. */
static inline bool is_ws(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Perl's \w on a byte string. */
static inline bool is_word(unsigned char c)
{
	return c < 128 && (isalnum(c) || c == '_');
}

static inline char lc_ascii(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* ---- the tree (maint_tree.c) ---------------------------------------- */

struct tree_src;

/* A git tree's answers (maint_git.c, the only caller of libgit2). */
struct tree_ops {
	int (*node)(const struct tree_src *s, const char *path);
	int (*read)(const struct tree_src *s, const char *path,
		    struct rb_buf *out);
	int (*commit_body)(const struct tree_src *s, const char *hex,
			   struct rb_buf *out);
	void (*release)(struct tree_src *s);
};

struct tree_src {
	const struct tree_ops *ops; /* set with @repo and @tree */
	git_repository *repo; /* a git tree, or */
	git_tree *tree;
	char *dir; /* a plain directory, or neither, or */
	/* a git tree known only by what the cache keeps of it (the -d
	 * answers, .get_maintainer.ignore): any other question about it
	 * sets *missed, and the lookup must be made again with git.
	 */
	int *missed;
};

enum { NODE_NONE, NODE_DIR, NODE_FILE };

/* -d and -f on @path (symbolic links followed inside the tree). */
int rb_maint__src_node(const struct tree_src *s, const char *path);
/* Reads the regular file @path of the tree into @out. */
int rb_maint__src_read(const struct tree_src *s, const char *path,
		       struct rb_buf *out);
/* The body of the commit @hex names: -RB_ENOTFOUND when there is none
 * or no git tree (get_maintainer's vcs_exists() false).
 */
int rb_maint__src_commit_body(const struct tree_src *s, const char *hex,
			      struct rb_buf *out);
void rb_maint__src_release(struct tree_src *s);
/* Opens @repo_path at @rev into @src; the ids of MAINTAINERS and
 * .mailmap (zero when absent) into @mid/@mmid.
 */
int rb_maint__open_git(struct tree_src *src, const char *repo_path,
		       const char *rev, git_oid *mid, git_oid *mmid);
int rb_maint__read_blob(struct rb_buf *out, git_repository *repo,
			const git_oid *id);
/* The commit HEAD names in @repo_path, read from the files of its .git
 * directory without libgit2 (whose set-up parses the system's CA bundle:
 * a third of a one-shot lookup); -RB_ENOTFOUND for anything but a
 * loose or packed branch, or a detached HEAD, of a plain repository.
 */
int rb_maint__head_commit(unsigned char id[GIT_OID_RAWSZ],
			  const char *repo_path);
/* The -d answers for every pattern that asks one (rb_maint.dirmemo). */
int rb_maint__tree_dirs(unsigned char *memo, const struct index *ix,
			const struct tree_src *src);

struct rb_maint {
	struct index *ix;
	struct tree_src src;
	/* -d memo per pattern: 0 unknown, 1 directory, 2 not. */
	unsigned char *dirmemo;
	/* .get_maintainer.ignore of the tree, one entry a line. */
	struct strv ignore;
};

/* ---- MAINTAINERS and .mailmap (maint_parse.c, maint_mailmap.c) ------ */

/* A new index of @text (copied) and of @mailmap (NULL: none). */
int rb_maint__index_new(struct index **out, const char *text, size_t len,
			const char *mailmap, size_t mlen);
/* read_mailmap() into @ix's maps. */
int rb_maint__parse_mailmap(struct index *ix, const char *text, size_t len);
/* mailmap_email(): the .mailmap name and address for @line (malloc'd). */
char *rb_maint__mailmap_email(const struct index *ix, const char *line);

/* ---- Perl's e-mail helpers (maint_email.c) -------------------------- */

/* A name/address pair, malloc'd. */
struct email {
	char *name;
	char *addr;
};

void rb_maint__email_release(struct email *e);
/* s/^\s+|\s+$//g on [s, s+len). */
void rb_maint__trim(const char **s, size_t *len);
/* parse_email(): *out is the caller's (rb_maint__email_release). */
int rb_maint__parse_email(struct email *out, const char *s, size_t len);
int rb_maint__parse_email_str(struct email *out, const char *s);
/* format_email($name, $address, 1), malloc'd. */
char *rb_maint__format_email(const char *name, const char *addr);
/* rfc822_valid() (@list 0) or rfc822_validlist() (1). */
bool rb_maint__rfc822_match(struct index *ix, int list, const char *s);
/* rfc822_strip_comments(), malloc'd. */
char *rb_maint__strip_comments(const char *in);
/* The addresses maintainers_in_file() takes from a .yaml file. */
int rb_maint__file_addresses(struct strv *out, const char *text, size_t len);
/* clean_file_emails() for one address, malloc'd; NULL when none. */
char *rb_maint__clean_file_email(const char *raw);

/* ---- matching (maint_match.c) -------------------------------------- */

/*
 * Whether a converted F:/X: value is in the subset matched without
 * regcomp(); sets the pattern's literal prefix for the quick reject.
 */
bool rb_maint__glob_check(struct pat *p, const char *val);
/* The struct pat_key of a pattern glob_check() accepted. */
void rb_maint__pat_key(struct pat_key *k, const struct pat *p, const char *val);
/* ix->korder_buf and ix->kblock from ix->pkey: 0 or -RB_ENOMEM. */
int rb_maint__key_order(struct index *ix);
/*
 * Compiles @perl into @dst's regex, keeping the literals @dst got from
 * the translation at load time; @state goes to 1, or -1 on failure.
 */
bool rb_maint__lazy_re(struct index *ix, struct rb_perl_re *dst, int *state,
		       const char *perl, bool xflag);
bool rb_maint__kw_re(struct index *ix, struct kw *k, int which);
/* One K: keyword against the lines of a patch: any line matches? */
bool rb_maint__kw_patch(struct index *ix, struct kw *k, const char *text,
			const char *lower, size_t len,
			const struct rb_grams *grams, const size_t *lstart,
			const unsigned char *lflag, size_t nlines);

struct hit {
	size_t sect;
	int depth;
};

/* What rb_maint__match_file() works in, sized by its caller. */
struct match_buf {
	struct hit *hits; /* one per section */
	int *slot; /* one per section, -1 */
	char *lower; /* strlen(file) + 1 bytes */
	uint32_t *cand; /* one per pattern */
};

/*
 * The sections @file falls in (not excluded by an X:), deepest first,
 * into b->hits; returns how many.
 */
size_t rb_maint__match_file(struct rb_maint *m, const char *file,
			    struct match_buf *b);

/* ---- queries (maint_query.c, maint_collect.c) ----------------------- */

struct rb_maint_query {
	const struct rb_maint *m;
	struct strv files;
	struct strv fixes; /* @fixes: commit ids of "Fixes:" lines */
	bool *kwhit;
};

/* ---- the index's life and the cache (maint_parse.c, maint_cache.c) -- */

/* A zeroed index with one reference, its lock and warnings set up. */
struct index *rb_maint__index_alloc(void);
void rb_maint__index_unref(struct index *ix);

/* A handle on @ix (taken) over the plain directory @tree_dir (NULL: no
 * tree); the index of a handle.
 */
int rb_maint__wrap(struct rb_maint **out, struct index *ix,
		   const char *tree_dir);
/* A handle on @ix over @src (both taken on success), with @ignore the
 * text of .get_maintainer.ignore, or NULL to read it from the tree.
 */
int rb_maint__wrap_src(struct rb_maint **out, struct index *ix,
		       struct tree_src *src, const struct rb_buf *ignore);
/* rb_maint__wrap_src(..., NULL) unless @err; on failure, or on @err,
 * @ix and @src are freed and the error returned.
 */
int rb_maint__wrap_or_drop(struct rb_maint **out, struct index *ix,
			   struct tree_src *src, int err);
const struct index *rb_maint__index(const struct rb_maint *m);

/*
 * The cache: one file per MAINTAINERS/.mailmap blob pair and per build of
 * the parser, "DIR/<maintainers id>-<mailmap id>.idx". rb_maint__cache_load()
 * returns -RB_ENOTFOUND when there is no usable file (missing, stale,
 * damaged, or not owned by this user); the caller then parses and calls
 * rb_maint__cache_save(), whose failure only costs the next run a parse,
 * and which removes the directory's files not rewritten for 30 days.
 */
int rb_maint__cache_load(struct index **out, const char *dir,
			 const git_oid *mid, const git_oid *mmid);
int rb_maint__cache_save(const struct index *ix, const char *dir);

/*
 * What a cache-only lookup needs of the tree of one commit, in
 * "DIR/<commit id>.tree": the MAINTAINERS and .mailmap ids (which index
 * file), the -d answer for each pattern and .get_maintainer.ignore.
 * Load returns -RB_ENOTFOUND for no usable file; *memo is malloc'd
 * (@npat bytes) and @ignore gets the file's text.
 */
struct tree_facts {
	unsigned char commit[GIT_OID_RAWSZ];
	git_oid mid, mmid;
	unsigned char *memo;
	size_t npat;
	struct rb_buf ignore;
};

int rb_maint__facts_load(struct tree_facts *f, const char *dir);
/* The file itself (@f->commit set to the one expected): -RB_EINVAL when
 * damaged; @verify checks the checksum (the fuzz target turns it off).
 */
int rb_maint__facts_decode(struct tree_facts *f, const unsigned char *buf,
			   size_t len, bool verify);
int rb_maint__facts_save(const struct tree_facts *f, const char *dir);

/* The file format itself: encode appends to @out; decode takes @buf
 * (malloc'd) in all cases. @verify checks the checksum (the fuzz target
 * turns it off to reach the decoder).
 */
int rb_maint__cache_encode(struct rb_buf *out, const struct index *ix);
int rb_maint__cache_decode(struct index **out, char *buf, size_t len,
			   bool verify);

#endif
