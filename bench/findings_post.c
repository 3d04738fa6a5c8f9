// SPDX-License-Identifier: GPL-2.0-only
/*
 * findings_post.c - what the shipped default would emit, from a run file
 * of bench/precision.sh (one JSON finding per line, with "series" and
 * "previous"; the lines of a series together): for each series the
 * checkpatch filter on the base tree (--tree, its HEAD; review/
 * checkpatch_filter.h), then rb_findings_postprocess() with the default
 * rules (review/checks/rules.h) and the fingerprints of the series' earlier
 * versions as seen. Prints the findings that remain, each line its input
 * object with the message as rewritten ("And N more like it").
 *
 * usage: findings-post [--tree REPO] [--all-rules] < RUN > EMITTED
 *        findings-post --table   (the shipped defaults, as TSV)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <jansson.h>

#include "review/checks/checkpatch_filter.h"
#include "review/findings.h"
#include "review/checks/rules.h"
#include "util/err.h"
#include "util/banned.h"

struct seen {
	char *series;
	char **fp;
	size_t n;
};

static struct seen *seen_v;
static size_t n_seen_v;

static struct seen *seen_find(const char *series)
{
	size_t i;

	for (i = 0; series && *series && i < n_seen_v; i++)
		if (!strcmp(seen_v[i].series, series))
			return &seen_v[i];
	return NULL;
}

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s;
}

/* One series: @objs[i] is finding i; results printed. */
static int one_series(json_t **objs, size_t n, git_repository *repo,
		      const git_oid *head, bool all_rules)
{
	struct rb_findings fs = { 0 };
	struct rb_findings_post post = RB_FINDINGS_POST_INIT;
	const char *series = str(objs[0], "series");
	struct seen *prev = seen_find(str(objs[0], "previous"));
	struct seen mine = { 0 };
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		json_t *o = objs[i];
		char idx[32];
		int sev = rb_fsev_parse(str(o, "severity"));

		/* The input line travels in checker_version, which nothing
		 * here rewrites. */
		snprintf(idx, sizeof(idx), "%zu", i);
		ret = rb_findings_add(
			&fs, &(struct rb_finding_spec){
				     .checker = str(o, "checker"),
				     .checker_version = idx,
				     .category = str(o, "category"),
				     .severity = sev < 0 ? RB_FSEV_LOW :
							   (enum rb_fsev)sev,
				     .file = str(o, "file"),
				     .line = (int)json_integer_value(
					     json_object_get(o, "line")),
				     .code = str(o, "code"),
				     .message = str(o, "message"),
				     .patch_index = (int)json_integer_value(
					     json_object_get(o, "patch")) });
	}
	/* What the next version will have seen: every finding of this one
	 * and of the versions before it. */
	mine.series = strdup(series ? series : "");
	mine.n = fs.n + (prev ? prev->n : 0);
	mine.fp = calloc(mine.n + 1, sizeof(*mine.fp));
	for (i = 0; mine.fp && i < fs.n; i++)
		mine.fp[i] = strdup(fs.v[i].fingerprint);
	for (i = 0; mine.fp && prev && i < prev->n; i++)
		mine.fp[fs.n + i] = strdup(prev->fp[i]);
	if (prev) {
		post.seen = (const char *const *)prev->fp;
		post.n_seen = prev->n;
	}
	post.all_rules = all_rules;
	if (!ret && repo)
		ret = rb_checkpatch_filter(&fs, repo, head, NULL);
	if (!ret)
		ret = rb_findings_postprocess(&fs, &post);
	for (i = 0; !ret && i < fs.n; i++) {
		json_t *o = objs[strtoul(fs.v[i].checker_version, NULL, 10)];
		char *line;

		json_object_set_new(o, "message", json_string(fs.v[i].message));
		line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (line)
			printf("%s\n", line);
		free(line);
	}
	rb_findings_release(&fs);
	seen_v = realloc(seen_v, (n_seen_v + 1) * sizeof(*seen_v));
	if (seen_v)
		seen_v[n_seen_v++] = mine;
	return ret;
}

int main(int argc, char **argv)
{
	git_repository *repo = NULL;
	git_oid head;
	json_t **objs = NULL;
	size_t n = 0, cap = 0;
	bool all_rules = false;
	char *line = NULL;
	size_t lcap = 0;
	int i, ret = 0;

	git_libgit2_init();
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tree") && i + 1 < argc) {
			if (git_repository_open(&repo, argv[++i]) ||
			    git_reference_name_to_id(&head, repo, "HEAD")) {
				fprintf(stderr,
					"findings-post: cannot open %s\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--all-rules")) {
			all_rules = true;
		} else if (!strcmp(argv[i], "--table")) {
			const struct rb_rule_default *t;
			size_t k, nt;

			t = rb_rule_defaults(&nt);
			for (k = 0; k < nt; k++)
				printf("%s\t%s\t%s\t%d\t%d\n", t[k].checker,
				       t[k].category, t[k].on ? "on" : "off",
				       t[k].precision, t[k].labelled);
			return 0;
		} else {
			fprintf(stderr, "usage: findings-post [--tree REPO] "
					"[--all-rules] < RUN > EMITTED\n");
			return 2;
		}
	}
	for (;;) {
		ssize_t len = getline(&line, &lcap, stdin);
		json_t *o = NULL;

		if (len > 0)
			o = json_loads(line, 0, NULL);
		if (n && (len <= 0 || !o ||
			  strcmp(str(o, "series"), str(objs[0], "series")))) {
			ret = one_series(objs, n, repo, &head, all_rules);
			if (ret) {
				fprintf(stderr, "findings-post: %s\n",
					rb_errmsg());
				break;
			}
			while (n)
				json_decref(objs[--n]);
		}
		if (len <= 0)
			break;
		if (!o)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			objs = realloc(objs, cap * sizeof(*objs));
			if (!objs)
				return 1;
		}
		objs[n++] = o;
	}
	free(line);
	free(objs);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret ? 1 : 0;
}
