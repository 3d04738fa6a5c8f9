/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check_maint.h - the "cc-maintainers" checker: the people and lists
 * scripts/get_maintainer.pl names for a patch (review/maint/maintainers.h, the
 * MAINTAINERS of the configured branch tip) that the patch's To: and Cc:
 * leave out.
 */
#ifndef RB_REVIEW_CHECK_MAINT_H
#define RB_REVIEW_CHECK_MAINT_H

#include "review/checks/checks.h"

extern const struct rb_checker_ops rb_check_maint_ops;

struct rb_maint;
struct rb_message;

/*
 * Adds one finding (category "cc-maintainers", on patch @patch_index) to
 * @out when @m, a patch mail whose raw text is @raw, leaves out of its
 * To/Cc (and From) an M:/R: person or an L: list of a section it touches
 * (not THE REST's list, not "in file" addresses), or, when @fixes, a
 * signer of a commit its Fixes: tag names, or (with @repo, where the
 * commit is looked up) that commit's author. Exported for the tests.
 */
struct git_repository;
int rb_maint_check_patch(struct rb_findings *out, const struct rb_maint *mt,
			 const struct rb_message *m, const char *raw,
			 size_t raw_len, int patch_index, bool fixes,
			 struct git_repository *repo);

#endif
