/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * diff.h - the unified-diff parser for the patch text of a mail: git's
 * extended headers (new/deleted file mode, old/new mode, rename and copy
 * with similarity, "index <old>..<new> [mode]"), traditional "---/+++"
 * diffs, "GIT binary patch" (literal and delta, base85-decoded here),
 * "\ No newline at end of file", and the empty context lines of mail that
 * lost its trailing whitespace (an empty line inside a hunk is a blank
 * context line, as git apply reads it).
 *
 * The parser follows git's apply.c: text before, between and after the
 * file sections (commit message, diffstat, signature) is skipped, a hunk
 * ends when the counts of its header are used up, and a hunk that does not
 * add or remove anything is an error. Paths lose one leading component
 * ("a/", "b/", like -p1); rename/copy names are taken as written.
 *
 * Everything is owned by struct rb_diff, which keeps its own copy of the
 * text: line pointers stay valid until rb_diff_free().
 */
#ifndef RB_REVIEW_DIFF_H
#define RB_REVIEW_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rb_diff_status {
	RB_DIFF_MODIFIED, /* content and/or mode change in place */
	RB_DIFF_ADDED,
	RB_DIFF_DELETED,
	RB_DIFF_RENAMED,
	RB_DIFF_COPIED,
};

struct rb_diff_line {
	char origin; /* ' ' context, '-' removed, '+' added */
	bool no_newline; /* "\ No newline at end of file" follows */
	const char *text; /* without the origin and the '\n' */
	size_t len;
	uint32_t old_lineno; /* 1-based; 0 for '+' lines */
	uint32_t new_lineno; /* 1-based; 0 for '-' lines */
	uint32_t patch_lineno; /* 1-based line in the patch text */
};

struct rb_diff_hunk {
	uint32_t old_start, old_count; /* as the @@ header says */
	uint32_t new_start, new_count;
	const char *section; /* text after the closing "@@ ", may be "" */
	size_t section_len;
	uint32_t leading; /* context lines before the first change */
	uint32_t trailing; /* context lines after the last change */
	uint32_t added, removed;
	uint32_t patch_lineno; /* the line of the @@ header */
	struct rb_diff_line *lines;
	size_t n_lines;
};

enum rb_diff_bin_type {
	RB_DIFF_BIN_NONE,
	RB_DIFF_BIN_LITERAL,
	RB_DIFF_BIN_DELTA
};

struct rb_diff_binary {
	enum rb_diff_bin_type type;
	uint64_t inflated_size; /* as "literal N" / "delta N" says */
	unsigned char *data; /* base85-decoded, still zlib-deflated */
	size_t len;
};

struct rb_diff_file {
	char *old_path; /* NULL for an added file */
	char *new_path; /* NULL for a deleted file */
	uint32_t old_mode; /* octal mode, 0 when the patch does not say */
	uint32_t new_mode;
	enum rb_diff_status status;
	int similarity; /* rename/copy score 0..100, -1 when not given */
	char old_id[41]; /* hex prefix from the index line, "" when none */
	char new_id[41];
	bool is_git; /* a "diff --git" section */
	bool has_dashes; /* its header had "---"/"+++" lines */
	bool meta_change; /* new, deleted, renamed, copied or mode change */
	bool is_binary; /* "GIT binary patch" or "Binary files ... differ" */
	struct rb_diff_binary bin_forward; /* type NONE for "Binary files" */
	struct rb_diff_binary bin_reverse;
	uint32_t patch_lineno; /* the first line of the section */
	const char *raw; /* the whole section in the text, header included */
	size_t raw_len;
	uint32_t added, removed; /* over all hunks */
	struct rb_diff_hunk *hunks;
	size_t n_hunks;
};

struct rb_diff {
	struct rb_diff_file *files;
	size_t n_files;
	char *text; /* the owned copy every line points into */
	size_t len;
};

/*
 * Parses @len bytes of @text. *out is owned by the caller (rb_diff_free()).
 * Returns 0; -RB_EPARSE with the patch line and the problem in rb_errmsg()
 * for a corrupt diff, and also when the text holds no file section at all;
 * -RB_ENOMEM.
 */
int rb_diff_parse(struct rb_diff **out, const char *text, size_t len);
void rb_diff_free(struct rb_diff *d);

/* The path a file section names in the tree after the patch (else old). */
const char *rb_diff_file_path(const struct rb_diff_file *f);

/* The section touching @path (new or old name), or NULL. */
const struct rb_diff_file *rb_diff_find_file(const struct rb_diff *d,
					     const char *path);

/*
 * The line of @f shown at new-side line @lineno (a '+' or ' ' line), or
 * NULL when no hunk shows it. Checkers use it to check that code quoted at
 * a line is really there.
 */
const struct rb_diff_line *rb_diff_new_line(const struct rb_diff_file *f,
					    uint32_t lineno);

/*
 * Iterates every line of every hunk of @f in order; @fn gets the hunk
 * (1-based index) and the line, with its new-side number. A non-zero
 * return stops the walk and is returned.
 */
typedef int (*rb_diff_line_fn)(const struct rb_diff_hunk *h, size_t hunk_no,
			       const struct rb_diff_line *l, void *payload);
int rb_diff_foreach_line(const struct rb_diff_file *f, rb_diff_line_fn fn,
			 void *payload);

#endif
