// SPDX-License-Identifier: GPL-2.0-only
/*
 * trees.c - fetching the configured trees. See trees.h.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/config.h"
#include "bot/stages/stage.h"
#include "bot/stages/trees.h"
#include "bot/store/store.h"
#include "review/apply/base.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

bool rb_tree_fetchable(const struct rb_tree_config *t)
{
	return t && t->url && t->branch && strcmp(t->branch, "HEAD") &&
	       t->fetch_minutes > 0;
}

/* "<gitdir>/reviewbot-<what>-<branch, %-encoded>" into @path. */
static int stamp_path(struct rb_buf *path, git_repository *repo,
		      const char *what, const char *branch)
{
	const char *gitdir = git_repository_path(repo);
	const char *c;
	int ret;

	if (!gitdir || !*gitdir)
		return -RB_ENOTFOUND;
	ret = rb_buf_printf(path, "%s%sreviewbot-%s-", gitdir,
			    gitdir[strlen(gitdir) - 1] == '/' ? "" : "/", what);
	for (c = branch; !ret && *c; c++)
		ret = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			     "0123456789.-_",
			     *c) ?
			      rb_buf_putc(path, *c) :
			      rb_buf_printf(path, "%%%02X", (unsigned char)*c);
	return ret ? -RB_ENOMEM : 0;
}

static int stamp_at(int64_t *out, git_repository *repo, const char *what,
		    const char *branch)
{
	struct rb_buf path = RB_BUF_INIT(8192);
	struct stat sb;
	int ret;

	ret = stamp_path(&path, repo, what, branch);
	if (!ret && stat(path.ptr, &sb))
		ret = -RB_ENOTFOUND;
	if (!ret)
		*out = (int64_t)sb.st_mtime;
	rb_buf_release(&path);
	return ret;
}

int rb_tree_fetched_at(int64_t *out, git_repository *repo, const char *branch)
{
	return stamp_at(out, repo, "fetched", branch);
}

/* Touches the branch's stamp @what ("fetched", "tried"): now. */
static void stamp(git_repository *repo, const char *what, const char *branch)
{
	struct rb_buf path = RB_BUF_INIT(8192);
	int fd;

	if (!stamp_path(&path, repo, what, branch)) {
		fd = open(path.ptr, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0) {
			futimens(fd, NULL);
			close(fd);
		}
	}
	rb_buf_release(&path);
}

bool rb_tree_due(const struct rb_tree_config *t, git_repository *repo,
		 int64_t now)
{
	int64_t at;

	if (!rb_tree_fetchable(t))
		return false;
	/* A failed fetch counts too: a remote that is down or stalls is
	 * tried once per interval, not by every series that fails to
	 * apply (issue 33). */
	if (!stamp_at(&at, repo, "tried", t->branch) &&
	    now - at < (int64_t)t->fetch_minutes * 60)
		return false;
	if (rb_tree_fetched_at(&at, repo, t->branch))
		return true;
	return now - at >= (int64_t)t->fetch_minutes * 60;
}

int rb_tree_fetch(git_oid *out, git_repository *repo,
		  const struct rb_tree_config *t, const char *who)
{
	struct rb_buf ref = RB_BUF_INIT(4096);
	git_reference *head = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	git_oid oid;
	int ret;

	/* Stamped before it starts: a fetch that dies or hangs counts. */
	stamp(repo, "tried", t->branch);
	ret = rb_base_fetch_within(&oid, repo, t->url, t->branch,
				   t->fetch_timeout_seconds);
	if (!ret && rb_buf_printf(&ref, "refs/heads/%s", t->branch))
		ret = rb_err(RB_ENOMEM, "out of memory");
	if (!ret && git_reference_create(&head, repo, ref.ptr, &oid, 1,
					 "reviewbot: fetch") < 0)
		ret = rb_err(RB_EIO, "%s: %s: %s", t->path, ref.ptr,
			     git_error_last() ? git_error_last()->message :
						"cannot update");
	if (ret) {
		rb_log(RB_LOG_WARN, "tree.fetch_failed", "tree", t->name,
		       "reason", rb_errmsg(), NULL);
	} else {
		git_oid_tostr(hex, sizeof(hex), &oid);
		rb_log(RB_LOG_INFO, "tree.fetched", "tree", t->name, "branch",
		       t->branch, "head", hex, "name", who ? who : "-", NULL);
		git_oid_cpy(out, &oid);
		stamp(repo, "fetched", t->branch);
	}
	git_reference_free(head);
	rb_buf_release(&ref);
	return ret;
}

int rb_trees_fetch_step(struct rb_pipeline *p)
{
	const struct rb_config *cfg = p->cfg;
	int64_t now = rb_now();
	size_t i;

	if (!p->fetch_trees)
		return 0;
	if (!p->tree_tried || p->n_tree_tried != cfg->n_trees) {
		/* First use, or a reloaded config: the stamps decide. */
		free(p->tree_tried);
		p->tree_tried =
			calloc(cfg->n_trees + 1, sizeof(*p->tree_tried));
		p->n_tree_tried = p->tree_tried ? cfg->n_trees : 0;
	}
	for (i = 0; i < p->n_tree_tried && !(p->stop && *p->stop); i++) {
		const struct rb_tree_config *t = &cfg->trees[i];
		git_repository *repo = NULL;
		git_oid oid;

		if (!rb_tree_fetchable(t) ||
		    now - p->tree_tried[i] < (int64_t)t->fetch_minutes * 60)
			continue;
		if (git_repository_open(&repo, t->path) < 0) {
			p->tree_tried[i] = now;
			rb_log(RB_LOG_WARN, "tree.fetch_failed", "tree",
			       t->name, "reason",
			       git_error_last() ? git_error_last()->message :
						  "cannot open",
			       NULL);
		} else if (rb_tree_due(t, repo, now)) {
			p->tree_tried[i] = now;
			rb_tree_fetch(&oid, repo, t, p->owner);
		}
		git_repository_free(repo);
	}
	return 0;
}
