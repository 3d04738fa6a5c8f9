// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_external.c - the parser of an external checker's output: JSON
 * lines and "FILE:LINE[:COL]: [warning: ]MESSAGE" lines mixed
 * (rb_external_parse()).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/checks/check_external.h"
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
	rb_external_parse(&out, "ext", text, 3);
	rb_findings_postprocess(&out, NULL);
	rb_findings_release(&out);
	free(text);
	return 0;
}
