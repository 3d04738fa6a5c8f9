/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mode.h - the policy mode of a subsystem: what reviewbot does with its
 * series (DESIGN.md). The config reads it, the composer writes it into
 * X-Reviewbot-Policy and the renderer words the review by it.
 */
#ifndef RB_MAIL_MODE_H
#define RB_MAIL_MODE_H

enum rb_mode {
	RB_MODE_OFF, /* not reviewed */
	RB_MODE_SHADOW, /* reviewed, sent to the admins only */
	RB_MODE_ADVISORY, /* reviewed on the list */
	RB_MODE_BLOCKING, /* reviewed on the list, findings to be answered */
};

/*
 * The names, indexed by the enum and NULL-terminated: the one place they
 * are written (the config reads them, the dashboard offers them).
 */
extern const char *const rb_mode_names[];

/* "off", "shadow", "advisory" or "blocking"; "off" for another value. */
const char *rb_mode_name(enum rb_mode m);

/* The mode named @s (as rb_mode_name() writes it), or -1. */
int rb_mode_parse(const char *s);

#endif
