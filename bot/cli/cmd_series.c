// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_series.c - `reviewbot series [--json] FILE...`: reads mail files
 * (mbox, mbox.xz, Maildir, .eml, "-" for stdin), assembles the series
 * and prints one line per series: a JSON object with --json (the fields
 * `b4 am` parity is checked on), a readable summary otherwise.
 * A malformed message is reported on stderr as FILE:N and skipped.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bot/cli/cli.h"
#include "mail/mbox.h"
#include "mail/message.h"
#include "mail/series.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

struct walk_state {
	struct rb_series_set *set;
	struct rb_parse_opts opts;
	size_t messages;
	size_t bad;
	size_t duplicates;
};

static int on_message(const char *raw, size_t len, const char *origin,
		      void *payload)
{
	struct walk_state *st = payload;
	struct rb_message *m = NULL;
	int ret;

	st->messages++;
	if (!raw) {
		fprintf(stderr,
			"reviewbot: %s: message of %zu bytes is over "
			"the size cap, skipped\n",
			origin, len);
		st->bad++;
		return 0;
	}
	ret = rb_message_parse(&m, raw, len, &st->opts);
	if (ret) {
		fprintf(stderr, "reviewbot: %s: %s, skipped\n", origin,
			rb_errmsg());
		st->bad++;
		return ret == -RB_ENOMEM ? ret : 0;
	}
	ret = rb_series_set_add(st->set, m);
	rb_message_free(m);
	if (ret == -RB_EEXISTS) {
		st->duplicates++;
		return 0;
	}
	if (ret == -RB_ENOMEM || ret == -RB_ETOOBIG)
		return ret;
	if (ret) {
		fprintf(stderr, "reviewbot: %s: %s, skipped\n", origin,
			rb_errmsg());
		st->bad++;
	}
	return 0;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* json_string() refuses invalid UTF-8; hostile titles must not stop us. */
static json_t *text(const char *s)
{
	json_t *j;

	if (!s)
		return json_null();
	j = json_string(s);
	if (!j)
		j = json_stringn_nocheck(s, strlen(s));
	return j;
}

static int print_json(const struct rb_series *s)
{
	json_t *o = json_object(), *patches = json_array(),
	       *missing = json_array();
	char *line = NULL;
	int i, ret = -1;

	if (!o || !patches || !missing)
		goto out;
	for (i = 0; i < s->total; i++) {
		json_array_append_new(patches, str_or_null(s->patches[i]));
		if (!s->patches[i])
			json_array_append_new(missing, json_integer(i + 1));
	}
	json_object_set_new(o, "id", text(s->id));
	json_object_set_new(o, "version", json_integer(s->version));
	json_object_set_new(o, "total", json_integer(s->total));
	json_object_set_new(o, "cover", text(s->cover));
	json_object_set(o, "patches", patches);
	json_object_set_new(o, "complete", json_boolean(s->complete));
	json_object_set(o, "missing", missing);
	json_object_set_new(o, "previous", text(s->previous));
	json_object_set_new(o, "title", text(s->title));
	json_object_set_new(o, "author", text(s->author));
	json_object_set_new(o, "change_id", text(s->change_id));
	json_object_set_new(o, "partial_reroll",
			    json_boolean(s->partial_reroll));
	json_object_set_new(o, "unthreaded", json_boolean(s->unthreaded));
	json_object_set_new(o, "last_date", json_integer(s->last_date));
	line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
				     JSON_ENSURE_ASCII);
	if (!line)
		goto out;
	ret = puts(line) < 0 ? -1 : 0;
out:
	free(line);
	json_decref(patches);
	json_decref(missing);
	json_decref(o);
	return ret;
}

