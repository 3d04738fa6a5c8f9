/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * prose.h - what a reply to a review says in its own words under each
 * finding (issue 37): the reason kept with an explicit verdict, and the
 * prose answer that becomes a proposed verdict for an admin to confirm.
 * The body is hostile input; nothing here decides who may judge.
 *
 * An answer to finding N is the unquoted text under the quoted paragraph
 * holding "[FN]" (as mail/verdict.h reads it), up to the next quoted line
 * or the signature separator "-- ". That paragraph ends at a break (a
 * blank or unquoted line) followed by quoted text without "[FN]": our
 * footer or the next finding's code, quoted after the finding, are not
 * the finding, and text under them answers nothing. A last paragraph
 * that is only a sign-off (at most two lines of three words: "Thanks,\n
 * Ada") is left out. The words of the answer guess its
 * verdict, deterministically, in this order:
 *   fixed           "fixed in v2", "already fixed", "will be fixed"
 *   valid           "not a false positive", "good catch", "you're
 *                   right", "will fix", "i'll fix", "agreed", "indeed",
 *                   an answer that starts with "yes"
 *   false positive  "false positive", "not a bug", "not an issue",
 *                   "is fine", "is ok", "is safe", "can't happen",
 *                   "cannot happen", "never happens", "intended",
 *                   "intentional", "on purpose", "by design", "already
 *                   handled", "is held", an answer that starts with "no"
 *                   or "nope"
 * and nothing matched is "unclear" (an admin says which on confirming).
 */
#ifndef RB_MAIL_PROSE_H
#define RB_MAIL_PROSE_H

#include <stddef.h>

#include "mail/verdict.h"

#define RB_PROSE_MAX 64 /* answers read from one reply */
#define RB_PROSE_MAX_TEXT 2048 /* bytes of an answer kept */

enum rb_prose_guess {
	RB_PROSE_UNCLEAR = -1,
	RB_PROSE_FALSE_POSITIVE = RB_VK_FALSE_POSITIVE,
	RB_PROSE_VALID = RB_VK_VALID,
	RB_PROSE_FIXED = RB_VK_FIXED,
};

struct rb_prose_answer {
	int id; /* N of "[FN]", 1..RB_VERDICT_MAX_ID */
	enum rb_prose_guess guess;
	int line; /* 1-based line of the body where the answer starts */
	char *text; /* the answer, lines joined with '\n', capped */
};

struct rb_prose {
	struct rb_prose_answer *v; /* in the order of the body, one per id */
	size_t n;
};

/*
 * Reads the answers under quoted findings in @body (@len bytes, LF or
 * CRLF, not NUL-terminated); a later answer to the same id is appended
 * to the first (within the cap). *out is owned by the caller
 * (rb_prose_release()). Fails only with -RB_ENOMEM.
 */
int rb_prose_parse(struct rb_prose *out, const char *body, size_t len);
void rb_prose_release(struct rb_prose *p);

/* The guess for an answer's @text (NUL-terminated); see above. */
enum rb_prose_guess rb_prose_guess(const char *text);

/*
 * The paragraph of @body that starts at line @line (1-based): that line
 * and the unquoted, non-blank lines after it, capped at
 * RB_PROSE_MAX_TEXT, into a new string (*out, the caller's), or NULL
 * when the line is not there. For an explicit verdict line ("F2: false
 * positive, the caller holds the lock") outside any quoted finding.
 * Returns 0 or -RB_ENOMEM.
 */
int rb_prose_paragraph(char **out, const char *body, size_t len, int line);

/* "false_positive", "valid", "fixed", or NULL for unclear. */
const char *rb_prose_guess_name(enum rb_prose_guess g);

#endif
