// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_checkpatch.c - the "checkpatch" checker. scripts/checkpatch.pl and
 * the files it reads (spelling.txt, const_structs.checkpatch) are taken
 * from the configured branch tip (ctx->tools) through libgit2 into a
 * private temporary directory: never from the applied tree (the sender's)
 * nor from the base (a mail names it). It runs in the bubblewrap sandbox
 * (review/checks/sandbox.h: no network, cleared environment, uid nobody as root,
 * only that directory and the tree's git directory bound read-only); when
 * no sandbox can be made here it does not run at all, and the runner
 * reports a "checker-problem" (logged as event=check.done with the error,
 * and event=sandbox.unavailable). The patches of a series go to one
 * checkpatch process (it accepts many files and its output is the same as
 * one run per file: bench/checks.sh measures both).
 *
 * Output options: --emacs --show-types --quiet --no-summary --no-tree
 * --color=never. Each report then starts with "PATCHFILE:N: LEVEL:TYPE:
 * message", which names the input file, so one batched run can be split
 * per patch; the "#N: FILE: path:line:" line that follows gives the file
 * and new-side line, and the next line the code. --no-tree: there is no
 * checkout to give it (it would run get_maintainer.pl from there), but
 * GIT_DIR names the configured tree's git directory (bound read-only) so
 * that commit ids quoted in the log are looked up as in a run from the
 * tree.
 *
 * Severity: ERROR medium, WARNING low, CHECK info.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "review/checks/check_checkpatch.h"
#include "mail/message.h"
#include "review/checks/checks.h"
#include "review/checks/sandbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/banned.h"

#define CHECKER "checkpatch"

/* What checkpatch.pl reads besides itself, relative to scripts/. */
static const char *const needed[] = { "checkpatch.pl", "spelling.txt",
				      "const_structs.checkpatch" };

static int extract(git_repository *repo, const git_oid *tools, const char *dir)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	char path[4096], rel[64];
	size_t i;
	int ret = 0;

	if (git_commit_lookup(&commit, repo, tools) ||
	    git_commit_tree(&tree, commit)) {
		ret = rb_err(RB_ENOTFOUND, "configured branch tip %s: %s",
			     git_oid_tostr_s(tools),
			     git_error_last() ? git_error_last()->message :
						"?");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/scripts", dir);
	if (mkdir(path, 0755)) {
		ret = rb_err(RB_EIO, "mkdir %s: %s", path, strerror(errno));
		goto out;
	}
	for (i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		snprintf(rel, sizeof(rel), "scripts/%s", needed[i]);
		if (git_tree_entry_bypath(&te, tree, rel)) {
			/* Only checkpatch.pl itself is required. */
			if (i == 0) {
				ret = rb_err(
					RB_ENOTFOUND,
					"%s is not in the configured branch "
					"tip %s",
					rel, git_oid_tostr_s(tools));
				goto out;
			}
			continue;
		}
		if (git_tree_entry_type(te) != GIT_OBJECT_BLOB ||
		    git_blob_lookup(&blob, repo, git_tree_entry_id(te))) {
			ret = rb_err(RB_EIO, "%s in %s is not a file", rel,
				     git_oid_tostr_s(tools));
			goto out;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		ret = rb_write_file_atomic(path, git_blob_rawcontent(blob),
					   (size_t)git_blob_rawsize(blob),
					   0644);
		if (ret)
			goto out;
		git_blob_free(blob);
		blob = NULL;
		git_tree_entry_free(te);
		te = NULL;
	}
out:
	git_blob_free(blob);
	git_tree_entry_free(te);
	git_tree_free(tree);
	git_commit_free(commit);
	return ret;
}

static bool in_path(const char *prog)
{
	const char *p = getenv("PATH");
	char buf[4096];

	while (p && *p) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, prog);
		if (!access(buf, X_OK))
			return true;
		p += n;
		if (*p == ':')
			p++;
	}
	return false;
}

static bool ignored(const struct rb_check_opts *o, const char *type)
{
	size_t i;

	for (i = 0; i < o->n_checkpatch_ignore; i++)
		if (!strcasecmp(o->checkpatch_ignore[i], type))
			return true;
	return false;
}

/* One report being assembled. */
struct report {
	int patch;
	char level[16];
	char type[96];
	struct rb_buf msg;
	char *file;
	int line;
	char *code;
	bool have_here; /* the "#N:" line was seen */
	bool open;
};

static enum rb_fsev level_sev(const char *level)
{
	if (!strcmp(level, "ERROR"))
		return RB_FSEV_MEDIUM;
	if (!strcmp(level, "WARNING"))
		return RB_FSEV_LOW;
	return RB_FSEV_INFO;
}

static int flush(struct report *r, const struct rb_check_opts *o,
		 const char *version, struct rb_findings *out)
{
	int ret = 0;

	if (!r->open)
		return 0;
	while (r->msg.len && r->msg.ptr[r->msg.len - 1] == '\n')
		rb_buf_truncate(&r->msg, r->msg.len - 1);
	if (!ignored(o, r->type))
		ret = rb_findings_add(out,
				      &(struct rb_finding_spec){
					      .checker = CHECKER,
					      .checker_version = version,
					      .category = r->type,
					      .severity = level_sev(r->level),
					      .file = r->file,
					      .line = r->line,
					      .code = r->code,
					      .message = r->msg.ptr,
					      .patch_index = r->patch });
	rb_buf_release(&r->msg);
	free(r->file);
	free(r->code);
	r->file = r->code = NULL;
	r->line = 0;
	r->have_here = r->open = false;
	return ret;
}

/*
 * "DIR/NNNN.patch:LINE: LEVEL:TYPE: message": returns the patch number
 * and fills @r (unless NULL), or 0 when @s is not a report line.
 */
static int report_start(struct report *r, const char *s, const char *dir,
			size_t n_patches)
{
	size_t dl = strlen(dir);
	const char *p, *lv, *ty, *colon;
	char *end;
	long idx;

	if (strncmp(s, dir, dl) || s[dl] != '/')
		return 0;
	p = s + dl + 1;
	idx = strtol(p, &end, 10);
	if (end == p || strncmp(end, ".patch:", 7) || idx < 1 ||
	    (size_t)idx > n_patches)
		return 0;
	p = end + 7;
	strtol(p, &end, 10);
	if (end == p || strncmp(end, ": ", 2))
		return 0;
	lv = end + 2;
	if (strncmp(lv, "ERROR:", 6) && strncmp(lv, "WARNING:", 8) &&
	    strncmp(lv, "CHECK:", 6))
		return 0;
	colon = strchr(lv, ':');
	ty = colon + 1;
	colon = strchr(ty, ':');
	if (!colon || colon[1] != ' ' ||
	    (size_t)(colon - ty) >= sizeof(r->type))
		return 0;
	if (!r)
		return (int)idx;
	snprintf(r->level, sizeof(r->level), "%.*s", (int)(ty - 1 - lv), lv);
	snprintf(r->type, sizeof(r->type), "%.*s", (int)(colon - ty), ty);
	rb_buf_init(&r->msg, 1 << 16);
	rb_buf_puts(&r->msg, colon + 2);
	r->patch = (int)idx;
	r->open = true;
	return (int)idx;
}

/* "#N: FILE: path:line:" */
static void parse_here(struct report *r, const char *s)
{
	const char *f = strstr(s, ": FILE: ");
	const char *end;
	char *e;
	long line;

	r->have_here = true;
	if (!f)
		return;
	f += 8;
	end = f + strlen(f);
	/* The path may hold ':'; the line is the last ":N:". */
	if (end - f < 3 || end[-1] != ':')
		return;
	end--;
	while (end > f && end[-1] >= '0' && end[-1] <= '9')
		end--;
	if (end <= f || end[-1] != ':')
		return;
	line = strtol(end, &e, 10);
	r->line = (int)line;
	r->file = strndup(f, (size_t)(end - 1 - f));
}

int rb_checkpatch_parse(struct rb_findings *out, const char *text,
			const char *dir, size_t n_patches,
			const struct rb_check_opts *o, const char *version)
{
	struct report r;
	const char *cur = text;
	int ret = 0;

	memset(&r, 0, sizeof(r));
	while (*cur && !ret) {
		const char *nl = strchr(cur, '\n');
		size_t n = nl ? (size_t)(nl - cur) : strlen(cur);
		char *s = strndup(cur, n);

		cur += n + (nl ? 1 : 0);
		if (!s) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			break;
		}
		if (report_start(NULL, s, dir, n_patches)) {
			ret = flush(&r, o, version, out);
			if (!ret)
				report_start(&r, s, dir, n_patches);
		} else if (r.open && !r.have_here && s[0] == '#' &&
			   strchr(s, ':')) {
			parse_here(&r, s);
		} else if (r.open && r.have_here && !r.code && s[0]) {
			r.code = strdup(s);
		} else if (r.open && !r.have_here && s[0]) {
			rb_buf_putc(&r.msg, '\n');
			rb_buf_puts(&r.msg, s);
		}
		free(s);
	}
	if (!ret)
		ret = flush(&r, o, version, out);
	else
		flush(&r, o, version, &(struct rb_findings){ 0 });
	return ret;
}

