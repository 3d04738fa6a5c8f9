// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_sparse.c - the parser of a build's output for sparse's lines
 * (marked "rb-sparse: ") and the compiler's, as the sandboxed make of a
 * hostile tree prints them: rb_sparse_parse() and rb_build_parse().
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/checks/check_build.h"
#include "review/checks/checks.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_findings out = { 0 };
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rb_sparse_parse(&out, text);
	rb_build_parse(&out, text);
	rb_findings_postprocess(&out, NULL);
	rb_findings_release(&out);
	free(text);
	return 0;
}
