// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_maintainers.c - "reviewbot maintainers": MAINTAINERS lookup with
 * the output of scripts/get_maintainer.pl --nogit --nogit-fallback
 * --norolestats (or, with --roles, of --nogit --nogit-fallback), read
 * from a git tree's blobs (review/maint/maintainers.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/cli/cli.h"
#include "bot/cli/cmd_maintainers.h"
#include "review/maint/maintainers.h"
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

/* Fills @o from the command line: -1, or the exit code to return. */
static int parse_opts(struct maint_opts *o, int argc, char **argv)
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
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			o->tree = optarg;
			break;
		case 'r':
			o->rev = optarg;
			break;
		case 'R':
			o->roles = true;
			break;
		case 's':
			o->sections = true;
			break;
		case 'e':
			o->each = true;
			break;
		case 'f':
			o->files = true;
			break;
		case 'm':
			o->mfile = optarg;
			break;
		case 'M':
			o->mailmap = optarg;
			break;
		case 'd':
			o->dir = optarg;
			break;
		case 'c':
			o->cache = optarg;
			break;
		case 'C':
			o->no_cache = true;
			break;
		case 'h':
			usage(stdout);
			return RB_EXIT_OK;
		default:
			usage(stderr);
			return RB_EXIT_USAGE;
		}
	}
	if ((!o->tree == !o->mfile) || optind >= argc) {
		usage(stderr);
		return RB_EXIT_USAGE;
	}
	o->args = argv + optind;
	o->nargs = argc - optind;
	return -1;
}

/* Every lookup of @o (one, or one per argument with --each) into @out,
 * and the reasons of those that failed into @errs: the exit code.
 */
int rb_cli_maint_lookups(struct rb_buf *out, struct rb_buf *errs,
			 const struct rb_maint *m, const struct maint_opts *o)
{
	int i, ret = RB_EXIT_OK;

	if (!o->each) {
		if (run_one(out, m, o->args, o->nargs, o->files, o->roles,
			    o->sections)) {
			(void)rb_buf_printf(errs, "reviewbot maintainers: %s\n",
					    rb_errmsg());
			ret = RB_EXIT_FAIL;
		}
		return ret;
	}
	for (i = 0; i < o->nargs; i++) {
		size_t mark;

		if (rb_buf_printf(out, "==> %s <==\n", o->args[i]))
			return RB_EXIT_FAIL;
		mark = out->len;
		if (run_one(out, m, o->args + i, 1, o->files, o->roles,
			    o->sections)) {
			rb_buf_truncate(out, mark);
			(void)rb_buf_printf(errs,
					    "reviewbot maintainers: %s: %s\n",
					    o->args[i], rb_errmsg());
			ret = RB_EXIT_FAIL;
		}
	}
	return ret;
}

/*
 * The lookups from the cache alone, without libgit2 (whose set-up and
 * loading were two thirds of a one-shot run): possible for HEAD when an
 * earlier run cached it and the lookups ask nothing else of the tree.
 * 0 with @out and @errs filled, or -1: do it with git.
 */
static int quick(struct rb_buf *out, struct rb_buf *errs,
		 const struct maint_opts *o, int *ret)
{
	struct rb_maint *m = NULL;

	if (!o->tree || !o->cache || o->files ||
	    (o->rev && strcmp(o->rev, "HEAD")) ||
	    rb_maint_load_cache_only(&m, o->tree, o->cache))
		return -1;
	*ret = rb_cli_maint_lookups(out, errs, m, o);
	if (rb_maint_incomplete(m)) {
		rb_buf_reset(out);
		rb_buf_reset(errs);
		rb_maint_free(m);
		return -1;
	}
	if (*rb_maint_warnings(m))
		fprintf(stderr, "reviewbot maintainers: patterns ignored:\n%s",
			rb_maint_warnings(m));
	rb_maint_free(m);
	return 0;
}

/* Prints what the lookups made: @errs, then @out. */
static int emit_all(const struct rb_buf *out, const struct rb_buf *errs,
		    int ret)
{
	fputs(errs->len ? errs->ptr : "", stderr);
	if (fwrite(out->ptr, 1, out->len, stdout) != out->len ||
	    fflush(stdout)) {
		fprintf(stderr, "reviewbot maintainers: write failed\n");
		ret = RB_EXIT_FAIL;
	}
	return ret;
}

int rb_cli_maintainers(int argc, char **argv,
		       int (*full)(struct rb_buf *out, struct rb_buf *errs,
				   const struct maint_opts *o))
{
	struct maint_opts o = { 0 };
	struct rb_buf cachebuf = RB_BUF_INIT(4096);
	struct rb_buf out = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf errs = RB_BUF_INIT(RB_BUF_NOLIMIT);
	int ret;

	ret = parse_opts(&o, argc, argv);
	if (ret >= 0)
		return ret;
	if (!o.cache && !o.no_cache && !default_cache_dir(&cachebuf) &&
	    cachebuf.len)
		o.cache = cachebuf.ptr;
	if (o.no_cache)
		o.cache = NULL;
	if (!quick(&out, &errs, &o, &ret))
		ret = emit_all(&out, &errs, ret);
	else if (full)
		ret = emit_all(&out, &errs, full(&out, &errs, &o));
	else
		ret = -1;
	rb_buf_release(&cachebuf);
	rb_buf_release(&out);
	rb_buf_release(&errs);
	return ret;
}
