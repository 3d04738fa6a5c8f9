/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_maintainers.h - "reviewbot maintainers" in two programs: the small
 * "reviewbot" answers from the cache without libgit2 (cmd_maintainers.c)
 * and hands the rest to reviewbot-core (cmd_maintainers_git.c).
 */
#ifndef RB_BOT_CLI_CMD_MAINTAINERS_H
#define RB_BOT_CLI_CMD_MAINTAINERS_H

#include <stdbool.h>

#include "review/maint/maintainers.h"
#include "util/buf.h"

struct maint_opts {
	const char *tree, *rev, *mfile, *mailmap, *dir, *cache;
	bool roles, sections, each, files, no_cache;
	char **args; /* the PATCH or PATH arguments */
	int nargs;
};

/* Every lookup of @o (one, or one per argument with --each) on @m into
 * @out, and the reasons of those that failed into @errs: the exit code.
 */
int rb_cli_maint_lookups(struct rb_buf *out, struct rb_buf *errs,
			 const struct rb_maint *m, const struct maint_opts *o);

/*
 * The command: the lookups from the cache when it can answer them, else
 * through @full (which loads with libgit2 and returns the exit code).
 * With @full NULL, returns -1 when the cache cannot answer: the caller
 * then hands the command to a program that has @full.
 */
int rb_cli_maintainers(int argc, char **argv,
		       int (*full)(struct rb_buf *out, struct rb_buf *errs,
				   const struct maint_opts *o));

#endif
