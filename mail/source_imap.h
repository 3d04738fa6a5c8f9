/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * source_imap.h - IMAP mailboxes (RFC 3501, RFC 2177 IDLE), with libetpan;
 * the certificate is checked with OpenSSL before LOGIN (tls_verify.h).
 */
#ifndef RB_MAIL_SOURCE_IMAP_H
#define RB_MAIL_SOURCE_IMAP_H

#include "mail/source.h"

/* A source of kind RB_SOURCE_IMAP from @o (borrowed, copied); *out is owned
 * by the caller (rb_source_free()). */
int rb_source_imap_new(struct rb_source **out, const struct rb_source_opts *o);

#endif
