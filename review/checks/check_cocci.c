// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_cocci.c - the "coccinelle" checker. scripts/coccinelle of the
 * configured branch tip (never the base's nor the patched tree's) is
 * written to a private directory; the .c files the series adds or
 * changes (up to 32) are written twice, as in the base (/src/b) and
 * applied (/src/a). In the sandbox, each semantic patch that has a
 * report mode ("virtual report") runs as scripts/coccicheck runs it in
 * report mode (spatch -D report --very-quiet --no-show-diff, plus its
 * "// Options:"), first on the applied files; only a script that reports
 * something there runs on the base files too, so a clean series costs
 * one spatch per script. A report is new when the base's run of that
 * script had no report of that file with the same message (digits
 * aside, each base report used once).
 *
 * spatch reads only the files it is given (no include path: the tree is
 * not there). Each spatch run has its own timeout (--timeout 60).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "review/checks/check_cocci.h"
#include "review/checks/check_util.h"
#include "review/checks/checks.h"
#include "review/checks/sandbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define CHECKER "coccinelle"
#define VERSION "1"
#define MAX_FILES 32
#define MARK "rb-cocci: "
#define MARK_BASE "rb-cocci-base: "

/* A finding of this checker: @s says where and what, the rest is fixed. */
static int add_finding(struct rb_findings *out, struct rb_finding_spec s)
{
	s.checker = CHECKER;
	s.checker_version = VERSION;
	s.category = "coccinelle";
	s.severity = RB_FSEV_LOW;
	return rb_findings_add(out, &s);
}

/* A script name as the sandbox prints it: a plain relative path. */
static bool script_name(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 200 || s[0] == '/' || s[0] == '.')
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("/._-+", s[i])))
			return false;
	return true;
}

int rb_cocci_parse(struct rb_findings *out, const char *text,
		   char *const *files, size_t n_files)
{
	const char *cur = text;
	char script[256] = "";
	size_t lines = 0;
	int ret = 0;

	while (*cur && !ret && lines++ < 200000) {
		const char *nl = strchr(cur, '\n');
		size_t n = nl ? (size_t)(nl - cur) : strlen(cur);
		const char *file, *msg;
		char *s;
		int line;

		if (n >= strlen(MARK) && !strncmp(cur, MARK, strlen(MARK))) {
			size_t k = n - strlen(MARK);

			if (script_name(cur + strlen(MARK), k))
				snprintf(script, sizeof(script), "%.*s", (int)k,
					 cur + strlen(MARK));
			else
				script[0] = '\0';
			cur += n + (nl ? 1 : 0);
			continue;
		}
		s = strndup(cur, n);
		cur += n + (nl ? 1 : 0);
		if (!s)
			return rb_err(RB_ENOMEM, "out of memory");
		if (script[0] &&
		    rb_check_parse_loc(s, "/src/a/", &file, &line, &msg)) {
			size_t i = 0;

			if (files)
				for (i = 0;
				     i < n_files && strcmp(files[i], file); i++)
					;
			if ((!files || i < n_files) && out->n < 5000) {
				char code[1400];

				snprintf(code, sizeof(code), "%s: %s", script,
					 msg);
				ret = add_finding(out,
						  (struct rb_finding_spec){
							  .file = file,
							  .line = line,
							  .code = code,
							  .message = msg });
			}
		}
		free(s);
	}
	return ret;
}

/*
 * The sandbox's script. For each semantic patch with a report mode: its
 * reports on the applied files; then, when it printed any, on the base
 * files (marked MARK_BASE). FILES_A and FILES_B are fixed words of ours.
 */
static const char cocci_sh[] =
	"cd /tools/scripts/coccinelle || exit 3\n"
	"for c in $(find . -name '*.cocci' | sort); do\n"
	"  c=${c#./}\n"
	"  grep -q '^virtual report' \"$c\" || continue\n"
	"  opt=$(grep 'Options:' \"$c\" | head -n 1 | cut -d: -f2)\n"
	"  r=$(cd /src/a && spatch -D report --very-quiet --no-show-diff "
	"--timeout 60 --cocci-file \"/tools/scripts/coccinelle/$c\" $opt "
	"$FILES_A 2>/dev/null)\n"
	"  [ -n \"$r\" ] || continue\n"
	"  echo \"rb-cocci: $c\"; echo \"$r\"\n"
	"  [ -n \"$FILES_B\" ] || continue\n"
	"  echo \"rb-cocci-base: $c\"\n"
	"  (cd /src/b && spatch -D report --very-quiet --no-show-diff "
	"--timeout 60 --cocci-file \"/tools/scripts/coccinelle/$c\" $opt "
	"$FILES_B 2>/dev/null)\n"
	"done\n"
	"echo rb-cocci-done\n";