/* Where the work directory and the tree's git directory are inside. */
#define SB_DIR "/cp"
#define SB_GIT "/git"
#define MAX_ALTERNATES 8

/*
 * The object directories the git directory borrows from (absolute paths
 * in objects/info/alternates): bound at /alt-N, and named to git inside
 * by GIT_ALTERNATE_OBJECT_DIRECTORIES (the host paths in the file do not
 * exist there). Adds to @binds from @n and returns the new n; @env_val
 * gets the variable's value.
 */
static size_t alternates(struct rb_sandbox_bind *binds, size_t n,
			 char (*paths)[4096], char (*dests)[16],
			 struct rb_buf *env_val, const char *gitdir)
{
	struct rb_buf b = RB_BUF_INIT(1 << 16);
	char path[4200];
	const char *p;
	size_t k = 0;

	snprintf(path, sizeof(path), "%s/objects/info/alternates", gitdir);
	if (rb_read_file(&b, path)) {
		rb_err_clear();
		goto out;
	}
	for (p = b.ptr; *p && k < MAX_ALTERNATES;) {
		size_t len = strcspn(p, "\n");

		if (len && len < 4096 && *p == '/') {
			snprintf(paths[k], 4096, "%.*s", (int)len, p);
			snprintf(dests[k], 16, "/alt-%zu", k);
			binds[n].src = paths[k];
			binds[n].dest = dests[k];
			binds[n].rw = false;
			rb_buf_printf(env_val, "%s%s", k ? ":" : "", dests[k]);
			n++;
			k++;
		}
		p += len + (p[len] == '\n');
	}
out:
	rb_buf_release(&b);
	return n;
}

