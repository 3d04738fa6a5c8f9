/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * source_file.h - local mail: an mbox, a Maildir, an .eml or stdin
 * ("-"), read again when its size or modification time changed.
 */
#ifndef RB_MAIL_SOURCE_FILE_H
#define RB_MAIL_SOURCE_FILE_H

#include "mail/source.h"

/* A source of kind RB_SOURCE_FILE from @o (borrowed, copied); *out is owned
 * by the caller (rb_source_free()). */
int rb_source_file_new(struct rb_source **out, const struct rb_source_opts *o);

#endif
