// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_prune.c - reviewbot prune: the retention policy, once
 * (bot/stages/retention.h).
 */
#include <stdio.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "bot/stages/retention.h"
#include "bot/store/store.h"
#include "util/err.h"
#include "util/banned.h"

static const char usage[] =
	"usage: reviewbot prune [-c CONFIG] [--store PATH|URL]"
	" [--exchanges DIR]\n\n"
	"Applies the config's retention: empties the raw bytes of mail\n"
	"received more than retention.raw_days ago (its series done), and\n"
	"deletes the model exchanges in DIR (default: STORE.exchanges)\n"
	"older than retention.exchanges_days. 0 days keeps for ever.\n";

int cmd_prune(int argc, char **argv)
{
	const char *config = NULL, *store = NULL, *exchanges = NULL;
	const struct rb_cli_opt opts[] = {
		{ "config", 'c', &config },
		{ "store", 0, &store },
		{ "exchanges", 0, &exchanges },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, opts };
	struct rb_retention_stats s = { 0 };
	struct rb_config *cfg = NULL;
	struct rb_store *st = NULL;
	char dir[4096];
	int ret;

	ret = rb_cli_parse(&args, argc, argv);
	if (ret != RB_CLI_GO)
		return ret;
	ret = rb_cli_config_store(&cfg, &st, config, store, false);
	if (ret)
		goto out;
	if (!exchanges && cfg->store_path) {
		snprintf(dir, sizeof(dir), "%s.exchanges",
			 store ? store : cfg->store_path);
		exchanges = dir;
	}
	if (rb_retention_run(cfg, st, exchanges, &s)) {
		fprintf(stderr, "reviewbot: prune: %s\n", rb_errmsg());
		ret = RB_EXIT_FAIL;
		goto out;
	}
	printf("pruned: %lld raw mails, %lld model exchanges\n",
	       (long long)s.raw, (long long)s.exchanges);
out:
	rb_store_close(st);
	rb_config_free(cfg);
	return ret;
}
