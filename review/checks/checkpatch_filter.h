/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * checkpatch_filter.h - checkpatch reports that the base tree shows to be
 * noise, dropped after the checkers ran (bot/stages/review_stage.c calls it on
 * the series' findings before rb_findings_postprocess()).
 *
 * On the 112 real patches of corpus/apply-6.1, 27 of 54 checkpatch
 * reports were a complaint about an added line written exactly like the
 * lines around it (the column tables of arch/x86/include/asm/
 * pgtable_types.h, cpufeatures.h, mmflags.h) or "Unknown commit id"
 * from a tree with no history (bench/RESULTS-precision.md).
 */
#ifndef RB_REVIEW_CHECKPATCH_FILTER_H
#define RB_REVIEW_CHECKPATCH_FILTER_H

#include <stddef.h>

#include <git2/oid.h>

struct git_repository;
struct rb_findings;

/*
 * Drops from @fs the checkpatch findings that say nothing about the
 * patch:
 *  - UNKNOWN_COMMIT_ID when @base has no history to look ids up in (a
 *    single imported commit, a shallow clone);
 *  - a style complaint (SPACING, TRAILING_STATEMENTS, SYMBOLIC_PERMS,
 *    ... see the list in checkpatch_filter.c) on an added line that is
 *    written like the base file's own lines: a line of the same shape
 *    (identifiers, numbers and strings aside) in the file, or for
 *    SPACING the same spacing around the same operator within 30 lines
 *    of it.
 * @repo and @base are only read (the configured tree); a file the base
 * does not have (a new file) keeps its findings. Findings of other
 * checkers are untouched. *@dropped (may be NULL) is set to how many
 * went. Returns 0, or -RB_ENOMEM, -RB_EIO when the base cannot be read
 * (then nothing is dropped).
 */
int rb_checkpatch_filter(struct rb_findings *fs, struct git_repository *repo,
			 const git_oid *base, size_t *dropped);

/*
 * The shape of a line, into @out (size @n): identifiers, keywords and
 * numbers become "V", string and character literals "S", inner runs of
 * blanks one space; the indent is kept as it is. Exported for the tests.
 */
void rb_checkpatch_line_shape(char *out, size_t n, const char *line,
			      size_t len);

#endif
