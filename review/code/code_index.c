// SPDX-License-Identifier: GPL-2.0-only
/*
 * code_index.c - the word index of a tree on disk (code_index.h).
 *
 * Built in memory for each base tree and kept in one process (up to this
 * file), the index cost every review process about 20 s of CPU and a
 * 590 MB peak on linux 6.1, and a daemon paid it again at every new base;
 * it was never freed (issue 38). Now a tree's index is a file, built
 * once, mapped read-only by whoever reviews on that tree, its pages in
 * the page cache that every process shares.
 *
 * Format, in the writer's byte order (0x01020304 refuses another):
 *   header   128 bytes: "RBCODEX\0", u32 format, u32 0x01020304,
 *            char src[48] (RB_CODE_INDEX_SRC: a hash of this file and
 *            its header taken at build time, so that another build never
 *            reads the file), tree id[20], u32 blobs, u32 words, u32 0,
 *            u64 postings bytes, u64 table bytes, u64 checksum of all
 *            that follows the header, u64 0
 *   fan      4096 u32: how many blobs have an id whose first 12 bits
 *            are at most i (git's .idx has 256 of them)
 *   blobs    the blob ids, 20 bytes each, ascending: blob i is number i
 *   postings for each word, the numbers + 1 of its blobs, ascending, as
 *            LEB128 varints of the gaps between them
 *   (pad)    zeros to a multiple of 4
 *   words    words + 1 records of u32 string offset, u32 postings offset;
 *            the last holds the table's and the postings' lengths, so
 *            word i ends where word i + 1 starts
 *   table    a NUL, then each word and a NUL, the words in ascending
 *            byte order
 * Every offset, count and length is checked as the file loads
 * (rb_code_index__check()), the postings decoded, the order of blobs and
 * words compared: a file that fails is logged, refused and built again.
 *
 * Numbers are the rank of a blob's id, not the order of the tree: a tree
 * that differs from another by a few blobs keeps the others' postings as
 * they were, renumbered, and a file built from another is the very file
 * a build from nothing gives (tests/test_code_index.c compares them).
 *
 * Lookups need no copy: a word is found by bisection of the sorted table,
 * a blob through the fan and bisection, the words a pattern's edge piece
 * is a prefix of by bisection, and those it is a suffix or a part of by
 * memmem() over the table (the old index compared every distinct word).
 *
 * Building (code_index_build.c) reads only the blobs that the nearest
 * file lacks, and merges; a new base one commit away reads a few blobs.
 *
 * Files: DIR/<tree>.cidx, written under a temporary name and renamed,
 * mapped only when they are regular files of this user that no one else
 * may write. Builders of one tree in several processes take
 * DIR/<tree>.lock (flock) in turn: the second finds the first's file.
 * Writing a file keeps the KEEP_FILES most recently used (a load marks
 * its file used) and removes the others; a process that maps a removed
 * file goes on reading it.
 *
 * Memory: the pages of a file are the page cache's, shared by every
 * process on that tree; a check, a merge or a scan of the table reads
 * its pages once and lets them go from the process (let_go), and an
 * index nothing uses lets all of them go. A process keeps at most
 * RB_CODE_INDEX_OPEN indexes open beyond those in use. Its lock is held
 * to look at the table of open indexes only, never while a file is read
 * or built, so trees never wait for each other.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "review/code/code_index.h"
#include "review/code/code_index_priv.h"
#include "review/checks/sandbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/banned.h"

#ifndef RB_CODE_INDEX_SRC
#define RB_CODE_INDEX_SRC "unversioned"
#endif

#define KEEP_FILES 8 /* files kept in DIR, the most recently used */
#define TMP_KEEP_SECONDS 86400

const char rb_code_index__src[SRC_LEN] = RB_CODE_INDEX_SRC;

/* ---- reading a file ------------------------------------------------- */

/*
 * Lets the pages of @ix's mapping in [@from, @to) go from this process
 * (not from the page cache) once they are read: a check or a merge reads
 * all 160 MB of linux's file once, and would otherwise leave all of it in
 * the RSS of whoever did it. A page needed again faults back in.
 */