/* checkpatch.pl's command line and the directory of its patches. */
struct cmdline {
	const char **argv; /* n_patches + 20 entries */
	size_t n;
	char **files; /* the patches' names in the sandbox, malloc'd */
	const char *dir; /* on the host, bound at SB_DIR */
};

/* The command line up to the patches, from the options; @ign gets
 * --ignore's list. */
static void checkpatch_flags(struct cmdline *cl, const char *script,
			     const struct rb_check_opts *o, struct rb_buf *ign)
{
	size_t i;

	cl->argv[cl->n++] = "/usr/bin/perl";
	cl->argv[cl->n++] = script;
	cl->argv[cl->n++] = "--no-tree";
	cl->argv[cl->n++] = "--emacs";
	cl->argv[cl->n++] = "--show-types";
	cl->argv[cl->n++] = "--quiet";
	cl->argv[cl->n++] = "--no-summary";
	cl->argv[cl->n++] = "--color=never";
	if (o->checkpatch_strict)
		cl->argv[cl->n++] = "--strict";
	if (o->checkpatch_codespell && in_path("codespell"))
		cl->argv[cl->n++] = "--codespell";
	for (i = 0; i < o->n_checkpatch_ignore; i++)
		rb_buf_printf(ign, "%s%s", i ? "," : "",
			      o->checkpatch_ignore[i]);
	if (ign->len) {
		cl->argv[cl->n++] = "--ignore";
		cl->argv[cl->n++] = ign->ptr;
	}
}

