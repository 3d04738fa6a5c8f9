/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_external.h - the "external" checker: a command from the config
 * that prints findings as JSON lines.
 */
#ifndef RB_REVIEW_CHECK_EXTERNAL_H
#define RB_REVIEW_CHECK_EXTERNAL_H

#include "review/checks/checks.h"

extern const struct rb_checker_ops rb_check_external_ops;

/*
 * Parses an external checker's JSON lines into findings named @name; a bad
 * line adds one "checker-problem" finding (exported for the fuzz target).
 */
int rb_external_parse(struct rb_findings *out, const char *name,
		      const char *text, size_t n_patches);

#endif