void rb_code_index__let_go(const struct rb_code_index *ix, const void *from,
			   const void *to)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)from & ~(pg - 1),
		  b = (uintptr_t)to & ~(pg - 1);

	if (ix->mapped && b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

/* The next number of a list at *@i (below @n); false at a bad varint. */
bool rb_code_index__varint(const unsigned char *p, size_t n, size_t *i,
			   uint32_t *v)
{
	uint32_t x = 0;
	int sh = 0;

	while (*i < n) {
		unsigned char c = p[(*i)++];

		if (sh == 28 && c > 15)
			return false;
		x |= (uint32_t)(c & 0x7f) << sh;
		if (!(c & 0x80)) {
			*v = x;
			return true;
		}
		sh += 7;
		if (sh > 28)
			return false;
	}
	return false;
}

/* Is the blob order right? Ids ascending, each in its fan bucket. */
static const char *check_blobs(const struct rb_code_index *ix)
{
	uint32_t k, prev = 0, i;

	for (k = 0; k < FAN_N; k++) {
		uint32_t f = rd32(ix->fan + 4 * k);

		if (f < prev)
			return "fan order";
		prev = f;
	}
	if (prev != ix->nblob)
		return "fan total";
	for (i = 0; i < ix->nblob; i++) {
		const unsigned char *b = ix->blobs + (size_t)i * OID_LEN;
		uint32_t key = fan_key(b);
		uint32_t lo = key ? rd32(ix->fan + 4 * (key - 1)) : 0;

		if (i < lo || i >= rd32(ix->fan + 4 * key))
			return "fan bucket";
		if (i && memcmp(b - OID_LEN, b, OID_LEN) >= 0)
			return "blob order";
	}
	return NULL;
}

/* The table: a NUL, then words and NULs; no other NUL. */
static const char *check_table(const struct rb_code_index *ix)
{
	const char *p = ix->tab, *end = ix->tab + ix->tlen, *gone = p;
	uint64_t nuls = 0;

	if (!ix->tlen || p[0] || end[-1])
		return "table ends";
	while (p < end && (p = memchr(p, 0, (size_t)(end - p)))) {
		nuls++;
		p++;
		if (p - gone > LET_GO) {
			rb_code_index__let_go(ix, gone, p);
			gone = p;
		}
	}
	return nuls == (uint64_t)ix->nword + 1 ? NULL : "table words";
}

/* The records, words and postings before word @i: read, let go. */
void rb_code_index__let_go_words(const struct rb_code_index *ix, uint32_t i)
{
	rb_code_index__let_go(ix, ix->rec, ix->rec + 8 * (size_t)i);
	rb_code_index__let_go(ix, ix->tab, ix->tab + str_of(ix, i));
	rb_code_index__let_go(ix, ix->post, ix->post + post_of(ix, i));
}

/* The words' records, their order, and every list of postings. */
static const char *check_words(const struct rb_code_index *ix)
{
	uint32_t i;

	if (str_of(ix, ix->nword) != ix->tlen ||
	    post_of(ix, ix->nword) != ix->plen ||
	    (ix->nword && (str_of(ix, 0) != 1 || post_of(ix, 0) != 0)))
		return "word bounds";
	for (i = 0; i < ix->nword; i++) {
		uint32_t s = str_of(ix, i), e = str_of(ix, i + 1);
		uint32_t a = post_of(ix, i), b = post_of(ix, i + 1);
		uint32_t v, last = 0;
		size_t k = a;

		/* Each word ends on a NUL: with check_table()'s count,
		 * these are all the NULs, so no word holds one. */
		if (e < s + 2 || e > ix->tlen || ix->tab[e - 1])
			return "word offset";
		if (i && !(i % LET_GO_WORDS))
			rb_code_index__let_go_words(ix, i);
		if (i && strcmp(word_of(ix, i - 1), word_of(ix, i)) >= 0)
			return "word order";
		if (b <= a || b > ix->plen)
			return "postings offset";
		while (k < b) {
			if (!rb_code_index__varint(ix->post, b, &k, &v) || !v ||
			    v > ix->nblob - last)
				return "postings";
			last += v;
		}
	}
	return NULL;
}

/*
 * Checks the file @h of @len bytes and points @ix into it. LIGHT stops
 * after the blobs (enough to weigh it as a base to build from). NULL, or
 * what is wrong.
 */
const char *rb_code_index__check(struct rb_code_index *ix,
				 const unsigned char *h, size_t len,
				 bool verify, enum rb_code_index_depth depth)
{
	uint64_t plen, tlen, pad, want, nw;
	const char *why;

	if (len < HDR_LEN + FAN_LEN)
		return "short";
	if (memcmp(h, MAGIC, 8) || rd32(h + 8) != FORMAT ||
	    rd32(h + 12) != ENDIAN)
		return "not an index of this format";
	if (verify && memcmp(h + 16, rb_code_index__src, SRC_LEN))
		return "another build";
	memcpy(ix->tree.id, h + 64, OID_LEN);
	ix->nblob = rd32(h + 84);
	ix->nword = rd32(h + 88);
	plen = rd64(h + 96);
	tlen = rd64(h + 104);
	if (rd32(h + 92) || rd64(h + 120))
		return "header";
	if (ix->nblob > MAX_BLOBS || plen >= UINT32_MAX || tlen >= UINT32_MAX ||
	    ix->nword >= UINT32_MAX / 2)
		return "counts";
	nw = ix->nword;
	pad = (4 - plen % 4) % 4;
	want = HDR_LEN + FAN_LEN + (uint64_t)ix->nblob * OID_LEN + plen + pad +
	       8 * (nw + 1) + tlen;
	if (want != len)
		return "length";
	ix->base = h;
	ix->len = len;
	ix->fan = h + HDR_LEN;
	ix->blobs = ix->fan + FAN_LEN;
	ix->post = ix->blobs + (size_t)ix->nblob * OID_LEN;
	ix->plen = plen;
	ix->rec = ix->post + plen + pad;
	ix->tab = (const char *)ix->rec + 8 * (nw + 1);
	ix->tlen = tlen;
	if (verify) {
		struct rb_checksum c;
		size_t off, n;

		rb_checksum_init(&c, len - HDR_LEN);
		for (off = HDR_LEN; off < len; off += n) {
			n = len - off < LET_GO ? len - off : LET_GO;
			rb_checksum_add(&c, h + off, n);
			rb_code_index__let_go(ix, h + off, h + off + n);
		}
		if (rb_checksum_end(&c) != rd64(h + 112))
			return "checksum";
	}
	why = check_blobs(ix);
	if (why || depth == LIGHT)
		return why;
	while (pad--)
		if (ix->post[plen + pad])
			return "padding";
	why = check_table(ix);
	return why ? why : check_words(ix);
}

int rb_code_index_parse(struct rb_code_index **out, const void *p, size_t len,
			bool verify, const char **why)
{
	struct rb_code_index *ix = calloc(1, sizeof(*ix));
	const char *w;

	*out = NULL;
	if (!ix)
		return rb_err(RB_ENOMEM, "code index: out of memory");
	w = rb_code_index__check(ix, p, len, verify, FULL);
	if (why)
		*why = w;
	if (w) {
		free(ix);
		return -RB_EINVAL;
	}
	ix->refs = 1;
	ix->st.how = "loaded";
	ix->st.blobs = ix->nblob;
	ix->st.words = ix->nword;
	ix->st.file_bytes = len;
	*out = ix;
	return 0;
}

/* ---- lookups -------------------------------------------------------- */

uint32_t rb_code_index_nblobs(const struct rb_code_index *ix)
{
	return ix->nblob;
}

uint32_t rb_code_index_blob(const struct rb_code_index *ix, const git_oid *id)
{
	uint32_t key = fan_key(id->id);
	uint32_t lo = key ? rd32(ix->fan + 4 * (key - 1)) : 0;
	uint32_t hi = rd32(ix->fan + 4 * key);
	size_t pos = oid_find(ix->blobs, OID_LEN, lo, hi, id->id);

	return pos == SIZE_MAX ? RB_CODE_INDEX_NONE : (uint32_t)pos;
}

/* Word @w of the table against @s[0..@n): <0, 0 or >0 as strcmp. */
static int wcmp(const char *w, const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		unsigned char a = (unsigned char)w[k], b = (unsigned char)s[k];

		if (!a || a != b)
			return !a || a < b ? -1 : 1;
	}
	return w[n] ? 1 : 0;
}

