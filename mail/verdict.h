/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verdict.h - the verdict lines of a reply to a review (DESIGN.md, the
 * feedback protocol). The body of the reply is hostile input.
 *
 * What counts as a verdict, case-insensitively, on an unquoted line:
 *
 *   F2: false positive      (also "false-positive", "fp", "wrong")
 *   F2: valid               (also "correct")
 *   F2: fixed
 *   F1, F3: valid           (several ids, separated by "," or "and")
 *   fp F2                   (the verdict word first, then the ids)
 *
 * The separator after the ids may be ":", "-", "=" or blanks; text after
 * the verdict word is a comment. A finding quoted in the reply ("> [F2]
 * ..." on a quoted line) followed, before the next quoted line, by an
 * unquoted line that starts with a verdict word or says "false positive"
 * anywhere gives that finding the verdict. "not a false positive" (a
 * negation right before the phrase: not, no, isn't, ...) does not count.
 * Quoted lines never give a verdict themselves, so a quoted footer
 * ('Reply "F1: false positive" ...') is no verdict. Parsing stops at the
 * signature separator "-- ". When one id gets several verdicts, the last
 * one wins.
 *
 * What a sub-maintainer asks of reviewbot (issue 36), on the same
 * grammar; who may ask is the feedback stage's business
 * (bot/stages/curate.h):
 *
 *   F1, F3: send            (also "forward"; "send F1, F3" too): forward
 *                           those findings to the author and the list
 *   retry                   review the series again now
 *   pause                   say nothing more about the series
 *   resume                  go on
 *
 * "send" is never read under a quoted finding (a prose "Send a v2"
 * there must not publish anything), and a command is a line holding the
 * word alone (blanks and a final '.' or '!' allowed), so that prose
 * ("I will retry later") is none. When both pause and resume are asked,
 * the last one wins.
 *
 * What the reply answers (the blocking ledger): a finding quoted on a
 * quoted line ("> [F2] ...") followed, before the next quoted finding,
 * by an unquoted line that says something. A quoted signature separator
 * ("> -- ", the review's footer) ends the quoted finding before it, so
 * that a "Thanks" after the quoted footer answers nothing.
 */
#ifndef RB_MAIL_VERDICT_H
#define RB_MAIL_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

enum rb_verdict_kind {
	RB_VK_FALSE_POSITIVE,
	RB_VK_VALID,
	RB_VK_FIXED,
};

/* The largest finding id accepted ("F999"). */
#define RB_VERDICT_MAX_ID 999
/* At most this many verdicts are read from one reply. */
#define RB_VERDICT_MAX_ITEMS 256

struct rb_verdict_item {
	int id; /* N of "FN", 1..RB_VERDICT_MAX_ID */
	enum rb_verdict_kind kind;
	int line; /* 1-based line of the body that gave it */
};

/* What a reply asks of reviewbot beside verdicts (issue 36). */
enum rb_verdict_cmd {
	RB_VCMD_RETRY = 1 << 0,
	RB_VCMD_PAUSE = 1 << 1,
	RB_VCMD_RESUME = 1 << 2, /* never together with RB_VCMD_PAUSE */
};

struct rb_verdicts {
	struct rb_verdict_item *v; /* ordered by id, one per id */
	size_t n;
	/* "F1, F3: send": the ids to forward, ascending, each once (at
	 * most RB_VERDICT_MAX_ITEMS) */
	int *send;
	size_t n_send;
	unsigned int cmds; /* enum rb_verdict_cmd bits */
	/* The ids the reply answers (above), ascending, each once. */
	int *answered;
	size_t n_answered;
};

/*
 * Reads the verdicts in @body (@len bytes, LF or CRLF, need not be
 * NUL-terminated). On success *out (owned by the caller, released with
 * rb_verdicts_release()) holds zero or more verdicts, the ids to send,
 * the commands and the answered ids. Fails only with -RB_ENOMEM, or
 * -RB_ETOOBIG when the reply names more than RB_VERDICT_MAX_ITEMS
 * verdicts or ids to send.
 */
int rb_verdicts_parse(struct rb_verdicts *out, const char *body, size_t len);
void rb_verdicts_release(struct rb_verdicts *v);

/* True when @v asks for anything but verdicts: ids to send or a command. */
bool rb_verdicts_has_requests(const struct rb_verdicts *v);

/* "false_positive", "valid", "fixed": the store's spelling. */
const char *rb_verdict_kind_name(enum rb_verdict_kind k);

#endif
