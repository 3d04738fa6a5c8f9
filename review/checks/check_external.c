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
 * "severity" to "low". A line that does not start with "{" may instead
 * be a compiler-style diagnostic, "FILE:LINE[:COL]: [warning: |error: ]
 * MESSAGE" (what most checkers print): a finding at that file and line
 * (severity medium for "error:", else low), attributed to the last patch
 * that changed the file. A timeout, a failure without output, or a line
 * that is neither is reported as a problem (a "checker-problem" finding
 * naming the line), never as a fatal error.
 *
 * With the base known, the command runs twice, on the applied tree and
 * on the base (TREE /in/base), and a finding of a file that the base's
 * run had too (same file, category and message, digits aside) is not
 * reported: only what the series adds. Findings of no file (about the
 * mails) are always reported.
 *
 * The command runs in the bubblewrap sandbox (review/checks/sandbox.h: no
 * network, cleared environment, uid nobody as root, rlimits), with the
 * mbox and the tree bound read-only at /in (so MBOX is /in/series.mbox
 * and TREE /in/tree). Its program must be visible there: under /usr or
 * /bin, or an absolute path elsewhere, which is copied (one file, as the
 * bot reads it) to /in/bin/NAME, the command's first word rewritten to
 * that. A program that needs files beside it belongs under /usr/local.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <jansson.h>

#include "review/checks/check_external.h"
#include "review/checks/check_util.h"
#include "review/checks/checks.h"
#include "review/checks/sandbox.h"
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
		       const char *text, size_t n_patches,
		       const struct rb_check_ctx *ctx)
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
		if (*cur != '{') {
			char *t = strndup(cur, n);
			const char *file, *msg;
			int ln;

			if (!t)
				return rb_err(RB_ENOMEM, "out of memory");
			if (rb_check_parse_loc(t, "/in/tree/", &file, &ln,
					       &msg)) {
				bool err = !strncmp(msg, "error: ", 7);

				if (!strncmp(msg, "warning: ", 9))
					msg += 9;
				else if (err)
					msg += 7;
				if (*msg && ++taken <= MAX_LINES)
					ret = rb_findings_add(
						out,
						&(struct rb_finding_spec){
							.checker = name,
							.category = "external",
							.severity =
								err ? RB_FSEV_MEDIUM :
								      RB_FSEV_LOW,
							.file = file,
							.line = ln,
							.message = msg,
							.patch_index =
								ctx ? rb_check_patch_of(
									      ctx,
									      file) :
								      0 });
				free(t);
				goto next;
			}
			free(t);
			problem = "not a JSON object nor FILE:LINE: MESSAGE";
			goto problem;
		}
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
					out,
					&(struct rb_finding_spec){
						.checker = name,
						.category = cat && *cat ?
								    cat :
								    "external",
						.severity = (enum rb_fsev)s,
						.file = jstr(o, "file"),
						.line = (int)ln,
						.code = jstr(o, "code"),
						.message = msg,
						.patch_index = (int)pi });
		}
problem:
		if (problem && !reported) {
			char m[512];

			snprintf(m, sizeof(m),
				 "The %s checker printed a bad line %d (%s); "
				 "its other lines were kept.",
				 name, lineno, problem);
			ret = rb_findings_add(
				out, &(struct rb_finding_spec){
					     .checker = name,
					     .category = "checker-problem",
					     .severity = RB_FSEV_INFO,
					     .message = m });
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
	return parse_lines(out, name, text, n_patches, NULL);
}

/*
 * The script run in the sandbox: "CMD "$@"", with CMD's first word
 * replaced by /in/bin/NAME when it is a program outside /usr and /bin,
 * copied there from the host into @dir/bin.
 */
static int external_script(char *script, size_t size, const char *cmd,
			   const char *dir)
{
	size_t w = strcspn(cmd, " \t");
	struct rb_buf prog = RB_BUF_INIT(64u << 20);
	char path[4200], dst[4400];
	const char *name;
	int ret;

	if (cmd[0] != '/' || !strncmp(cmd, "/usr/", 5) ||
	    !strncmp(cmd, "/bin/", 5)) {
		if (snprintf(script, size, "%s \"$@\"", cmd) >= (int)size)
			return rb_err(RB_ECONFIG, "external command too long");
		return 0;
	}
	if (w >= sizeof(path))
		return rb_err(RB_ECONFIG, "external command path too long");
	snprintf(path, sizeof(path), "%.*s", (int)w, cmd);
	name = strrchr(path, '/') + 1;
	if (!*name || !rb_check_plain_path(name))
		return rb_err(RB_ECONFIG, "bad external command '%s'", path);
	ret = rb_read_file(&prog, path);
	if (ret)
		return ret;
	snprintf(dst, sizeof(dst), "%s/bin", dir);
	if (mkdir(dst, 0755) && errno != EEXIST)
		ret = rb_err(RB_EIO, "mkdir %s: %s", dst, strerror(errno));
	snprintf(dst, sizeof(dst), "%s/bin/%s", dir, name);
	if (!ret)
		ret = rb_write_file_atomic(dst, prog.ptr, prog.len, 0755);
	rb_buf_release(&prog);
	if (ret)
		return ret;
	if (snprintf(script, size, "/in/bin/%s%s \"$@\"", name, cmd + w) >=
	    (int)size)
		return rb_err(RB_ECONFIG, "external command too long");
	return 0;
}

