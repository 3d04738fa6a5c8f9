// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_maintainers.c - libFuzzer target for the MAINTAINERS parser, the
 * .mailmap parser, the Perl regex translation and the matcher
 * (review/maint/maintainers.h).
 *
 * Input: MAINTAINERS text, a NUL byte, a patch, a NUL byte, .mailmap text
 * (missing parts are empty). Each K:, N: and F: line of the MAINTAINERS
 * part is also fed to the regex translation on its own.
 *
 * Invariants checked (a violation traps):
 *  - loading and lookups succeed or fail with an error code, never crash;
 *  - every recipient line is one line: no "\n" in an address or a role;
 *  - every touched section is one of the index's sections;
 *  - the same lookup twice gives the same output (no hidden state);
 *  - the index written in the cache's format and read back gives the
 *    same output (review/maint/maint_cache.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/maint/maint_priv.h"
#include "review/maint/maint_regex.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/banned.h"

#define CHECK(x)                          \
	do {                              \
		if (!(x))                 \
			__builtin_trap(); \
	} while (0)

static void regexes(const char *t, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *l = t + i, *nl = memchr(l, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - l) : len - i;
		struct rb_perl_re r = { 0 };
		char buf[64] = "+ subject line";

		i += ll + 1;
		if (ll < 3 || l[1] != ':' || !strchr("KNF", l[0]))
			continue;
		if (rb_perl_re_compile(&r, l + 2, ll - 2, l[0] != 'F') == 0) {
			(void)rb_perl_re_match(&r, buf, strlen(buf));
			(void)rb_perl_re_maybe(&r, buf, strlen(buf));
		}
		rb_perl_re_release(&r);
	}
}

static void lookup(struct rb_maint *m, const char *patch, size_t plen,
		   struct rb_buf *out)
{
	struct rb_maint_result *r = NULL;
	size_t i, j;

	if (rb_maint_lookup_patch(&r, m, patch, plen))
		return;
	for (i = 0; i < r->nto; i++) {
		CHECK(!strchr(r->to[i].addr, '\n'));
		CHECK(!strchr(r->to[i].role, '\n'));
	}
	for (i = 0; i < r->nsections; i++) {
		bool found = false;

		for (j = 0; j < rb_maint_nsections(m) && !found; j++)
			found = rb_maint_section_at(m, j) == r->sections[i];
		CHECK(found);
	}
	CHECK(rb_maint_format(out, r, RB_MAINT_FMT_ROLES) == 0);
	CHECK(rb_maint_format_sections(out, r) == 0);
	rb_maint_result_free(r);
}

/* The cache's round trip: the same lookup output as @want. */
static void roundtrip(struct rb_maint *m, const char *patch, size_t plen,
		      const struct rb_buf *want)
{
	struct rb_buf enc = RB_BUF_INIT(1 << 26), got = RB_BUF_INIT(1 << 24);
	struct index *ix = NULL;
	struct rb_maint *m2 = NULL;
	char *copy;

	CHECK(rb_maint__cache_encode(&enc, rb_maint__index(m)) == 0);
	copy = malloc(enc.len);
	CHECK(copy);
	memcpy(copy, enc.ptr, enc.len);
	CHECK(rb_maint__cache_decode(&ix, copy, enc.len, true) == 0);
	CHECK(rb_maint__wrap(&m2, ix, NULL) == 0);
	lookup(m2, patch, plen, &got);
	CHECK(got.len == want->len && !memcmp(got.ptr, want->ptr, got.len));
	CHECK(!strcmp(rb_maint_warnings(m), rb_maint_warnings(m2)));
	rb_maint_free(m2);
	rb_buf_release(&enc);
	rb_buf_release(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *d = (const char *)data, *patch = "", *mm = NULL;
	size_t mlen = size, plen = 0, mmlen = 0;
	const char *z = memchr(d, '\0', size);
	struct rb_maint *m = NULL;
	struct rb_buf a = RB_BUF_INIT(1 << 24), b = RB_BUF_INIT(1 << 24);

	if (z) {
		mlen = (size_t)(z - d);
		patch = z + 1;
		plen = size - mlen - 1;
		z = memchr(patch, '\0', plen);
		if (z) {
			mm = z + 1;
			mmlen = plen - (size_t)(z - patch) - 1;
			plen = (size_t)(z - patch);
		}
	}
	regexes(d, mlen);
	if (rb_maint_load_mem(&m, d, mlen, mm, mmlen))
		return 0;
	lookup(m, patch, plen, &a);
	lookup(m, patch, plen, &b);
	CHECK(a.len == b.len && !memcmp(a.ptr, b.ptr, a.len));
	roundtrip(m, patch, plen, &a);
	rb_buf_release(&a);
	rb_buf_release(&b);
	rb_maint_free(m);
	return 0;
}
