// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_stats.c - reviewbot stats: what the bot did and how good it was.
 *
 * Precision is counted per finding (valid / judged findings) and per
 * review (reviews whose judged findings were all valid / reviews with a
 * judged finding): the two differ, and maintainers care about both.
 */
#include <getopt.h>
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
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "store", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *config = NULL, *store = NULL;
	struct rb_config *cfg = NULL;
	struct rb_store *st = NULL;
	json_t *j = NULL;
	int c, ret, as_json = 0;

	while ((c = getopt_long(argc, argv, "c:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 's':
			store = optarg;
			break;
		case 'j':
			as_json = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return RB_EXIT_OK;
		default:
			fputs(usage, stderr);
			return RB_EXIT_USAGE;
		}
	}
	ret = rb_cli_load_config(&cfg, config);
	if (ret)
		return ret;
	ret = rb_cli_open_store(&st, cfg, store, true);
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
