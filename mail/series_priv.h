/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * series_priv.h - internal to the series assembly: what series.c (the set,
 * threads and series) asks of series_msg.c (what b4 reads of one message).
 */
#ifndef RB_MAIL_SERIES_PRIV_H
#define RB_MAIL_SERIES_PRIV_H

#include <stdbool.h>

struct rb_series_msg;

/* The numbers b4's LoreSubject reads from a subject (not a reply). */
struct b4_subject {
	int revision, counter, expected;
	bool rinf, cinf, patch, resend;
};

/* b4 LoreSubject: ^(Re|Aw|Fwd): or ^\w{2,3}:\s*\[ ; false for NULL. */
bool rb_series__subject_is_reply(const char *s);
/* b4 LoreSubject's numbers and prefixes of the subject @s into @b. */
void rb_series__b4_subject_parse(struct b4_subject *b, const char *s);
/* Our own mail, or a known bot's (rb_series_from_bot()). */
bool rb_series__is_bot(const struct rb_series_msg *m);

#endif
