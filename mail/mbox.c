// SPDX-License-Identifier: GPL-2.0-only
/*
 * mbox.c - local mail files: mbox (RFC 4155; mboxrd and mboxo), Maildir,
 * single messages and stdin.
 *
 * mboxrd quotes every line matching /^>*From / with one more '>', mboxo
 * only /^From /. Undoing one level of quoting on /^>+From / is right for
 * mboxrd and leaves mboxo's rare ">From " body lines one '>' shorter,
 * which is what git mailsplit --mboxrd does as well.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mail/mbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

struct splitter {
	struct rb_buf msg;
	const char *name;
	size_t max_size;
	size_t count;
	size_t size; /* true size of the current message, past the cap too */
	int in_msg;
	rb_mail_fn fn;
	void *payload;
};

static int emit(struct splitter *sp)
{
	char origin[4096];
	int ret;

	if (!sp->in_msg)
		return 0;
	sp->count++;
	snprintf(origin, sizeof(origin), "%s:%zu", sp->name, sp->count);
	if (sp->size > sp->max_size)
		ret = sp->fn(NULL, sp->size, origin, sp->payload);
	else
		ret = sp->fn(sp->msg.ptr, sp->msg.len, origin, sp->payload);
	rb_buf_reset(&sp->msg);
	sp->size = 0;
	return ret;
}

static int is_from_line(const char *line, size_t len)
{
	return len >= 5 && !memcmp(line, "From ", 5);
}

/* Feeds one line (with its '\n' when present). */
static int feed_line(struct splitter *sp, const char *line, size_t len)
{
	const char *p;
	int ret;

	if (is_from_line(line, len)) {
		ret = emit(sp);
		sp->in_msg = 1;
		return ret;
	}
	if (!sp->in_msg) {
		/* Junk before the first "From " line: a message of its own,
		 * so that the caller records it as malformed. */
		sp->in_msg = 1;
	}
	if (len && line[0] == '>') {
		for (p = line; p < line + len && *p == '>'; p++)
			;
		if (line + len - p >= 5 && !memcmp(p, "From ", 5)) {
			line++;
			len--;
		}
	}
	sp->size += len;
	if (sp->size > sp->max_size)
		return 0;
	return rb_buf_add(&sp->msg, line, len);
}

int rb_mbox_split(const char *data, size_t len, const char *name,
		  size_t max_size, rb_mail_fn fn, void *payload)
{
	struct splitter sp = {
		.name = name, .max_size = max_size, .fn = fn, .payload = payload
	};
	const char *p = data, *end = data + len, *nl;
	int ret = 0;

	rb_buf_init(&sp.msg, max_size + 1);
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		ret = feed_line(&sp, p, (size_t)(nl - p));
		if (ret)
			goto out;
		p = nl;
	}
	ret = emit(&sp);
out:
	rb_buf_release(&sp.msg);
	return ret;
}

/* Streams an mbox from a FILE, line by line, so a 315 MB mbox does not
 * have to sit in memory. */