/* The first word not below @s[0..@n). */
static uint32_t lower_bound(const struct rb_code_index *ix, const char *s,
			    size_t n)
{
	uint32_t lo = 0, hi = ix->nword;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (wcmp(word_of(ix, mid), s, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t find_word(const struct rb_code_index *ix, const char *s,
			  size_t n)
{
	uint32_t x = lower_bound(ix, s, n);

	return x < ix->nword && !wcmp(word_of(ix, x), s, n) ?
		       x :
		       RB_CODE_INDEX_NONE;
}

/* The word whose text holds table offset @q. */
static uint32_t word_at(const struct rb_code_index *ix, uint64_t q)
{
	uint32_t lo = 0, hi = ix->nword;

	/* The last word that starts at or before @q. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (str_of(ix, mid) <= q)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* ORs into @bits the blobs that hold word @x. */
static void or_word(const struct rb_code_index *ix, uint32_t x, uint8_t *bits)
{
	size_t i = post_of(ix, x), end = post_of(ix, x + 1);
	uint32_t b = 0, gap;

	while (i < end && end <= ix->plen &&
	       rb_code_index__varint(ix->post, end, &i, &gap)) {
		b += gap; /* blob number + 1 */
		if (b && b <= ix->nblob)
			bits[(b - 1) >> 3] |= (uint8_t)(1u << ((b - 1) & 7));
	}
}

size_t rb_code_index_word_blobs(const struct rb_code_index *ix, const char *w,
				size_t len)
{
	uint32_t x = find_word(ix, w, len);
	size_t i, end, k = 0;

	if (x == RB_CODE_INDEX_NONE)
		return 0;
	/* One blob a varint: the bytes without the continuation bit. */
	end = post_of(ix, x + 1);
	for (i = post_of(ix, x); i < end; i++)
		k += !(ix->post[i] & 0x80);
	return k;
}

/*
 * ORs into @bits the blobs of every word that @s[0..@m) is a piece of:
 * its start (@ro alone), its end (@lo alone) or any part (both).
 */
static int or_pieces(const struct rb_code_index *ix, const char *s, size_t m,
		     bool lo, bool ro, uint8_t *bits)
{
	uint64_t q = 1, gone = 1;
	char *needle;
	size_t nl = m + !ro;

	if (!lo) {
		uint32_t x;

		/* Sorted: the words that start with it are a range. */
		for (x = lower_bound(ix, s, m);
		     x < ix->nword && !strncmp(word_of(ix, x), s, m); x++)
			or_word(ix, x, bits);
		return 0;
	}
	/* A suffix is followed by the word's NUL. */
	needle = malloc(nl);
	if (!needle)
		return rb_err(RB_ENOMEM, "code index: out of memory");
	memcpy(needle, s, m);
	if (!ro)
		needle[m] = '\0';
	/*
	 * In windows of LET_GO bytes of the table (a match may run past
	 * one's end), each let go once scanned with the postings and
	 * records read for it: a scan of linux's 90 MB table holds a few
	 * MB of it at a time in this process.
	 */
	while (q < ix->tlen) {
		uint64_t end = ix->tlen - q > LET_GO ? q + LET_GO : ix->tlen;
		uint64_t lim = ix->tlen - end > nl ? end + nl - 1 : ix->tlen;
		const char *hit =
			memmem(ix->tab + q, (size_t)(lim - q), needle, nl);
		uint32_t x;

		if (!hit) {
			q = end;
		} else {
			x = word_at(ix, (uint64_t)(hit - ix->tab));
			or_word(ix, x, bits);
			q = str_of(ix, x + 1); /* one hit a word is enough */
		}
		if (q - gone >= LET_GO) {
			rb_code_index__let_go(ix, ix->post, ix->tab + q);
			gone = q;
		}
	}
	free(needle);
	return 0;
}

int rb_code_index_cand(uint8_t **out, const struct rb_code_index *ix,
		       const char *pat, size_t plen, bool whole)
{
	size_t nb = (ix->nblob + 7) / 8 + 1, i = 0, b, k, j;
	uint8_t *res = NULL, *one = NULL;
	bool any = false;
	int ret = 0;

	*out = NULL;
	res = malloc(nb);
	one = malloc(nb);
	if (!res || !one) {
		free(res);
		free(one);
		return rb_err(RB_ENOMEM, "code index: out of memory");
	}
	memset(res, 0xff, nb);
	while (i < plen && !ret) {
		bool lo, ro;
		uint32_t x;

		b = next_word(pat, plen, &i);
		if (i == b)
			break;
		lo = b == 0 && !whole;
		ro = i == plen && !whole;
		/* A piece the index cannot answer for narrows nothing. */
		if (i - b < WORD_MIN || is_digit(pat[b]) ||
		    ((lo || ro) && number_chars(pat + b, i - b)))
			continue;
		memset(one, 0, nb);
		if (!lo && !ro) {
			x = find_word(ix, pat + b, i - b);
			if (x != RB_CODE_INDEX_NONE)
				or_word(ix, x, one);
		} else {
			ret = or_pieces(ix, pat + b, i - b, lo, ro, one);
		}
		for (k = 0; k < nb; k++)
			res[k] &= one[k];
		any = true;
		for (j = 0; j < nb && !res[j]; j++)
			;
		if (j == nb)
			break; /* nothing can match */
	}
	free(one);
	/*
	 * A scan reads the whole table (90 MB on linux), a common piece
	 * most of the postings: none of it is kept in this process but
	 * the fan and the blobs, which every search reads for each file.
	 */
	rb_code_index__let_go(ix, ix->post, ix->base + ix->len);
	if (ret || !any) {
		free(res);
		return ret;
	}
	*out = res;
	return 0;
}

void rb_code_index_get_stats(const struct rb_code_index *ix,
			     struct rb_code_index_stats *st)
{
	*st = ix->st;
}

/* ---- files ----------------------------------------------------------- */

void rb_code_index__free(struct rb_code_index *ix)
{
	if (!ix)
		return;
	if (ix->mapped)
		munmap((void *)ix->base, ix->len);
	free(ix);
}

/*
 * Maps @fd (closed here) when it is a regular file of this user that only
 * the user may write: the files are trusted as far as who wrote them,
 * and checked for everything else.
 */
int rb_code_index__map(struct rb_code_index **out, int fd, const char *what)
{
	struct rb_code_index *ix;
	struct stat st;
	void *p;

	*out = NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || (uint64_t)st.st_size < HDR_LEN + FAN_LEN ||
	    (uint64_t)st.st_size > SIZE_MAX / 2) {
		close(fd);
		return rb_err(RB_EINVAL, "%s: not a file of ours", what);
	}
	ix = calloc(1, sizeof(*ix));
	p = ix ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0) :
		 MAP_FAILED;
	close(fd);
	if (p == MAP_FAILED) {
		free(ix);
		return rb_err(RB_EIO, "%s: cannot map", what);
	}
	ix->base = p;
	ix->len = (size_t)st.st_size;
	ix->mapped = true;
	*out = ix;
	return 0;
}

/*
 * The index at @path: -RB_ENOTFOUND when there is none, -RB_EINVAL when
 * it fails a check (logged: the caller builds it again).
 */
static int load(struct rb_code_index **out, const char *path,
		const git_oid *tree, bool quiet)
{
	struct rb_code_index *ix = NULL;
	const char *why = NULL;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	*out = NULL;
	if (fd < 0 && errno == ENOENT)
		return -RB_ENOTFOUND;
	/*
	 * A symlink planted at the name (ELOOP), or a file we may not read:
	 * refused like a damaged file, and replaced by the build's rename.
	 */
	if (fd < 0)
		why = errno == ELOOP ? "a symlink" : strerror(errno);
	/* Marks it used: rb_code_index__prune() keeps the most recent. */
	else
		(void)futimens(fd, NULL);
	if (!why && rb_code_index__map(&ix, fd, path)) {
		rb_err_clear();
		why = "not a file of ours that only we may write";
	}
	if (!why)
		why = rb_code_index__check(ix, ix->base, ix->len, true, FULL);
	if (!why && !git_oid_equal(&ix->tree, tree))
		why = "another tree";
	if (why) {
		if (!quiet)
			rb_log(RB_LOG_WARN, "code_index.refused", "path", path,
			       "why", why, NULL);
		rb_code_index__free(ix);
		return -RB_EINVAL;
	}
	/* The check read every page: let them go from this process. */
	rb_code_index__let_go(ix, ix->base, ix->base + ix->len);
	*out = ix;
	return 0;
}

static bool is_index_name(const char *n)
{
	size_t i;

	for (i = 0; i < 2 * OID_LEN; i++)
		if (!((n[i] >= '0' && n[i] <= '9') ||
		      (n[i] >= 'a' && n[i] <= 'f')))
			return false;
	return !strcmp(n + 2 * OID_LEN, SUFFIX);
}

static int dent_cmp(const void *a, const void *b)
{
	const struct rb_code_index_file *x = a, *y = b;

	return x->mtime > y->mtime ? -1 : x->mtime < y->mtime;
}

/* The index files of @dir, the most recently used first. */
size_t rb_code_index__list(const char *dir, struct rb_code_index_file **out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct rb_code_index_file *v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct stat st;
		struct rb_code_index_file *x;

		if (!is_index_name(e->d_name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		x = rb_grow(v, &cap, n, sizeof(*v));
		if (!x)
			break;
		v = x;
		/* is_index_name(): the name fits, its NUL included. */
		memcpy(v[n].name, e->d_name, sizeof(v[n].name));
		v[n].name[sizeof(v[n].name) - 1] = '\0';
		v[n++].mtime = st.st_mtime;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), dent_cmp);
	*out = v;
	return n;
}

/*
 * Removes all but the KEEP_FILES most recently used index files of @dir,
 * and the temporary and lock files of builders that died a day ago. A
 * process that maps a removed file keeps reading it.
 */
void rb_code_index__prune(const char *dir)
{
	struct rb_code_index_file *v;
	size_t n = rb_code_index__list(dir, &v), i;
	DIR *d;
	struct dirent *e;
	time_t now = time(NULL);
	int dfd;

	d = opendir(dir);
	dfd = d ? dirfd(d) : -1;
	for (i = KEEP_FILES; d && i < n; i++)
		(void)unlinkat(dfd, v[i].name, 0);
	free(v);
	while (d && (e = readdir(d))) {
		struct stat st;

		if ((!strstr(e->d_name, SUFFIX ".tmp.") &&
		     !strstr(e->d_name, ".lock")) ||
		    fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) ||
		    st.st_mtime + TMP_KEEP_SECONDS > now)
			continue;
		(void)unlinkat(dfd, e->d_name, 0);
	}
	if (d)
		closedir(d);
}

/* The tree's build lock: a builder in another process holds it. */
static int lock_tree(const char *dir, const char *hex)
{
	char path[4096];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s.lock", dir, hex) >=
	    (int)sizeof(path))
		return rb_err(RB_EINVAL, "code index: %s: path too long", dir);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return rb_err(RB_EIO, "%s: %s", path, strerror(errno));
	while (flock(fd, LOCK_EX) && errno == EINTR)
		;
	/* Held: not debris for rb_code_index__prune(), however old. */
	(void)futimens(fd, NULL);
	return fd;
}

