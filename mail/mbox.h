/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mbox.h - local mail files: mbox (mboxrd and mboxo, RFC 4155), Maildir,
 * single .eml files and stdin. Each message is handed to a callback with
 * its origin ("FILE:N" for the N-th message of an mbox, 1-based), so bad
 * input can be named precisely.
 */
#ifndef RB_MAIL_MBOX_H
#define RB_MAIL_MBOX_H

#include <stddef.h>

/*
 * Called once per message. @raw is borrowed for the duration of the call.
 * Return 0 to go on, or a negative code to stop the walk (it is passed on).
 */
typedef int (*rb_mail_fn)(const char *raw, size_t len, const char *origin,
			  void *payload);

/*
 * Walks @path: a Maildir (a directory with cur/ and new/), an mbox (a file
 * that starts with "From "), "-" for stdin, or else one message (.eml).
 * Compressed .xz files are read through xz(1). mboxrd ">From " quoting
 * is undone. Messages bigger than @max_size are reported through the
 * callback with len set to the size and raw NULL, so the caller can record
 * them. Returns 0, or -RB_ENOTFOUND / -RB_EIO naming the path.
 */
int rb_mail_walk(const char *path, size_t max_size, rb_mail_fn fn,
		 void *payload);

/* Splits an mbox held in memory; origins are "@name:N". */
int rb_mbox_split(const char *data, size_t len, const char *name,
		  size_t max_size, rb_mail_fn fn, void *payload);

#endif
