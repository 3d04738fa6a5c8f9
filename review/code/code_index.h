/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * code_index.h - the word index of a tree, on disk: every identifier-like
 * word of every text blob of a base tree, with the blobs that hold it, so
 * that a search reads only the blobs that can match (the model's tools,
 * review/model/model_tools.c, and the prompt's tree context,
 * review/model/model_prefetch.c, through them).
 *
 * One file per tree, DIR/<tree id>.cidx, mapped read-only and shared by
 * every thread and process that reviews on that tree; checked whole as it
 * loads and rebuilt when it fails a check. A tree without a file is built
 * from the nearest file there is (the one sharing the most blobs: the
 * previous base) by reading only the blobs that one lacks. Only the blobs
 * of the tree given are read, through the repository given: the caller
 * gives a configured base tree, never a series' tip.
 *
 * What is indexed (the tools' search depends on each point): each maximal
 * run of [A-Za-z0-9_] of a blob of at most RB_CODE_INDEX_BLOB_MAX bytes
 * that libgit2 does not call binary, of at least 3 bytes, numbers left
 * out (0x1fUL), and of a word that starts with digits ("3dnow") the rest
 * after them. Symlinks and submodules are not blobs of the tree here.
 */
#ifndef RB_REVIEW_CODE_INDEX_H
#define RB_REVIEW_CODE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <git2.h>

/* Bigger blobs are not indexed (nor searched: model_tools.c). */
#define RB_CODE_INDEX_BLOB_MAX (4u << 20)
/* rb_code_index_blob(): not a blob of the index. */
#define RB_CODE_INDEX_NONE UINT32_MAX

struct rb_code_index;

/*
 * Where this process keeps the files: @dir (copied; made 0700 when it is
 * created), or NULL for $XDG_CACHE_HOME/reviewbot/code-index, else
 * ~/.cache/reviewbot/code-index. With neither (or a directory that cannot
 * be made), an index lives in an unlinked file of $TMPDIR for this
 * process only. Takes effect for the trees not open yet. -RB_ENOMEM.
 */
int rb_code_index_set_dir(const char *dir);

/* How many indexes a process keeps open while nothing uses them. */
#define RB_CODE_INDEX_OPEN 3

/*
 * The index of @tree, whose blobs are read through @repo when it must be
 * built: shared, counted, to be given back with rb_code_index_put(). Two
 * threads asking for one tree share one load or build; threads on
 * different trees never wait for each other; a process building a tree
 * that another process is building waits for its file. 0, -RB_ENOMEM,
 * -RB_EIO (the tree or the directory), -RB_ETOOBIG (over the format's
 * limits).
 */
int rb_code_index_get(struct rb_code_index **out, git_repository *repo,
		      const git_oid *tree);
void rb_code_index_put(struct rb_code_index *ix);

/*
 * Closes the indexes that nothing uses (those in use close when their
 * last user puts them).
 */
void rb_code_index_drop(void);

/* How an index was had, for the logs and the bench. */
struct rb_code_index_stats {
	const char *how; /* "loaded", "built" (from nothing), "updated" */
	git_oid from; /* "updated": the tree whose file it started from */
	uint32_t blobs, words;
	uint64_t file_bytes;
	uint32_t read_blobs; /* blobs read (tokenised) to build it */
	uint64_t read_bytes; /* their text */
	double seconds; /* wall time of the load or build */
};

void rb_code_index_get_stats(const struct rb_code_index *ix,
			     struct rb_code_index_stats *st);

/* The number of blob @id in @ix, or RB_CODE_INDEX_NONE. */
uint32_t rb_code_index_blob(const struct rb_code_index *ix, const git_oid *id);
uint32_t rb_code_index_nblobs(const struct rb_code_index *ix);

/*
 * Which blobs can hold the text @pat (@plen bytes)? Each word of it must
 * be a word of the blob; with !@whole, one at an edge of the pattern may
 * be a piece of a longer word (a suffix at the start, a prefix at the
 * end, any part when it is the whole pattern). *out is a bit map by blob
 * number (malloc'd), or NULL with 0 when no word of the pattern narrows
 * the search (any blob can). 0 or -RB_ENOMEM.
 */
int rb_code_index_cand(uint8_t **out, const struct rb_code_index *ix,
		       const char *pat, size_t plen, bool whole);

/* How many blobs hold the word @w (@len bytes): 0 for one not indexed. */
size_t rb_code_index_word_blobs(const struct rb_code_index *ix, const char *w,
				size_t len);

/*
 * For tests and the fuzzer: checks the @len bytes at @p (borrowed, kept
 * by *out) as an index file, the checksum and the build tag too when
 * @verify. 0, -RB_EINVAL (damaged, *why says where), -RB_ENOMEM. Free
 * *out with rb_code_index_put().
 */
int rb_code_index_parse(struct rb_code_index **out, const void *p, size_t len,
			bool verify, const char **why);

/*
 * For tests: the most bytes the words of the blobs being read may take
 * before they are merged into the file (0: the default), and how many
 * indexes are open in this process.
 */
void rb_code_index__set_batch_bytes(size_t bytes);
size_t rb_code_index__open_count(void);

#endif
