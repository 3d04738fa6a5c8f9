// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_prompt.c - what the model is shown of the code, without a model:
 * bench_prompt REPO REV MAIL... applies each mail's patch alone on REV
 * in memory (review/apply/apply.h), builds the finder's prompt through
 * rb_model_prompt_build() with the context the review stage gives it
 * (bot/stages/review_stage.c model_patch_ctx()) and the default options,
 * and checks it against an oracle that is not ours: universal-ctags
 * (ctags --kinds-C=f --fields=+ne) over each changed C file of the tree
 * after the patch. A changed hunk counts when its first changed line is
 * inside a function ctags finds; it is "shown" when the prompt holds
 * that function's name line numbered as the tree ("%5d text"), and
 * "whole" when it also holds its closing line so numbered.
 *
 * Prints one row per mail and the totals (bench/RESULTS-model.md, "What
 * the model is shown"). Builds against the tree before issue 30 too (no
 * rb_model_patch_ctx.applied there), to measure before and after with
 * the same oracle. BENCH_PROMPT_SHOW=N prints mail N's prompt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "mail/message.h"
#include "review/apply/apply.h"
#include "review/apply/diff.h"
#include "review/model/model.h"
#include "review/model/model_prompt.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/banned.h"

struct fn {
	long line, end;
};

struct totals {
	int mails, applied, with_hunks, all_shown, all_whole;
	int hunks, in_fn, shown, whole, merged;
	size_t bytes, max_bytes;
	double seconds;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool is_c(const char *p)
{
	size_t l = strlen(p);

	return l > 2 && p[l - 2] == '.' && (p[l - 1] == 'c' || p[l - 1] == 'h');
}

/* The functions ctags finds in @text: [line, end] pairs. */
static struct fn *ctags_fns(const char *text, size_t len, size_t *n)
{
	char tmp[] = "/tmp/rb-bench-prompt.XXXXXX";
	char cmd[256], line[8192];
	struct fn *v = NULL;
	size_t cap = 0;
	int fd = mkstemp(tmp);
	FILE *f;

	*n = 0;
	if (fd < 0)
		return NULL;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		unlink(tmp);
		return NULL;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "ctags --language-force=C --kinds-C=f --fields=+ne -o - %s "
		 "2>/dev/null",
		 tmp);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *l = strstr(line, "\tline:"), *e = strstr(line, "\tend:");
		struct fn *x;

		if (!l || !e)
			continue;
		x = rb_grow(v, &cap, *n, sizeof(*v));
		if (!x)
			break;
		v = x;
		v[*n].line = strtol(l + 6, NULL, 10);
		v[*n].end = strtol(e + 5, NULL, 10);
		(*n)++;
	}
	if (f)
		pclose(f);
	unlink(tmp);
	return v;
}

/* Is line @no of @text in @prompt, numbered as the prompt numbers? */
static bool numbered(const char *prompt, const char *text, size_t len, long no)
{
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);
	const char *s = text, *e = text + len;
	long k;
	bool ok;

	for (k = 1; k < no && s < e; k++) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));

		s = nl ? nl + 1 : e;
	}
	if (s >= e)
		return false;
	{
		const char *nl = memchr(s, '\n', (size_t)(e - s));

		rb_buf_printf(&b, "%5ld %.*s\n", no, (int)((nl ? nl : e) - s),
			      s);
	}
	ok = strstr(prompt, b.ptr) != NULL;
	rb_buf_release(&b);
	return ok;
}

