/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * source_nntp.h - newsgroups over NNTP (RFC 3977), e.g. public-inbox
 * servers such as lore.kernel.org, with libetpan.
 */
#ifndef RB_MAIL_SOURCE_NNTP_H
#define RB_MAIL_SOURCE_NNTP_H

#include "mail/source.h"

/* A source of kind RB_SOURCE_NNTP from @o (borrowed, copied); *out is owned
 * by the caller (rb_source_free()). */
int rb_source_nntp_new(struct rb_source **out, const struct rb_source_opts *o);

#endif
