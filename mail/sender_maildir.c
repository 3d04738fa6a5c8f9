// SPDX-License-Identifier: GPL-2.0-only
/*
 * sender_maildir.c - the Maildir outbox (https://cr.yp.to/proto/maildir.html):
 * write into tmp/, fsync, rename into new/, fsync new/.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "mail/sender.h"
#include "mail/sender_maildir.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/banned.h"

struct maildir_sender {
	struct rb_sender base;
	char *dir;
	char host[256]; /* '/' and ':' escaped as the Maildir spec says */
	pthread_mutex_t lock;
	unsigned long seq;
};

static void maildir_free(struct rb_sender *base)
{
	struct maildir_sender *m = (struct maildir_sender *)base;

	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m->dir);
	free(m);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* True when new/NAME or cur/NAME[:info] exists. */
static bool already_delivered(const char *dir, const char *name)
{
	struct rb_buf p = RB_BUF_INIT(8192);
	struct dirent *de;
	size_t n = strlen(name);
	bool found;
	DIR *d;

	rb_buf_printf(&p, "%s/new/%s", dir, name);
	found = access(p.ptr, F_OK) == 0;
	rb_buf_reset(&p);
	rb_buf_printf(&p, "%s/cur", dir);
	d = found ? NULL : opendir(p.ptr);
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, name, n) &&
		    (de->d_name[n] == '\0' || de->d_name[n] == ':'))
			found = true;
	if (d)
		closedir(d);
	rb_buf_release(&p);
	return found;
}

static int maildir_send(struct rb_sender *base, const char *env_from,
			const char *const *rcpts, size_t n_rcpts,
			const char *msg, size_t len)
{
	struct maildir_sender *m = (struct maildir_sender *)base;
	struct rb_buf tmp = RB_BUF_INIT(8192), dst = RB_BUF_INIT(8192);
	struct timeval tv;
	unsigned long seq;
	int fd = -1, ret, tries;
	bool created = false, moved = false;
	char hex[RB_SHA256_HEX], name[sizeof("rb-.") + 40 + sizeof(m->host)];

	ret = rb_sender_check_envelope(env_from, rcpts, n_rcpts, msg, len);
	if (ret)
		return ret;
	/*
	 * The file in new/ is named after the bytes, so a resend after a
	 * crash (the outbox is at-least-once) replaces the same file with the
	 * same bytes: the Maildir holds each mail once. A mail already moved
	 * to cur/ by a reader is not delivered again.
	 */
	rb_sha256_hex(hex, msg, len);
	snprintf(name, sizeof(name), "rb-%.40s.%s", hex, m->host);
	if (already_delivered(m->dir, name)) {
		rb_log(RB_LOG_INFO, "maildir.duplicate", "file", name, NULL);
		return 0;
	}
	for (tries = 0; tries < 10; tries++) {
		pthread_mutex_lock(&m->lock);
		seq = ++m->seq;
		pthread_mutex_unlock(&m->lock);
		gettimeofday(&tv, NULL);
		rb_buf_reset(&tmp);
		rb_buf_reset(&dst);
		ret = rb_buf_printf(&tmp, "%s/tmp/%lld.M%ldP%ldQ%lu.%s", m->dir,
				    (long long)tv.tv_sec, (long)tv.tv_usec,
				    (long)getpid(), seq, m->host);
		if (!ret)
			ret = rb_buf_printf(&dst, "%s/new/%s", m->dir, name);
		if (ret)
			goto out;
		fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		ret = rb_err(RB_EIO, "%s: %s", tmp.ptr, strerror(errno));
		goto out;
	}
	created = true;
	if (write_all(fd, msg, len) || fsync(fd)) {
		ret = rb_err(RB_EIO, "%s: %s", tmp.ptr, strerror(errno));
		goto out;
	}
	if (close(fd)) {
		fd = -1;
		ret = rb_err(RB_EIO, "%s: %s", tmp.ptr, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp.ptr, dst.ptr)) {
		ret = rb_err(RB_EIO, "rename to %s: %s", dst.ptr,
			     strerror(errno));
		goto out;
	}
	moved = true;
	ret = rb_fsync_dir_of(dst.ptr);
	if (!ret)
		rb_log(RB_LOG_INFO, "maildir.sent", "file", dst.ptr, NULL);
out:
	if (fd >= 0)
		close(fd);
	if (ret && created && !moved)
		unlink(tmp.ptr);
	rb_buf_release(&tmp);
	rb_buf_release(&dst);
	return ret;
}

static const struct rb_sender_ops maildir_ops = {
	.name = "maildir",
	.send = maildir_send,
	.free = maildir_free,
};

int rb_sender_maildir_new(struct rb_sender **out, const char *dir)
{
	static const char *const sub[] = { "tmp", "new", "cur" };
	struct maildir_sender *m = NULL;
	struct rb_buf path = RB_BUF_INIT(8192);
	char host[128];
	size_t i, n = 0;
	int ret = 0;

	if (!dir || !dir[0])
		return rb_err(RB_ECONFIG, "no Maildir directory");
	m = calloc(1, sizeof(*m));
	if (!m)
		return rb_err(RB_ENOMEM, "out of memory");
	pthread_mutex_init(&m->lock, NULL);
	m->base.ops = &maildir_ops;
	m->dir = strdup(dir);
	if (!m->dir) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		rb_buf_reset(&path);
		ret = rb_buf_printf(&path, "%s/%s", dir, sub[i]);
		if (!ret)
			ret = rb_mkdirs(path.ptr);
		if (ret)
			goto out;
	}
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	for (i = 0; host[i] && n + 5 < sizeof(m->host); i++) {
		if (host[i] == '/' || host[i] == ':') {
			n += (size_t)snprintf(m->host + n, sizeof(m->host) - n,
					      "\\%03o", (unsigned char)host[i]);
		} else {
			m->host[n++] = host[i];
		}
	}
	m->host[n] = '\0';
	*out = &m->base;
	m = NULL;
out:
	maildir_free(m ? &m->base : NULL);
	rb_buf_release(&path);
	return ret;
}
