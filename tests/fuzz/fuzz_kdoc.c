// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_kdoc.c - the parser of scripts/kernel-doc's output (run on files
 * a sender wrote, so hostile): rb_kdoc_parse(), with and without a list
 * of the files asked about.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/checks/check_kdoc.h"
#include "review/checks/checks.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char f0[] = "mm/a.c", f1[] = "include/linux/mm.h";
	char *const files[] = { f0, f1 };
	struct rb_findings out = { 0 };
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rb_kdoc_parse(&out, text, NULL, 0);
	rb_kdoc_parse(&out, text, files, 2);
	rb_findings_postprocess(&out, NULL);
	rb_findings_release(&out);
	free(text);
	return 0;
}
