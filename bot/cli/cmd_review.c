// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_review.c - reviewbot review: the whole pipeline, once, over mail
 * files. With no config at all it runs on the embedded defaults: SQLite in
 * ./reviewbot.db, replies in the Maildir ./outbox, an advisory default
 * policy (nothing leaves the machine), and no model.
 */
#include <getopt.h> /* optind */
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

/*
 * Says what runs without a config file or a model, and where the model's
 * exchanges are kept (@record, the caller's buffer, by default).
 */
static void review_defaults(struct rb_pipeline *p, struct rb_config *cfg,
			    const char *store, char *record, size_t size)
{
	if (!cfg->file) {
		/* Embedded defaults: replies stay in the local Maildir. */
		cfg->policy_default.mode = RB_MODE_ADVISORY;
		printf("reviewbot: no config file: embedded defaults (store %s, "
		       "outbox %s, advisory policy).\n",
		       store ? store : cfg->store_path,
		       p->outbox_override ? p->outbox_override :
					    cfg->outbox_maildir);
	}
	if (!p->replay_dir && (!cfg->model.opts.provider ||
			       !strcmp(cfg->model.opts.provider, "none"))) {
		printf("reviewbot: the model stage is off; set "
		       "model.provider in config.yaml to turn it on.\n");
	} else if (!p->record_dir && !p->replay_dir) {
		/* Every exchange is kept, for replay and evaluation. */
		snprintf(record, size, "%s.exchanges",
			 store ? store : cfg->store_path);
		p->record_dir = record;
	}
}

/*
 * Passes until one does nothing new: a job may store mail for the next
 * (the missing parts of a series fetched from a public-inbox are parsed
 * and assembled by the pass after), as in the daemon.
 */
static int review_passes(struct rb_pipeline *p)
{
	int i;

	for (i = 0; i < 8; i++) {
		size_t before =
			p->stats.stored + p->stats.parsed + p->stats.jobs;

		if (rb_pipeline_step(p, RB_ROLE_ALL)) {
			fprintf(stderr, "reviewbot: %s\n", rb_errmsg());
			return RB_EXIT_FAIL;
		}
		if (i > 0 &&
		    p->stats.stored + p->stats.parsed + p->stats.jobs == before)
			break;
	}
	return RB_EXIT_OK;
}

static double seconds(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* The counts and times on stdout; @t holds the start, stored and done. */
static void review_report(const struct rb_pipeline *p,
			  const struct timespec t[3])
{
	const struct rb_pipeline_stats *n = &p->stats;
	char np[32];

	printf("reviewbot: %zu new messages (%zu duplicates, %zu malformed), "
	       "%zu series, %zu reviewed, %zu failed to apply, %zu deferred, "
	       "%zu mails queued, %zu sent%s\n",
	       n->stored, n->duplicates, n->malformed, n->series, n->reviewed,
	       n->apply_failed, n->deferred, n->queued, n->sent,
	       n->send_failed ? ", some sends failed" : "");
	if (n->capped)
		printf("reviewbot: outbox.max_recipients trimmed %zu people "
		       "(lists are never trimmed)\n",
		       n->capped);
	snprintf(np, sizeof(np), "%lu", rb_message_parse_count());
	rb_log(RB_LOG_INFO, "review.done", "parses", np, NULL);
	printf("reviewbot: stored in %.2f s, parsed, assembled, reviewed and "
	       "sent in %.2f s\n",
	       seconds(&t[0], &t[1]), seconds(&t[1], &t[2]));
}

int cmd_review(int argc, char **argv)
{
	const char *config = NULL, *store = NULL;
	struct rb_pipeline p = { 0 };
	bool wait = false;
	const struct rb_cli_opt opts[] = {
		{ "config", 'c', &config },
		{ "tree", 0, &p.cli_tree },
		{ "store", 0, &store },
		{ "outbox", 0, &p.outbox_override },
		{ "wait", 0, .flag = &wait },
		{ "record", 0, &p.record_dir },
		{ "replay", 0, &p.replay_dir },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, opts, .needs_operands = true };
	struct rb_config *cfg = NULL;
	struct rb_store *st = NULL;
	int i, ret, failed = 0;
	char record[4096];
	struct timespec t[3];

	ret = rb_cli_parse(&args, argc, argv);
	if (ret != RB_CLI_GO)
		return ret;
	p.force_complete = !wait;
	ret = rb_cli_load_config(&cfg, config);
	if (ret)
		return ret;
	review_defaults(&p, cfg, store, record, sizeof(record));
	rb_log_set_quiet(!getenv("RB_LOG"));
	ret = rb_cli_open_store(&st, cfg, store, false);
	if (ret)
		goto out;
	p.cfg = cfg;
	p.st = st;
	clock_gettime(CLOCK_MONOTONIC, &t[0]);
	for (i = optind; i < argc; i++) {
		if (rb_pipeline_ingest_path(&p, argv[i])) {
			fprintf(stderr, "reviewbot: %s\n", rb_errmsg());
			failed = 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t[1]);
	ret = review_passes(&p);
	if (ret)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t[2]);
	review_report(&p, t);
	if (failed || p.stats.malformed || p.stats.apply_failed ||
	    p.stats.deferred || p.stats.send_failed)
		ret = RB_EXIT_FAIL;
out:
	rb_pipeline_release(&p);
	rb_store_close(st);
	rb_config_free(cfg);
	return ret;
}
