// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_checks.c - the parsers of the checkers' hostile input. The first
 * byte picks one: 0 checkpatch output (of DIR /tmp/x, 3 patches), 1 an
 * external checker's JSON lines, 2 compiler output from the sandbox,
 * 3 a patch mail through the commit-msg checker (no repository).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail/message.h"
#include "review/checks/check_build.h"
#include "review/checks/check_checkpatch.h"
#include "review/checks/check_commit.h"
#include "review/checks/check_external.h"
#include "review/checks/checks.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_check_opts o = RB_CHECK_OPTS_INIT;
	struct rb_findings out = { 0 };
	char *text;

	if (size < 1)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0:
		rb_checkpatch_parse(&out, text, "/tmp/x", 3, &o, "v");
		break;
	case 1:
		rb_external_parse(&out, "ext", text, 3);
		break;
	case 2:
		rb_build_parse(&out, text);
		break;
	case 3: {
		struct rb_message *m = NULL;
		struct rb_check_patch p = { 0 };
		struct rb_check_ctx ctx = { 0 };

		if (rb_message_parse(&m, text, size - 1, NULL))
			break;
		p.msg = m;
		p.raw = text;
		p.raw_len = size - 1;
		ctx.patches = &p;
		ctx.n_patches = 1;
		ctx.opts = &o;
		rb_check_commit_ops.run(&ctx, &out);
		rb_message_free(m);
		break;
	}
	}
	/* What the checkers found goes through the dedup, as in a review. */
	rb_findings_postprocess(&out, NULL);
	rb_findings_release(&out);
	free(text);
	return 0;
}
