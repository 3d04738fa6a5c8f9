/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sender_maildir.h - the Maildir outbox
 * (https://cr.yp.to/proto/maildir.html).
 */
#ifndef RB_MAIL_SENDER_MAILDIR_H
#define RB_MAIL_SENDER_MAILDIR_H

#include "mail/sender.h"

/*
 * A Maildir outbox at @dir (tmp/, new/ and cur/ are created, mode 0700).
 * send writes the message bytes as they are into DIR/tmp, fsyncs, renames
 * it into DIR/new under a unique Maildir name ("TIME.MusecPpidQn.HOST")
 * and fsyncs DIR/new. The envelope is checked but not stored: it is the
 * message's own From, To and Cc (rb_compose_envelope()), so that
 * "sendmail -t -i < FILE" sends it, and the file is the exact bytes.
 */
int rb_sender_maildir_new(struct rb_sender **out, const char *dir);

#endif