/* The first changed line of each hunk of @f, in the tree's numbers. */
static void check_file(struct totals *t, int *hunks, int *shown, int *whole,
		       git_repository *repo, const git_oid *tree,
		       const struct rb_diff_file *f,
		       const struct rb_apply_file_result *fr,
		       const char *prompt)
{
	git_tree *tr = NULL;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	struct fn *fns = NULL;
	size_t nf = 0, h, i, k;
	const char *text;
	size_t len;

	if (f->status == RB_DIFF_DELETED || f->is_binary ||
	    !is_c(rb_diff_file_path(f)))
		return;
	if (fr->merged || !fr->hunks) {
		t->merged++;
		return;
	}
	if (git_tree_lookup(&tr, repo, tree) ||
	    git_tree_entry_bypath(&te, tr, rb_diff_file_path(f)) ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(te)))
		goto out;
	text = git_blob_rawcontent(blob);
	len = (size_t)git_blob_rawsize(blob);
	fns = ctags_fns(text, len, &nf);
	for (h = 0; h < f->n_hunks; h++) {
		const struct rb_diff_hunk *hk = &f->hunks[h];
		long pos = fr->hunks[h].line, at = 0;
		const struct fn *best = NULL;

		for (i = 0; i < hk->n_lines && !at; i++) {
			char o = hk->lines[i].origin;

			if (o == '+' || o == '-')
				at = pos;
			else
				pos++;
		}
		if (!at)
			continue;
		t->hunks++;
		for (k = 0; k < nf; k++)
			if (fns[k].line <= at && at <= fns[k].end &&
			    (!best || fns[k].line > best->line))
				best = &fns[k];
		if (!best) {
			/* BENCH_PROMPT_OUTSIDE=1: the hunks no function holds. */
			if (getenv("BENCH_PROMPT_OUTSIDE"))
				fprintf(stderr, "outside: %s:%ld\n",
					rb_diff_file_path(f), at);
			continue;
		}
		t->in_fn++;
		(*hunks)++;
		if (numbered(prompt, text, len, best->line)) {
			t->shown++;
			(*shown)++;
			if (numbered(prompt, text, len, best->end)) {
				t->whole++;
				(*whole)++;
			}
		}
	}
out:
	free(fns);
	git_blob_free(blob);
	git_tree_entry_free(te);
	git_tree_free(tr);
}

static int one(struct totals *t, git_repository *repo, const git_oid *base,
	       const git_oid *base_tree, const char *path, int no)
{
	struct rb_buf raw = RB_BUF_INIT(RB_MSG_DEFAULT_MAX);
	struct rb_message *m = NULL;
	struct rb_apply_result *ar = NULL;
	struct rb_apply_opts ao = RB_APPLY_OPTS_INIT;
	struct rb_apply_patch ap = { 0 };
	struct rb_parse_opts po = RB_PARSE_OPTS_INIT;
	struct rb_model_opts o = RB_MODEL_OPTS_INIT;
	struct rb_model_patch_ctx ctx = { 0 };
	struct rb_buf sys = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf user = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_diff *d = NULL;
	const char *subjects[1];
	const char *show = getenv("BENCH_PROMPT_SHOW");
	int hunks = 0, shown = 0, whole = 0;
	double t0;
	size_t i;
	int ret;

	t->mails++;
	ret = rb_read_file(&raw, path);
	if (!ret)
		ret = rb_message_parse(&m, raw.ptr, raw.len, &po);
	if (ret || !m->patch) {
		printf("| %d | %s | not a patch |\n", no, path);
		goto out;
	}
	ap.patch = m->patch;
	ap.len = m->patch_len;
	ap.message = m->commit_msg;
	ap.date = m->date;
	if (rb_apply_series(&ar, repo, base, &ap, 1, &ao) || !ar->ok) {
		printf("| %d | %.60s | does not apply |\n", no,
		       m->subject.title ? m->subject.title : "");
		goto out;
	}
	t->applied++;
	subjects[0] = m->subject.title ? m->subject.title : "";
	ctx.subjects = subjects;
	ctx.n_subjects = 1;
	ctx.index = 1;
	ctx.commit_msg = m->commit_msg;
	ctx.changelog = m->notes;
	ctx.patch = m->patch;
	ctx.patch_len = m->patch_len;
	ctx.repo = ar->repo;
	ctx.tree = &ar->patches[0].tree;
	ctx.tip_tree = &ar->tree;
	ctx.base_commit = &ar->base;
	ctx.base_tree = base_tree;
#ifdef RB_MODEL_PREFETCH_BYTES
	ctx.applied = &ar->patches[0];
#endif
	t0 = now_s();
	ret = rb_model_prompt_build(&sys, &user, NULL, &o, &ctx,
				    "0123456789abcdef");
	t->seconds += now_s() - t0;
	if (ret) {
		printf("| %d | %.60s | prompt failed: %s |\n", no, subjects[0],
		       rb_errmsg());
		goto out;
	}
	if (show && atoi(show) == no)
		fprintf(stderr, "%s\n%s\n", sys.ptr, user.ptr);
	t->bytes += sys.len + user.len;
	if (sys.len + user.len > t->max_bytes)
		t->max_bytes = sys.len + user.len;
	if (!rb_diff_parse(&d, m->patch, m->patch_len))
		for (i = 0; i < d->n_files && i < ar->patches[0].n_files; i++)
			check_file(t, &hunks, &shown, &whole, ar->repo,
				   &ar->patches[0].tree, &d->files[i],
				   &ar->patches[0].files[i], user.ptr);
	if (hunks) {
		t->with_hunks++;
		t->all_shown += shown == hunks;
		t->all_whole += whole == hunks;
	}
	printf("| %d | %.60s | %zu | %d | %d | %d |\n", no, subjects[0],
	       sys.len + user.len, hunks, shown, whole);
out:
	rb_diff_free(d);
	rb_buf_release(&sys);
	rb_buf_release(&user);
	rb_apply_result_free(ar);
	rb_message_free(m);
	rb_buf_release(&raw);
	rb_err_clear();
	return 0;
}

