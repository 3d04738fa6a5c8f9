// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_code_index.c - "reviewbot code-index": loads the word index of a
 * tree (review/code/code_index.h) from its directory, or builds it there, and
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
#include "review/code/code_index.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

static const char usage[] =
	"usage: reviewbot code-index --tree REPO [--rev REV[,REV...]] "
	"[--cache-dir DIR]\n"
	"                            [WORD...]\n\n"
	"Loads the word index of each REV's tree (default HEAD) from DIR, "
	"or builds\n"
	"it there from the nearest index DIR holds, reading only the blobs "
	"that one\n"
	"lacks, and prints how, its size and the time taken. For each WORD, "
	"how\n"
	"many blobs hold it and how many a grep for it reads, with the time "
	"of each\n"
	"lookup. With several REVs, all are kept open and the process's "
	"memory is\n"
	"printed after each. REPO is only read.\n\n"
	"  --tree REPO       a git repository\n"
	"  --rev REV,...     the revisions whose trees are indexed (default "
	"HEAD)\n"
	"  --cache-dir DIR   where the index files are (default "
	"$XDG_CACHE_HOME or\n"
	"                    ~/.cache, then reviewbot/code-index)\n\n"
	"Exit: 0 done, 1 a tree or its index failed, 2 usage.\n";

/* The process's memory, from /proc/self/status, in one line. */
static void print_rss(size_t n)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long rss = 0, anon = 0, file = 0;

	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", &rss);
		sscanf(line, "RssAnon: %ld", &anon);
		sscanf(line, "RssFile: %ld", &file);
	}
	if (f)
		fclose(f);
	printf("rss with %zu open: %.1f MiB (anon %.1f, file %.1f)\n", n,
	       rss / 1024.0, anon / 1024.0, file / 1024.0);
}

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

/* One REV: its index opened into *@out, said, looked up in. */
static int one_rev(struct rb_code_index **out, git_repository *repo,
		   const char *rev, int nw, char **words)
{
	struct rb_code_index_stats st;
	git_object *obj = NULL;
	git_commit *c = NULL;
	char hex[GIT_OID_HEXSZ + 1], from[GIT_OID_HEXSZ + 1];
	int ret = 0, i;

	if (git_revparse_single(&obj, repo, rev) < 0 ||
	    git_commit_lookup(&c, repo, git_object_id(obj)) < 0) {
		fprintf(stderr, "reviewbot: code-index: no commit %s\n", rev);
		ret = -RB_ENOTFOUND;
		goto out;
	}
	ret = rb_code_index_get(out, repo, git_commit_tree_id(c));
	if (ret) {
		fprintf(stderr, "reviewbot: code-index: %s\n", rb_errmsg());
		goto out;
	}
	rb_code_index_get_stats(*out, &st);
	git_oid_tostr(hex, sizeof(hex), git_commit_tree_id(c));
	git_oid_tostr(from, sizeof(from), &st.from);
	printf("%s tree %s: %s%s%s in %.3f s: %u blobs, %u words, %llu "
	       "bytes; %u blobs read (%llu bytes)\n",
	       rev, hex, st.how, strcmp(st.how, "updated") ? "" : " from ",
	       strcmp(st.how, "updated") ? "" : from, st.seconds, st.blobs,
	       st.words, (unsigned long long)st.file_bytes, st.read_blobs,
	       (unsigned long long)st.read_bytes);
	for (i = 0; i < nw && !ret; i++) {
		ret = lookup(*out, words[i]);
		if (ret)
			fprintf(stderr, "reviewbot: code-index: %s\n",
				rb_errmsg());
	}
out:
	git_commit_free(c);
	git_object_free(obj);
	return ret;
}

int cmd_code_index(int argc, char **argv)
{
	const char *tree = NULL, *revs = "HEAD", *dir = NULL;
	const struct rb_cli_opt opts[] = {
		{ "tree", 0, &tree },
		{ "rev", 0, &revs },
		{ "cache-dir", 0, &dir },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, opts };
	struct rb_code_index *ix[64] = { 0 };
	git_repository *repo = NULL;
	char *list = NULL, *save = NULL, *rev;
	size_t n = 0, i;
	int ret;

	ret = rb_cli_parse(&args, argc, argv);
	if (ret != RB_CLI_GO)
		return ret;
	ret = RB_EXIT_OK;
	if (!tree) {
		fputs(usage, stderr);
		return RB_EXIT_USAGE;
	}
	rb_log_set_quiet(1);
	list = strdup(revs);
	if (!list ||
	    git_repository_open_ext(&repo, tree, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0) {
		fprintf(stderr, "reviewbot: code-index: cannot read %s\n",
			tree);
		ret = RB_EXIT_FAIL;
		goto out;
	}
	if (dir && rb_code_index_set_dir(dir)) {
		ret = RB_EXIT_FAIL;
		goto out;
	}
	for (rev = strtok_r(list, ",", &save); rev && n < 64;
	     rev = strtok_r(NULL, ",", &save)) {
		if (one_rev(&ix[n], repo, rev, argc - optind, argv + optind)) {
			ret = RB_EXIT_FAIL;
			break;
		}
		n++;
		if (strchr(revs, ','))
			print_rss(n);
	}
out:
	for (i = 0; i < n; i++)
		rb_code_index_put(ix[i]);
	free(list);
	git_repository_free(repo);
	return ret;
}
