/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_cocci.h - the "coccinelle" checker: the semantic patches of the
 * configured branch tip's scripts/coccinelle, in report mode, on the C
 * files the series changes, before and after, in the sandbox; only the
 * reports the series adds.
 */
#ifndef RB_REVIEW_CHECK_COCCI_H
#define RB_REVIEW_CHECK_COCCI_H

#include "review/checks/checks.h"

extern const struct rb_checker_ops rb_check_cocci_ops;

/*
 * Parses the output of the sandboxed script: "rb-cocci: SCRIPT" starts the
 * reports of one semantic patch (SCRIPT relative to scripts/coccinelle),
 * then spatch's report lines "FILE:LINE:COL-COL: MESSAGE". Each becomes a
 * finding of category "coccinelle" whose code is "SCRIPT: MESSAGE" (the
 * message alone in message). Lines of files not in @files (NULL: any
 * plain path) are dropped. Exported for the fuzz target. 0 or -RB_ENOMEM.
 */
int rb_cocci_parse(struct rb_findings *out, const char *text,
		   char *const *files, size_t n_files);

#endif
