/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * subject.h - the patch-mail subject grammar ("[RFC PATCH net-next v2
 * 1/3] title"), as kernel lists write it and b4 and patchwork read it.
 */
#ifndef RB_MAIL_SUBJECT_H
#define RB_MAIL_SUBJECT_H

#include <stdbool.h>

/* What a subject line says about the mail. */
struct rb_subject {
	char *title; /* the subject without reply prefixes and [tags] */
	char *tags; /* the text inside the patch brackets, or NULL */
	char *subsystem; /* a tree tag such as "net-next", or NULL */
	bool is_patch; /* [PATCH ...], PATCH n/m, [RFC ...] */
	bool is_reply; /* Re:, Fwd:, AW:, 回复: ... */
	bool is_rfc;
	bool is_resend;
	bool is_pull; /* [GIT PULL]: not a patch */
	int version; /* 1 when not stated */
	int index; /* 0 for a cover letter or a single patch */
	int total; /* 0 when not stated (a single patch) */
};

/* Parses a decoded subject line. Never fails on content; -RB_ENOMEM only. */
int rb_subject_parse(struct rb_subject *out, const char *subject);
void rb_subject_release(struct rb_subject *s);
/* A stable review series or backport ("[PATCH 5.10 000/122]"). */
bool rb_subject_is_stable(const struct rb_subject *s);

#endif
