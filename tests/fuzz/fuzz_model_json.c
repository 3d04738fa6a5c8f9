// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_model_json.c - libFuzzer target for what a model says (review/
 * model.h): the finder's and the verifier's JSON answers, the validators
 * that hold a proposed finding against the patch, the trailer
 * neutraliser and the prompt builder on hostile patches.
 *
 * Input: a mode byte, then
 *   'F' answer                      finder answer parse
 *   'V' answer                      verifier answer parse
 *   'E' patch NUL commit-msg NUL answer
 *                                    verifier answer parse, then the
 *                                    evidence check against the patch
 *   'P' patch NUL commit-msg NUL answer
 *                                    prompt build (the message also as
 *                                    cover letter, changelog and earlier
 *                                    review; again without the message),
 *                                    the focus planner, parse, validate
 *                                    all
 * Anything else is treated as 'P'.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "review/diff.h"
#include "review/model.h"
#include "review/model_plan.h"
#include "review/model_prompt.h"
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

		if (!rb_model_parse_findings(&raw, buf, size - 1))
			rb_model_raw_findings_release(&raw);
	} else if (data[0] == 'V') {
		if (!rb_model_parse_verdicts(v, 8, buf, size - 1))
			rb_model_verdicts_release(v, 8);
	} else if (data[0] == 'E') {
		struct rb_diff *d = NULL;
		size_t i;

		plen = strlen(buf);
		msg = buf + plen + (plen < size - 1);
		mlen = strlen(msg);
		ans = msg + mlen + (msg + mlen < buf + size - 1);
		if (!rb_model_parse_verdicts(v, 8, ans,
					     (size_t)(buf + size - 1 - ans))) {
			if (rb_diff_parse(&d, buf, plen))
				d = NULL;
			for (i = 0; i < 8; i++)
				rb_model_check_evidence(NULL, d, msg, v[i].ev,
							v[i].n_ev, 5);
			rb_diff_free(d);
			rb_model_verdicts_release(v, 8);
		}
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
		rb_model_prompt_build(&sys, &user, NULL, &o, &ctx,
				      "0123456789abcdef");
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
