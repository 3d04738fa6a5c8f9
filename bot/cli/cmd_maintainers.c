// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_maintainers.c - "reviewbot maintainers": MAINTAINERS lookup with
 * the output of scripts/get_maintainer.pl --nogit --nogit-fallback
 * --norolestats (or, with --roles, of --nogit --nogit-fallback), read
 * from a git tree's blobs (review/maintainers.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/cli/cli.h"
#include "review/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

#define PATCH_MAX (64u << 20)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: reviewbot maintainers --tree KERNEL [--rev REV] "
		"[--roles] [--sections]\n"
		"                             [--each] PATCH...\n"
		"       reviewbot maintainers --tree KERNEL [--rev REV] "
		"[--roles] [--sections]\n"
		"                             --file PATH...\n"
		"       reviewbot maintainers --maintainers FILE [--mailmap "
		"FILE] [--dir DIR] ...\n\n"
		"Prints who gets a patch, byte for byte as the tree's\n"
		"scripts/get_maintainer.pl --nogit --nogit-fallback "
		"--norolestats\n"
		"prints it when run from the tree's top. MAINTAINERS and "
		".mailmap\n"
		"are read from the git tree of REV (default HEAD), never from "
		"a worktree.\n\n"
		"  --tree KERNEL      a kernel git repository\n"
		"  --rev REV          the revision to read (default HEAD)\n"
		"  --roles            add the roles, as get_maintainer's "
		"default output\n"
		"  --sections         print the touched sections instead: "
		"name, status,\n"
		"                     trees, lists, maintainers, reviewers\n"
		"  --each             one lookup per PATCH, each output after "
		"a line\n"
		"                     \"==> PATCH <==\" (without it, all PATCH "
		"arguments\n"
		"                     make one lookup, as in one "
		"get_maintainer run)\n"
		"  --file             the arguments are paths in the tree "
		"(get_maintainer -f)\n"
		"  --cache-dir DIR    keep the parsed index there (default "
		"$XDG_CACHE_HOME\n"
		"                     or ~/.cache, then reviewbot/maintainers)\n"
		"  --no-cache         parse MAINTAINERS every time\n"
		"  --maintainers FILE, --mailmap FILE, --dir DIR\n"
		"                     read plain files instead of a git tree "
		"(tests)\n"
		"PATCH may be \"-\" for standard input. Exit codes: 0 success, "
		"1 a file\n"
		"could not be read, 2 usage.\n");
}

/* $XDG_CACHE_HOME/reviewbot/maintainers, or under ~/.cache; NULL
 * when neither is set.
 */
static int default_cache_dir(struct rb_buf *b)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");

	if (x && *x == '/')
		return rb_buf_printf(b, "%s/reviewbot/maintainers", x);
	if (h && *h == '/')
		return rb_buf_printf(b, "%s/.cache/reviewbot/maintainers", h);
	return 0;
}

static int read_input(struct rb_buf *b, const char *path)
{
	if (!strcmp(path, "-"))
		return rb_read_fd(b, STDIN_FILENO);
	return rb_read_file(b, path);
}

static int emit(struct rb_buf *out, const struct rb_maint_result *r, bool roles,
		bool sections)
{
	if (sections)
		return rb_maint_format_sections(out, r);
	return rb_maint_format(out, r, roles ? RB_MAINT_FMT_ROLES : 0);
}

/* One lookup over @paths (patches, or tree paths with @files). */
static int run_one(struct rb_buf *out, const struct rb_maint *m, char **paths,
		   int n, bool files, bool roles, bool sections)
{
	struct rb_maint_query *q = NULL;
	struct rb_maint_result *r = NULL;
	struct rb_buf in = RB_BUF_INIT(PATCH_MAX);
	int i, err;

	err = rb_maint_query_new(&q, m);
	for (i = 0; !err && i < n; i++) {
		if (files) {
			err = rb_maint_query_add_path(q, paths[i]);
			continue;
		}
		rb_buf_reset(&in);
		err = read_input(&in, paths[i]);
		if (!err)
			err = rb_maint_query_add_patch(q, in.ptr, in.len);
	}
	if (!err)
		err = rb_maint_query_run(&r, q);
	if (!err)
		err = emit(out, r, roles, sections);
	rb_maint_result_free(r);
	rb_maint_query_free(q);
	rb_buf_release(&in);
	return err;
}

