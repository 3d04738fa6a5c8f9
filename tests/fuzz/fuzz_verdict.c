// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_verdict.c - hostile reply bodies through rb_verdicts_parse(). The
 * input is not NUL-terminated, so a read past its end shows up in ASan.
 * Seeds: real reply bodies of the linux-api corpus (fuzz_verdict.seeds.sh),
 * and the requests of issue 36 (send, retry, pause, resume, answers).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail/verdict.h"
#include "util/err.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_verdicts v = { 0 };
	char *copy = malloc(size ? size : 1);
	size_t i;
	int ret;

	if (!copy)
		return 0;
	if (size)
		memcpy(copy, data, size);
	ret = rb_verdicts_parse(&v, copy, size);
	if (ret && ret != -RB_ETOOBIG && ret != -RB_ENOMEM)
		abort();
	for (i = 0; !ret && i < v.n; i++) {
		if (v.v[i].id < 1 || v.v[i].id > RB_VERDICT_MAX_ID)
			abort();
		if (i && v.v[i].id <= v.v[i - 1].id)
			abort();
		if (v.v[i].kind > RB_VK_FIXED || v.v[i].line < 1)
			abort();
	}
	/* Issue 36: the ids to send and the answered ones, ascending and
	 * in range; pause and resume never both. */
	for (i = 0; !ret && i < v.n_send; i++)
		if (v.send[i] < 1 || v.send[i] > RB_VERDICT_MAX_ID ||
		    (i && v.send[i] <= v.send[i - 1]) ||
		    v.n_send > RB_VERDICT_MAX_ITEMS)
			abort();
	for (i = 0; !ret && i < v.n_answered; i++)
		if (v.answered[i] < 1 || v.answered[i] > RB_VERDICT_MAX_ID ||
		    (i && v.answered[i] <= v.answered[i - 1]))
			abort();
	if (!ret && ((v.cmds & ~7u) ||
		     ((v.cmds & RB_VCMD_PAUSE) && (v.cmds & RB_VCMD_RESUME))))
		abort();
	rb_verdicts_release(&v);
	free(copy);
	return 0;
}
