/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * outbox.h - the send stage: what the outbox holds and is due goes to the
 * sender (SMTP, or the Maildir outbox by default), byte for byte the same
 * on every attempt. See outbox.c for the states a mail goes through.
 */
#ifndef RB_BOT_OUTBOX_H
#define RB_BOT_OUTBOX_H

struct rb_pipeline;

/* Sends every due mail; 0, or a store error, or -RB_ECONFIG when the
 * sender cannot be set up (bad credentials: stop). */
int rb_outbox_send(struct rb_pipeline *p);

#endif
