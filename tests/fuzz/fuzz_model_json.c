// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_model_json.c - libFuzzer target for what a model says (review/
 * model.h): the finder's and the verifier's JSON answers (findings,
 * dismissals, severity reasons, verdicts and their reasons), the
 * validators that hold a proposed finding against the patch, the merge's
 * predicates, the trailer neutraliser, the prompt builder on hostile
 * patches, and what the evidence check reads of a conversation
 * (model_evidence.h: the prompt's tree text, the tools' results).
 *
 * Input: a mode byte, then
 *   'F' answer                      finder answer parse, the merge's
 *                                    predicates over its findings and
 *                                    dismissals
 *   'V' answer                      verifier answer parse
 *   'E' patch NUL commit-msg NUL answer
 *                                    verifier answer parse, then the
 *                                    evidence check of each verdict
 *                                    against the patch and its prompt
 *   'T' tool NUL args NUL result NUL answer
 *                                    a tool result read as lines shown
 *                                    (tool: a digit picks read_file,
 *                                    grep, find_definition or
 *                                    find_callers), then the evidence
 *                                    check of the answer against it
 *   'P' patch NUL commit-msg NUL answer
 *                                    prompt build (the message also as
 *                                    cover letter, changelog and a
 *                                    section's notes, the answer as
 *                                    earlier review and interdiff; again
 *                                    without the message),
 *                                    the focus planner, parse, validate
 *                                    all
 *   'C' answer                      the classifier's reading of a prose
 *                                    answer (feedback.prose_model)
 * Anything else is treated as 'P'.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/verdict.h"
#include "review/apply/diff.h"
#include "review/model/model.h"
#include "review/model/model_evidence.h"
#include "review/model/model_plan.h"
#include "review/model/model_prompt.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* The planner on a hostile patch: every focus run or left out, once. */
static void plan(const char *patch, size_t plen, const char *msg)
{
	struct rb_model_plan p;
	struct rb_diff *d = NULL;
	const char *const *names;
	size_t n;

	if (rb_diff_parse(&d, patch, plen))
		return;
	names = rb_model_focus_names(&n);
	rb_model_plan_focuses(&p, d, msg, names, n);
	if (p.n_run + p.n_skipped != n || !p.kind)
		abort();
	rb_model_plan_focuses(&p, d, msg, NULL, 0);
	if (p.n_run + p.n_skipped != 1)
		abort();
	rb_diff_free(d);
}

static void parse_and_validate(const char *patch, size_t plen, const char *msg,
			       const char *ans, size_t alen)
{
	struct rb_model_raw_findings raw = { 0 };
	struct rb_diff *d = NULL;
	size_t i;

	if (rb_model_parse_findings(&raw, ans, alen))
		return;
	if (!rb_diff_parse(&d, patch, plen)) {
		for (i = 0; i < raw.n; i++) {
			const char *path = NULL;

			if (!rb_model_validate(&path, d, msg, &raw.v[i], 5) &&
			    path && !rb_diff_find_file(d, path))
				abort();
			rb_model_neutralise(raw.v[i].question);
			if (strcasestr(raw.v[i].question, "reviewed-by:") ||
			    strcasestr(raw.v[i].question, "acked-by:"))
				abort();
		}
	}
	rb_diff_free(d);
	rb_model_raw_findings_release(&raw);
}

