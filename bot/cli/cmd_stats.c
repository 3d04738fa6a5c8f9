// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_stats.c - reviewbot stats: what the bot did and how good it was.
 *
 * Precision is counted per finding (valid / judged findings) and per
 * review (reviews whose judged findings were all valid / reviews with a
 * judged finding): the two differ, and maintainers care about both.
 */
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "bot/web/stats.h"
#include "bot/store/store.h"
#include "util/err.h"
#include "util/banned.h"

static const char usage[] =
	"usage: reviewbot stats [-c CONFIG] [--store PATH|URL] [--json]\n\n"
	"Prints messages, series, reviews and findings, and the precision\n"
	"of the findings that people judged, per subsystem, checker, model\n"
	"and category; words per review; time from the last patch to the\n"
	"review; the apply-failure rate; model tokens and cost.\n";

int cmd_stats(int argc, char **argv)
{
	const char *config = NULL, *store = NULL;
	bool as_json = false;
	const struct rb_cli_opt opts[] = {
		{ "config", 'c', &config },
		{ "store", 0, &store },
		{ "json", 'j', .flag = &as_json },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, opts };
	struct rb_config *cfg = NULL;
	struct rb_store *st = NULL;
	json_t *j = NULL;
	int ret;

	ret = rb_cli_parse(&args, argc, argv);
	if (ret != RB_CLI_GO)
		return ret;
	ret = rb_cli_config_store(&cfg, &st, config, store, true);
	if (ret)
		goto out;
	if (rb_stats_collect(st, &j)) {
		fprintf(stderr, "reviewbot: stats: %s\n", rb_errmsg());
		ret = RB_EXIT_FAIL;
		goto out;
	}
	if (as_json) {
		char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);

		puts(s ? s : "{}");
		free(s);
	} else {
		rb_stats_print(j, stdout);
	}
out:
	json_decref(j);
	rb_store_close(st);
	rb_config_free(cfg);
	return ret;
}