/*
 * One patch as checkpatch reads a mail: From: and Subject: and the body as
 * the parser decoded it. The mail as received may be quoted-printable or
 * base64, which checkpatch does not decode: it took "=3D" for code and
 * "=0A=" for the end of an address (bench/RESULTS-precision.md). A part
 * that did not parse goes as received.
 */
static int write_patch(const char *path, const struct rb_check_patch *cp)
{
	const struct rb_message *m = cp->msg;
	struct rb_buf b = RB_BUF_INIT(64u << 20);
	int ret;

	if (!m || !m->body)
		return rb_write_file_atomic(path, cp->raw, cp->raw_len, 0644);
	ret = m->from.addr ?
		      rb_buf_printf(&b, "From: %s%s<%s>\n",
				    m->from.name ? m->from.name : "",
				    m->from.name ? " " : "", m->from.addr) :
		      0;
	if (!ret)
		ret = rb_buf_printf(&b, "Subject: %s\n\n%s",
				    m->subject_raw ? m->subject_raw : "",
				    m->body);
	/* A patch sent as an attachment is not in the text body. */
	if (!ret && m->patch && !strstr(m->body, "\ndiff --git ") &&
	    !strstr(m->body, "\n--- a/") && !strstr(m->body, "\n+++ b/"))
		ret = rb_buf_printf(&b, "%s%s",
				    b.len && b.ptr[b.len - 1] == '\n' ? "" :
									"\n",
				    m->patch);
	if (!ret)
		ret = rb_write_file_atomic(path, b.ptr, b.len, 0644);
	rb_buf_release(&b);
	return ret;
}

/* Writes the patches of @ctx to cl->dir as 0001.patch, 0002.patch, ...
 * and appends their names in the sandbox to the command line. */
static int write_patches(struct cmdline *cl, const struct rb_check_ctx *ctx)
{
	size_t i;
	int ret;

	for (i = 0; i < ctx->n_patches; i++) {
		struct rb_buf p = RB_BUF_INIT(4096);
		char path[4200];

		/* A part the review left out (missing, another project's). */
		if (!ctx->patches[i].msg && !ctx->patches[i].raw)
			continue;
		rb_buf_printf(&p, "%s/%04zu.patch", SB_DIR, i + 1);
		cl->files[i] = rb_buf_detach(&p, NULL);
		if (!cl->files[i])
			return rb_err(RB_ENOMEM, "out of memory");
		snprintf(path, sizeof(path), "%s/%04zu.patch", cl->dir, i + 1);
		ret = write_patch(path, &ctx->patches[i]);
		if (ret)
			return ret;
		cl->argv[cl->n++] = cl->files[i];
	}
	cl->argv[cl->n] = NULL;
	return 0;
}

/*
 * Runs the command line in the sandbox with cl->dir bound read-only at
 * SB_DIR and the tree's git directory (and its alternates) at SB_GIT:
 * checkpatch looks commit ids up (GIT_COMMIT_ID) with "git log" in
 * $GIT_DIR.
 */
static int sandbox_checkpatch(struct rb_proc_result *res,
			      const struct rb_check_ctx *ctx,
			      git_repository *repo, const struct cmdline *cl)
{
	char alt_paths[MAX_ALTERNATES][4096], alt_dests[MAX_ALTERNATES][16];
	struct rb_sandbox_bind binds[2 + MAX_ALTERNATES];
	struct rb_buf alt_env = RB_BUF_INIT(4096);
	const char *env[] = { "GIT_DIR", SB_GIT, NULL, NULL, NULL };
	struct rb_sandbox_opts so = RB_SANDBOX_OPTS_INIT;
	size_t nb = 0;
	int ret;

	binds[nb].src = cl->dir;
	binds[nb].dest = SB_DIR;
	binds[nb++].rw = false;
	binds[nb].src = git_repository_path(repo);
	binds[nb].dest = SB_GIT;
	binds[nb++].rw = false;
	nb = alternates(binds, nb, alt_paths, alt_dests, &alt_env,
			git_repository_path(repo));
	if (alt_env.len) {
		env[2] = "GIT_ALTERNATE_OBJECT_DIRECTORIES";
		env[3] = alt_env.ptr;
	}
	so.binds = binds;
	so.n_binds = nb;
	so.env = env;
	so.chdir = SB_DIR;
	so.timeout_seconds = rb_check_time_left_ms(ctx, 600000) / 1000 + 1;
	so.mem_mb = 2048;
	so.nproc = 64;
	so.tmpfs_mb = 64;
	so.max_output = 32u << 20;
	so.split_stderr = true;
	ret = rb_sandbox_exec(res, &so, cl->argv);
	rb_buf_release(&alt_env);
	return ret;
}

