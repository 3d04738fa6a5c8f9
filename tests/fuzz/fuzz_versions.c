// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_versions.c - libFuzzer target for what bot/stages/versions.h reads of a
 * hostile cover letter: b4's "Link to vN:" line. The Message-ID it finds
 * fits the buffer, is NUL-terminated and holds an '@'.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bot/stages/versions.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[64];
	size_t n;

	memset(out, 'x', sizeof(out));
	rb_versions_b4_link(out, sizeof(out), (const char *)data, size);
	n = strnlen(out, sizeof(out));
	if (n == sizeof(out) || (n && !memchr(out, '@', n)))
		abort();
	return 0;
}
