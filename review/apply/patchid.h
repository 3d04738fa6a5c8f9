/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * patchid.h - git patch-id --stable of a patch's diff text, and what the
 * versions of a series share: which patches did not change (the same
 * patch-id) and where a later patch of a series touches a line again.
 */
#ifndef RB_REVIEW_PATCHID_H
#define RB_REVIEW_PATCHID_H

#include <stdbool.h>
#include <stddef.h>

#define RB_PATCH_ID_HEX 41

/*
 * Writes the 40-hex patch-id of the diff in @text (@len bytes) into @out,
 * as "git patch-id --stable" computes it (builtin/patch-id.c): SHA-1 over
 * each file's header and hunk lines with every whitespace character
 * removed and the hunk headers' line numbers left out, the per-file
 * hashes summed, so that reordering files or changing whitespace or
 * offsets keeps the id. Text before the first "diff " line is ignored.
 * Returns 0, or -RB_EINVAL when the text holds no diff (then @out is "").
 */
int rb_patch_id(char out[RB_PATCH_ID_HEX], const char *text, size_t len);

struct rb_diff;

/*
 * Look-ahead within a series: where new-side line @line of @path after a
 * patch is, after the later patches @later[0..n-1] (parsed diffs, in
 * order), and whether one of them changes it again. Returns the 0-based
 * index into @later of the first patch that removes or replaces that
 * line, or -1 when none does. *@kept (may be NULL) is set when that patch
 * adds back a line equal to @code (whitespace collapsed): the change keeps
 * what the finding quoted.
 */
int rb_patch_later_change(const struct rb_diff *const *later, size_t n,
			  const char *path, int line, const char *code,
			  bool *kept);

/* Whether @code (whitespace collapsed, non-empty) is on an added line of
 * @path in @d (any file when @path is NULL). */
bool rb_patch_adds_code(const struct rb_diff *d, const char *path,
			const char *code);

#endif