int cmd_maintainers(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "rev", required_argument, NULL, 'r' },
		{ "roles", no_argument, NULL, 'R' },
		{ "sections", no_argument, NULL, 's' },
		{ "each", no_argument, NULL, 'e' },
		{ "file", no_argument, NULL, 'f' },
		{ "maintainers", required_argument, NULL, 'm' },
		{ "mailmap", required_argument, NULL, 'M' },
		{ "dir", required_argument, NULL, 'd' },
		{ "cache-dir", required_argument, NULL, 'c' },
		{ "no-cache", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tree = NULL, *rev = NULL, *mfile = NULL, *mailmap = NULL,
		   *dir = NULL, *cache = NULL;
	bool roles = false, sections = false, each = false, files = false,
	     no_cache = false;
	struct rb_buf cachebuf = RB_BUF_INIT(4096);
	struct rb_maint *m = NULL;
	struct rb_buf out = RB_BUF_INIT(RB_BUF_NOLIMIT);
	int c, i, err, ret = RB_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			tree = optarg;
			break;
		case 'r':
			rev = optarg;
			break;
		case 'R':
			roles = true;
			break;
		case 's':
			sections = true;
			break;
		case 'e':
			each = true;
			break;
		case 'f':
			files = true;
			break;
		case 'm':
			mfile = optarg;
			break;
		case 'M':
			mailmap = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'c':
			cache = optarg;
			break;
		case 'C':
			no_cache = true;
			break;
		case 'h':
			usage(stdout);
			return RB_EXIT_OK;
		default:
			usage(stderr);
			return RB_EXIT_USAGE;
		}
	}
	if ((!tree == !mfile) || optind >= argc) {
		usage(stderr);
		return RB_EXIT_USAGE;
	}
	if (!cache && !no_cache && !default_cache_dir(&cachebuf) &&
	    cachebuf.len)
		cache = cachebuf.ptr;
	if (tree)
		err = rb_maint_load_git_cached(&m, tree, rev,
					       no_cache ? NULL : cache);
	else
		err = rb_maint_load_file(&m, mfile, mailmap, dir);
	rb_buf_release(&cachebuf);
	if (err) {
		fprintf(stderr, "reviewbot maintainers: %s\n", rb_errmsg());
		return RB_EXIT_FAIL;
	}
	if (*rb_maint_warnings(m))
		fprintf(stderr, "reviewbot maintainers: patterns ignored:\n%s",
			rb_maint_warnings(m));
	if (!each) {
		err = run_one(&out, m, argv + optind, argc - optind, files,
			      roles, sections);
		if (err) {
			fprintf(stderr, "reviewbot maintainers: %s\n",
				rb_errmsg());
			ret = RB_EXIT_FAIL;
		}
	} else {
		for (i = optind; i < argc; i++) {
			size_t mark;

			if (rb_buf_printf(&out, "==> %s <==\n", argv[i])) {
				ret = RB_EXIT_FAIL;
				break;
			}
			mark = out.len;
			err = run_one(&out, m, argv + i, 1, files, roles,
				      sections);
			if (err) {
				rb_buf_truncate(&out, mark);
				fprintf(stderr,
					"reviewbot maintainers: %s: %s\n",
					argv[i], rb_errmsg());
				ret = RB_EXIT_FAIL;
			}
		}
	}
	if (fwrite(out.ptr, 1, out.len, stdout) != out.len || fflush(stdout)) {
		fprintf(stderr, "reviewbot maintainers: write failed\n");
		ret = RB_EXIT_FAIL;
	}
	rb_buf_release(&out);
	rb_maint_free(m);
	return ret;
}