/* One readable line; control characters from mail are not printed. */
static void print_text(const struct rb_series *s)
{
	int miss[16];
	size_t n = rb_series_missing(s, miss, 16), i;
	const char *t;

	printf("v%d %d part%s, %s", s->version, s->total,
	       s->total == 1 ? "" : "s",
	       s->complete ? "complete" : "incomplete");
	if (n) {
		printf(" (missing");
		for (i = 0; i < n && i < 16; i++)
			printf(" %d", miss[i]);
		printf("%s)", n > 16 ? " ..." : "");
	}
	printf(": ");
	for (t = s->title ? s->title : ""; *t; t++)
		putchar((unsigned char)*t < 0x20 ? ' ' : *t);
	printf(" <%s> %s%s%s\n", s->author ? s->author : "", s->id,
	       s->previous ? " previous " : "", s->previous ? s->previous : "");
}

static const char usage[] =
	"usage: reviewbot series [--json] [--window SECONDS] [--stats] "
	"FILE...\n\n"
	"Reads mbox (also .xz), Maildir, .eml files or - (stdin), "
	"assembles the\npatch series they hold, as b4 does, and prints "
	"one line per series.\n\n"
	"  --json            one JSON object per series: version, "
	"total, cover,\n"
	"                    patches, complete, missing, previous, "
	"title, author, ...\n"
	"  --window SECONDS  join unthreaded parts sent this close "
	"(default 43200)\n"
	"  --stats           counts on stderr at the end\n"
	"  -h, --help        this help\n\n"
	"Malformed messages are reported as FILE:N on stderr and "
	"skipped.\n";

/* --window SECONDS */
static int parse_window(const char *arg, void *to)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "reviewbot series: bad --window '%s'\n", arg);
		return -1;
	}
	*(long long *)to = v;
	return 0;
}

int cmd_series(int argc, char **argv)
{
	struct walk_state st = { .opts = RB_PARSE_OPTS_INIT };
	bool json = false, stats = false;
	long long window = -1;
	const struct rb_cli_opt opts[] = {
		{ "json", 'j', .flag = &json },
		{ "window", 0, .parse = parse_window, .to = &window },
		{ "stats", 0, .flag = &stats },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, opts, .needs_operands = true };
	size_t i;
	int ret, code = RB_EXIT_OK;

	ret = rb_cli_parse(&args, argc, argv);
	if (ret != RB_CLI_GO)
		return ret;
	rb_log_set_quiet(1);
	ret = rb_series_set_new(&st.set);
	if (ret) {
		fprintf(stderr, "reviewbot series: %s\n", rb_errmsg());
		return RB_EXIT_FAIL;
	}
	if (window >= 0)
		rb_series_set_window(st.set, window);
	for (; optind < argc; optind++) {
		ret = rb_mail_walk(argv[optind], RB_MSG_DEFAULT_MAX, on_message,
				   &st);
		if (ret) {
			/* The reason names the path already. */
			fprintf(stderr, "reviewbot series: %s\n", rb_errmsg());
			code = RB_EXIT_FAIL;
			if (ret == -RB_ENOMEM)
				goto out;
		}
	}
	ret = rb_series_set_assemble(st.set);
	if (ret) {
		fprintf(stderr, "reviewbot series: %s\n", rb_errmsg());
		code = RB_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < rb_series_set_count(st.set); i++) {
		const struct rb_series *s = rb_series_set_get(st.set, i);

		if (json) {
			if (print_json(s)) {
				fprintf(stderr,
					"reviewbot series: cannot write\n");
				code = RB_EXIT_FAIL;
				goto out;
			}
		} else {
			print_text(s);
		}
	}
	if (fflush(stdout)) {
		fprintf(stderr, "reviewbot series: cannot write: %s\n",
			strerror(errno));
		code = RB_EXIT_FAIL;
	}
	if (stats)
		fprintf(stderr,
			"reviewbot series: %zu messages, %zu stored, %zu "
			"duplicates, %zu malformed, %zu series\n",
			st.messages, rb_series_set_messages(st.set),
			st.duplicates, st.bad, rb_series_set_count(st.set));
out:
	rb_series_set_free(st.set);
	return code;
}
