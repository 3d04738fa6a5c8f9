// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_maint_cache.c - libFuzzer target for the decoder of the on-disk
 * MAINTAINERS index (review/maint/maint_cache.c). The checksum is not checked
 * (rb_maint__cache_decode(..., false)), so mutations reach the decoder.
 *
 * Input: a cache file. Seeds: files written by "reviewbot maintainers"
 * for the test fixture's git tree (fuzz_maint_cache.seeds.sh).
 *
 * Invariants checked (a violation traps):
 *  - decoding succeeds or fails with -RB_EINVAL/-RB_ENOMEM, never reads
 *    out of bounds (ASan);
 *  - a decoded index answers lookups of a patch touching several paths
 *    and keywords, in both formats and as sections, without crashing;
 *  - every section decodes (they are decoded when first asked: each is
 *    asked for here) with non-NULL strings and arrays;
 *  - the same input read as the file of a commit's tree facts (the .tree
 *    file, its commit taken from the input) is refused with -RB_EINVAL
 *    or -RB_ENOMEM or gives -d answers of 0 to 2 only.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/maint/maint_priv.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define CHECK(x)                          \
	do {                              \
		if (!(x))                 \
			__builtin_trap(); \
	} while (0)

static const char patch[] =
	"From: A <a@example.org>\n"
	"Subject: [PATCH] alpha: beta\n\n"
	"Cc: x@example.org\n---\n"
	"diff --git a/drivers/alpha/core.c b/drivers/alpha/core.c\n"
	"--- a/drivers/alpha/core.c\n+++ b/drivers/alpha/core.c\n"
	"@@ -1 +1 @@\n-old\n+new keyword alpha_frob\n"
	"diff --git a/Documentation/x.yaml b/Documentation/x.yaml\n"
	"--- a/Documentation/x.yaml\n+++ b/Documentation/x.yaml\n"
	"@@ -1 +1 @@\n-a\n+b\n"
	"diff --git a/include/linux/mm.h b/include/linux/mm.h\n"
	"--- a/include/linux/mm.h\n+++ b/include/linux/mm.h\n"
	"@@ -1 +1 @@\n-a\n+b\n";

static void fuzz_facts(const uint8_t *data, size_t size)
{
	struct tree_facts f = { .ignore = RB_BUF_INIT(1 << 20) };
	size_t i;
	int err;

	if (size >= 64 + sizeof(f.commit))
		memcpy(f.commit, data + 64, sizeof(f.commit));
	err = rb_maint__facts_decode(&f, data, size, false);
	CHECK(err == 0 || err == -RB_EINVAL || err == -RB_ENOMEM);
	for (i = 0; !err && i < f.npat; i++)
		CHECK(f.memo[i] <= 2);
	free(f.memo);
	rb_buf_release(&f.ignore);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct index *ix = NULL;
	struct rb_maint *m = NULL;
	struct rb_maint_result *r = NULL;
	struct rb_buf out = RB_BUF_INIT(1 << 24);
	char *copy = malloc(size ? size : 1);
	size_t i;
	int err;

	if (!copy)
		return 0;
	fuzz_facts(data, size);
	memcpy(copy, data, size);
	err = rb_maint__cache_decode(&ix, copy, size, false);
	CHECK(err == 0 || err == -RB_EINVAL || err == -RB_ENOMEM);
	if (err)
		return 0;
	if (rb_maint__wrap(&m, ix, NULL)) {
		rb_maint__index_unref(ix);
		return 0;
	}
	if (!rb_maint_lookup_patch(&r, m, patch, sizeof(patch) - 1)) {
		CHECK(rb_maint_format(&out, r, 0) == 0);
		CHECK(rb_maint_format(&out, r, RB_MAINT_FMT_ROLES) == 0);
		CHECK(rb_maint_format_sections(&out, r) == 0);
	}
	for (i = 0; i < rb_maint_nsections(m); i++) {
		const struct rb_maint_section *s = rb_maint_section_at(m, i);
		size_t k;

		CHECK(s && s->name && s->status);
		for (k = 0; k < s->nmaintainers; k++)
			CHECK(s->maintainers[k]);
		for (k = 0; k < s->nlists; k++)
			CHECK(s->lists[k]);
		for (k = 0; k < s->nwebs; k++)
			CHECK(s->webs[k]);
	}
	rb_maint_result_free(r);
	rb_maint_free(m);
	rb_buf_release(&out);
	return 0;
}
