// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_maintainers_git.c - "reviewbot maintainers" in reviewbot-core: the
 * lookups that need the git tree (libgit2), when the cache cannot answer
 * (cmd_maintainers.c, which the small "reviewbot" runs without libgit2).
 */
#include <stdio.h>

#include "bot/cli/cli.h"
#include "bot/cli/cmd_maintainers.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* Loads the index as @o says and makes the lookups: the exit code. */
static int full(struct rb_buf *out, struct rb_buf *errs,
		const struct maint_opts *o)
{
	struct rb_maint *m = NULL;
	int err, ret;

	if (o->tree)
		err = rb_maint_load_git_cached(&m, o->tree, o->rev,
					       o->no_cache ? NULL : o->cache);
	else
		err = rb_maint_load_file(&m, o->mfile, o->mailmap, o->dir);
	if (err) {
		fprintf(stderr, "reviewbot maintainers: %s\n", rb_errmsg());
		return RB_EXIT_FAIL;
	}
	if (*rb_maint_warnings(m))
		fprintf(stderr, "reviewbot maintainers: patterns ignored:\n%s",
			rb_maint_warnings(m));
	ret = rb_cli_maint_lookups(out, errs, m, o);
	rb_maint_free(m);
	return ret;
}

int cmd_maintainers(int argc, char **argv)
{
	return rb_cli_maintainers(argc, argv, full);
}
