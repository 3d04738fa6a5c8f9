// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_code_index.c - libFuzzer target for the checks of a code index
 * file as it loads (review/code/code_index.c): a damaged file. The checksum
 * and the build tag are not checked (rb_code_index_parse(..., false)),
 * so that mutations reach the checks of the structure.
 *
 * Input: an index file. Seeds: the files "reviewbot code-index" writes
 * for a small git tree and the next commit of it
 * (fuzz_code_index.seeds.sh).
 *
 * Invariants checked (a violation traps):
 *  - parsing succeeds or fails with -RB_EINVAL or -RB_ENOMEM, and never
 *    reads out of bounds (ASan);
 *  - a file that passes with its checksum passes without it;
 *  - of a parsed file, every word (up to a bound) is held by at least
 *    one blob and at most all of them, and a lookup of each blob (up to
 *    a bound) gives back its number;
 *  - patterns (whole words, prefixes, suffixes, parts, pieces of the
 *    input) give candidates within the blobs, or none.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/code/code_index.h"
#include "review/code/code_index_priv.h"
#include "util/err.h"
#include "util/banned.h"

#define CHECK(x)                          \
	do {                              \
		if (!(x))                 \
			__builtin_trap(); \
	} while (0)

static void pattern(const struct rb_code_index *ix, const char *p, size_t n,
		    bool whole)
{
	uint8_t *bits = NULL;
	size_t nb = (rb_code_index_nblobs(ix) + 7) / 8 + 1, i;

	CHECK(rb_code_index_cand(&bits, ix, p, n, whole) == 0);
	/* No bit past the last blob. */
	for (i = rb_code_index_nblobs(ix); bits && i < nb * 8; i++)
		CHECK(!(bits[i >> 3] & (1u << (i & 7))));
	free(bits);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const pats[] = { "foo_bar",	  "_bar(void",
					    "int foo_",	  "x foo_",
					    "oo_b",	  "a->b",
					    "return baz", "0x1fUL" };
	struct rb_code_index *ix = NULL;
	const char *why = NULL;
	uint32_t i, n;
	int err;

	err = rb_code_index_parse(&ix, data, size, true, &why);
	CHECK(err == 0 || err == -RB_EINVAL || err == -RB_ENOMEM);
	rb_code_index_put(ix);
	ix = NULL;
	if (!err) {
		CHECK(rb_code_index_parse(&ix, data, size, false, &why) == 0);
		rb_code_index_put(ix);
		ix = NULL;
	}
	err = rb_code_index_parse(&ix, data, size, false, &why);
	CHECK(err == 0 || err == -RB_EINVAL || err == -RB_ENOMEM);
	CHECK(err || !why);
	if (err)
		return 0;
	n = rb_code_index_nblobs(ix);
	for (i = 0; i < ix->nword && i < 256; i++) {
		const char *w = word_of(ix, i);
		size_t k = rb_code_index_word_blobs(ix, w, strlen(w));

		CHECK(k >= 1 && k <= n);
		pattern(ix, w, strlen(w), true);
		pattern(ix, w, strlen(w), false);
	}
	for (i = 0; i < n && i < 256; i++) {
		git_oid id;

		memcpy(id.id, ix->blobs + (size_t)i * OID_LEN, OID_LEN);
		CHECK(rb_code_index_blob(ix, &id) == i);
	}
	for (i = 0; i < sizeof(pats) / sizeof(*pats); i++) {
		pattern(ix, pats[i], strlen(pats[i]), false);
		pattern(ix, pats[i], strlen(pats[i]), true);
	}
	pattern(ix, (const char *)data + size / 2,
		size - size / 2 < 64 ? size - size / 2 : 64, false);
	rb_code_index_put(ix);
	return 0;
}
