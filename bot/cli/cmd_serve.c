// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_serve.c - reviewbot serve: the read-only dashboard and /metrics on
 * their own, beside a running "reviewbot run" (they share the store: the
 * dashboard only reads, without the store's lock). Runs until SIGINT or
 * SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "bot/web/http.h"
#include "util/err.h"
#include "util/banned.h"

int cmd_serve(int argc, char **argv);

static const char usage[] =
	"usage: reviewbot serve [-c CONFIG] [--store PATH|URL]"
	" [--listen HOST:PORT]\n\n"
	"Serves the dashboard (series, reviews and verdicts, stats with\n"
	"charts) and /metrics for Prometheus, read-only, on http.listen\n"
	"(default 127.0.0.1:8080; port 0 picks a free port). Prints the\n"
	"URL on stderr and runs until SIGINT or SIGTERM.\n";

int cmd_serve(int argc, char **argv)
{
	const char *config = NULL, *store = NULL, *listen = NULL;
	const struct rb_cli_opt opts[] = {
		{ "config", 'c', &config },
		{ "store", 0, &store },
		{ "listen", 0, &listen },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, opts };
	struct rb_config *cfg = NULL;
	struct rb_http *h = NULL;
	struct rb_http_opts o = { 0 };
	sigset_t set;
	int sig, ret;

	ret = rb_cli_parse(&args, argc, argv);
	if (ret != RB_CLI_GO)
		return ret;
	ret = rb_cli_load_config(&cfg, config);
	if (ret)
		return ret;
	if (!listen)
		listen = cfg->http_listen ? cfg->http_listen : "127.0.0.1:8080";
	if (!store)
		store = cfg->store_url ? cfg->store_url : cfg->store_path;
	/* Blocked before the server thread starts, so it inherits the mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	o.listen = listen;
	o.store_where = store;
	o.thread_url = cfg->http_thread_url;
	o.public_mode = cfg->http_public;
	if (rb_http_start_opts(&h, &o)) {
		fprintf(stderr, "reviewbot: serve: %s\n", rb_errmsg());
		ret = rb_errmsg()[0] && strstr(rb_errmsg(), "http.listen") ?
			      RB_EXIT_USAGE :
			      RB_EXIT_FAIL;
		goto out;
	}
	fprintf(stderr, "reviewbot: dashboard on http://127.0.0.1:%d/\n",
		rb_http_port(h));
	fflush(stderr);
	sigwait(&set, &sig);
	ret = RB_EXIT_OK;
out:
	rb_http_stop(h);
	rb_config_free(cfg);
	return ret;
}
