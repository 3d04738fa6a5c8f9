// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_notes.c - reviewbot notes: what an admin approved for the model's
 * prompt, per MAINTAINERS section (issue 37; bot/store/store_threads.h),
 * usually from the reason of a false positive a maintainer explained
 * ("in mm/, pmd_trans_huge_lock() returns with the lock held"). A note
 * is mail text in origin: only a note added here reaches a prompt, as
 * fenced data, capped, and it changes the prompt set's version.
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
	"usage: reviewbot notes [-c CONFIG] [--store PATH|URL] [--all]\n"
	"       reviewbot notes add --section NAME (--verdict ID | --text "
	"TEXT)\n"
	"       reviewbot notes remove ID\n\n"
	"Lists the notes the model's prompt carries for the sections a\n"
	"series touches (--all: the removed ones too). add approves a note\n"
	"for MAINTAINERS section NAME: the reason a maintainer gave with a\n"
	"false-positive verdict ID (see reviewbot verdicts --all and the\n"
	"dashboard), or --text as the admin words it (with --verdict, the\n"
	"text replaces the reason). At most 512 bytes a note, 4096 in one\n"
	"prompt. remove takes note ID out of every later prompt.\n";

static int print_note(const struct rb_note *n, void *payload)
{
	const char *p;

	(void)payload;
	printf("%lld\t%s\t%s\t", (long long)n->id, n->state, n->section);
	for (p = n->text; *p; p++)
		putchar(*p == '\n' || *p == '\t' ? ' ' : *p);
	printf("\n");
	return 0;
}

struct from_verdict {
	char *text; /* the reply's reason, or NULL */
	bool fp; /* a false-positive verdict that counts */
};

static int verdict_row(const struct rb_proposal *p, void *payload)
{
	struct from_verdict *f = payload;

	f->fp = p->authorised && p->verdict &&
		!strcmp(p->verdict, "false_positive");
	f->text = p->comment && *p->comment ? strdup(p->comment) : NULL;
	return 1;
}

static int add(struct rb_store *st, const char *section, const char *vid,
	       const char *text)
{
	struct from_verdict f = { 0 };
	const char *user = getenv("USER");
	char *end = NULL, by[128];
	long long id = 0;
	int64_t note = 0;
	int ret;

	if (vid) {
		id = strtoll(vid, &end, 10);
		if (id <= 0 || *end) {
			fprintf(stderr,
				"reviewbot: notes add: bad --verdict\n");
			return RB_EXIT_USAGE;
		}
		if (rb_store_verdict_get(st, id, verdict_row, &f)) {
			fprintf(stderr, "reviewbot: notes add: %s\n",
				rb_errmsg());
			free(f.text);
			return RB_EXIT_FAIL;
		}
		if (!f.fp || (!f.text && !text)) {
			fprintf(stderr,
				"reviewbot: notes add: verdict %lld: %s\n", id,
				!f.fp ? "not a false-positive verdict that "
					"counts (confirm a proposal first)" :
					"its reply gave no reason: use --text");
			free(f.text);
			return RB_EXIT_FAIL;
		}
	}
	snprintf(by, sizeof(by), "cli:%s", user && *user ? user : "admin");
	ret = rb_store_note_add(st, section, text ? text : f.text, id, by,
				&note);
	free(f.text);
	if (ret) {
		fprintf(stderr, "reviewbot: notes add: %s\n", rb_errmsg());
		return RB_EXIT_FAIL;
	}
	printf("note %lld approved for %s\n", (long long)note, section);
	return RB_EXIT_OK;
}

int cmd_notes(int argc, char **argv)
{
	const char *config = NULL, *store = NULL, *section = NULL;
	const char *verdict = NULL, *text = NULL;
	bool all = false;
	const struct rb_cli_opt opts[] = {
		{ "config", 'c', &config },
		{ "store", 0, &store },
		{ "all", 'a', .flag = &all },
		{ "section", 's', &section },
		{ "verdict", 0, &verdict },
		{ "text", 't', &text },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, opts };
	struct rb_config *cfg = NULL;
	struct rb_store *st = NULL;
	static const char *const verbs[] = { "add", "remove", NULL };
	const char *verb;
	long long id = 0;
	int ret;

	ret = rb_cli_parse_verb(&args, argc, argv, "notes", verbs, &verb);
	if (ret != RB_CLI_GO)
		return ret;
	if (verb && !strcmp(verb, "add") &&
	    (!section || !*section || (!verdict && (!text || !*text)))) {
		fprintf(stderr, "reviewbot: notes add: want --section and "
				"--verdict or --text\n");
		return RB_EXIT_USAGE;
	}
	if (verb && !strcmp(verb, "remove") &&
	    !(id = rb_cli_id_arg(argc, argv, "notes", verb)))
		return RB_EXIT_USAGE;
	ret = rb_cli_config_store(&cfg, &st, config, store, true);
	if (ret)
		goto out;
	if (!verb) {
		if (rb_store_each_note(st, NULL, !all, print_note, NULL)) {
			fprintf(stderr, "reviewbot: notes: %s\n", rb_errmsg());
			ret = RB_EXIT_FAIL;
		}
	} else if (!strcmp(verb, "add")) {
		ret = add(st, section, verdict, text);
	} else if (rb_store_note_remove(st, id)) {
		fprintf(stderr, "reviewbot: notes remove: %s\n", rb_errmsg());
		ret = RB_EXIT_FAIL;
	} else {
		printf("note %lld removed\n", id);
	}
out:
	rb_store_close(st);
	rb_config_free(cfg);
	return ret;
}
