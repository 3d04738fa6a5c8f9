// SPDX-License-Identifier: GPL-2.0-only
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "bot/store/store.h"
#include "util/err.h"
#include "util/banned.h"

bool rb_cli_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

int rb_cli_load_config(struct rb_config **out, const char *path)
{
	struct rb_config_errors errs = { 0 };
	int ret;

	ret = rb_config_load_or_defaults(out, path, &errs);
	if (ret) {
		if (errs.n)
			rb_config_errors_print(
				&errs, path ? path : "config.yaml", stderr);
		else
			fprintf(stderr, "reviewbot: %s\n", rb_errmsg());
		rb_config_errors_release(&errs);
		return RB_EXIT_USAGE;
	}
	rb_config_errors_release(&errs);
	/* Never silent about where the settings come from (issue 22). */
	if (path)
		fprintf(stderr, "reviewbot: config %s\n", path);
	else if ((*out)->file)
		fprintf(stderr,
			"reviewbot: config ./%s (found in the working "
			"directory; -c FILE picks another)\n",
			(*out)->file);
	else
		fprintf(stderr, "reviewbot: no config (no -c FILE, no "
				"./config.yaml): the embedded defaults\n");
	return RB_EXIT_OK;
}

int rb_cli_open_store(struct rb_store **out, const struct rb_config *cfg,
		      const char *override, bool shared)
{
	const char *where = override	   ? override :
			    cfg->store_url ? cfg->store_url :
					     cfg->store_path;
	int ret = rb_store_open(out, where, shared);

	if (ret) {
		fprintf(stderr, "reviewbot: store: %s\n", rb_errmsg());
		return ret == -RB_ELOCKED ? RB_EXIT_FAIL : RB_EXIT_USAGE;
	}
	return RB_EXIT_OK;
}

/* Long-only options get getopt values past any character. */
enum { LONG_ONLY = 256, MAX_OPTS = 32 };

int rb_cli_parse(const struct rb_cli_args *a, int argc, char **argv)
{
	struct option lo[MAX_OPTS + 2];
	char shorts[3 * MAX_OPTS + 2];
	const struct rb_cli_opt *o;
	size_t n = 0, ns = 0;
	int c;

	for (o = a->opts; o && o->name && n < MAX_OPTS; o++, n++) {
		bool arg = o->str || o->parse;

		lo[n] = (struct option){
			o->name, arg ? required_argument : no_argument, NULL,
			o->short_name ? o->short_name : LONG_ONLY + (int)n
		};
		if (o->short_name) {
			shorts[ns++] = o->short_name;
			if (arg)
				shorts[ns++] = ':';
		}
	}
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n] = (struct option){ 0 };
	shorts[ns++] = 'h';
	shorts[ns] = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == 'h') {
			fputs(a->usage, stdout);
			return RB_EXIT_OK;
		}
		for (o = a->opts; o && o->name; o++)
			if (c == (o->short_name ?
					  o->short_name :
					  LONG_ONLY + (int)(o - a->opts)))
				break;
		if (!o || !o->name) {
			fputs(a->usage, stderr);
			return RB_EXIT_USAGE;
		}
		if (o->parse && o->parse(optarg, o->to))
			return RB_EXIT_USAGE;
		if (o->str)
			*o->str = optarg;
		if (o->flag)
			*o->flag = true;
	}
	if (a->needs_operands && optind >= argc) {
		fputs(a->usage, stderr);
		return RB_EXIT_USAGE;
	}
	return RB_CLI_GO;
}

int rb_cli_config_store(struct rb_config **cfg, struct rb_store **st,
			const char *config, const char *store, bool shared)
{
	int ret = rb_cli_load_config(cfg, config);

	if (!ret && st)
		ret = rb_cli_open_store(st, *cfg, store, shared);
	return ret;
}

int rb_cli_parse_verb(const struct rb_cli_args *a, int argc, char **argv,
		      const char *cmd, const char *const *verbs,
		      const char **verb)
{
	int ret = rb_cli_parse(a, argc, argv);
	size_t i;

	*verb = NULL;
	if (ret != RB_CLI_GO || optind >= argc)
		return ret;
	*verb = argv[optind++];
	for (i = 0; verbs[i]; i++)
		if (!strcmp(*verb, verbs[i]))
			return RB_CLI_GO;
	fprintf(stderr, "reviewbot: %s: unknown action '%s'\n%s", cmd, *verb,
		a->usage);
	return RB_EXIT_USAGE;
}

long long rb_cli_id_arg(int argc, char **argv, const char *cmd,
			const char *verb)
{
	char *end = NULL;
	long long id = 0;

	if (optind < argc)
		id = strtoll(argv[optind], &end, 10);
	if (id > 0 && !*end)
		return id;
	fprintf(stderr, "reviewbot: %s %s: want an ID\n", cmd, verb);
	return 0;
}