static int split_stream(FILE *f, const char *name, size_t max_size,
			rb_mail_fn fn, void *payload)
{
	struct splitter sp = {
		.name = name, .max_size = max_size, .fn = fn, .payload = payload
	};
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	rb_buf_init(&sp.msg, max_size + 1);
	while ((n = getline(&line, &cap, f)) > 0) {
		ret = feed_line(&sp, line, (size_t)n);
		if (ret)
			goto out;
	}
	if (ferror(f)) {
		ret = rb_err(RB_EIO, "%s: read error", name);
		goto out;
	}
	ret = emit(&sp);
out:
	free(line);
	rb_buf_release(&sp.msg);
	return ret;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Maildir: new/ and cur/, each in name order, so runs are repeatable. */
static int walk_maildir(const char *path, size_t max_size, rb_mail_fn fn,
			void *payload)
{
	static const char *const subdirs[] = { "cur", "new" };
	struct rb_buf file = RB_BUF_INIT(4096), raw = RB_BUF_INIT(max_size);
	char **names = NULL;
	size_t n = 0, i, k;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	for (k = 0; k < 2; k++) {
		rb_buf_reset(&file);
		rb_buf_printf(&file, "%s/%s", path, subdirs[k]);
		d = opendir(file.ptr);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			char **nn;

			if (de->d_name[0] == '.')
				continue;
			nn = realloc(names, (n + 1) * sizeof(*names));
			if (!nn) {
				closedir(d);
				ret = rb_err(RB_ENOMEM, "out of memory");
				goto out;
			}
			names = nn;
			rb_buf_reset(&file);
			rb_buf_printf(&file, "%s/%s/%s", path, subdirs[k],
				      de->d_name);
			names[n++] = strdup(file.ptr);
		}
		closedir(d);
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (!names[i])
			continue;
		rb_buf_reset(&raw);
		ret = rb_read_file(&raw, names[i]);
		if (ret == -RB_ETOOBIG)
			ret = fn(NULL, raw.max + 1, names[i], payload);
		else if (ret == 0)
			ret = fn(raw.ptr, raw.len, names[i], payload);
		if (ret)
			goto out;
	}
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	rb_buf_release(&file);
	rb_buf_release(&raw);
	return ret;
}

int rb_mail_walk(const char *path, size_t max_size, rb_mail_fn fn,
		 void *payload)
{
	char head[5] = { 0 };
	struct stat st;
	FILE *f;
	size_t got;
	int ret;

	if (!strcmp(path, "-"))
		return split_stream(stdin, "stdin", max_size, fn, payload);
	if (stat(path, &st))
		return rb_err(errno == ENOENT ? RB_ENOTFOUND : RB_EIO, "%s: %s",
			      path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		struct rb_buf sub = RB_BUF_INIT(4096);
		struct stat st2;
		int is_maildir;

		rb_buf_printf(&sub, "%s/cur", path);
		is_maildir = !stat(sub.ptr, &st2) && S_ISDIR(st2.st_mode);
		rb_buf_release(&sub);
		if (!is_maildir)
			return rb_err(RB_EINVAL,
				      "%s: a directory, but not a Maildir "
				      "(no cur/)",
				      path);
		return walk_maildir(path, max_size, fn, payload);
	}
	if (has_suffix(path, ".xz")) {
		struct rb_buf cmd = RB_BUF_INIT(8192);
		const char *p;

		/* Single-quote the path for the shell. */
		rb_buf_puts(&cmd, "xz -dc -- '");
		for (p = path; *p; p++) {
			if (*p == '\'')
				rb_buf_puts(&cmd, "'\\''");
			else
				rb_buf_putc(&cmd, *p);
		}
		rb_buf_puts(&cmd, "'");
		f = popen(cmd.ptr, "r");
		rb_buf_release(&cmd);
		if (!f)
			return rb_err(RB_EIO, "%s: cannot run xz: %s", path,
				      strerror(errno));
		ret = split_stream(f, path, max_size, fn, payload);
		if (pclose(f) != 0 && !ret)
			ret = rb_err(RB_EIO, "%s: xz failed", path);
		return ret;
	}
	f = fopen(path, "r");
	if (!f)
		return rb_err(RB_EIO, "%s: %s", path, strerror(errno));
	got = fread(head, 1, 5, f);
	rewind(f);
	if (got == 5 && !memcmp(head, "From ", 5)) {
		ret = split_stream(f, path, max_size, fn, payload);
	} else {
		/* One message (.eml, a git format-patch file without the
		 * mbox "From " line, or junk the caller will record). */
		struct rb_buf raw = RB_BUF_INIT(max_size);

		fclose(f);
		f = NULL;
		ret = rb_read_file(&raw, path);
		if (ret == -RB_ETOOBIG)
			ret = fn(NULL, (size_t)st.st_size, path, payload);
		else if (ret == 0)
			ret = fn(raw.ptr, raw.len, path, payload);
		rb_buf_release(&raw);
	}
	if (f)
		fclose(f);
	return ret;
}