/* The index of @tree from @dir: loaded, or built there and loaded. */
static int obtain(struct rb_code_index **out, git_repository *repo,
		  const git_oid *tree, const char *dir)
{
	struct rb_code_index_stats st = { 0 };
	char hex[2 * OID_LEN + 1], path[4096];
	double t0 = rb_code_index__now();
	int ret, lock;

	hex_of(hex, tree);
	if (snprintf(path, sizeof(path), "%s/%s" SUFFIX, dir, hex) >=
	    (int)sizeof(path))
		return rb_err(RB_EINVAL, "code index: %s: path too long", dir);
	ret = load(out, path, tree, false);
	if (ret != -RB_ENOTFOUND && ret != -RB_EINVAL)
		goto done;
	lock = lock_tree(dir, hex);
	if (lock < 0)
		return lock;
	/* Another process may have built it while we waited. */
	ret = load(out, path, tree, ret == -RB_EINVAL);
	if (ret == -RB_ENOTFOUND || ret == -RB_EINVAL) {
		ret = rb_code_index__build_file(repo, tree, dir, path, &st);
		if (!ret)
			ret = load(out, path, tree, false);
		if (ret == -RB_ENOTFOUND || ret == -RB_EINVAL)
			ret = rb_err(RB_EIO,
				     "code index: %s: written but "
				     "not read back",
				     path);
	}
	close(lock);
done:
	if (ret)
		return ret;
	if (st.how) {
		(*out)->st = st;
	} else {
		(*out)->st.how = "loaded";
		(*out)->st.read_blobs = 0;
	}
	(*out)->st.blobs = (*out)->nblob;
	(*out)->st.words = (*out)->nword;
	(*out)->st.file_bytes = (*out)->len;
	(*out)->st.seconds = rb_code_index__now() - t0;
	return 0;
}

