/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fs.h - files: read with a cap, and durable writes (temporary name,
 * fsync, rename, fsync of the directory).
 */
#ifndef RB_UTIL_FS_H
#define RB_UTIL_FS_H

#include <stddef.h>

struct rb_buf;

/* Appends the file's content to @out; -RB_ETOOBIG past out->max. */
int rb_read_file(struct rb_buf *out, const char *path);
/* Reads all of a file descriptor (stdin) into @out. */
int rb_read_fd(struct rb_buf *out, int fd);

/* Writes @path atomically and durably; mode as for open(2). */
int rb_write_file_atomic(const char *path, const void *data, size_t len,
			 int mode);

/* mkdir -p, mode 0700 for new directories. */
int rb_mkdirs(const char *path);

/* fsync() the directory that holds @path. */
int rb_fsync_dir_of(const char *path);

#endif
