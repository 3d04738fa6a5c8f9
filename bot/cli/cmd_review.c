// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_review.c - reviewbot review: the whole pipeline, once, over mail
 * files. With no config at all it runs on the embedded defaults: SQLite in
 * ./reviewbot.db, replies in the Maildir ./outbox, an advisory default
 * policy (nothing leaves the machine), and no model.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "bot/stages/pipeline.h"
#include "bot/store/store.h"
#include "mail/message.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

static const char usage[] =
	"usage: reviewbot review [-c CONFIG] [--tree REPO] [--store PATH]\n"
	"                        [--outbox DIR] [--wait] FILE...\n\n"
	"Reviews the series in FILE (mbox, Maildir, .eml, .xz mbox, or - for\n"
	"stdin): stores every message, assembles series, applies each to the\n"
	"configured trees (and to REPO given with --tree, tried first), runs\n"
	"the checkers and writes the replies that the policy allows to the\n"
	"outbox (the Maildir outbox.maildir, or SMTP when smtp.url is set).\n"
	"\n"
	"Without a config file: SQLite ./reviewbot.db, the Maildir ./outbox,\n"
	"an advisory policy for every subsystem, and no model stage.\n\n"
	"  -c, --config FILE  the config (default ./config.yaml if present)\n"
	"      --tree REPO    a git tree to apply on (first in order)\n"
	"      --store PATH   the SQLite store instead of store.path\n"
	"      --outbox DIR   the Maildir outbox instead of outbox.maildir\n"
	"      --wait         leave incomplete series waiting, as the daemon\n"
	"                     does, instead of reporting them now\n"
	"      --record DIR   keep every model exchange in DIR (default:\n"
	"                     STORE.exchanges/ when a model is configured)\n"
	"      --replay DIR   answer model calls from the exchanges recorded\n"
	"                     in DIR instead of calling the provider\n\n"
	"Exit: 0 done; 1 done, but a series applies nowhere or some input\n"
	"was malformed (recorded, the rest processed); 2 usage or config.\n";

int cmd_review(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "tree", required_argument, NULL, 't' },
		{ "store", required_argument, NULL, 's' },
		{ "outbox", required_argument, NULL, 'o' },
		{ "wait", no_argument, NULL, 'w' },
		{ "record", required_argument, NULL, 'R' },
		{ "replay", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *config = NULL, *store = NULL;
	struct rb_pipeline p = { 0 };
	struct rb_config *cfg = NULL;
	struct rb_store *st = NULL;
	int c, i, ret, wait = 0, failed = 0;
	char record[4096];
	struct timespec t0, t1, t2;

	p.force_complete = true;
	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 't':
			p.cli_tree = optarg;
			break;
		case 's':
			store = optarg;
			break;
		case 'o':
			p.outbox_override = optarg;
			break;
		case 'w':
			wait = 1;
			break;
		case 'R':
			p.record_dir = optarg;
			break;
		case 'P':
			p.replay_dir = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return RB_EXIT_OK;
		default:
			fputs(usage, stderr);
			return RB_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fputs(usage, stderr);
		return RB_EXIT_USAGE;
	}
	p.force_complete = !wait;
	ret = rb_cli_load_config(&cfg, config);
	if (ret)
		return ret;
	if (!cfg->file) {
		/* Embedded defaults: replies stay in the local Maildir. */
		cfg->policy_default.mode = RB_MODE_ADVISORY;
		printf("reviewbot: no config file: embedded defaults (store %s, "
		       "outbox %s, advisory policy).\n",
		       store ? store : cfg->store_path,
		       p.outbox_override ? p.outbox_override :
					   cfg->outbox_maildir);
	}
	if (!p.replay_dir &&
	    (!cfg->model.provider || !strcmp(cfg->model.provider, "none"))) {
		printf("reviewbot: the model stage is off; set "
		       "model.provider in config.yaml to turn it on.\n");
	} else if (!p.record_dir && !p.replay_dir) {
		/* Every exchange is kept, for replay and evaluation. */
		snprintf(record, sizeof(record), "%s.exchanges",
			 store ? store : cfg->store_path);
		p.record_dir = record;
	}
	rb_log_set_quiet(!getenv("RB_LOG"));
	ret = rb_cli_open_store(&st, cfg, store, false);
	if (ret)
		goto out;
	p.cfg = cfg;
	p.st = st;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = optind; i < argc; i++) {
		if (rb_pipeline_ingest_path(&p, argv[i])) {
			fprintf(stderr, "reviewbot: %s\n", rb_errmsg());
			failed = 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/*
	 * Passes until one does nothing new: a job may store mail for the
	 * next (the missing parts of a series fetched from a public-inbox
	 * are parsed and assembled by the pass after), as in the daemon.
	 */
	for (i = 0; i < 8; i++) {
		size_t before = p.stats.stored + p.stats.parsed + p.stats.jobs;

		if (rb_pipeline_step(&p, RB_ROLE_ALL)) {
			fprintf(stderr, "reviewbot: %s\n", rb_errmsg());
			ret = RB_EXIT_FAIL;
			goto out;
		}
		if (i > 0 &&
		    p.stats.stored + p.stats.parsed + p.stats.jobs == before)
			break;
	}
	printf("reviewbot: %zu new messages (%zu duplicates, %zu malformed), "
	       "%zu series, %zu reviewed, %zu failed to apply, %zu deferred, "
	       "%zu mails queued, %zu sent%s\n",
	       p.stats.stored, p.stats.duplicates, p.stats.malformed,
	       p.stats.series, p.stats.reviewed, p.stats.apply_failed,
	       p.stats.deferred, p.stats.queued, p.stats.sent,
	       p.stats.send_failed ? ", some sends failed" : "");
	if (p.stats.capped)
		printf("reviewbot: outbox.max_recipients trimmed %zu people "
		       "(lists are never trimmed)\n",
		       p.stats.capped);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	{
		char np[32];

		snprintf(np, sizeof(np), "%lu", rb_message_parse_count());
		rb_log(RB_LOG_INFO, "review.done", "parses", np, NULL);
	}
	printf("reviewbot: stored in %.2f s, parsed, assembled, reviewed and "
	       "sent in %.2f s\n",
	       (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       (double)(t2.tv_sec - t1.tv_sec) +
		       (double)(t2.tv_nsec - t1.tv_nsec) / 1e9);
	if (failed || p.stats.malformed || p.stats.apply_failed ||
	    p.stats.deferred || p.stats.send_failed)
		ret = RB_EXIT_FAIL;
out:
	rb_pipeline_release(&p);
	rb_store_close(st);
	rb_config_free(cfg);
	return ret;
}