/* ---- the indexes of this process ------------------------------------- */

/*
 * A slot per tree: loading (ix NULL: the thread that added it loads, the
 * others wait on cv) or open. cache.mu is held only to look at slots,
 * never while a file is read or built: trees do not wait for each other.
 */
struct slot {
	git_oid tree;
	struct rb_code_index *ix;
	uint64_t used;
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot *v;
	size_t n, cap;
	uint64_t clock;
	char *dir; /* rb_code_index_set_dir(), or NULL */
} cache = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };

int rb_code_index_set_dir(const char *dir)
{
	char *d = dir ? strdup(dir) : NULL;

	if (dir && !d)
		return rb_err(RB_ENOMEM, "code index: out of memory");
	pthread_mutex_lock(&cache.mu);
	free(cache.dir);
	cache.dir = d;
	pthread_mutex_unlock(&cache.mu);
	return 0;
}

/* The directory to use (malloc'd), or NULL for none. */
static char *dir_now(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	struct rb_buf b = RB_BUF_INIT(4096);
	char *d;

	pthread_mutex_lock(&cache.mu);
	d = cache.dir ? strdup(cache.dir) : NULL;
	pthread_mutex_unlock(&cache.mu);
	if (d)
		return d;
	if (x && *x == '/')
		(void)rb_buf_printf(&b, "%s/reviewbot/code-index", x);
	else if (h && *h == '/')
		(void)rb_buf_printf(&b, "%s/.cache/reviewbot/code-index", h);
	return b.len ? b.ptr : NULL;
}

