/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - the reviewbot subcommands. Each lives in bot/cmd_<name>.c and
 * returns the process exit code: 0 success, 1 the work ran and reported a
 * failure, 2 usage or configuration error. Only main.c calls exit().
 */
#ifndef RB_BOT_CLI_H
#define RB_BOT_CLI_H

#include <stdbool.h>

enum { RB_EXIT_OK = 0, RB_EXIT_FAIL = 1, RB_EXIT_USAGE = 2 };

struct rb_cmd {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);
};

int cmd_review(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_check_config(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_series(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_maintainers(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_migrate(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_eval(int argc, char **argv);

struct rb_config;
struct rb_store;

/*
 * Loads the config (@path, else ./config.yaml when it exists, else the
 * embedded defaults), prints every error as FILE:LINE:COL: message, and
 * says on stderr, in one line, which file it uses or that it uses none.
 * Returns an exit code.
 */
int rb_cli_load_config(struct rb_config **out, const char *path);
/* Opens the configured store (or @override); prints the error. */
int rb_cli_open_store(struct rb_store **out, const struct rb_config *cfg,
		      const char *override, bool shared);

/* True when argv holds -h or --help before any "--". */
bool rb_cli_wants_help(int argc, char **argv);

#endif
