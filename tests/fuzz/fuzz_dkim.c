// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_dkim.c - hostile mail through rb_dkim_verify(): the From: fields
 * counted as DKIM reads the header block, the From: address list, and
 * libopendkim's own header and signature parsing. Keys come from an empty
 * key file, so nothing is asked of DNS and no signature can pass.
 * Seeds: the first messages of the linux-api corpus (run-fuzz.sh), most of
 * them DKIM-signed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail/dkim.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_dkim_result r;

	if (size > (1u << 20))
		return 0;
	if (rb_dkim_verify(&r, (const char *)data, size, "a@example.org",
			   "/dev/null"))
		return 0;
	/* no key, no pass; the strings are NUL-terminated */
	if (r.pass || !memchr(r.reason, '\0', sizeof(r.reason)) ||
	    !memchr(r.domain, '\0', sizeof(r.domain)))
		abort();
	return 0;
}