int main(int argc, char **argv)
{
	struct totals t = { 0 };
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_commit *c = NULL;
	git_oid base, base_tree;
	double t0 = now_s();
	int i;

	if (argc < 4) {
		fprintf(stderr, "usage: bench_prompt REPO REV MAIL...\n");
		return 2;
	}
	git_libgit2_init();
	rb_log_set_quiet(1);
	if (git_repository_open(&repo, argv[1]) < 0 ||
	    git_revparse_single(&obj, repo, argv[2]) < 0 ||
	    git_commit_lookup(&c, repo, git_object_id(obj)) < 0) {
		fprintf(stderr, "bench_prompt: cannot read %s %s\n", argv[1],
			argv[2]);
		return 1;
	}
	git_oid_cpy(&base, git_commit_id(c));
	git_oid_cpy(&base_tree, git_commit_tree_id(c));
	printf("| # | subject | prompt bytes | hunks in a function | shown | "
	       "whole |\n| ---: | --- | ---: | ---: | ---: | ---: |\n");
	for (i = 3; i < argc; i++)
		one(&t, repo, &base, &base_tree, argv[i], i - 2);
	printf("\nmails %d, applied %d, with changed C hunks in a function %d;"
	       "\nevery such hunk's function shown (name line, numbered as "
	       "the tree): %d of %d (%.1f%%), shown whole: %d (%.1f%%);"
	       "\nhunks: %d changed C hunks, %d in a function, %d shown "
	       "(%.1f%%), %d whole (%.1f%%); files the 3-way merge placed "
	       "(not counted): %d;"
	       "\nprompt (system + user): %.0f bytes a patch on average "
	       "(%.0f tokens at 4 bytes), at most %zu;"
	       "\nprompt building: %.2f s in all, %.1f s wall for the run.\n",
	       t.mails, t.applied, t.with_hunks, t.all_shown, t.with_hunks,
	       t.with_hunks ? 100.0 * t.all_shown / t.with_hunks : 0,
	       t.all_whole,
	       t.with_hunks ? 100.0 * t.all_whole / t.with_hunks : 0, t.hunks,
	       t.in_fn, t.shown, t.in_fn ? 100.0 * t.shown / t.in_fn : 0,
	       t.whole, t.in_fn ? 100.0 * t.whole / t.in_fn : 0, t.merged,
	       t.applied ? (double)t.bytes / t.applied : 0,
	       t.applied ? (double)t.bytes / t.applied / 4 : 0, t.max_bytes,
	       t.seconds, now_s() - t0);
	git_commit_free(c);
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return 0;
}