static struct slot *find_slot(const git_oid *tree)
{
	size_t i;

	for (i = 0; i < cache.n; i++)
		if (git_oid_equal(&cache.v[i].tree, tree))
			return &cache.v[i];
	return NULL;
}

static void remove_slot(struct slot *s)
{
	*s = cache.v[--cache.n];
}

/*
 * Lets go of the open indexes past RB_CODE_INDEX_OPEN, the least recently
 * used first, but @keep: their cache reference goes into @out.
 */
static size_t evict(const git_oid *keep, struct rb_code_index **out, size_t max)
{
	size_t n = 0, open = 0, i;

	for (i = 0; i < cache.n; i++)
		open += cache.v[i].ix != NULL;
	while (open > RB_CODE_INDEX_OPEN && n < max) {
		struct slot *old = NULL;

		for (i = 0; i < cache.n; i++)
			if (cache.v[i].ix &&
			    !git_oid_equal(&cache.v[i].tree, keep) &&
			    (!old || cache.v[i].used < old->used))
				old = &cache.v[i];
		if (!old)
			break;
		old->ix->cached = false;
		out[n++] = old->ix;
		remove_slot(old);
		open--;
	}
	return n;
}

/* Loads or builds the index of @tree, with no lock held. */
static int open_tree(struct rb_code_index **out, git_repository *repo,
		     const git_oid *tree)
{
	char *dir = dir_now();
	double t0 = rb_code_index__now();
	bool private;
	int ret;

	if (dir && rb_private_dir(dir)) {
		rb_log(RB_LOG_WARN, "code_index.dir", "dir", dir, "error",
		       rb_errmsg(), NULL);
		rb_err_clear();
		free(dir);
		dir = NULL;
	}
	private = !dir;
	ret = dir ? obtain(out, repo, tree, dir) :
		    rb_code_index__build_private(out, repo, tree);
	free(dir);
	if (ret)
		return ret;
	if (private) {
		(*out)->st.blobs = (*out)->nblob;
		(*out)->st.words = (*out)->nword;
		(*out)->st.file_bytes = (*out)->len;
		(*out)->st.seconds = rb_code_index__now() - t0;
	}
	if (strcmp((*out)->st.how, "loaded"))
		rb_code_index__log_build(&(*out)->st, tree);
	return 0;
}

