// SPDX-License-Identifier: GPL-2.0-only
/*
 * retention.c - raw mail and model exchanges past their days. See
 * retention.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/config.h"
#include "bot/stages/retention.h"
#include "bot/store/store.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define DAY (24 * 3600)

/* Deletes the *.json files of @dir last changed before @before. */
static int64_t prune_exchanges(const char *dir, int64_t before)
{
	DIR *d;
	struct dirent *e;
	int64_t n = 0;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0; /* nothing recorded yet */
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat sb;

		if (len < 6 || strcmp(e->d_name + len - 5, ".json") ||
		    fstatat(fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(sb.st_mode) || (int64_t)sb.st_mtime >= before)
			continue;
		if (unlinkat(fd, e->d_name, 0)) {
			rb_log(RB_LOG_WARN, "retention.unlink_failed", "file",
			       e->d_name, "reason", strerror(errno), NULL);
			continue;
		}
		n++;
	}
	closedir(d);
	return n;
}

int rb_retention_run(const struct rb_config *cfg, struct rb_store *st,
		     const char *record_dir, struct rb_retention_stats *out)
{
	struct rb_retention_stats s = { 0 };
	int64_t now = rb_now();
	char a[32], b[32];
	int ret = 0;

	if (cfg->retention_raw_days > 0) {
		ret = rb_store_begin(st);
		if (!ret)
			ret = rb_store_prune_raw(
				st,
				now - (int64_t)cfg->retention_raw_days * DAY,
				&s.raw);
		if (!ret)
			ret = rb_store_commit(st);
		else
			rb_store_rollback(st);
		if (ret)
			return ret;
	}
	if (cfg->retention_exchanges_days > 0 && record_dir)
		s.exchanges = prune_exchanges(
			record_dir,
			now - (int64_t)cfg->retention_exchanges_days * DAY);
	if (s.raw || s.exchanges) {
		snprintf(a, sizeof(a), "%lld", (long long)s.raw);
		snprintf(b, sizeof(b), "%lld", (long long)s.exchanges);
		rb_log(RB_LOG_INFO, "retention.pruned", "raw", a, "exchanges",
		       b, NULL);
	}
	if (out)
		*out = s;
	return 0;
}
