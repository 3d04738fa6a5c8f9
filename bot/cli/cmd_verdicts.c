// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_verdicts.c - reviewbot verdicts: the verdicts guessed from prose
 * replies (issue 37; bot/stages/feedback.h), and an admin's decision on
 * each. Running this command on the bot's host is what makes one an
 * admin here: mail cannot confirm a proposal (a reply is hostile text,
 * and the dashboard is read-only), so the list operator does it where
 * the config and the store are.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "bot/store/store.h"
#include "util/err.h"
#include "util/banned.h"

static const char usage[] =
	"usage: reviewbot verdicts [-c CONFIG] [--store PATH|URL] [--all]\n"
	"       reviewbot verdicts confirm ID [--as VERDICT] [--by NAME]\n"
	"       reviewbot verdicts reject ID [--by NAME]\n\n"
	"Lists the verdicts guessed from replies in prose (a reply that\n"
	"quotes [Fn] and answers in words, with no \"Fn: ...\" line), which\n"
	"count for nothing until an admin decides: pending ones, or every\n"
	"proposal with --all. confirm makes proposal ID a verdict like an\n"
	"explicit one (as the guess, or --as false_positive, valid or\n"
	"fixed); reject drops it. Only a proposal whose sender may judge\n"
	"that series can be confirmed. --by names the admin (default: the\n"
	"user running the command).\n";

static void one_line(const char *s, int max)
{
	int n = 0;

	for (; s && *s && n < max; s++, n++)
		putchar(*s == '\n' || *s == '\t' ? ' ' :
			(unsigned char)*s < 0x20 ? '?' :
						   *s);
	if (s && *s)
		fputs("...", stdout);
}

static int print_row(const struct rb_proposal *p, void *payload)
{
	static const char *const states[] = { "explicit", "pending",
					      "confirmed", "rejected" };

	(void)payload;
	printf("%lld\t%s\t%s\t%s\t%s\t%s\t%s\t", (long long)p->id,
	       p->proposed >= 0 && p->proposed <= 3 ? states[p->proposed] : "?",
	       p->fid ? p->fid : "-", p->verdict ? p->verdict : "unclear",
	       p->guessed_by ? p->guessed_by : "-", p->judge ? p->judge : "-",
	       p->role ? p->role : "not allowed");
	one_line(p->comment, 100);
	printf("\t%s\n", p->series_id ? p->series_id : "-");
	return 0;
}

static const char *by_default(const char *by, char *buf, size_t n)
{
	const char *user = getenv("USER");

	if (by)
		return by;
	snprintf(buf, n, "cli:%s", user && *user ? user : "admin");
	return buf;
}

int cmd_verdicts(int argc, char **argv)
{
	const char *config = NULL, *store = NULL, *as = NULL, *by = NULL;
	bool all = false;
	const struct rb_cli_opt opts[] = {
		{ "config", 'c', &config },
		{ "store", 0, &store },
		{ "all", 'a', .flag = &all },
		{ "as", 0, &as },
		{ "by", 0, &by },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, opts };
	struct rb_config *cfg = NULL;
	struct rb_store *st = NULL;
	static const char *const verbs[] = { "confirm", "reject", NULL };
	const char *verb;
	char who[128];
	long long id = 0;
	int ret;

	ret = rb_cli_parse_verb(&args, argc, argv, "verdicts", verbs, &verb);
	if (ret != RB_CLI_GO)
		return ret;
	if (verb && !(id = rb_cli_id_arg(argc, argv, "verdicts", verb)))
		return RB_EXIT_USAGE;
	if (as && strcmp(as, "false_positive") && strcmp(as, "valid") &&
	    strcmp(as, "fixed")) {
		fprintf(stderr,
			"reviewbot: verdicts: --as takes false_positive, "
			"valid or fixed\n");
		return RB_EXIT_USAGE;
	}
	/* A row or two while the daemon runs: SQLite waits its turn. */
	ret = rb_cli_config_store(&cfg, &st, config, store, true);
	if (ret)
		goto out;
	if (!verb) {
		if (rb_store_each_proposal(st, !all, print_row, NULL)) {
			fprintf(stderr, "reviewbot: verdicts: %s\n",
				rb_errmsg());
			ret = RB_EXIT_FAIL;
		}
		goto out;
	}
	if (rb_store_proposal_decide(st, id, !strcmp(verb, "confirm"), as,
				     by_default(by, who, sizeof(who)))) {
		fprintf(stderr, "reviewbot: verdicts %s: %s\n", verb,
			rb_errmsg());
		ret = RB_EXIT_FAIL;
		goto out;
	}
	printf("verdict %lld %s\n", id,
	       !strcmp(verb, "confirm") ? "confirmed" : "rejected");
out:
	rb_store_close(st);
	rb_config_free(cfg);
	return ret;
}
