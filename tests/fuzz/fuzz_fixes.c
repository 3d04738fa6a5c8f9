// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_fixes.c - hostile Fixes: trailer values through rb_fixes_parse()
 * (mail/fixes.h), which "reviewbot eval --build-set" reads from list
 * mail. Seeds: the Fixes: lines of the linux-api corpus
 * (fuzz_fixes.seeds.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail/fixes.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_fixes f;
	char *str = malloc(size + 1);
	size_t n;

	if (!str)
		return 0;
	memcpy(str, data, size);
	str[size] = '\0';
	if (rb_fixes_parse(&f, str)) {
		free(str);
		return 0;
	}
	n = strlen(f.sha);
	if (n &&
	    (n < 4 || n > 40 || strspn(f.sha, "0123456789abcdefABCDEF") != n))
		abort();
	if (f.subject &&
	    (!f.subject[0] || strlen(f.subject) > RB_FIXES_MAX_SUBJECT ||
	     strlen(f.subject) > size || f.subject[0] == ' '))
		abort();
	rb_fixes_release(&f);
	free(str);
	return 0;
}
