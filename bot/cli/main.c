// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - the reviewbot command line. The only file that may exit().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>

#include "bot/cli/cli.h"
#include "util/banned.h"

static const struct rb_cmd commands[] = {
	{ "review", "review the series in mbox, eml or Maildir files",
	  cmd_review },
	{ "run", "the daemon: sources, pipeline, outbox, sending", cmd_run },
	{ "check-config", "validate a config file and print every error",
	  cmd_check_config },
	{ "stats", "findings, precision and timing per subsystem", cmd_stats },
	{ "series", "assemble series from mail and print them as JSON",
	  cmd_series },
	{ "apply", "apply patches in memory onto a tree", cmd_apply },
	{ "maintainers", "MAINTAINERS lookup, like get_maintainer.pl",
	  cmd_maintainers },
	{ "check", "apply patches and run the checkers", cmd_check },
	{ "migrate", "create or upgrade the store schema", cmd_migrate },
	{ "prune", "drop raw mail and model exchanges past retention",
	  cmd_prune },
	{ "serve", "the read-only dashboard and /metrics", cmd_serve },
	{ "eval", "measure the model on known bugs from list mail", cmd_eval },
	{ "verdicts", "verdicts guessed from prose: list, confirm, reject",
	  cmd_verdicts },
	{ "notes", "the admin's notes for the model's prompt, per section",
	  cmd_notes },
	{ "code-index", "build or load the word index of a tree",
	  cmd_code_index },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: reviewbot [--version] [--help] COMMAND [ARGS]\n\n"
		   "Reviews kernel patch series from mailing lists and "
		   "replies on the list.\n\nCommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-14s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f, "\n'reviewbot COMMAND --help' describes a command.\n"
		   "Exit codes: 0 success, 1 the work reported a failure, "
		   "2 usage or configuration error.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		exit(RB_EXIT_USAGE);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		exit(RB_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("reviewbot %s\n", RB_VERSION);
		exit(RB_EXIT_OK);
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			int ret;

			/*
			 * The one git_libgit2_init() of reviewbot-core: the
			 * library (review/, bot/) never calls it, and every
			 * command runs inside it. A test, a fuzz target or a
			 * bench initialises libgit2 in its own main().
			 */
			git_libgit2_init();
			ret = commands[i].fn(argc - 1, argv + 1);
			git_libgit2_shutdown();
			exit(ret);
		}
	}
	fprintf(stderr, "reviewbot: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	exit(RB_EXIT_USAGE);
}
