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
int cmd_prune(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_verdicts(int argc, char **argv);
int cmd_notes(int argc, char **argv);
int cmd_code_index(int argc, char **argv);

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

/*
 * One option of a subcommand, for rb_cli_parse(). An option with @str or
 * @parse takes an argument; one with @flag takes none and sets it. A
 * table of them ends with an entry whose @name is NULL; -h and --help
 * are always there.
 */
struct rb_cli_opt {
	const char *name; /* the long name: "store" for --store */
	char short_name; /* -x as well, or 0 for the long name only */
	const char **str; /* borrowed: the argument, as given */
	bool *flag;
	/*
	 * Reads the argument into @to as the option is met; prints its own
	 * error and returns nonzero to stop with a usage error.
	 */
	int (*parse)(const char *arg, void *to);
	void *to;
};

/* A subcommand's command line, for rb_cli_parse(). */
struct rb_cli_args {
	const char *usage; /* -h prints it on stdout, a bad option on stderr */
	const struct rb_cli_opt *opts;
	bool needs_operands; /* at least one argument after the options */
};

/* rb_cli_parse(): the options are read, the command goes on. */
#define RB_CLI_GO (-1)

/*
 * Reads argv's options with getopt_long (from argv[1]; optind is left on
 * the first operand) into the targets that @a's table names. Returns
 * RB_CLI_GO, or the exit code to return now: RB_EXIT_OK after --help,
 * RB_EXIT_USAGE after a bad option or missing operands.
 */
int rb_cli_parse(const struct rb_cli_args *a, int argc, char **argv);

/*
 * rb_cli_parse(), then the action word after the options of "reviewbot
 * @cmd": *verb is NULL when there is none, else one of @verbs
 * (NULL-terminated); another word is a usage error. Returns as
 * rb_cli_parse().
 */
int rb_cli_parse_verb(const struct rb_cli_args *a, int argc, char **argv,
		      const char *cmd, const char *const *verbs,
		      const char **verb);

/*
 * The positive ID that argv[optind] must be for "reviewbot @cmd @verb",
 * or 0 after a usage message on stderr.
 */
long long rb_cli_id_arg(int argc, char **argv, const char *cmd,
			const char *verb);

/*
 * rb_cli_load_config() then, when @st is not NULL, rb_cli_open_store()
 * with @store and @shared. Returns an exit code; *cfg may be set even
 * when it fails, and the caller frees it.
 */
int rb_cli_config_store(struct rb_config **cfg, struct rb_store **st,
			const char *config, const char *store, bool shared);

/* True when argv holds -h or --help before any "--". */
bool rb_cli_wants_help(int argc, char **argv);

#endif
