// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_migrate.c - reviewbot migrate: create or upgrade the store schema.
 */
#include <stdio.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "bot/store/store.h"
#include "util/err.h"
#include "util/banned.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static const char usage[] =
	"usage: reviewbot migrate [-c CONFIG] [--store PATH|URL]\n\n"
	"Creates the store, or upgrades its schema to this reviewbot's\n"
	"version (" STR(
		RB_SCHEMA_VERSION) "), running each pending migration in a transaction.\n"
				   "Works on SQLite (store.path) and PostgreSQL (store.url).\n";

int cmd_migrate(int argc, char **argv)
{
	const char *config = NULL, *store = NULL;
	const struct rb_cli_opt opts[] = {
		{ "config", 'c', &config },
		{ "store", 0, &store },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, opts };
	struct rb_config *cfg = NULL;
	struct rb_store *st = NULL;
	int ret, from = 0, to = 0;

	ret = rb_cli_parse(&args, argc, argv);
	if (ret != RB_CLI_GO)
		return ret;
	/* rb_store_open migrates; run again to report the versions. */
	ret = rb_cli_config_store(&cfg, &st, config, store, true);
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
