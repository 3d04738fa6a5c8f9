// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_check_config.c - "reviewbot check-config [-c FILE]": loads and
 * validates a config, then looks at what it names on this machine (the
 * trees and their branches, the MAINTAINERS sections that policies name,
 * the source files; rb_config_check_system()), prints every problem as
 * FILE:LINE:COL: key.path: message (exit 2), or "FILE: ok" and a short
 * summary (exit 0). Secrets are read, to check that they can be, but
 * never printed.
 */
#include <stdio.h>
#include <string.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "util/err.h"
#include "util/banned.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: reviewbot check-config [-c FILE]\n\n"
		   "Loads and validates a config file, then checks what it "
		   "names on this\nmachine: each tree is a git repository with "
		   "its branch, each policy.subsystems\nkey is a MAINTAINERS "
		   "section of the trees or one of list_ids, each\nsource file "
		   "exists. Prints every problem as\nFILE:LINE:COL: key.path: "
		   "message, one per line.\n\n"
		   "  -c, --config FILE  the config (default ./config.yaml)\n"
		   "  -h, --help         this help\n\n"
		   "Exit codes: 0 the config is valid, 2 it is not (or bad "
		   "usage).\n"
		   "config.yaml at the top of the source tree is the "
		   "commented\nreference of every key, with its default.\n");
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static const char *const notice_names[] = { "off", "admins", "author" };

/*
 * How the policies combine (bot/stages/scope.h, policy.h), said with the
 * config's own names, so that an entry that looks set but never rules is
 * seen (issue 34).
 */
static void combine(const struct rb_config *cfg, FILE *f)
{
	size_t i, n_lists = 0;

	if (cfg->policy_strictest)
		fprintf(f, "how they combine (policy.resolve: strictest): a "
			   "series gets, knob by knob, the most restrictive "
			   "of every section it touches (each its entry, "
			   "else its list's, else the default) and of its "
			   "list's entry\n");
	else
		fprintf(f, "how they combine (policy.resolve: home): a series "
			   "gets the entry of its home section (the opted-in "
			   "section with most of its changed lines), else its "
			   "list's, else the default; a list's mode is the "
			   "most a series from it gets\n");
	for (i = 0; i < cfg->n_policies; i++) {
		const struct rb_policy *p = &cfg->policies[i];

		if (!rb_config_is_list_policy(cfg, p->name))
			continue;
		n_lists++;
		fprintf(f,
			"  %s is a list: its series get at most %s; its "
			"sections without an entry of their own are %s\n",
			p->name, rb_mode_name(p->mode), rb_mode_name(p->mode));
	}
	if (!n_lists)
		fprintf(f,
			"  no list has an entry: sections without one are "
			"%s\n",
			rb_mode_name(cfg->policy_default.mode));
	fprintf(f, "apply failures go to: default %s",
		notice_names[cfg->policy_default.report_apply_failures]);
	for (i = 0; i < cfg->n_policies; i++)
		if (cfg->policies[i].report_apply_failures !=
		    cfg->policy_default.report_apply_failures)
			fprintf(f, ", %s %s", cfg->policies[i].name,
				notice_names[cfg->policies[i]
						     .report_apply_failures]);
	fprintf(f, " (shadow mode: the admins)\n");
}

/* What a section decides for itself (issue 36), when it says anything. */
static void sub_maintainers(const struct rb_policy *p, FILE *f)
{
	size_t k;

	if (p->shadow_to == RB_SHADOW_MAINTAINERS)
		fprintf(f, "    shadow mail goes to the section's M: and R:\n");
	if (p->n_cc) {
		fprintf(f, "    always Cc'd:");
		for (k = 0; k < p->n_cc; k++)
			fprintf(f, " %s", p->cc[k]);
		fputc('\n', f);
	}
	for (k = 0; k < p->n_prefixes; k++)
		fprintf(f, "    a [%s ...] series: %s\n", p->prefix_tags[k],
			rb_mode_name(p->prefix_modes[k]));
}

