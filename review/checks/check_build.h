/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_build.h - the "build" checker: an incremental, sandboxed
 * build of the objects a series touches, base against applied.
 */
#ifndef RB_REVIEW_CHECK_BUILD_H
#define RB_REVIEW_CHECK_BUILD_H

#include "review/checks/checks.h"

extern const struct rb_checker_ops rb_check_build_ops;

/*
 * Parses compiler output of a build in the sandbox (paths under /src)
 * into diagnostics "file:line: level: message" (exported for the fuzz
 * target and the tests). Each is added to @out as a finding of category
 * "build-warning" or "build-error" with code set to the normalised
 * message. Returns 0 or -RB_ENOMEM.
 */
int rb_build_parse(struct rb_findings *out, const char *text);

/*
 * The same for sparse's lines in that output (marked "rb-sparse: " by
 * the wrapper the build runs as CHECK): findings of checker "sparse",
 * category "sparse-warning" or "sparse-error", a continuation line
 * ("expected ...", "got ...") added to the message. Lines that are not
 * marked are the compiler's, and rb_build_parse() skips marked ones.
 */
int rb_sparse_parse(struct rb_findings *out, const char *text);

/* The "sparse" checker: the build's objects with C=1, sparse's new
 * warnings only. */
extern const struct rb_checker_ops rb_check_sparse_ops;

#endif