/* The evidence check of verdict @i, for a claim of the i-th category. */
static void check_one(const struct rb_diff *d, const struct rb_model_seen *s,
		      size_t i, const struct rb_model_verdict_entry *v)
{
	static const char *const cats[] = { "locking",	   "use-after-free",
					    "double-free", "leak",
					    "refcount",	   "race",
					    "logic",	   "commit-message" };
	struct rb_model_evidence_ctx ec = { .d = d, .seen = s, .near = 5 };
	struct rb_model_claim cl = {
		.file = d && d->n_files ? rb_diff_file_path(&d->files[0]) :
					  "mm/foo.c",
		.old_side = i & 1,
		.first = (int)i * 7,
		.last = (int)i * 7 + 2,
		.category = cats[i % 8],
	};

	rb_model_check_evidence(&ec, &cl, v->ev, v->n_ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_model_opts o = RB_MODEL_OPTS_INIT;
	struct rb_model_patch_ctx ctx = { 0 };
	struct rb_buf sys = RB_BUF_INIT(8u << 20), user = RB_BUF_INIT(8u << 20);
	struct rb_model_verdict_entry v[8];
	const char *const subjects[] = { "one", "two" };
	const char *patches[2];
	char *buf, *msg, *ans;
	size_t plen, mlen;

	if (!size)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = 0;
	if (data[0] == 'F') {
		struct rb_model_raw_findings raw = { 0 };
		size_t i, k;

		if (!rb_model_parse_findings(&raw, buf, size - 1)) {
			if (raw.n > 64 || raw.n_dis > 16)
				abort();
			for (i = 0; i < raw.n; i++) {
				for (k = 0; k < raw.n; k++)
					if (rb_model_same_finding(&raw.v[i],
								  &raw.v[k]) &&
					    !rb_model_same_cause(&raw.v[i],
								 &raw.v[k]))
						abort();
				for (k = 0; k < raw.n_dis; k++)
					rb_model_dismissal_matches(&raw.dis[k],
								   &raw.v[i]);
			}
			rb_model_raw_findings_release(&raw);
		}
	} else if (data[0] == 'V') {
		if (!rb_model_parse_verdicts(v, 8, buf, size - 1))
			rb_model_verdicts_release(v, 8);
	} else if (data[0] == 'E') {
		struct rb_diff *d = NULL;
		struct rb_model_seen *seen = NULL;
		size_t i;

		plen = strlen(buf);
		msg = buf + plen + (plen < size - 1);
		mlen = strlen(msg);
		ans = msg + mlen + (msg + mlen < buf + size - 1);
		if (!rb_model_parse_verdicts(v, 8, ans,
					     (size_t)(buf + size - 1 - ans))) {
			if (rb_diff_parse(&d, buf, plen))
				d = NULL;
			o.guides_dir = NULL;
			ctx.commit_msg = msg;
			ctx.patch = buf;
			ctx.patch_len = plen;
			ctx.index = 1;
			rb_model_seen_new(&seen);
			if (seen &&
			    !rb_model_prompt_build(&sys, &user, NULL, &o, &ctx,
						   "0123456789abcdef"))
				rb_model_seen_add_prompt(seen, user.ptr,
							 "0123456789abcdef");
			for (i = 0; seen && i < 8; i++)
				check_one(d, seen, i, &v[i]);
			rb_model_seen_free(seen);
			rb_diff_free(d);
			rb_model_verdicts_release(v, 8);
		}
	} else if (data[0] == 'C') {
		/* exactly the answer's bytes: a read past them is ASan's */
		char *c = malloc(size - 1 ? size - 1 : 1);
		int k;

		if (c) {
			memcpy(c, data + 1, size - 1);
			k = rb_model_parse_prose_verdict(c, size - 1);
			if (k < -1 || k > RB_VK_FIXED)
				abort();
			free(c);
		}
	} else if (data[0] == 'T') {
		static const char *const tools[] = { "read_file", "grep",
						     "find_definition",
						     "find_callers" };
		struct rb_model_seen *seen = NULL;
		const char *name = buf, *args, *res;
		size_t i;

		plen = strlen(buf);
		args = buf + plen + (plen < size - 1);
		res = args + strlen(args) +
		      (args + strlen(args) < buf + size - 1);
		ans = (char *)res + strlen(res) +
		      (res + strlen(res) < buf + size - 1);
		if (*name >= '0' && *name <= '3')
			name = tools[*name - '0'];
		rb_model_seen_new(&seen);
		if (seen) {
			rb_model_seen_add_result(seen, name, args, strlen(args),
						 res, strlen(res), *buf & 1);
			if (rb_model_seen_count(seen) > 64 * 1024)
				abort();
			if (!rb_model_parse_verdicts(
				    v, 8, ans,
				    (size_t)(buf + size - 1 - ans))) {
				for (i = 0; i < 8; i++)
					check_one(NULL, seen, i, &v[i]);
				rb_model_verdicts_release(v, 8);
			}
		}
		rb_model_seen_free(seen);
	} else {
		plen = strlen(buf);
		msg = buf + plen + (plen < size - 1);
		mlen = strlen(msg);
		ans = msg + mlen + (msg + mlen < buf + size - 1);
		o.guides_dir = NULL;
		o.prompt_tokens = 2000;
		ctx.commit_msg = msg;
		ctx.patch = buf;
		ctx.patch_len = plen;
		ctx.index = 1;
		/* The context: hostile text of every kind. */
		patches[0] = buf;
		patches[1] = buf;
		ctx.subjects = subjects;
		ctx.n_subjects = 2;
		ctx.patches = patches;
		ctx.cover_body = msg;
		ctx.changelog = msg;
		ctx.range_diff = ans;
		ctx.prev_review = ans;
		ctx.interdiff = ans;
		ctx.notes = msg;
		if (!rb_model_prompt_build(&sys, &user, NULL, &o, &ctx,
					   "0123456789abcdef")) {
			struct rb_model_seen *seen = NULL;

			/* Text of the author's is never tree text shown. */
			if (!rb_model_seen_new(&seen))
				rb_model_seen_add_prompt(seen, user.ptr,
							 "0123456789abcdef");
			rb_model_seen_free(seen);
		}
		rb_buf_reset(&sys);
		rb_buf_reset(&user);
		ctx.no_commit_msg = true;
		rb_model_prompt_build(&sys, &user, NULL, &o, &ctx,
				      "0123456789abcdef");
		plan(buf, plen, msg);
		parse_and_validate(buf, plen, msg, ans,
				   (size_t)(buf + size - 1 - ans));
	}
	rb_buf_release(&sys);
	rb_buf_release(&user);
	free(buf);
	return 0;
}