int rb_code_index_get(struct rb_code_index **out, git_repository *repo,
		      const git_oid *tree)
{
	struct rb_code_index *ix = NULL, *gone[RB_CODE_INDEX_OPEN + 2];
	struct slot *s;
	size_t ngone = 0, i;
	int ret;

	*out = NULL;
	pthread_mutex_lock(&cache.mu);
	while ((s = find_slot(tree)) && !s->ix)
		pthread_cond_wait(&cache.cv, &cache.mu);
	if (s) {
		s->ix->refs++;
		s->used = ++cache.clock;
		*out = s->ix;
		pthread_mutex_unlock(&cache.mu);
		return 0;
	}
	s = rb_grow(cache.v, &cache.cap, cache.n, sizeof(*cache.v));
	if (!s) {
		pthread_mutex_unlock(&cache.mu);
		return rb_err(RB_ENOMEM, "code index: out of memory");
	}
	cache.v = s;
	memset(&cache.v[cache.n], 0, sizeof(*s));
	git_oid_cpy(&cache.v[cache.n++].tree, tree);
	pthread_mutex_unlock(&cache.mu);

	ret = open_tree(&ix, repo, tree);

	pthread_mutex_lock(&cache.mu);
	s = find_slot(tree);
	if (ret) {
		remove_slot(s);
	} else {
		ix->refs = 2; /* the caller's and the cache's */
		ix->cached = true;
		s->ix = ix;
		s->used = ++cache.clock;
		ngone = evict(tree, gone, sizeof(gone) / sizeof(*gone));
	}
	pthread_cond_broadcast(&cache.cv);
	pthread_mutex_unlock(&cache.mu);
	for (i = 0; i < ngone; i++)
		rb_code_index_put(gone[i]);
	*out = ix;
	return ret;
}

