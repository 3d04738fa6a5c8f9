// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fs.h"
#include "banned.h"

int rb_read_fd(struct rb_buf *out, int fd)
{
	char tmp[65536];
	ssize_t n;
	int ret;

	for (;;) {
		n = read(fd, tmp, sizeof(tmp));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return rb_err(RB_EIO, "read: %s", strerror(errno));
		}
		if (n == 0)
			return 0;
		ret = rb_buf_add(out, tmp, (size_t)n);
		if (ret)
			return ret;
	}
}

int rb_read_file(struct rb_buf *out, const char *path)
{
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rb_err(errno == ENOENT ? RB_ENOTFOUND : RB_EIO, "%s: %s",
			      path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if ((size_t)st.st_size > out->max - out->len) {
			close(fd);
			return rb_err(RB_ETOOBIG,
				      "%s: %lld bytes is over the cap of %zu",
				      path, (long long)st.st_size, out->max);
		}
		ret = rb_buf_grow(out, (size_t)st.st_size);
		if (ret) {
			close(fd);
			return ret;
		}
	}
	ret = rb_read_fd(out, fd);
	close(fd);
	if (ret && ret != -RB_ETOOBIG)
		return rb_err(RB_EIO, "%s: %s", path, rb_errmsg());
	if (ret)
		return rb_err(RB_ETOOBIG, "%s: over the cap of %zu bytes", path,
			      out->max);
	return 0;
}

int rb_fsync_dir_of(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd;

	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
	} else if (slash == path) {
		snprintf(dir, sizeof(dir), "/");
	} else {
		if ((size_t)(slash - path) >= sizeof(dir))
			return rb_err(RB_EINVAL, "%s: path too long", path);
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return rb_err(RB_EIO, "%s: %s", dir, strerror(errno));
	if (fsync(fd) && errno != EINVAL) {
		close(fd);
		return rb_err(RB_EIO, "fsync %s: %s", dir, strerror(errno));
	}
	close(fd);
	return 0;
}

int rb_write_file_atomic(const char *path, const void *data, size_t len,
			 int mode)
{
	char tmp[PATH_MAX];
	const char *p = data;
	ssize_t n;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return rb_err(RB_EINVAL, "%s: path too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return rb_err(RB_EIO, "%s: %s", tmp, strerror(errno));
	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		p += n;
		len -= (size_t)n;
	}
	if (fsync(fd))
		goto fail;
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path))
		goto fail;
	return rb_fsync_dir_of(path);
fail:
	n = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return rb_err(RB_EIO, "%s: %s", path, strerror((int)n));
}

int rb_afile_open(struct rb_afile *f, const char *path, int mode)
{
	static unsigned long seq;
	unsigned long n = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);

	f->fd = -1;
	if (snprintf(f->path, sizeof(f->path), "%s", path) >=
		    (int)sizeof(f->path) ||
	    snprintf(f->tmp, sizeof(f->tmp), "%s.tmp.%ld.%lu", path,
		     (long)getpid(), n) >= (int)sizeof(f->tmp))
		return rb_err(RB_EINVAL, "%s: path too long", path);
	f->fd = open(f->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (f->fd < 0)
		return rb_err(RB_EIO, "%s: %s", f->tmp, strerror(errno));
	return 0;
}

int rb_afile_write(struct rb_afile *f, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len) {
		n = write(f->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return rb_err(RB_EIO, "%s: %s", f->tmp,
				      n ? strerror(errno) : "short write");
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void rb_afile_abort(struct rb_afile *f)
{
	if (f->fd < 0)
		return;
	close(f->fd);
	f->fd = -1;
	unlink(f->tmp);
}

int rb_afile_commit(struct rb_afile *f)
{
	int fd = f->fd, e;

	f->fd = -1;
	if (fsync(fd)) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd)) {
		e = errno;
		goto fail;
	}
	if (rename(f->tmp, f->path)) {
		e = errno;
		goto fail;
	}
	return rb_fsync_dir_of(f->path);
fail:
	unlink(f->tmp);
	return rb_err(RB_EIO, "%s: %s", f->path, strerror(e));
}

int rb_mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	char *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return rb_err(RB_EINVAL, "%s: path too long", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return rb_err(RB_EIO, "mkdir %s: %s", tmp,
				      strerror(errno));
		*p = '/';
	}
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return rb_err(RB_EIO, "mkdir %s: %s", tmp, strerror(errno));
	return 0;
}
