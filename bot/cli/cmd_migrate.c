// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_migrate.c - reviewbot migrate: create or upgrade the store schema.
 */
#include <getopt.h>
#include <stdio.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "bot/store/store.h"
#include "util/err.h"
#include "util/banned.h"

static const char usage[] =
	"usage: reviewbot migrate [-c CONFIG] [--store PATH|URL]\n\n"
	"Creates the store, or upgrades its schema to this reviewbot's\n"
	"version (%d), running each pending migration in a transaction.\n"
	"Works on SQLite (store.path) and PostgreSQL (store.url).\n";

int cmd_migrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "store", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *config = NULL, *store = NULL;
	struct rb_config *cfg = NULL;
	struct rb_store *st = NULL;
	int c, ret, from = 0, to = 0;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 's':
			store = optarg;
			break;
		case 'h':
			printf(usage, RB_SCHEMA_VERSION);
			return RB_EXIT_OK;
		default:
			fprintf(stderr, usage, RB_SCHEMA_VERSION);
			return RB_EXIT_USAGE;
		}
	}
	ret = rb_cli_load_config(&cfg, config);
	if (ret)
		return ret;
	/* rb_store_open migrates; run again to report the versions. */
	ret = rb_cli_open_store(&st, cfg, store, true);
	if (!ret && rb_store_migrate(st, &from, &to)) {
		fprintf(stderr, "reviewbot: migrate: %s\n", rb_errmsg());
		ret = RB_EXIT_FAIL;
	}
	if (!ret)
		printf("%s: schema at version %d\n", rb_store_where(st), to);
	rb_store_close(st);
	rb_config_free(cfg);
	return ret;
}
