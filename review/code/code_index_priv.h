/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * code_index_priv.h - what the two halves of the code index share: the
 * file's layout and checks (code_index.c) and its building
 * (code_index_build.c). See code_index.c for the format.
 */
#ifndef RB_REVIEW_CODE_INDEX_PRIV_H
#define RB_REVIEW_CODE_INDEX_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <git2.h>

#include "review/code/code_index.h"

#define MAGIC "RBCODEX"
#define FORMAT 1u
#define ENDIAN 0x01020304u
#define SRC_LEN 48
#define OID_LEN 20
#define HDR_LEN 128
/*
 * The fan: 4096 buckets by the first 12 bits of a blob's id, about 20
 * blobs each on linux, so that a blob is found in a few steps and a file
 * of a small tree stays small enough for the fuzzer (64 KiB).
 */
#define FAN_N 4096u
#define FAN_LEN (FAN_N * 4u)
#define MAX_BLOBS (1u << 22)
#define WORD_MIN 3 /* shorter words are in too many blobs to help */
#define SUFFIX ".cidx"
#define LET_GO (8u << 20) /* bytes read between two let-gos */
#define LET_GO_WORDS 65536

/* RB_CODE_INDEX_SRC: the build tag every file carries. */
extern const char rb_code_index__src[SRC_LEN];

/* One index: a file mapped (or, from the fuzzer, a buffer). */
struct rb_code_index {
	git_oid tree;
	const unsigned char *base; /* the file */
	size_t len;
	bool mapped; /* @base is a mapping of ours */
	uint32_t nblob, nword;
	const unsigned char *fan, *blobs, *post, *rec;
	const char *tab;
	uint64_t plen, tlen;
	int refs; /* under the cache's lock */
	bool cached; /* one of the refs is the cache's */
	struct rb_code_index_stats st;
};

static inline double rb_code_index__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline uint32_t rd32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t rd64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void hex_of(char out[2 * OID_LEN + 1], const git_oid *id)
{
	git_oid_tostr(out, 2 * OID_LEN + 1, id);
}

/*
 * Where the blob id @id is among the ids of @base[@lo, @hi), sorted
 * ascending, each at @stride bytes from the last; SIZE_MAX when it is
 * not there.
 */
static inline size_t oid_find(const unsigned char *base, size_t stride,
			      size_t lo, size_t hi, const unsigned char *id)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(base + mid * stride, id, OID_LEN);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* Word @i's offset in the table, and its postings' in the postings. */
static inline uint32_t str_of(const struct rb_code_index *ix, uint32_t i)
{
	return rd32(ix->rec + 8 * (size_t)i);
}

static inline uint32_t post_of(const struct rb_code_index *ix, uint32_t i)
{
	return rd32(ix->rec + 8 * (size_t)i + 4);
}

/* The fan's bucket of an id. */
static inline uint32_t fan_key(const unsigned char *id)
{
	return (uint32_t)id[0] << 4 | id[1] >> 4;
}

static inline const char *word_of(const struct rb_code_index *ix, uint32_t i)
{
	return ix->tab + str_of(ix, i);
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* [A-Za-z0-9_], in any locale: what a word is made of. */
static inline bool is_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       is_digit((char)c) || c == '_';
}

/* The next word of @p[*@i..@n): its start, *@i left at its end (both
 * @n when there is none). */
static inline size_t next_word(const char *p, size_t n, size_t *i)
{
	size_t b;

	while (*i < n && !is_word((unsigned char)p[*i]))
		(*i)++;
	b = *i;
	while (*i < n && is_word((unsigned char)p[*i]))
		(*i)++;
	return b;
}

/* Could @s[0..@n) be (part of) a C number: 0x1fUL, 1000, 0x0ULL? */
static inline bool number_chars(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(is_digit(s[i]) || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F') || strchr("xXuUlL", s[i])))
			return false;
	return true;
}

/* The next number of a list at *@i (below @n); false at a bad varint. */
bool rb_code_index__varint(const unsigned char *p, size_t n, size_t *i,
			   uint32_t *v);

/* Pages of @ix's mapping read and not needed again: out of our RSS. */
void rb_code_index__let_go(const struct rb_code_index *ix, const void *from,
			   const void *to);
void rb_code_index__let_go_words(const struct rb_code_index *ix, uint32_t i);

/* How far rb_code_index__check() looks: LIGHT stops after the blobs. */
enum rb_code_index_depth { LIGHT, FULL };

/* Checks the file @h and points @ix into it: NULL, or what is wrong. */
const char *rb_code_index__check(struct rb_code_index *ix,
				 const unsigned char *h, size_t len,
				 bool verify, enum rb_code_index_depth depth);

/* Maps @fd (closed) when it is a file of ours only we may write. */
int rb_code_index__map(struct rb_code_index **out, int fd, const char *what);
void rb_code_index__free(struct rb_code_index *ix);

/* An index file of a directory, and when it was last used. */
struct rb_code_index_file {
	char name[2 * OID_LEN + sizeof(SUFFIX)];
	time_t mtime;
};

/* The index files of @dir, the most recently used first (*out malloc'd). */
size_t rb_code_index__list(const char *dir, struct rb_code_index_file **out);
/* Keeps the most recently used files of @dir, removes debris. */
void rb_code_index__prune(const char *dir);

/* Builds the index of @tree as @path, from the nearest file of @dir. */
int rb_code_index__build_file(git_repository *repo, const git_oid *tree,
			      const char *dir, const char *path,
			      struct rb_code_index_stats *st);
/* Builds it in an unlinked file of this process. */
int rb_code_index__build_private(struct rb_code_index **out,
				 git_repository *repo, const git_oid *tree);
void rb_code_index__log_build(const struct rb_code_index_stats *st,
			      const git_oid *tree);

#endif
