// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_subject.c - hostile subject lines through rb_subject_parse().
 * Seeds: real subjects of the linux-api corpus (fuzz_subject.seeds.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail/message.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_subject s;
	char *str = malloc(size + 1);

	if (!str)
		return 0;
	memcpy(str, data, size);
	str[size] = '\0';
	if (rb_subject_parse(&s, str)) {
		free(str);
		return 0;
	}
	if (!s.title || strlen(s.title) > size)
		abort();
	if (s.version < 1 || s.index < 0 || s.index > s.total)
		abort();
	if (s.is_pull && s.is_patch && !s.tags)
		abort();
	rb_subject_release(&s);
	free(str);
	return 0;
}
