// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_cocci.c - the parser of the coccinelle checker's sandboxed output
 * ("rb-cocci: SCRIPT" sections of spatch report lines): rb_cocci_parse().
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/checks/check_cocci.h"
#include "review/checks/checks.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char f0[] = "kernel/ksysfs.c";
	char *const files[] = { f0 };
	struct rb_findings out = { 0 };
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rb_cocci_parse(&out, text, NULL, 0);
	rb_cocci_parse(&out, text, files, 1);
	rb_findings_postprocess(&out, NULL);
	rb_findings_release(&out);
	free(text);
	return 0;
}
