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

/*
 * A file written in parts, then made durable and put in place whole: its
 * bytes go to PATH.tmp.PID.N beside @path (created with O_EXCL, so no two
 * writers, threads or processes, ever share one) and rb_afile_commit()
 * fsyncs it, renames it over @path and fsyncs the directory. A reader
 * sees the old file or the whole new one; of two writers of one path the
 * last rename wins. @fd may be used between open and commit (pwrite,
 * mmap).
 */
struct rb_afile {
	int fd;
	char path[4096];
	char tmp[4096];
};

/* 0, -RB_EIO (with the reason), -RB_EINVAL (a path too long). */
int rb_afile_open(struct rb_afile *f, const char *path, int mode);
/* Appends all of @data; -RB_EIO. (@fd is open for reading too.) */
int rb_afile_write(struct rb_afile *f, const void *data, size_t len);
/* Durable and in place, or removed on failure; closes it. -RB_EIO. */
int rb_afile_commit(struct rb_afile *f);
/* Closes and removes the temporary file; nothing after a commit. */
void rb_afile_abort(struct rb_afile *f);

/* mkdir -p, mode 0700 for new directories. */
int rb_mkdirs(const char *path);

/* fsync() the directory that holds @path. */
int rb_fsync_dir_of(const char *path);

#endif
