// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_kdoc.c - the "kernel-doc" checker. The files the series adds or
 * changes (.c and .h, up to 64) are written out twice, as in the base
 * (/src/b) and with the series applied (/src/a), and scripts/kernel-doc
 * of the configured branch tip (never the base's nor the patched tree's:
 * the sender controls those) reads them with "-none", as a W=1 build
 * runs it, in the sandbox (review/checks/sandbox.h). A warning is new when the
 * base's run of that file did not have it (compared without digits). The
 * warnings of one line of the patched file
 * (a comment's wrong parameter gives "not described" and "Excess") are
 * one finding.
 *
 * Only the changed files are written, never the tree: kernel-doc reads
 * nothing else. A series that changes no C file or header costs nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "review/checks/check_kdoc.h"
#include "review/checks/check_util.h"
#include "review/checks/checks.h"
#include "review/checks/sandbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define CHECKER "kernel-doc"
#define VERSION "1"
#define MAX_FILES 64
#define SPLIT "rb-kdoc-applied"

/* A finding of this checker: @s says where and what, the rest is fixed. */
static int add_finding(struct rb_findings *out, struct rb_finding_spec s)
{
	s.checker = CHECKER;
	s.checker_version = VERSION;
	s.category = "kernel-doc";
	s.severity = RB_FSEV_LOW;
	return rb_findings_add(out, &s);
}

int rb_kdoc_parse(struct rb_findings *out, const char *text, char *const *files,
		  size_t n_files)
{
	const char *cur = text;
	int ret = 0;
	size_t lines = 0;

	while (*cur && !ret && lines++ < 200000) {
		const char *nl = strchr(cur, '\n');
		size_t n = nl ? (size_t)(nl - cur) : strlen(cur);
		char *s = strndup(cur, n);
		const char *file, *msg, *level = NULL;
		int line;

		cur += n + (nl ? 1 : 0);
		if (!s)
			return rb_err(RB_ENOMEM, "out of memory");
		if (rb_check_parse_loc(s, NULL, &file, &line, &msg)) {
			if (!strncmp(msg, "warning: ", 9))
				level = "warning";
			else if (!strncmp(msg, "error: ", 7))
				level = "error";
		}
		if (level && files) {
			size_t i;

			for (i = 0; i < n_files && strcmp(files[i], file); i++)
				;
			if (i == n_files)
				level = NULL;
		}
		if (level && out->n < 10000) {
			const char *m = msg + strlen(level) + 2;

			ret = add_finding(
				out, (struct rb_finding_spec){ .file = file,
							       .line = line,
							       .code = msg,
							       .message = m });
		}
		free(s);
	}
	return ret;
}

/* The sandbox's script: kernel-doc on each side, the sides split. */
static int kdoc_script(struct rb_buf *b, char *const *files, size_t n,
		       const bool *in_base, const bool *in_applied)
{
	size_t i;
	int ret;

	ret = rb_buf_puts(b, "cd /src/b && /tools/scripts/kernel-doc -none");
	for (i = 0; i < n && !ret; i++)
		if (in_base[i])
			ret = rb_buf_printf(b, " %s", files[i]);
	if (!ret)
		ret = rb_buf_puts(b, " 2>&1\necho " SPLIT "\n"
				     "cd /src/a && /tools/scripts/kernel-doc "
				     "-none");
	for (i = 0; i < n && !ret; i++)
		if (in_applied[i])
			ret = rb_buf_printf(b, " %s", files[i]);
	return ret ? ret : rb_buf_puts(b, " 2>&1\n");
}

/* The new warnings of @now, one finding per file and line. */
static int report(struct rb_findings *out, const struct rb_check_ctx *ctx,
		  const struct rb_findings *base, const struct rb_findings *now,
		  const char *adir)
{
	bool *used = calloc(base->n ? base->n : 1, sizeof(*used));
	bool *done = calloc(now->n ? now->n : 1, sizeof(*done));
	size_t i, k;
	int ret = 0;

	if (!used || !done) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	/*
	 * A warning the base's file already has (digits aside) is the
	 * file's own: kernel-doc's messages name the function and the
	 * parameter, so the same message twice is a house style that
	 * kernel-doc misreads the same way each time, not a new problem.
	 */
	for (i = 0; i < now->n; i++) {
		memset(used, 0, (base->n ? base->n : 1) * sizeof(*used));
		done[i] = rb_check_in_base(base, used, &now->v[i]);
	}
	for (i = 0; i < now->n && !ret; i++) {
		const struct rb_finding *f = &now->v[i];
		struct rb_buf msg = RB_BUF_INIT(1 << 16);
		char *code;

		if (done[i])
			continue;
		ret = rb_buf_printf(&msg, "kernel-doc reports: \"%s\"",
				    f->message);
		for (k = i + 1; k < now->n && !ret; k++)
			if (!done[k] && now->v[k].line == f->line &&
			    !strcmp(now->v[k].file, f->file)) {
				ret = rb_buf_printf(&msg, ", \"%s\"",
						    now->v[k].message);
				done[k] = true;
			}
		if (!ret)
			ret = rb_buf_puts(&msg, ".");
		code = rb_check_line_of(adir, f->file, f->line);
		if (!ret)
			ret = add_finding(
				out, (struct rb_finding_spec){
					     .file = f->file,
					     .line = f->line,
					     .code = code ? code : f->code,
					     .message = msg.ptr,
					     .patch_index = rb_check_patch_of(
						     ctx, f->file) });
		free(code);
		rb_buf_release(&msg);
	}
out:
	free(used);
	free(done);
	return ret;
}

static int run(const struct rb_check_ctx *ctx, struct rb_findings *out)
{
	static const char *const exts[] = { ".c", ".h", NULL };
	/* Newer trees: kernel-doc.py and its library beside it. */
	static const char *const tools[] = { "scripts/kernel-doc",
					     "scripts/lib/kdoc",
					     "scripts/kernel-doc.py", NULL };
	struct rb_sandbox_opts so = RB_SANDBOX_OPTS_INIT;
	struct rb_buf script = RB_BUF_INIT(1 << 20);
	struct rb_check_work w;
	const char *split;
	int ret;

	ret = rb_check_work_open(&w, ctx, CHECKER, exts, MAX_FILES);
	if (ret || !w.n)
		goto out;
	if (!rb_sandbox_available()) {
		ret = rb_err(RB_EFAIL, "bwrap cannot create a sandbox on this "
				       "machine, and kernel-doc never runs "
				       "outside one");
		goto out;
	}
	ret = rb_check_work_fill(&w, ctx, "kdoc", tools);
	if (ret || !w.any_applied)
		goto out;
	ret = kdoc_script(&script, w.files, w.n, w.in_base, w.in_applied);
	if (ret)
		goto out;
	so.timeout_seconds = rb_check_time_left_ms(ctx, 300000) / 1000 + 1;
	so.mem_mb = 1024;
	ret = rb_check_work_run(&w, &so, script.ptr);
	if (ret)
		goto out;
	split = strstr(w.res.out.ptr, SPLIT "\n");
	if (!split || !strncmp(w.res.out.ptr, "bwrap:", 6)) {
		ret = rb_err(RB_EFAIL,
			     "kernel-doc did not run (exit %d): %.300s",
			     w.res.exit_code, w.res.out.ptr);
		goto out;
	}
	*(char *)split = '\0';
	ret = rb_kdoc_parse(&w.base, w.res.out.ptr, w.files, w.n);
	if (!ret)
		ret = rb_kdoc_parse(&w.now, split + strlen(SPLIT) + 1, w.files,
				    w.n);
	if (!ret)
		ret = report(out, ctx, &w.base, &w.now, w.adir);
out:
	rb_buf_release(&script);
	rb_check_work_release(&w);
	return ret;
}

const struct rb_checker_ops rb_check_kdoc_ops = {
	.name = "kernel-doc",
	.label = "kernel-doc",
	.tree = true,
	.version = VERSION,
	.run = run,
};
