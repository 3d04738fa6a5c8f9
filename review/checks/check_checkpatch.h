/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_checkpatch.h - the "checkpatch" checker: scripts/checkpatch.pl of
 * the configured branch tip, in the sandbox.
 */
#ifndef RB_REVIEW_CHECK_CHECKPATCH_H
#define RB_REVIEW_CHECK_CHECKPATCH_H

#include "review/checks/checks.h"

extern const struct rb_checker_ops rb_check_checkpatch_ops;

/*
 * Parses the output of "checkpatch.pl --emacs --show-types --quiet
 * --no-summary DIR/0001.patch DIR/0002.patch ..." into findings, one per
 * report, with the patch index from the file name (exported for the fuzz
 * target). Types in o->checkpatch_ignore are dropped. Returns 0 or
 * -RB_ENOMEM.
 */
int rb_checkpatch_parse(struct rb_findings *out, const char *text,
			const char *dir, size_t n_patches,
			const struct rb_check_opts *o, const char *version);

#endif