/*
 * The findings of @now that the base's run did not have: a finding of a
 * file is the base's when the base run had one of that file and category
 * with the same message (digits aside), each base finding taken once.
 * Findings of no file (about the mail) and problems always pass.
 */
static int delta(struct rb_findings *out, const struct rb_findings *now,
		 const struct rb_findings *before)
{
	bool *used = calloc(before->n ? before->n : 1, sizeof(*used));
	size_t i, k;
	int ret = 0;

	if (!used)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < now->n && !ret; i++) {
		const struct rb_finding *f = &now->v[i];
		bool old = false;

		for (k = 0; f->file && !old && k < before->n; k++) {
			const struct rb_finding *g = &before->v[k];

			old = !used[k] && g->file &&
			      !strcmp(g->file, f->file) &&
			      !strcmp(g->category, f->category) &&
			      rb_check_same_but_digits(g->message, f->message);
			if (old)
				used[k] = true;
		}
		if (!old)
			ret = rb_findings_add_copy(out, f);
	}
	free(used);
	return ret;
}

/* One run of the command in the sandbox on /in/@tree (or no tree). */
static int run_once(struct rb_proc_result *res, const struct rb_check_ctx *ctx,
		    const char *dir, const char *script, const char *tree)
{
	struct rb_sandbox_opts so = RB_SANDBOX_OPTS_INIT;
	struct rb_sandbox_bind bind = { dir, "/in", false };
	const char *argv[7];

	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = "sh";
	argv[4] = "/in/series.mbox";
	argv[5] = tree;
	argv[6] = NULL;
	so.binds = &bind;
	so.n_binds = 1;
	so.chdir = "/in";
	so.timeout_seconds = rb_check_time_left_ms(ctx, 600000) / 1000 + 1;
	so.max_output = 8u << 20;
	so.split_stderr = true;
	return rb_sandbox_exec(res, &so, argv);
}

static int run(const struct rb_check_ctx *ctx, struct rb_findings *out)
{
	const struct rb_check_opts *o = ctx->opts;
	const char *name = o->external_name ? o->external_name : "external";
	char tmpl[] = "/tmp/rb-external-XXXXXX";
	char *dir = NULL, mbox[4096], tree[4096], base[4096], script[8192];
	struct rb_findings now = { 0 }, before = { 0 };
	git_repository *repo = NULL;
	struct rb_proc_result res, rb;
	bool have_res = false, have_rb = false, with_base = false;
	int ret = 0;

	if (!o->external_cmd)
		return rb_err(RB_ECONFIG, "no external command is configured");
	if (!rb_sandbox_available())
		return rb_err(RB_EFAIL,
			      "bwrap cannot create a sandbox on this machine, "
			      "and the %s checker never runs outside one",
			      name);
	dir = mkdtemp(tmpl);
	if (!dir) {
		ret = rb_err(RB_EIO, "mkdtemp: %s", strerror(errno));
		goto out;
	}
	/* Read by uid 65534 in the sandbox when we are root. */
	chmod(dir, 0755);
	ret = external_script(script, sizeof(script), o->external_cmd, dir);
	if (ret)
		goto out;
	snprintf(mbox, sizeof(mbox), "%s/series.mbox", dir);
	ret = write_mbox(mbox, ctx);
	if (!ret)
		chmod(mbox, 0644);
	if (ret)
		goto out;
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	snprintf(base, sizeof(base), "%s/base", dir);
	if (ctx->repo_path && ctx->has_applied) {
		ret = rb_check_repo_open(&repo, ctx);
		/*
		 * With the base, the command runs on both trees and only what
		 * the series adds is reported; the applied tree is the base's
		 * checkout with hard links, the changed files written anew.
		 */
		with_base = ctx->has_base;
		if (!ret && with_base)
			ret = rb_tree_checkout(repo, &ctx->base, base);
		if (!ret && with_base)
			ret = rb_tree_overlay(repo, &ctx->base, &ctx->applied,
					      base, tree);
		else if (!ret)
			ret = rb_tree_checkout(repo, &ctx->applied, tree);
	} else if (mkdir(tree, 0755)) {
		ret = rb_err(RB_EIO, "mkdir %s: %s", tree, strerror(errno));
	}
	if (ret)
		goto out;
	ret = run_once(&res, ctx, dir, script,
		       ctx->has_applied ? "/in/tree" : "");
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
	ret = parse_lines(&now, name, res.out.ptr, ctx->n_patches, ctx);
	/* The base's run: what it says of a file is not the series'. */
	if (!ret && with_base) {
		ret = run_once(&rb, ctx, dir, script, "/in/base");
		have_rb = !ret;
		if (!ret && !rb.timed_out)
			ret = parse_lines(&before, name, rb.out.ptr,
					  ctx->n_patches, ctx);
	}
	if (!ret)
		ret = delta(out, &now, &before);
out:
	if (have_res)
		rb_proc_result_release(&res);
	if (have_rb)
		rb_proc_result_release(&rb);
	rb_findings_release(&now);
	rb_findings_release(&before);
	if (dir)
		rb_remove_tree(dir);
	git_repository_free(repo);
	return ret;
}

const struct rb_checker_ops rb_check_external_ops = {
	.name = "external",
	.label = "external",
	.version = "1",
	.run = run,
};
