// SPDX-License-Identifier: GPL-2.0-only
/*
 * trees.c - fetching the configured trees. See trees.h.
 */
#include <string.h>
#include <sys/stat.h>

#include "bot/config.h"
#include "bot/trees.h"
#include "review/base.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

bool rb_tree_fetchable(const struct rb_tree_config *t)
{
	return t && t->url && t->branch && strcmp(t->branch, "HEAD") &&
	       t->fetch_minutes > 0;
}

int rb_tree_fetched_at(int64_t *out, git_repository *repo)
{
	struct rb_buf path = RB_BUF_INIT(8192);
	const char *gitdir = git_repository_path(repo);
	struct stat sb;
	int ret = 0;

	if (!gitdir ||
	    rb_buf_printf(&path, "%s%sFETCH_HEAD", gitdir,
			  gitdir[strlen(gitdir) - 1] == '/' ? "" : "/"))
		ret = -RB_ENOMEM;
	else if (stat(path.ptr, &sb))
		ret = -RB_ENOTFOUND;
	else
		*out = (int64_t)sb.st_mtime;
	rb_buf_release(&path);
	return ret;
}

bool rb_tree_due(const struct rb_tree_config *t, git_repository *repo,
		 int64_t now)
{
	int64_t at;

	if (!rb_tree_fetchable(t))
		return false;
	if (rb_tree_fetched_at(&at, repo))
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

	ret = rb_base_fetch(&oid, repo, t->url, t->branch);
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
	}
	git_reference_free(head);
	rb_buf_release(&ref);
	return ret;
}
