/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_commit.h - the "commit-msg" checker: the rules of
 * submitting-patches.rst a machine can judge without guessing.
 */
#ifndef RB_REVIEW_CHECK_COMMIT_H
#define RB_REVIEW_CHECK_COMMIT_H

#include "review/checks/checks.h"

extern const struct rb_checker_ops rb_check_commit_ops;

#endif
