// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_run.c - reviewbot run, the daemon: sources -> pipeline -> outbox ->
 * sending, until SIGTERM or SIGINT (which finish the current step first).
 * SIGHUP reloads the config; a config that no longer loads is reported and
 * the old one kept. One process owns a SQLite store (its lock file).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bot/cli.h"
#include "bot/config.h"
#include "bot/pipeline.h"
#include "bot/sources.h"
#include "bot/store.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

static volatile sig_atomic_t stop_requested, reload_requested;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

static const char usage[] =
	"usage: reviewbot run [-c CONFIG] [--once] [--role ROLE]\n\n"
	"Follows the configured sources (IMAP, NNTP, mbox, Maildir, eml,\n"
	"stdin), reviews each complete series and sends what the policy\n"
	"allows. SIGTERM finishes the current step and stops; SIGHUP reloads\n"
	"the config. Logs are one line per event, key=value, on stderr.\n\n"
	"  -c, --config FILE  the config (default ./config.yaml)\n"
	"      --once         one pass over every source, then exit\n"
	"      --role ROLE    all (default)\n";

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Sleeps up to @seconds, waking early on a signal. */
static void nap(int seconds)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int i;

	for (i = 0; i < seconds * 10 && !stop_requested && !reload_requested;
	     i++)
		nanosleep(&ts, NULL);
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "once", no_argument, NULL, '1' },
		{ "role", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *config = NULL, *role = "all";
	struct rb_pipeline p = { 0 };
	struct rb_sources *srcs = NULL;
	struct rb_config *cfg = NULL, *ncfg = NULL;
	struct rb_store *st = NULL;
	int c, ret, once = 0;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case '1':
			once = 1;
			break;
		case 'r':
			role = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return RB_EXIT_OK;
		default:
			fputs(usage, stderr);
			return RB_EXIT_USAGE;
		}
	}
	if (strcmp(role, "all")) {
		fprintf(stderr,
			"reviewbot run: role '%s' is not supported "
			"yet; only 'all'\n",
			role);
		return RB_EXIT_USAGE;
	}
	ret = rb_cli_load_config(&cfg, config);
	if (ret)
		return ret;
	ret = rb_cli_open_store(&st, cfg, NULL, false);
	if (ret)
		goto out;
	install_signals();
	p.cfg = cfg;
	p.st = st;
	p.owner = "run";
	ret = rb_sources_new(&srcs, cfg, st);
	if (ret) {
		fprintf(stderr, "reviewbot: %s\n", rb_errmsg());
		ret = RB_EXIT_USAGE;
		goto out;
	}
	rb_log(RB_LOG_INFO, "run.start", "store", st->where, "config",
	       cfg->file ? cfg->file : "(embedded defaults)", NULL);
	while (!stop_requested) {
		if (reload_requested) {
			reload_requested = 0;
			if (rb_cli_load_config(&ncfg, cfg->file) == 0) {
				rb_sources_free(srcs);
				srcs = NULL;
				rb_pipeline_release(&p);
				rb_config_free(cfg);
				cfg = ncfg;
				p.cfg = cfg;
				ret = rb_sources_new(&srcs, cfg, st);
				if (ret)
					break;
				rb_log(RB_LOG_INFO, "run.reload", NULL);
			} else {
				rb_log(RB_LOG_ERROR, "run.reload_failed",
				       "keeping", "the old config", NULL);
			}
		}
		ret = rb_sources_poll(srcs, &p);
		if (ret)
			rb_log(RB_LOG_WARN, "run.sources", "reason",
			       rb_errmsg(), NULL);
		ret = rb_pipeline_step(&p);
		if (ret == -RB_ECONFIG) {
			rb_log(RB_LOG_ERROR, "run.stop", "reason", rb_errmsg(),
			       NULL);
			break;
		}
		if (ret)
			rb_log(RB_LOG_ERROR, "run.step", "reason", rb_errmsg(),
			       NULL);
		if (once)
			break;
		rb_sources_wait(srcs, &stop_requested, &reload_requested);
		if (!srcs || rb_sources_count(srcs) == 0)
			nap(30);
	}
	rb_log(RB_LOG_INFO, "run.stop", "stored",
	       stop_requested ? "signal" : "done", NULL);
	ret = ret == -RB_ECONFIG ? RB_EXIT_USAGE : RB_EXIT_OK;
out:
	rb_sources_free(srcs);
	rb_pipeline_release(&p);
	rb_store_close(st);
	rb_config_free(cfg);
	return ret;
}