/* Splits the output: applied reports into @a, the base's into @b. */
static int split_output(struct rb_buf *a, struct rb_buf *b, const char *text)
{
	const char *cur = text;
	bool base = false;
	int ret = 0;

	while (*cur && !ret) {
		const char *nl = strchr(cur, '\n');
		size_t n = nl ? (size_t)(nl - cur) + 1 : strlen(cur);

		if (!strncmp(cur, MARK_BASE, strlen(MARK_BASE))) {
			base = true;
			ret = rb_buf_puts(b, MARK);
			if (!ret)
				ret = rb_buf_add(b, cur + strlen(MARK_BASE),
						 n - strlen(MARK_BASE));
		} else {
			if (!strncmp(cur, MARK, strlen(MARK)))
				base = false;
			ret = rb_buf_add(base ? b : a, cur, n);
		}
		cur += n;
	}
	return ret;
}

static int report(struct rb_findings *out, const struct rb_check_ctx *ctx,
		  const struct rb_findings *base, const struct rb_findings *now,
		  const char *adir)
{
	bool *used = calloc(base->n ? base->n : 1, sizeof(*used));
	size_t i;
	int ret = 0;

	if (!used)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < now->n && !ret; i++) {
		const struct rb_finding *f = &now->v[i];
		char msg[1600], *code;
		const char *colon = strstr(f->code, ": ");

		if (rb_check_in_base(base, used, f))
			continue;
		snprintf(msg, sizeof(msg),
			 "scripts/coccinelle/%.*s reports: \"%s\"",
			 colon ? (int)(colon - f->code) : 0, f->code,
			 f->message);
		code = rb_check_line_of(adir, f->file, f->line);
		ret = add_finding(out, (struct rb_finding_spec){
					       .file = f->file,
					       .line = f->line,
					       .code = code ? code : f->code,
					       .message = msg,
					       .patch_index = rb_check_patch_of(
						       ctx, f->file) });
		free(code);
	}
	free(used);
	return ret;
}

static int run(const struct rb_check_ctx *ctx, struct rb_findings *out)
{
	static const char *const exts[] = { ".c", NULL };
	static const char *const tools[] = { "scripts/coccinelle", NULL };
	struct rb_sandbox_opts so = RB_SANDBOX_OPTS_INIT;
	struct rb_buf fa = RB_BUF_INIT(1 << 16), fb = RB_BUF_INIT(1 << 16);
	struct rb_buf oa = RB_BUF_INIT(16u << 20), ob = RB_BUF_INIT(16u << 20);
	struct rb_check_work w;
	const char *env[5];
	size_t i;
	int ret;

	ret = rb_check_work_open(&w, ctx, CHECKER, exts, MAX_FILES);
	if (ret || !w.n)
		goto out;
	if (access("/usr/bin/spatch", X_OK)) {
		ret = rb_err(RB_ENOTFOUND, "spatch is not installed "
					   "(scripts/install-deps.sh)");
		goto out;
	}
	if (!rb_sandbox_available()) {
		ret = rb_err(RB_EFAIL, "bwrap cannot create a sandbox on this "
				       "machine, and spatch never runs outside "
				       "one");
		goto out;
	}
	ret = rb_check_work_fill(&w, ctx, "cocci", tools);
	for (i = 0; i < w.n && !ret; i++) {
		if (w.in_base[i])
			rb_buf_printf(&fb, "%s%s", fb.len ? " " : "",
				      w.files[i]);
		if (w.in_applied[i])
			rb_buf_printf(&fa, "%s%s", fa.len ? " " : "",
				      w.files[i]);
	}
	if (ret || !fa.len)
		goto out;
	env[0] = "FILES_A";
	env[1] = fa.ptr;
	env[2] = "FILES_B";
	env[3] = fb.len ? fb.ptr : "";
	env[4] = NULL;
	so.env = env;
	so.timeout_seconds = rb_check_time_left_ms(ctx, 600000) / 1000 + 1;
	so.mem_mb = 2048;
	so.max_output = 16u << 20;
	ret = rb_check_work_run(&w, &so, cocci_sh);
	if (ret)
		goto out;
	if (!strstr(w.res.out.ptr, "rb-cocci-done")) {
		ret = rb_err(RB_EFAIL,
			     "coccinelle did not run (exit %d): %.300s",
			     w.res.exit_code, w.res.out.ptr);
		goto out;
	}
	ret = split_output(&oa, &ob, w.res.out.ptr);
	if (!ret)
		ret = rb_cocci_parse(&w.base, ob.ptr ? ob.ptr : "", w.files,
				     w.n);
	if (!ret)
		ret = rb_cocci_parse(&w.now, oa.ptr ? oa.ptr : "", w.files,
				     w.n);
	if (!ret)
		ret = report(out, ctx, &w.base, &w.now, w.adir);
out:
	rb_buf_release(&fa);
	rb_buf_release(&fb);
	rb_buf_release(&oa);
	rb_buf_release(&ob);
	rb_check_work_release(&w);
	return ret;
}

const struct rb_checker_ops rb_check_cocci_ops = {
	.name = "coccinelle",
	.label = "coccinelle",
	.tree = true,
	.version = VERSION,
	.run = run,
};