void rb_code_index_put(struct rb_code_index *ix)
{
	bool last, idle;

	if (!ix)
		return;
	pthread_mutex_lock(&cache.mu);
	last = --ix->refs == 0;
	idle = ix->refs == 1 && ix->cached;
	pthread_mutex_unlock(&cache.mu);
	if (last)
		rb_code_index__free(ix);
	/* Unused: its pages leave this process (not the page cache). */
	else if (idle)
		rb_code_index__let_go(ix, ix->base, ix->base + ix->len);
}

void rb_code_index_drop(void)
{
	struct rb_code_index **gone;
	size_t n = 0, i;

	pthread_mutex_lock(&cache.mu);
	gone = calloc(cache.n ? cache.n : 1, sizeof(*gone));
	for (i = 0; gone && i < cache.n;) {
		if (!cache.v[i].ix) {
			i++;
			continue;
		}
		cache.v[i].ix->cached = false;
		gone[n++] = cache.v[i].ix;
		remove_slot(&cache.v[i]);
	}
	pthread_mutex_unlock(&cache.mu);
	for (i = 0; i < n; i++)
		rb_code_index_put(gone[i]);
	free(gone);
}

size_t rb_code_index__open_count(void)
{
	size_t n = 0, i;

	pthread_mutex_lock(&cache.mu);
	for (i = 0; i < cache.n; i++)
		n += cache.v[i].ix != NULL;
	pthread_mutex_unlock(&cache.mu);
	return n;
}