static void summary(const struct rb_config *cfg, FILE *f)
{
	const struct rb_source_config *s;
	const struct rb_policy *p;
	size_t i;

	fprintf(f, "sources: %zu\n", cfg->n_sources);
	for (i = 0; i < cfg->n_sources; i++) {
		s = &cfg->sources[i];
		fprintf(f, "  %s (%s)", s->name, rb_source_type_name(s->type));
		if (s->url)
			fprintf(f, " %s", s->url);
		if (s->path)
			fprintf(f, " %s", s->path);
		if (s->n_mailboxes)
			fprintf(f, ", %zu mailbox(es)", s->n_mailboxes);
		if (s->n_groups)
			fprintf(f, ", %zu group(s)", s->n_groups);
		fputc('\n', f);
	}
	fprintf(f, "trees: %zu\n", cfg->n_trees);
	for (i = 0; i < cfg->n_trees; i++)
		fprintf(f, "  %s: %s (%s)\n", cfg->trees[i].name,
			cfg->trees[i].path, cfg->trees[i].branch);
	fprintf(f, "store: %s\n",
		cfg->store_url ? "postgresql" : cfg->store_path);
	if (cfg->smtp.url)
		fprintf(f, "send: SMTP %s as %s, at most %d/hour\n",
			cfg->smtp.url, cfg->smtp_from, cfg->rate_per_hour);
	else
		fprintf(f, "send: no SMTP; replies go to the Maildir %s\n",
			cfg->outbox_maildir);
	fprintf(f, "model: %s%s%s\n", cfg->model.opts.provider,
		cfg->model.opts.name ? " " : "",
		cfg->model.opts.name ? cfg->model.opts.name : "");
	fprintf(f, "policies: %zu (and the default)\n", cfg->n_policies);
	p = &cfg->policy_default;
	fprintf(f, "  default: %s, min_severity %s, max_findings %d\n",
		rb_mode_name(p->mode), rb_fsev_name(p->min_severity),
		p->max_findings);
	for (i = 0; i < cfg->n_policies; i++) {
		p = &cfg->policies[i];
		fprintf(f,
			"  %s: %s, min_severity %s, max_findings %d, "
			"send_when_empty %s\n",
			p->name, rb_mode_name(p->mode),
			rb_fsev_name(p->min_severity), p->max_findings,
			yes_no(p->send_when_empty));
		sub_maintainers(p, f);
	}
	combine(cfg, f);
	fprintf(f, "admins: %zu, list ids: %zu, known bots: %zu\n",
		cfg->n_admins, cfg->n_list_ids, cfg->n_known_bots);
	for (i = 0; i < cfg->n_people; i++)
		fprintf(f, "  %s gets %s\n", cfg->people[i].addr,
			cfg->people[i].mail == RB_PERSON_NONE ?
				"no mail at all" :
			cfg->people[i].mail == RB_PERSON_SHADOW ?
				"reviews in private copies only" :
				"all mail");
}

int cmd_check_config(int argc, char **argv)
{
	struct rb_config_errors errs = { 0 };
	struct rb_config *cfg = NULL;
	const char *file = "config.yaml";
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return RB_EXIT_OK;
		} else if ((!strcmp(argv[i], "-c") ||
			    !strcmp(argv[i], "--config")) &&
			   i + 1 < argc) {
			file = argv[++i];
		} else if (!strncmp(argv[i], "--config=", 9)) {
			file = argv[i] + 9;
		} else {
			fprintf(stderr,
				"reviewbot check-config: unexpected argument "
				"'%s'\n\n",
				argv[i]);
			usage(stderr);
			return RB_EXIT_USAGE;
		}
	}
	if (!*file) {
		fprintf(stderr, "reviewbot check-config: empty file name\n");
		return RB_EXIT_USAGE;
	}
	ret = rb_config_load(&cfg, file, &errs);
	if (!ret) {
		ret = rb_config_check_system(cfg, &errs);
		if (ret) {
			rb_config_free(cfg);
			cfg = NULL;
		}
	}
	if (ret) {
		if (errs.n)
			rb_config_errors_print(&errs, file, stderr);
		else
			fprintf(stderr, "%s: %s\n", file, rb_errmsg());
		if (errs.n > 1)
			fprintf(stderr, "%s: %zu errors\n", file, errs.n);
		rb_config_errors_release(&errs);
		return RB_EXIT_USAGE;
	}
	printf("%s: ok\n", file);
	summary(cfg, stdout);
	rb_config_free(cfg);
	return RB_EXIT_OK;
}
