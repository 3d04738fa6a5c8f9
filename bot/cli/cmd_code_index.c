// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_code_index.c - "reviewbot code-index": loads the word index of a
 * tree (review/code_index.h) from its directory, or builds it there, and
 * says how and what it cost; then, for each word given, how many blobs
 * hold it and how many a grep for it reads, with the time of each
 * lookup. Warms the index of a base before the daemon needs it, and
 * measures it (bench/code-index.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <git2.h>

#include "bot/cli/cli.h"
#include "review/code_index.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

static const char usage[] =
	"usage: reviewbot code-index --tree REPO [--rev REV] "
	"[--cache-dir DIR] [WORD...]\n\n"
	"Loads the word index of REV's tree (default HEAD) from DIR, or "
	"builds it\n"
	"there from the nearest index DIR holds, reading only the blobs "
	"that one\n"
	"lacks, and prints how, its size and the time taken. For each "
	"WORD, how\n"
	"many blobs hold it and how many a grep for it reads, with the "
	"time of each\n"
	"lookup. REPO is only read.\n\n"
	"  --tree REPO       a git repository\n"
	"  --rev REV         the revision whose tree is indexed (default "
	"HEAD)\n"
	"  --cache-dir DIR   where the index files are (default "
	"$XDG_CACHE_HOME or\n"
	"                    ~/.cache, then reviewbot/code-index)\n\n"
	"Exit: 0 done, 1 the tree or the index failed, 2 usage.\n";

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One WORD: the blobs that hold it, those a grep reads. */
static int lookup(const struct rb_code_index *ix, const char *w)
{
	uint8_t *bits = NULL;
	size_t n, reads = 0, i;
	double t0 = now_s(), t1, t2;

	n = rb_code_index_word_blobs(ix, w, strlen(w));
	t1 = now_s();
	if (rb_code_index_cand(&bits, ix, w, strlen(w), false))
		return -RB_ENOMEM;
	t2 = now_s();
	for (i = 0; bits && i < rb_code_index_nblobs(ix); i++)
		reads += !!(bits[i >> 3] & (1u << (i & 7)));
	if (!bits)
		reads = rb_code_index_nblobs(ix);
	printf("%s: in %zu blobs (%.3f ms); a grep reads %zu (%.3f ms)\n", w, n,
	       (t1 - t0) * 1e3, reads, (t2 - t1) * 1e3);
	free(bits);
	return 0;
}

int cmd_code_index(int argc, char **argv)
{
	const char *tree = NULL, *rev = "HEAD", *dir = NULL;
	const struct rb_cli_opt opts[] = {
		{ "tree", 0, &tree },
		{ "rev", 0, &rev },
		{ "cache-dir", 0, &dir },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, opts };
	struct rb_code_index_stats st;
	struct rb_code_index *ix = NULL;
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_commit *c = NULL;
	char hex[GIT_OID_HEXSZ + 1], from[GIT_OID_HEXSZ + 1];
	int ret, i;

	ret = rb_cli_parse(&args, argc, argv);
	if (ret != RB_CLI_GO)
		return ret;
	ret = RB_EXIT_OK;
	if (!tree) {
		fputs(usage, stderr);
		return RB_EXIT_USAGE;
	}
	rb_log_set_quiet(1);
	git_libgit2_init();
	if (git_repository_open_ext(&repo, tree, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0 ||
	    git_revparse_single(&obj, repo, rev) < 0 ||
	    git_commit_lookup(&c, repo, git_object_id(obj)) < 0) {
		fprintf(stderr, "reviewbot: code-index: cannot read %s of %s\n",
			rev, tree);
		ret = RB_EXIT_FAIL;
		goto out;
	}
	if (dir && rb_code_index_set_dir(dir)) {
		ret = RB_EXIT_FAIL;
		goto out;
	}
	if (rb_code_index_get(&ix, repo, git_commit_tree_id(c))) {
		fprintf(stderr, "reviewbot: code-index: %s\n", rb_errmsg());
		ret = RB_EXIT_FAIL;
		goto out;
	}
	rb_code_index_get_stats(ix, &st);
	git_oid_tostr(hex, sizeof(hex), git_commit_tree_id(c));
	git_oid_tostr(from, sizeof(from), &st.from);
	printf("tree %s: %s%s%s in %.3f s: %u blobs, %u words, %llu bytes; "
	       "%u blobs read (%llu bytes)\n",
	       hex, st.how, strcmp(st.how, "updated") ? "" : " from ",
	       strcmp(st.how, "updated") ? "" : from, st.seconds, st.blobs,
	       st.words, (unsigned long long)st.file_bytes, st.read_blobs,
	       (unsigned long long)st.read_bytes);
	for (i = optind; i < argc; i++)
		if (lookup(ix, argv[i])) {
			fprintf(stderr, "reviewbot: code-index: %s\n",
				rb_errmsg());
			ret = RB_EXIT_FAIL;
			break;
		}
out:
	rb_code_index_put(ix);
	git_commit_free(c);
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}
