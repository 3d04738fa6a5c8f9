// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_patch_id.c - libFuzzer target for rb_base_patch_id()
 * (review/base.h): the patch-id of a mail's diff, read to resolve b4's
 * "prerequisite-patch-id:" (bot/prereq.h) from stored, hostile mail. Any
 * input gives 40 hex digits or -RB_EPARSE, through libgit2's patch
 * parser.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "review/base.h"
#include "util/err.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int inited;
	char out[GIT_OID_HEXSZ + 1];
	int ret;

	if (!inited) {
		git_libgit2_init();
		inited = 1;
	}
	memset(out, 0, sizeof(out));
	ret = rb_base_patch_id(out, (const char *)data, size);
	if (ret == 0) {
		if (strlen(out) != GIT_OID_HEXSZ ||
		    strspn(out, "0123456789abcdef") != GIT_OID_HEXSZ)
			abort();
	} else if (ret != -RB_EPARSE) {
		abort();
	}
	rb_err_clear();
	return 0;
}
