// SPDX-License-Identifier: GPL-2.0-only
/*
 * source_file.c - local mail as a source: an mbox, a Maildir, an .eml or
 * stdin. A file is read again only when its size or modification time
 * changed; every message is delivered each time it is read, and the
 * store's Message-ID key makes that idempotent. stdin is read once.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mail/mbox.h"
#include "mail/source.h"
#include "mail/source_file.h"
#include "util/err.h"
#include "util/banned.h"

struct file_source {
	struct rb_source base;
	char *path;
	size_t max_size;
	int poll_seconds;
	bool done; /* stdin was read */
	struct timespec mtime;
	off_t size;
};

struct deliver_ctx {
	const struct rb_source_env *env;
};

static int deliver(const char *raw, size_t len, const char *origin,
		   void *payload)
{
	const struct rb_source_env *env = payload;

	return env->deliver(raw, len, origin, env->payload);
}

static int file_poll(struct rb_source *src, const struct rb_source_env *env)
{
	struct file_source *f = (struct file_source *)src;
	struct stat st;
	int ret;

	if (!strcmp(f->path, "-")) {
		if (f->done)
			return 0;
		f->done = true;
		return rb_mail_walk("-", f->max_size, deliver, (void *)env);
	}
	if (stat(f->path, &st))
		return rb_err(RB_EAGAIN, "%s: cannot stat", f->path);
	/* A Maildir's directory times change when mail arrives. */
	if (!S_ISDIR(st.st_mode) && st.st_size == f->size &&
	    st.st_mtim.tv_sec == f->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == f->mtime.tv_nsec)
		return 0;
	ret = rb_mail_walk(f->path, f->max_size, deliver, (void *)env);
	if (!ret) {
		f->size = st.st_size;
		f->mtime = st.st_mtim;
	}
	return ret;
}

static int file_wait(struct rb_source *src, int timeout_ms,
		     volatile const int *stop)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int waited = 0;

	(void)src;
	while (waited < timeout_ms && !*stop) {
		nanosleep(&ts, NULL);
		waited += 100;
	}
	return 0;
}

static void file_free(struct rb_source *src)
{
	struct file_source *f = (struct file_source *)src;

	free(f->path);
	free(f->base.name);
	free(f);
}

static const struct rb_source_ops file_ops = {
	.name = "file",
	.poll = file_poll,
	.wait = file_wait,
	.free = file_free,
};

int rb_source_file_new(struct rb_source **out, const struct rb_source_opts *o)
{
	struct file_source *f;

	if (!o->path)
		return rb_err(RB_ECONFIG, "source %s: no path",
			      o->name ? o->name : "?");
	f = calloc(1, sizeof(*f));
	if (!f)
		return rb_err(RB_ENOMEM, "out of memory");
	f->base.ops = &file_ops;
	f->base.name = strdup(o->name ? o->name : o->path);
	f->path = strdup(o->path);
	f->max_size = o->max_size;
	f->poll_seconds = o->poll_seconds;
	f->size = -1;
	if (!f->base.name || !f->path) {
		file_free(&f->base);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	*out = &f->base;
	return 0;
}
