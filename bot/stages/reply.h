/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reply.h - one reply composed and put in the outbox, for every kind of
 * mail the bot sends (reviews, notices, private copies, acks, forwards,
 * ledger notices): a reply in the thread of the message it answers
 * (its subject, In-Reply-To, References), From the config's smtp_from,
 * dated now, composed by mail/compose.h, its envelope and recipients
 * kept for the outbox (bot/store/store_outbox.h).
 */
#ifndef RB_BOT_REPLY_H
#define RB_BOT_REPLY_H

#include <stddef.h>

#include "util/buf.h"

struct rb_pipeline;
struct rb_message;
struct rb_outmail;
struct rb_recipients;
struct rb_reply;

/* One composed reply: what the outbox stores of it. */
struct rb_reply_mail {
	struct rb_buf bytes; /* the message, CRLF line ends */
	char *message_id;
	char *env_from;
	struct rb_buf rcpts; /* envelope recipients, one a line */
	struct rb_buf lists; /* those of them that are mailing lists */
	struct rb_buf trusted; /* M:/R: people and admins (no rcpt limit) */
};

/* An empty reply whose message may take up to @max_bytes. */
void rb_reply_mail_init(struct rb_reply_mail *m, size_t max_bytes);
void rb_reply_mail_release(struct rb_reply_mail *m);

/*
 * Composes @reply as a reply to @parent into @out. The caller sets
 * reply->from, ->policy, ->series_id, ->body and ->extra_headers; the
 * recipients are @r's To and Cc (its lists and trusted people kept in
 * @out), or reply->to and ->cc as set when @r is NULL; the subject, the
 * thread and the date are filled in here.
 */
int rb_reply_compose(struct rb_reply_mail *out, struct rb_reply *reply,
		     const struct rb_message *parent,
		     const struct rb_recipients *r);

/*
 * Puts @mail in the outbox as @om, whose message, envelope and
 * recipients are taken from @mail (the caller sets the rest, lists and
 * trusted included); p->stats.queued counts it. -RB_EEXISTS when the
 * same mail is there already (from an earlier run).
 */
int rb_reply_queue(struct rb_pipeline *p, const struct rb_reply_mail *mail,
		   struct rb_outmail *om);

#endif
