// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_tools.c - times the model's tools (review/model/model_tools.h) on a real
 * tree: bench_tools REPO REV [PATCH...] reads calls from stdin, one a line
 * as "NAME<TAB>JSON ARGS", and prints each call's wall time and the first
 * line of its result (all of it with BENCH_TOOLS_FULL=1). With patches, they are applied in memory on REV
 * (review/apply/apply.h) and the tools see base and tip as a review does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <git2.h>

#include "review/apply/apply.h"
#include "review/model/model_tools.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_commit *c = NULL;
	struct rb_apply_result *ar = NULL;
	struct rb_apply_patch *p = NULL;
	struct rb_buf *pb = NULL;
	struct rb_model_tools *t = NULL;
	struct rb_model_tool_limits lim = { .max_calls = 1000,
					    .max_bytes = 1 << 30,
					    .max_seconds = 3600 };
	struct rb_model_tools_ctx ctx = { 0 };
	git_oid base_tree, commit;
	char line[8192];
	int i, n = argc - 3;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_tools REPO REV [PATCH...]\n");
		return 2;
	}
	git_libgit2_init();
	if (git_repository_open(&repo, argv[1]) < 0 ||
	    git_revparse_single(&obj, repo, argv[2]) < 0 ||
	    git_commit_lookup(&c, repo, git_object_id(obj)) < 0) {
		fprintf(stderr, "bench_tools: cannot read %s %s\n", argv[1],
			argv[2]);
		return 1;
	}
	git_oid_cpy(&commit, git_commit_id(c));
	git_oid_cpy(&base_tree, git_commit_tree_id(c));
	ctx.repo = repo;
	ctx.base_tree = &base_tree;
	ctx.tip_tree = &base_tree;
	ctx.base_commit = &commit;
	if (n > 0) {
		struct rb_apply_opts o = RB_APPLY_OPTS_INIT;

		p = calloc((size_t)n, sizeof(*p));
		pb = calloc((size_t)n, sizeof(*pb));
		for (i = 0; i < n; i++) {
			rb_buf_init(&pb[i], 64 << 20);
			if (rb_read_file(&pb[i], argv[3 + i])) {
				fprintf(stderr, "%s: %s\n", argv[3 + i],
					rb_errmsg());
				return 1;
			}
			p[i].patch = pb[i].ptr;
			p[i].len = pb[i].len;
		}
		if (rb_apply_series(&ar, repo, &commit, p, (size_t)n, &o) ||
		    !ar->ok) {
			fprintf(stderr,
				"bench_tools: the patches do not apply\n");
			return 1;
		}
		ctx.repo = ar->repo;
		ctx.tip_tree = &ar->tree;
	}
	if (rb_model_tools_new(&t, &ctx, &lim))
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		struct rb_buf out = RB_BUF_INIT(RB_BUF_NOLIMIT);
		char *tab = strchr(line, '\t');
		size_t len = strcspn(line, "\n");
		double t0;
		int ret;

		line[len] = 0;
		if (!tab)
			continue;
		*tab++ = 0;
		t0 = now_s();
		ret = rb_model_tools_call(t, line, tab, strlen(tab), &out);
		printf("%7.3f s  %s %s -> %d, %zu bytes: %.*s\n", now_s() - t0,
		       line, tab, ret, out.len, (int)strcspn(out.ptr, "\n"),
		       out.ptr);
		/* BENCH_TOOLS_FULL=1: the whole result as well. */
		if (getenv("BENCH_TOOLS_FULL"))
			printf("%s\n", out.ptr);
		fflush(stdout);
		rb_buf_release(&out);
	}
	rb_model_tools_free(t);
	rb_apply_result_free(ar);
	git_commit_free(c);
	git_object_free(obj);
	git_repository_free(repo);
	for (i = 0; i < n; i++)
		rb_buf_release(&pb[i]);
	free(pb);
	free(p);
	git_libgit2_shutdown();
	return 0;
}