static int run(const struct rb_check_ctx *ctx, struct rb_findings *out)
{
	const struct rb_check_opts *o = ctx->opts;
	git_repository *repo = NULL;
	char tmpl[] = "/tmp/rb-checkpatch-XXXXXX";
	char *dir = NULL, version[16], script[64];
	struct cmdline cl = { 0 };
	struct rb_buf ign = RB_BUF_INIT(1 << 16);
	struct rb_proc_result res;
	bool have_res = false;
	size_t i;
	int ret = 0;

	if (!ctx->repo_path)
		return rb_err(RB_EINVAL, "checkpatch needs the tree");
	if (!ctx->has_tools)
		return rb_err(RB_EINVAL,
			      "checkpatch needs the configured branch tip: it "
			      "is never taken from a base a mail names");
	for (i = 0; i < ctx->n_patches; i++)
		if (ctx->patches[i].msg || ctx->patches[i].raw)
			break;
	if (i == ctx->n_patches)
		return 0; /* no part to check (write_patches()) */
	ret = rb_check_repo_open(&repo, ctx);
	if (ret)
		goto out;
	/* Never unsandboxed: no sandbox, no checkpatch. */
	if (!rb_sandbox_available()) {
		ret = rb_err(RB_EFAIL,
			     "bwrap cannot create a sandbox on this machine, "
			     "and checkpatch.pl never runs outside one");
		rb_log(RB_LOG_WARN, "sandbox.unavailable", "checker", CHECKER,
		       NULL);
		goto out;
	}
	dir = mkdtemp(tmpl);
	if (!dir) {
		ret = rb_err(RB_EIO, "mkdtemp: %s", strerror(errno));
		goto out;
	}
	/* Read by uid 65534 in the sandbox when we are root. */
	chmod(dir, 0755);
	ret = extract(repo, &ctx->tools, dir);
	if (ret)
		goto out;
	snprintf(version, sizeof(version), "%.12s",
		 git_oid_tostr_s(&ctx->tools));

	cl.argv = calloc(ctx->n_patches + 20, sizeof(*cl.argv));
	cl.files = calloc(ctx->n_patches, sizeof(*cl.files));
	cl.dir = dir;
	if (!cl.argv || !cl.files) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	snprintf(script, sizeof(script), "%s/scripts/checkpatch.pl", SB_DIR);
	checkpatch_flags(&cl, script, o, &ign);
	ret = write_patches(&cl, ctx);
	if (!ret)
		ret = sandbox_checkpatch(&res, ctx, repo, &cl);
	if (ret)
		goto out;
	have_res = true;
	if (res.timed_out) {
		ret = rb_err(RB_ETIMEOUT,
			     "checkpatch.pl did not finish in time");
		goto out;
	}
	/* It exits 1 when it found something; 2 and up is its own failure. */
	if (res.exit_code && !res.out.len &&
	    (res.exit_code > 1 || !strncmp(res.err.ptr, "bwrap:", 6))) {
		ret = rb_err(RB_EFAIL, "checkpatch.pl failed (exit %d): %.300s",
			     res.exit_code, res.err.ptr);
		goto out;
	}
	ret = rb_checkpatch_parse(out, res.out.ptr, SB_DIR, ctx->n_patches, o,
				  version);
out:
	if (have_res)
		rb_proc_result_release(&res);
	if (dir)
		rb_remove_tree(dir);
	if (cl.files)
		for (i = 0; i < ctx->n_patches; i++)
			free(cl.files[i]);
	free(cl.files);
	free(cl.argv);
	rb_buf_release(&ign);
	git_repository_free(repo);
	return ret;
}

const struct rb_checker_ops rb_check_checkpatch_ops = {
	.name = "checkpatch",
	.label = "checkpatch",
	.version = "tip",
	.run = run,
};
