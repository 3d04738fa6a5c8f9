/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_kdoc.h - the "kernel-doc" checker: scripts/kernel-doc of the
 * configured branch tip on the C files and headers the series changes,
 * before and after, in the sandbox; only the warnings the series adds.
 */
#ifndef RB_REVIEW_CHECK_KDOC_H
#define RB_REVIEW_CHECK_KDOC_H

#include "review/checks/checks.h"

extern const struct rb_checker_ops rb_check_kdoc_ops;

/*
 * Parses kernel-doc's output ("FILE:LINE: warning: MESSAGE"; the paths
 * relative) into findings of category "kernel-doc" with code set to
 * "warning: MESSAGE" (exported for the fuzz target and the tests).
 * Lines about files not in @files (n_files of them; NULL: any plain
 * path) are dropped. Returns 0 or -RB_ENOMEM.
 */
int rb_kdoc_parse(struct rb_findings *out, const char *text, char *const *files,
		  size_t n_files);

#endif
