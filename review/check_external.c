// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_external.c - the "external" checker: a command from the config,
 * run as "/bin/sh -c 'CMD "$@"' sh MBOX TREE", where MBOX is the series as
 * an mbox (mboxrd) and TREE a checkout of the applied commit (or "" when
 * there is none). It prints findings as JSON lines:
 *
 *   {"severity":"low","category":"x","file":"mm/a.c","line":3,
 *    "code":"+...","message":"...","patch":1}
 *
 * Only "message" is required; "category" defaults to "external" and
 * "severity" to "low". A timeout, a failure without output, or a line
 * that is not such an object is reported as a problem (a
 * "checker-problem" finding naming the line), never as a fatal error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>
#include <jansson.h>

#include "review/check_external.h"
#include "review/checks.h"
#include "review/sandbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

#define MAX_LINES 1000 /* findings taken from one run */

/* mboxrd (RFC 4155): "From " lines, and ">From " quoting of any depth. */
static int write_mbox(const char *path, const struct rb_check_ctx *ctx)
{
	struct rb_buf b = RB_BUF_INIT(1u << 30);
	size_t i;
	int ret = 0;

	for (i = 0; i < ctx->n_patches && !ret; i++) {
		const char *p = ctx->patches[i].raw;
		const char *end = p + ctx->patches[i].raw_len;

		ret = rb_buf_puts(&b,
				  "From reviewbot Thu Jan  1 00:00:00 1970\n");
		while (!ret && p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
			size_t q = 0;

			while (q < n && p[q] == '>')
				q++;
			if (n - q >= 5 && !memcmp(p + q, "From ", 5))
				ret = rb_buf_putc(&b, '>');
			if (!ret)
				ret = rb_buf_add(&b, p, n);
			if (!ret)
				ret = rb_buf_putc(&b, '\n');
			p += n + 1;
		}
		if (!ret)
			ret = rb_buf_putc(&b, '\n');
	}
	if (!ret)
		ret = rb_write_file_atomic(path, b.ptr, b.len, 0600);
	rb_buf_release(&b);
	return ret;
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Parses the JSON lines; problems are added as findings. */
static int parse_lines(struct rb_findings *out, const char *name,
		       const char *text, size_t n_patches)
{
	const char *cur = text;
	int lineno = 0, taken = 0, ret = 0;
	bool reported = false;

	while (*cur && !ret) {
		const char *nl = strchr(cur, '\n');
		size_t n = nl ? (size_t)(nl - cur) : strlen(cur);
		const char *problem = NULL;
		json_error_t jerr;
		json_t *o = NULL;

		lineno++;
		if (strspn(cur, " \t\r") >= n)
			goto next;
		o = json_loadb(cur, n, JSON_REJECT_DUPLICATES, &jerr);
		if (!json_is_object(o)) {
			problem = o ? "not a JSON object" : jerr.text;
		} else {
			const char *msg = jstr(o, "message");
			const char *cat = jstr(o, "category");
			const char *sev = jstr(o, "severity");
			json_t *line = json_object_get(o, "line");
			json_t *patch = json_object_get(o, "patch");
			int s = sev ? rb_fsev_parse(sev) : RB_FSEV_LOW;
			long long ln = json_is_integer(line) ?
					       json_integer_value(line) :
					       0;
			long long pi = json_is_integer(patch) ?
					       json_integer_value(patch) :
					       0;

			if (!msg || !*msg)
				problem = "no \"message\"";
			else if (s < 0)
				problem = "unknown \"severity\"";
			else if (ln < 0 || ln > 10000000 || pi < 0 ||
				 (size_t)pi > n_patches)
				problem = "\"line\" or \"patch\" out of range";
			else if (++taken <= MAX_LINES)
				ret = rb_findings_add(
					out, name, NULL,
					cat && *cat ? cat : "external",
					(enum rb_fsev)s, jstr(o, "file"),
					(int)ln, jstr(o, "code"), msg, (int)pi);
		}
		if (problem && !reported) {
			char m[512];

			snprintf(m, sizeof(m),
				 "The %s checker printed a bad line %d (%s); "
				 "its other lines were kept.",
				 name, lineno, problem);
			ret = rb_findings_add(out, name, NULL,
					      "checker-problem", RB_FSEV_INFO,
					      NULL, 0, NULL, m, 0);
			reported = true;
		}
		json_decref(o);
next:
		cur += n + (nl ? 1 : 0);
	}
	return ret;
}

int rb_external_parse(struct rb_findings *out, const char *name,
		      const char *text, size_t n_patches)
{
	return parse_lines(out, name, text, n_patches);
}

static int run(const struct rb_check_ctx *ctx, struct rb_findings *out)
{
	const struct rb_check_opts *o = ctx->opts;
	const char *name = o->external_name ? o->external_name : "external";
	char tmpl[] = "/tmp/rb-external-XXXXXX";
	char *dir = NULL, mbox[4096], tree[4096], script[8192];
	const char *argv[7];
	git_repository *repo = NULL;
	struct rb_proc_opts po = RB_PROC_OPTS_INIT;
	struct rb_proc_result res;
	bool have_res = false;
	int ret = 0;

	if (!o->external_cmd)
		return rb_err(RB_ECONFIG, "no external command is configured");
	git_libgit2_init();
	dir = mkdtemp(tmpl);
	if (!dir) {
		ret = rb_err(RB_EIO, "mkdtemp: %s", strerror(errno));
		goto out;
	}
	if (ctx->mbox_path) {
		snprintf(mbox, sizeof(mbox), "%s", ctx->mbox_path);
	} else {
		snprintf(mbox, sizeof(mbox), "%s/series.mbox", dir);
		ret = write_mbox(mbox, ctx);
		if (ret)
			goto out;
	}
	tree[0] = '\0';
	if (ctx->repo_path && ctx->has_applied) {
		ret = rb_check_repo_open(&repo, ctx);
		if (ret)
			goto out;
		snprintf(tree, sizeof(tree), "%s/tree", dir);
		ret = rb_tree_checkout(repo, &ctx->applied, tree);
		if (ret)
			goto out;
	}
	snprintf(script, sizeof(script), "%s \"$@\"", o->external_cmd);
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = "sh";
	argv[4] = mbox;
	argv[5] = tree;
	argv[6] = NULL;
	po.argv = argv;
	po.cwd = dir;
	po.timeout_ms = rb_check_time_left_ms(ctx, 600000);
	po.max_output = 8u << 20;
	ret = rb_proc_run(&res, &po);
	if (ret)
		goto out;
	have_res = true;
	if (res.timed_out) {
		ret = rb_err(RB_ETIMEOUT, "%s did not finish within %d s", name,
			     o->timeout_seconds);
		goto out;
	}
	if (res.exit_code && !res.out.len) {
		ret = rb_err(RB_EFAIL, "%s failed (exit %d): %.300s", name,
			     res.exit_code, res.err.ptr);
		goto out;
	}
	ret = parse_lines(out, name, res.out.ptr, ctx->n_patches);
out:
	if (have_res)
		rb_proc_result_release(&res);
	if (dir)
		rb_remove_tree(dir);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

const struct rb_checker_ops rb_check_external_ops = {
	.name = "external",
	.version = "1",
	.run = run,
};
