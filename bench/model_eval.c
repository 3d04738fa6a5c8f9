// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_eval.c - runs the model stage (review/model.h) over a labelled set
 * and reports precision and recall per finding, findings per review,
 * words of commentary per patch and tokens. Built and run by
 * bench/model-eval.sh.
 *
 * usage: model-eval --labels FILE --root DIR [--provider P] [--url U]
 *        [--name N] [--key-env VAR] [--command CMD] [--record DIR]
 *        [--replay DIR] [--timeout S] [--tokens-field F] [--label TEXT]
 *
 * A finding matches a labelled issue when it names the same file, a line
 * within 3 of the issue's and one of its categories; each issue matches
 * once. Everything kept that matches nothing is a false positive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "mail/message.h"
#include "review/model.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/banned.h"

static const char *arg(int argc, char **argv, const char *name,
		       const char *dflt)
{
	int i;

	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return argv[i + 1];
	return dflt;
}

static int words(const char *s)
{
	int n = 0, in = 0;

	for (; s && *s; s++) {
		if (*s == ' ' || *s == '\n' || *s == '\t') {
			in = 0;
		} else if (!in) {
			in = 1;
			n++;
		}
	}
	return n;
}

static bool matches(const struct rb_finding *f, json_t *issue)
{
	const char *file = json_string_value(json_object_get(issue, "file"));
	long line = (long)json_integer_value(json_object_get(issue, "line"));
	json_t *cats = json_object_get(issue, "categories"), *c;
	size_t i;

	if (!f->file || !file || strcmp(f->file, file) ||
	    labs((long)f->line - line) > 3)
		return false;
	for (i = 0; i < json_array_size(cats); i++) {
		c = json_array_get(cats, i);
		if (!strcmp(json_string_value(c) ?: "", f->category))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	struct rb_model_opts o = RB_MODEL_OPTS_INIT;
	const char *labels = arg(argc, argv, "--labels", NULL);
	const char *root = arg(argc, argv, "--root", ".");
	const char *key_env = arg(argc, argv, "--key-env", NULL);
	const char *label = arg(argc, argv, "--label", "");
	struct rb_model_usage total = { 0 };
	struct rb_model *m = NULL;
	json_t *j, *patches, *p;
	json_error_t je;
	struct timespec t0, t1;
	size_t i, k;
	int tp = 0, fp = 0, fn = 0, kept = 0, max_words = 0, failed = 0;
	int max_findings = 0, n = 0, ret;

	if (!labels) {
		fprintf(stderr, "usage: model-eval --labels FILE --root DIR "
				"[--provider P --url U --name N ...]\n");
		return 2;
	}
	rb_log_set_quiet(1);
	o.provider = arg(argc, argv, "--provider", "openai");
	o.url = arg(argc, argv, "--url", NULL);
	o.name = arg(argc, argv, "--name", NULL);
	o.command = arg(argc, argv, "--command", NULL);
	o.record_dir = arg(argc, argv, "--record", NULL);
	o.replay_dir = arg(argc, argv, "--replay", NULL);
	o.max_tokens_field = arg(argc, argv, "--tokens-field", "max_tokens");
	o.timeout_seconds = atoi(arg(argc, argv, "--timeout", "120"));
	o.api_key = key_env ? getenv(key_env) : NULL;
	o.cost_per_mtok_in = atof(arg(argc, argv, "--cost-in", "0"));
	o.cost_per_mtok_out = atof(arg(argc, argv, "--cost-out", "0"));
	if (rb_model_new(&m, &o) || !m) {
		fprintf(stderr, "model-eval: %s\n",
			m ? rb_errmsg() : "the provider is none");
		return 2;
	}
	j = json_load_file(labels, 0, &je);
	patches = json_object_get(j, "patches");
	if (!json_is_array(patches)) {
		fprintf(stderr, "model-eval: %s: line %d: %s\n", labels,
			je.line, j ? "no \"patches\" array" : je.text);
		return 2;
	}
	printf("%-44s %4s %4s %3s %3s %3s %5s %6s %6s\n", "patch", "kept",
	       "hall", "tp", "fp", "fn", "words", "tok_in", "tok_out");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	json_array_foreach(patches, i, p)
	{
		const char *rel =
			json_string_value(json_object_get(p, "patch"));
		json_t *issues = json_object_get(p, "issues"), *subs;
		struct rb_model_patch_ctx ctx = { 0 };
		struct rb_model_usage u = { 0 };
		struct rb_findings f = { 0 };
		struct rb_buf text = RB_BUF_INIT(16u << 20);
		struct rb_message *msg = NULL;
		char path[4096];
		const char *subj[1], *sub[8];
		bool *used;
		int ptp = 0, pw = 0;
		size_t ns = 0;

		snprintf(path, sizeof(path), "%s/%s", root, rel);
		if (rb_read_file(&text, path)) {
			fprintf(stderr, "model-eval: %s\n", rb_errmsg());
			return 2;
		}
		/* What the review stage gives the model (bot/stages/review_stage.c). */
		if (rb_message_parse(&msg, text.ptr, text.len, NULL) ||
		    !msg->patch) {
			fprintf(stderr, "model-eval: %s: %s\n", rel,
				msg ? "no patch in it" : rb_errmsg());
			return 2;
		}
		subj[0] = msg->subject.title;
		subs = json_object_get(p, "subsystems");
		for (k = 0; k < json_array_size(subs) && ns < 8; k++)
			sub[ns++] = json_string_value(json_array_get(subs, k));
		ctx.subjects = subj;
		ctx.n_subjects = 1;
		ctx.index = 1;
		ctx.commit_msg = msg->commit_msg;
		ctx.patch = msg->patch;
		ctx.patch_len = msg->patch_len;
		ctx.subsystems = sub;
		ctx.n_subsystems = ns;
		ret = rb_model_review_patch(&f, &u, m, &ctx);
		if (ret) {
			fprintf(stderr, "model-eval: %s: %s\n", rel,
				rb_errmsg());
			failed++;
		}
		used = calloc(json_array_size(issues) + 1, sizeof(*used));
		for (k = 0; used && k < f.n; k++) {
			size_t q;
			bool hit = false;

			pw += words(f.v[k].message);
			for (q = 0; q < json_array_size(issues) && !hit; q++)
				if (!used[q] &&
				    matches(&f.v[k], json_array_get(issues, q)))
					used[q] = hit = true;
			ptp += hit;
		}
		tp += ptp;
		fp += (int)f.n - ptp;
		fn += (int)json_array_size(issues) - ptp;
		kept += (int)f.n;
		n++;
		if (pw > max_words)
			max_words = pw;
		if ((int)f.n > max_findings)
			max_findings = (int)f.n;
		printf("%-44s %4zu %4d %3d %3d %3d %5d %6ld %6ld\n", rel, f.n,
		       u.hallucinated, ptp, (int)f.n - ptp,
		       (int)json_array_size(issues) - ptp, pw, u.tokens_in,
		       u.tokens_out);
		total.calls += u.calls;
		total.retries += u.retries;
		total.tokens_in += u.tokens_in;
		total.tokens_out += u.tokens_out;
		total.cost += u.cost;
		total.proposed += u.proposed;
		total.hallucinated += u.hallucinated;
		total.off_scope += u.off_scope;
		total.confirmed += u.confirmed;
		total.rejected += u.rejected;
		total.uncertain += u.uncertain;
		total.words += u.words;
		free(used);
		rb_findings_release(&f);
		rb_message_free(msg);
		rb_buf_release(&text);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("\n%s provider=%s model=%s patches=%d failed=%d\n", label,
	       o.provider, rb_model_name(m), n, failed);
	printf("proposed=%d hallucinated=%d off_scope=%d confirmed=%d "
	       "rejected=%d uncertain=%d kept=%d\n",
	       total.proposed, total.hallucinated, total.off_scope,
	       total.confirmed, total.rejected, total.uncertain, kept);
	printf("precision=%.2f recall=%.2f (tp=%d fp=%d fn=%d)\n",
	       tp + fp ? (double)tp / (tp + fp) : 1.0,
	       tp + fn ? (double)tp / (tp + fn) : 1.0, tp, fp, fn);
	printf("findings_per_review=%.2f (max %d) words_per_patch=%.1f "
	       "(max %d)\n",
	       n ? (double)kept / n : 0, max_findings,
	       n ? (double)total.words / n : 0, max_words);
	printf("calls=%ld retries=%ld tokens_in=%ld tokens_out=%ld "
	       "cost=%.4f wall=%.2fs\n",
	       total.calls, total.retries, total.tokens_in, total.tokens_out,
	       total.cost,
	       (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	json_decref(j);
	rb_model_free(m);
	return failed ? 1 : 0;
}
