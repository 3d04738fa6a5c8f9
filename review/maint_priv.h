/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * maint_priv.h - internal to review/maintainers.c and
 * review/maint_cache.c: the parsed MAINTAINERS index, and its on-disk
 * cache.
 *
 * Ownership in a parsed index: strings live in @text (MAINTAINERS, cut
 * into lines in place) and in the arena; the sections' M:/R:/L:/T:/W:
 * arrays are slices of @ptrs; regex texts and literal sets are malloc'd
 * one by one. An index read from the cache keeps every string in @text
 * (the file's string table) and no arena.
 */
#ifndef RB_REVIEW_MAINT_PRIV_H
#define RB_REVIEW_MAINT_PRIV_H

#include <git2.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "review/maint_regex.h"
#include "review/maintainers.h"
#include "util/buf.h"

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

struct pat_rx {
	struct rb_perl_re re[2];
	char *perl[2]; /* the Perl texts to compile lazily */
	int state[2]; /* 0 not compiled, 1 compiled, -1 failed */
};

struct pat {
	char type; /* 'F', 'X' or 'N' */
	const char *val; /* converted (F/X) or raw (N) */
	size_t vlen;
	int depth; /* $value_pd */
	size_t slashes; /* ($value =~ tr@/@@) */
	bool trailing; /* ends with "/" */
	bool may_dir; /* -d $value can add a "/" */
	bool glob; /* matched by glob_match(), else by the regexes */
	size_t litlen; /* leading literal bytes (quick reject) */
	int first; /* the first byte when it is literal, else -1 */
	/* N:, or F:/X: patterns beyond the glob subset ("^" prepended);
	 * re[1] is the same with "/" appended (a directory).
	 */
	struct pat_rx *rx;
};

enum cat_kind { CAT_LIST, CAT_M, CAT_R };

/* A line add_categories() acts on, with its role worked out. */
struct cat {
	enum cat_kind kind;
	const char *val; /* M:/R: value; L: the list address */
	const char *role; /* "maintainer:NAME", "open list:NAME", ... */
	bool skip; /* a subscribers-only list */
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
	struct sect *sect;
	size_t nsect;
	struct pat *pat;
	size_t npat;
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
};

/* A zeroed index with one reference, its lock and warnings set up. */
struct index *rb_maint__index_alloc(void);
void rb_maint__index_unref(struct index *ix);

/* A handle on @ix (taken) over the plain directory @tree_dir (NULL: no
 * tree); the index of a handle.
 */
int rb_maint__wrap(struct rb_maint **out, struct index *ix,
		   const char *tree_dir);
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

/* The file format itself: encode appends to @out; decode takes @buf
 * (malloc'd) in all cases. @verify checks the checksum (the fuzz target
 * turns it off to reach the decoder).
 */
int rb_maint__cache_encode(struct rb_buf *out, const struct index *ix);
int rb_maint__cache_decode(struct index **out, char *buf, size_t len,
			   bool verify);

#endif
