/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guides.h - the subsystem guides of the model review (review/guides/).
 *
 * A guide is a Markdown file whose first lines say when it applies:
 *
 *   Sections: MEMORY MANAGEMENT | PAGE TABLE     MAINTAINERS sections
 *   Paths: mm/ | include/linux/pgtable.h          path prefixes
 *   Symbols: pte_offset_map | pmd_lock            words in changed lines
 *
 * A guide is chosen for a patch when a section the series touches starts
 * with one of its sections (case-insensitive), when a file the patch
 * changes starts with one of its paths, or when a line the patch adds or
 * removes contains one of its symbols. A line the patch only moves (the
 * same text, white space around it aside, both removed and added) is not
 * a change of what the code does with its symbols and does not count, so
 * that code motion does not pull in every guide it mentions. At least
 * one of the three lines is required. The rest of the file is the guide; there is no size cap other
 * than the file cap below, since the guides are ours, not the mail's.
 *
 * The prompt set's version is a hash over every guide and the prompt
 * texts compiled in (model_prompt.h), stored with each review and
 * finding so that stats can be split by prompt version.
 */
#ifndef RB_REVIEW_GUIDES_H
#define RB_REVIEW_GUIDES_H

#include <stdbool.h>
#include <stddef.h>

struct rb_sha256;

#define RB_GUIDE_MAX (256 * 1024) /* bytes of one guide file */

struct rb_guide {
	char *name; /* the file name without ".md" */
	char **sections, **paths, **symbols;
	size_t n_sections, n_paths, n_symbols;
	char *body; /* the text after the header lines */
};

struct rb_guides {
	struct rb_guide *v;
	size_t n;
};

/*
 * Reads every *.md of @dir in name order. A guide without any of the
 * three header lines, or over RB_GUIDE_MAX, is -RB_EPARSE naming the file
 * and line. A missing @dir is an empty set.
 */
int rb_guides_load(struct rb_guides *out, const char *dir);
void rb_guides_release(struct rb_guides *g);

/* What a patch touches. */
struct rb_guides_query {
	const char *const *sections; /* MAINTAINERS section names */
	size_t n_sections;
	const char *const *paths; /* the files it changes */
	size_t n_paths;
	const char *patch; /* the diff text: its +/- lines are searched */
	size_t patch_len;
};

/* Is guide @g chosen for @q? @why (may be NULL) gets "section X", "path
 * P" or "symbol S" (borrowed). */
bool rb_guide_applies(const struct rb_guide *g, const struct rb_guides_query *q,
		      const char **why);

/* Adds every guide (name and whole file) to @h, in name order. */
void rb_guides_hash(const struct rb_guides *g, struct rb_sha256 *h);

#endif
