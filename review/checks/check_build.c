// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_build.c - the "build" checker: an incremental, sandboxed build of
 * the objects that the series touches (make O=/out W=1 path/file.o), first
 * on the base and then with the series applied. A diagnostic is new when
 * its normalised form (file, level, message; no line or column) comes
 * more often with the series than in the base build: line shifts do not
 * make old warnings new, and of the surplus those on lines the series
 * adds are reported.
 *
 * Layout of the cache (opts->build_cache_dir, else $RB_BUILD_CACHE, else
 * $XDG_CACHE_HOME/reviewbot/build, else ~/.cache/reviewbot/build). It is
 * a private directory (rb_private_dir(): 0700, ours, not a symlink), so
 * nobody else can plant a symlink in it; what the sandbox writes (out/,
 * ccache/) is opened without following symlinks:
 *   BASE.src/tree checkout of the base commit (read-only in the sandbox),
 *                 once per base for every config (BASE.src.lock)
 *   KEY/out       the base build output, kept between series
 *   KEY/diag-*.out the base's make output for one set of objects
 *   KEY.lock      flock: one build per base and config at a time
 *   run-XXXXXX/   per series: src (hard links of BASE.src/tree plus the applied
 *                 blobs), out (a copy of KEY/out) and tools (scripts/config
 *                 from the configured branch tip, at /tools); removed
 *                 afterwards
 *   ccache/       where ccache is installed: written by base builds only,
 *                 read-only (CCACHE_READONLY) for patched ones
 * KEY is the base commit id and a hash of the config. The patched sources
 * are written from the applied commit's blobs; nothing from them runs
 * outside the sandbox (review/checks/sandbox.h): kbuild runs the Makefiles and
 * scripts of the tree it builds, inside it. The finding quotes a source
 * line only from a regular file inside the patched sources (by real
 * path, at most 8 MiB): a diagnostic can name any path ("#line 1
 * \"../../etc/x\""), a FIFO, a symlink.
 *
 * The objects are those of the .c files the series adds or changes, up to
 * 64; not tools/, scripts/, selftests (built otherwise) nor arch/ other
 * than x86 (the host builds x86_64 configs). A series that only changes
 * headers or Makefiles builds nothing here.
 *
 * Severity: new warning medium, new error high, a build that fails with
 * the series and not without it (no diagnostic to point at) high.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "mail/message.h"
#include "review/checks/check_build.h"
#include "review/checks/check_util.h"
#include "review/checks/checks.h"
#include "review/checks/sandbox.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/testenv.h"
#include "util/banned.h"

#define CHECKER "build"
#define VERSION "1"
#define MAX_TARGETS 64

/* Trims the sandbox's view of a path to a path in the tree. */
static const char *tree_path(const char *p)
{
	if (!strncmp(p, "/src/", 5))
		return p + 5;
	while (!strncmp(p, "../", 3) || !strncmp(p, "./", 2))
		p += p[1] == '/' ? 2 : 3;
	return p;
}

/*
 * "FILE:LINE[:COL]: warning|error: MESSAGE". Fills the parts; false when
 * the line is not a diagnostic of a file in the tree.
 */
static bool parse_diag(char *s, const char **file, int *line,
		       const char **level, const char **msg)
{
	char *p, *e;
	long ln;

	if (*s == ' ' || *s == '\0')
		return false;
	/* Files under /usr (system headers) are not the series' fault. */
	if (!strncmp(s, "/usr/", 5) || !strncmp(s, "In file included", 16))
		return false;
	for (p = s; (p = strchr(p, ':')); p++) {
		if (!isdigit((unsigned char)p[1]))
			continue;
		ln = strtol(p + 1, &e, 10);
		if (*e != ':')
			continue;
		if (isdigit((unsigned char)e[1]))
			strtol(e + 1, &e, 10);
		if (*e != ':' || e[1] != ' ')
			continue;
		e += 2;
		if (!strncmp(e, "warning: ", 9)) {
			*level = "warning";
			*msg = e + 9;
		} else if (!strncmp(e, "error: ", 7) ||
			   !strncmp(e, "fatal error: ", 13)) {
			char *w = strstr(e, " [-Werror=");

			*level = "error";
			*msg = strchr(e, ':') + 2;
			/*
			 * CONFIG_WERROR (on in x86 defconfig) turns warnings
			 * into "error: ... [-Werror=X]": still a warning, named
			 * as without it, so both builds compare alike.
			 */
			if (w && !strchr(w + 10, ' ') &&
			    w[strlen(w) - 1] == ']') {
				*level = "warning";
				memmove(w + 4, w + 10, strlen(w + 10) + 1);
			}
		} else {
			return false;
		}
		*p = '\0';
		*file = tree_path(s);
		*line = (int)ln;
		return **file != '\0' && ln > 0;
	}
	return false;
}

#define SPARSE_MARK "rb-sparse: "

/* One diagnostic, unless the same one is there already (make -k and -j
 * print some twice). At most 5000 a build: the dedup is quadratic, and
 * the output of a hostile tree is capped anyway. */
static int add_diag(struct rb_findings *out, const char *file, int line,
		    const char *level, const char *msg, bool sparse)
{
	char code[1100];
	size_t i;

	snprintf(code, sizeof(code), "%s: %s", level, msg);
	for (i = 0; i < out->n; i++)
		if (out->v[i].line == line && !strcmp(out->v[i].file, file) &&
		    !strcmp(out->v[i].code, code))
			return 0;
	if (out->n >= 5000)
		return 0;
	if (sparse)
		return rb_findings_add(
			out,
			&(struct rb_finding_spec){
				.checker = "sparse",
				.checker_version = VERSION,
				.category = *level == 'w' ? "sparse-warning" :
							    "sparse-error",
				.severity = RB_FSEV_MEDIUM,
				.file = file,
				.line = line,
				.code = code,
				.message = msg });
	return rb_findings_add(
		out, &(struct rb_finding_spec){
			     .checker = CHECKER,
			     .checker_version = VERSION,
			     .category = *level == 'w' ? "build-warning" :
							 "build-error",
			     .severity = *level == 'w' ? RB_FSEV_MEDIUM :
							 RB_FSEV_HIGH,
			     .file = file,
			     .line = line,
			     .code = code,
			     .message = msg });
}

/*
 * sparse's continuation lines ("FILE:LINE:COL:    expected int") go
 * with the warning before them, and are added to its message. Only
 * lines of the tree: one of @pending, which is extended.
 */
static bool sparse_note(char *s, char *pending, size_t size)
{
	char *p = s, *e;
	int colons = 0;

	for (; *p && colons < 3; p++)
		if (*p == ':')
			colons++;
	if (colons < 3 || strncmp(p, "    ", 4) || !*pending)
		return false;
	for (e = p; *e == ' ' || *e == '\t'; e++)
		;
	if (*e && strlen(pending) + strlen(e) + 4 < size)
		snprintf(pending + strlen(pending), size - strlen(pending),
			 "; %s", e);
	return true;
}

/* Diagnostics of the compiler (@sparse false) or of sparse (lines that
 * rb-sparse marked) into @out, each once. */
static int parse_text(struct rb_findings *out, const char *text, bool sparse)
{
	const char *cur = text;
	char pending_file[1024] = "", pending_msg[1024] = "";
	const char *pending_level = NULL;
	int pending_line = 0;
	int ret = 0;
	size_t lines = 0;

	while (!ret) {
		const char *nl = strchr(cur, '\n');
		size_t n = nl ? (size_t)(nl - cur) : strlen(cur);
		bool marked = !strncmp(cur, SPARSE_MARK, strlen(SPARSE_MARK));
		const char *file = NULL, *level = NULL, *msg = NULL;
		char *s = NULL;
		bool diag = false;
		int line = 0;

		if (*cur && marked == sparse) {
			s = strndup(cur + (marked ? strlen(SPARSE_MARK) : 0),
				    n - (marked ? strlen(SPARSE_MARK) : 0));
			if (!s)
				return rb_err(RB_ENOMEM, "out of memory");
			if (sparse &&
			    sparse_note(s, pending_msg, sizeof(pending_msg))) {
				free(s);
				goto next;
			}
			diag = parse_diag(s, &file, &line, &level, &msg);
		}
		/* The one before is complete: a new line, or the end. */
		if ((diag || !*cur) && pending_level) {
			ret = add_diag(out, pending_file, pending_line,
				       pending_level, pending_msg, sparse);
			pending_level = NULL;
			pending_msg[0] = '\0';
		}
		if (diag && !ret) {
			snprintf(pending_file, sizeof(pending_file), "%s",
				 file);
			snprintf(pending_msg, sizeof(pending_msg), "%s", msg);
			pending_line = line;
			pending_level = level;
			if (!sparse) {
				ret = add_diag(out, pending_file, pending_line,
					       pending_level, pending_msg,
					       false);
				pending_level = NULL;
				pending_msg[0] = '\0';
			}
		}
		free(s);
next:
		if (!*cur || ++lines > 1000000)
			break;
		cur += n + (nl ? 1 : 0);
	}
	if (!ret && pending_level)
		ret = add_diag(out, pending_file, pending_line, pending_level,
			       pending_msg, sparse);
	return ret;
}

int rb_build_parse(struct rb_findings *out, const char *text)
{
	return parse_text(out, text, false);
}

int rb_sparse_parse(struct rb_findings *out, const char *text)
{
	return parse_text(out, text, true);
}

/* One directory level inside the private cache, never a symlink. */
static int mkdir_private(const char *path)
{
	struct stat st;

	if (mkdir(path, 0700) && errno != EEXIST)
		return rb_err(RB_EIO, "mkdir %s: %s", path, strerror(errno));
	if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return rb_err(RB_EIO, "%s is not a directory of ours", path);
	return 0;
}

struct targets {
	char *v[MAX_TARGETS]; /* "mm/foo.o" */
	int patch[MAX_TARGETS]; /* the last patch touching the .c */
	size_t n;
};

static void targets_release(struct targets *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i]);
	t->n = 0;
}

/* The last patch whose diff names "+++ b/@file". */
static int patch_of(const struct rb_check_ctx *ctx, const char *file)
{
	char needle[4200];
	size_t i;
	int found = 0;

	snprintf(needle, sizeof(needle), "\n+++ b/%s\n", file);
	for (i = 0; i < ctx->n_patches; i++) {
		const struct rb_message *m = ctx->patches[i].msg;
		const char *p = m && m->patch ? m->patch : ctx->patches[i].raw;

		if (p && strstr(p, needle))
			found = (int)i + 1;
	}
	return found;
}

/* Safe in a shell word: the path charset of kernel sources. */
static bool plain_path(const char *p)
{
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/._-+,", *p))
			return false;
	return true;
}

static int find_targets(struct targets *t, git_repository *repo,
			const struct rb_check_ctx *ctx)
{
	git_diff *diff = NULL;
	size_t i;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	if (rb_tree_diff(&diff, repo, &ctx->base, &ctx->applied)) {
		ret = rb_err(RB_EIO, "diff base..applied: %s", rb_git_msg());
		goto out;
	}
	for (i = 0; i < git_diff_num_deltas(diff) && t->n < MAX_TARGETS; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *p = d->new_file.path;
		size_t n = strlen(p);

		if (d->status == GIT_DELTA_DELETED || n < 3 ||
		    strcmp(p + n - 2, ".c") || !plain_path(p) ||
		    !strncmp(p, "tools/", 6) || !strncmp(p, "scripts/", 8) ||
		    strstr(p, "selftests/") ||
		    (!strncmp(p, "arch/", 5) && strncmp(p, "arch/x86/", 9)))
			continue;
		t->v[t->n] = strdup(p);
		if (!t->v[t->n]) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto out;
		}
		t->v[t->n][n - 1] = 'o';
		t->patch[t->n] = patch_of(ctx, p);
		t->n++;
	}
out:
	git_diff_free(diff);
	return ret;
}

/*
 * "-e NAME", "-d NAME" or "-m NAME" for scripts/config: an option of the
 * config is NAME, CONFIG_NAME, NAME=y, NAME=n or NAME=m.
 */
static int config_switch(struct rb_buf *b, const char *opt)
{
	const char *eq = strchr(opt, '=');
	char what = 'e';
	size_t n = eq ? (size_t)(eq - opt) : strlen(opt);

	if (!strncmp(opt, "CONFIG_", 7)) {
		opt += 7;
		n -= 7;
	}
	for (size_t i = 0; i < n; i++)
		if (!((opt[i] >= 'A' && opt[i] <= 'Z') ||
		      (opt[i] >= '0' && opt[i] <= '9') || opt[i] == '_'))
			return rb_err(RB_ECONFIG, "bad build option '%s'", opt);
	if (!n)
		return rb_err(RB_ECONFIG, "bad build option '%s'", opt);
	if (eq && !strcmp(eq, "=n"))
		what = 'd';
	else if (eq && !strcmp(eq, "=m"))
		what = 'm';
	else if (eq && strcmp(eq, "=y"))
		return rb_err(RB_ECONFIG, "bad build option '%s'", opt);
	return rb_buf_printf(b, " -%c %.*s", what, (int)n, opt);
}

/* The options of the build: the config's, then the section's. */
static size_t n_options(const struct rb_check_opts *o)
{
	return o->n_build_options + o->n_section_build_options;
}

static const char *option_at(const struct rb_check_opts *o, size_t i)
{
	return i < o->n_build_options ?
		       o->build_options[i] :
		       o->section_build_options[i - o->n_build_options];
}

static const char *config_target(const struct rb_check_opts *o)
{
	if (o->section_build_config)
		return o->section_build_config;
	return o->build_config ? o->build_config : "defconfig";
}

/*
 * The configuration, once per cache entry (when /out has no .config):
 * the config target, then the options with scripts/config of the
 * configured branch tip (at /tools), never the tree's own.
 */
static int config_script(struct rb_buf *b, const struct rb_check_opts *o,
			 bool ccache)
{
	const char *cfg = config_target(o);
	const char *cc = ccache ? " CC=\"ccache gcc\"" : "";
	size_t i;
	int ret;

	if (!plain_path(cfg))
		return rb_err(RB_ECONFIG, "bad build config target '%s'", cfg);
	rb_buf_printf(
		b,
		"if [ ! -f /out/.config ]; then\n"
		" make -s O=/out%s %s || { echo rb-config-failed; exit 100; }\n",
		cc, cfg);
	if (n_options(o)) {
		rb_buf_puts(b, " /tools/scripts/config --file /out/.config");
		for (i = 0; i < n_options(o); i++) {
			if (!plain_path(option_at(o, i)) &&
			    !strchr(option_at(o, i), '='))
				return rb_err(RB_ECONFIG,
					      "bad build option '%s'",
					      option_at(o, i));
			ret = config_switch(b, option_at(o, i));
			if (ret)
				return ret;
		}
		rb_buf_printf(b,
			      " && make -s O=/out%s olddefconfig || "
			      "{ echo rb-config-failed; exit 100; }\n",
			      cc);
	}
	return rb_buf_puts(b, "fi\n");
}

/*
 * One make of @t's objects that exist at this step (@have[i]): removed
 * first when @rm (so that each is compiled, and checked with @sparse,
 * again), else rebuilt only when its sources changed. sparse runs
 * through /tools/rb-sparse, which marks its lines "rb-sparse: ".
 */
static int make_cmd(struct rb_buf *b, const struct rb_check_opts *o,
		    const struct targets *t, const bool *have, bool ccache,
		    bool sparse, bool rm)
{
	const char *cc = ccache ? " CC=\"ccache gcc\"" : "";
	int jobs = o->build_jobs > 0 ? o->build_jobs : 2;
	size_t i;

	if (rm) {
		rb_buf_puts(b, "cd /out && rm -f");
		for (i = 0; i < t->n; i++)
			if (have[i])
				rb_buf_printf(b, " %s", t->v[i]);
		rb_buf_puts(b, "\n");
	}
	rb_buf_printf(b, "cd /src && make -s -k -j%d O=/out W=1%s%s%s", jobs,
		      sparse ? " C=1 CHECK=/tools/rb-sparse" : "",
		      o->build_no_kdoc ? " cmd_checkdoc=true" : "", cc);
	for (i = 0; i < t->n; i++)
		if (have[i])
			rb_buf_printf(b, " %s", t->v[i]);
	return rb_buf_puts(b, " 2>&1\necho rb-make-exit=$?\n");
}

/*
 * @ccache: the ccache directory, or NULL. Only the base build may write
 * to it: a patched build could otherwise plant objects or hide warnings
 * for later series, so it reads it only (CCACHE_READONLY).
 */
static int sandbox_build(struct rb_proc_result *res,
			 const struct rb_check_ctx *ctx, const char *src,
			 const char *out, const char *ccache, const char *tools,
			 bool trusted, const char *script)
{
	struct rb_sandbox_opts so = RB_SANDBOX_OPTS_INIT;
	struct rb_sandbox_bind bind = { tools, "/tools", false };
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	int left = rb_check_time_left_ms(ctx, 1800000) / 1000;
	int ret;

	so.src = src;
	so.out = out;
	if (tools) {
		so.binds = &bind;
		so.n_binds = 1;
	}
	so.timeout_seconds = left > 0 ? left : 1;
	so.mem_mb = ctx->opts->build_mem_mb ? ctx->opts->build_mem_mb : 4096;
	if (ctx->opts->build_tmpfs_mb > 0)
		so.tmpfs_mb = ctx->opts->build_tmpfs_mb;
	if (ctx->opts->build_nproc > 0)
		so.nproc = ctx->opts->build_nproc;
	if (ccache) {
		so.cache = ccache;
		so.cache_ro = !trusted;
		rb_buf_printf(&b,
			      "export CCACHE_DIR=/cache CCACHE_TEMPDIR=/tmp "
			      "CCACHE_NOHASHDIR=1%s\n",
			      trusted ? "" : " CCACHE_READONLY=1");
	}
	ret = rb_buf_puts(&b, script);
	if (!ret)
		ret = rb_sandbox_run(res, &so, b.ptr);
	rb_buf_release(&b);
	return ret;
}

/*
 * Where the cache lives: opts, $RB_BUILD_CACHE, $XDG_CACHE_HOME/reviewbot/
 * build or ~/.cache/reviewbot/build; never a shared directory such as
 * /var/tmp, where anyone can plant a symlink. Made private here.
 */
static int cache_dir(char *out, size_t size, const struct rb_check_opts *o)
{
	const char *env = rb_test_build_cache();
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (o->build_cache_dir && *o->build_cache_dir)
		n = snprintf(out, size, "%s", o->build_cache_dir);
	else if (env && *env)
		n = snprintf(out, size, "%s", env);
	else if (xdg && *xdg == '/')
		n = snprintf(out, size, "%s/reviewbot/build", xdg);
	else if (home && *home == '/')
		n = snprintf(out, size, "%s/.cache/reviewbot/build", home);
	else
		return rb_err(RB_ECONFIG, "no build cache: set --build-cache, "
					  "$RB_BUILD_CACHE or $HOME");
	if (n < 0 || (size_t)n >= size)
		return rb_err(RB_EINVAL, "build cache path too long");
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
	return rb_private_dir(out);
}

/* Writes @rel of the tools commit under @dir (0755: run in the sandbox). */
static int extract_tool(git_repository *repo, const git_oid *tools,
			const char *rel, const char *dir)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	char path[8192], *slash;
	int ret = 0;

	if (git_commit_lookup(&c, repo, tools) || git_commit_tree(&tree, c)) {
		ret = rb_err(RB_ENOTFOUND, "configured branch tip %s: %s",
			     git_oid_tostr_s(tools), rb_git_msg());
		goto out;
	}
	if (git_tree_entry_bypath(&te, tree, rel) ||
	    git_tree_entry_type(te) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(te))) {
		ret = rb_err(RB_ENOTFOUND,
			     "%s is not a file of the configured branch tip "
			     "%s",
			     rel, git_oid_tostr_s(tools));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (slash = strchr(path + strlen(dir), '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			ret = rb_err(RB_EIO, "mkdir %s: %s", path,
				     strerror(errno));
			goto out;
		}
		*slash = '/';
	}
	ret = rb_write_file_atomic(path, git_blob_rawcontent(blob),
				   (size_t)git_blob_rawsize(blob), 0755);
out:
	git_blob_free(blob);
	git_tree_entry_free(te);
	git_tree_free(tree);
	git_commit_free(c);
	return ret;
}

static int make_exit(const struct rb_proc_result *r)
{
	const char *p = strstr(r->out.ptr, "rb-make-exit=");

	if (r->timed_out)
		return -1;
	return p ? atoi(p + 13) : (r->exit_code ? r->exit_code : -1);
}

#define MAX_QUOTED_FILE (8u << 20)

/*
 * The text of line @line of @file under @dir, for the finding's code, or
 * NULL. @file comes from the compiler's output, so from the patch: it is
 * read only when its real path is a regular file inside @dir, opened
 * without following a symlink and without blocking, and not too big.
 */
static char *source_line(const char *dir, const char *file, int line)
{
	struct rb_buf b = RB_BUF_INIT(MAX_QUOTED_FILE);
	char path[4096], *root = NULL, *real = NULL;
	char *s = NULL;
	struct stat st;
	size_t rl;
	int fd = -1;

	if (line < 1 || *file == '/' ||
	    snprintf(path, sizeof(path), "%s/%s", dir, file) >=
		    (int)sizeof(path))
		goto out;
	root = realpath(dir, NULL);
	real = realpath(path, NULL);
	if (!root || !real)
		goto out;
	rl = strlen(root);
	if (strncmp(real, root, rl) || real[rl] != '/')
		goto out;
	fd = open(real,
		  O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > MAX_QUOTED_FILE || rb_read_fd(&b, fd))
		goto out;
	s = rb_check_nth_line(b.ptr, line);
out:
	rb_err_clear();
	if (fd >= 0)
		close(fd);
	free(root);
	free(real);
	rb_buf_release(&b);
	return s;
}

static bool in_base(const struct rb_findings *base, const struct rb_finding *f)
{
	size_t i;

	for (i = 0; i < base->n; i++)
		if (!strcmp(base->v[i].file, f->file) &&
		    !strcmp(base->v[i].code, f->code))
			return true;
	return false;
}

/* The last lines of make's output, for a failure with no diagnostic. */
static void tail_lines(char *dst, size_t size, const char *text, int lines)
{
	const char *end = strstr(text, "rb-make-exit=");
	const char *p;

	if (!end)
		end = text + strlen(text);
	p = end;
	while (p > text && lines >= 0) {
		p--;
		if (*p == '\n')
			lines--;
	}
	if (*p == '\n')
		p++;
	snprintf(dst, size, "%.*s", (int)(end - p), p);
}

static int cmp_diag(const void *a, const void *b)
{
	const struct rb_finding *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	return c ? c : x->line - y->line;
}

/* What one run reports: the compiler's new diagnostics and each patch in
 * turn (the "build" checker), sparse's new warnings, or both. */
struct build_mode {
	bool diags; /* the compiler's new diagnostics, a failing build */
	bool each; /* every patch in turn */
	bool sparse; /* C=1, sparse's new warnings */
};

/* One build check: the base's cache entry, the series' directory, and
 * the builds with their diagnostics. */
struct build_run {
	const struct rb_check_ctx *ctx; /* borrowed */
	struct build_mode mode;
	git_repository *repo;
	struct targets t;
	bool base_have[MAX_TARGETS]; /* the .c is in the base */
	bool tip_have[MAX_TARGETS]; /* ...with the series applied */
	char cache[2048];
	char key[2200]; /* CACHE/<base>-<config hash>: the base's entry */
	char src[2400]; /* CACHE/<base>.src/tree: the base's sources */
	char run_dir[2200]; /* the series' directory, "" before mkdtemp */
	char patched_src[4200];
	char patched_out[4200];
	char ccache[2100]; /* "" without ccache */
	char tools[4200]; /* /tools: scripts/config, rb-sparse */
	struct rb_buf cfg_script;
	struct rb_findings base_diags, new_diags, base_sparse, new_sparse;
	struct rb_proc_result rb, rp;
	bool have_rb, have_rp;
	int lock;
	int base_exit, patched_exit;
	/* Each patch in turn: the first that breaks a building tree, the
	 * first after it that builds again, its errors; steps not built. */
	int broken_at, repaired_at;
	bool base_reused; /* the base's output was kept from a series before */
	struct rb_findings broken_diags;
	char broken_tail[600];
	int steps_skipped;
};

static void build_run_release(struct build_run *b)
{
	if (b->have_rb)
		rb_proc_result_release(&b->rb);
	if (b->have_rp)
		rb_proc_result_release(&b->rp);
	if (b->run_dir[0])
		rb_remove_tree(b->run_dir);
	if (b->lock >= 0)
		close(b->lock);
	rb_findings_release(&b->base_diags);
	rb_findings_release(&b->new_diags);
	rb_findings_release(&b->base_sparse);
	rb_findings_release(&b->new_sparse);
	rb_findings_release(&b->broken_diags);
	rb_buf_release(&b->cfg_script);
	targets_release(&b->t);
	git_repository_free(b->repo);
}

/* Whether @commit has a file at @path. */
static bool commit_has(git_repository *repo, const git_oid *commit,
		       const char *path)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	bool ok;

	ok = !git_commit_lookup(&c, repo, commit) &&
	     !git_commit_tree(&tree, c) &&
	     !git_tree_entry_bypath(&te, tree, path) &&
	     git_tree_entry_type(te) == GIT_OBJECT_BLOB;
	git_tree_entry_free(te);
	git_tree_free(tree);
	git_commit_free(c);
	git_error_clear();
	return ok;
}

/* Which of the targets' sources @commit has (its .o named as .c). */
static bool targets_at(git_repository *repo, const struct targets *t,
		       const git_oid *commit, bool *have)
{
	bool any = false;
	size_t i;

	for (i = 0; i < t->n; i++) {
		char *c = strdup(t->v[i]);

		have[i] = false;
		if (!c)
			continue;
		c[strlen(c) - 1] = 'c';
		have[i] = commit_has(repo, commit, c);
		any |= have[i];
		free(c);
	}
	return any;
}

/*
 * The base's sources, checked out once per base and shared by every
 * config built on it (CACHE/<base>.src/tree; 1.5 GB for linux): made
 * under their own lock, never changed once "done" is there.
 */
static int base_sources(struct build_run *b)
{
	char dir[2300], path[2400];
	int fd, ret = 0;

	snprintf(dir, sizeof(dir), "%s/%s.src", b->cache,
		 git_oid_tostr_s(&b->ctx->base));
	ret = mkdir_private(dir);
	if (ret)
		return ret;
	snprintf(b->src, sizeof(b->src), "%s/tree", dir);
	snprintf(path, sizeof(path), "%s.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		ret = rb_err(RB_EIO, "lock %s: %s", path, strerror(errno));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/done", dir);
	if (access(path, F_OK)) {
		ret = rb_remove_tree(b->src);
		if (!ret)
			ret = rb_tree_checkout(b->repo, &b->ctx->base, b->src);
		if (!ret)
			ret = rb_write_file_atomic(path, "", 0, 0644);
	}
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * The base's cache entry for this config, locked for this run: its
 * out/, the shared sources and ccache, and the config script.
 */
static int prepare_base(struct build_run *b)
{
	const struct rb_check_opts *o = b->ctx->opts;
	struct rb_buf cfg = RB_BUF_INIT(1 << 16);
	char cfg_hash[RB_SHA256_HEX], path[4200];
	size_t i;
	int ret;

	ret = cache_dir(b->cache, sizeof(b->cache), o);
	if (ret)
		return ret;
	rb_buf_printf(&cfg, "%s", config_target(o));
	for (i = 0; i < n_options(o); i++)
		rb_buf_printf(&cfg, " %s", option_at(o, i));
	rb_sha256_hex(cfg_hash, cfg.ptr, cfg.len);
	rb_buf_release(&cfg);
	snprintf(b->key, sizeof(b->key), "%s/%s-%.12s", b->cache,
		 git_oid_tostr_s(&b->ctx->base), cfg_hash);
	ret = mkdir_private(b->key);
	if (ret)
		return ret;

	snprintf(path, sizeof(path), "%s.lock", b->key);
	b->lock = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (b->lock < 0 || flock(b->lock, LOCK_EX))
		return rb_err(RB_EIO, "lock %s: %s", path, strerror(errno));

	ret = base_sources(b);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/out", b->key);
	ret = rb_sandbox_prepare_dir(path);
	if (ret)
		return ret;

	/* ccache, where it is installed: one cache for every base. */
	if (!access("/usr/bin/ccache", X_OK)) {
		snprintf(b->ccache, sizeof(b->ccache), "%s/ccache", b->cache);
		ret = rb_sandbox_prepare_dir(b->ccache);
		if (ret)
			return ret;
	}
	return config_script(&b->cfg_script, o, b->ccache[0] != '\0');
}

/* Marks sparse's lines, so that they are told from the compiler's. */
static const char sparse_wrapper[] =
	"#!/bin/sh\n"
	"# reviewbot: sparse, its lines marked for the parser\n"
	"sparse \"$@\" 2>&1 | sed 's/^/rb-sparse: /' >&2\n";

/* The series' directory, with the tools of the configured tip. */
static int prepare_run_dir(struct build_run *b)
{
	char path[4300];
	int ret;

	snprintf(b->run_dir, sizeof(b->run_dir), "%s/run-XXXXXX", b->cache);
	if (!mkdtemp(b->run_dir)) {
		ret = rb_err(RB_EIO, "mkdtemp %s: %s", b->run_dir,
			     strerror(errno));
		b->run_dir[0] = '\0';
		return ret;
	}
	snprintf(b->tools, sizeof(b->tools), "%s/tools", b->run_dir);
	if (mkdir(b->tools, 0755))
		return rb_err(RB_EIO, "mkdir %s: %s", b->tools,
			      strerror(errno));
	snprintf(path, sizeof(path), "%s/rb-sparse", b->tools);
	ret = rb_write_file_atomic(path, sparse_wrapper,
				   sizeof(sparse_wrapper) - 1, 0755);
	if (ret || !n_options(b->ctx->opts))
		return ret;
	return extract_tool(b->repo, &b->ctx->tools, "scripts/config",
			    b->tools);
}

/* Runs @script after the config script, in the sandbox. */
static int run_make(struct rb_proc_result *res, struct build_run *b,
		    const char *src, const char *out, bool trusted,
		    const char *script)
{
	struct rb_buf all = RB_BUF_INIT(1 << 21);
	int ret;

	ret = rb_buf_puts(&all, b->cfg_script.ptr);
	if (!ret)
		ret = rb_buf_puts(&all, script);
	if (!ret)
		ret = sandbox_build(res, b->ctx, src, out,
				    b->ccache[0] ? b->ccache : NULL, b->tools,
				    trusted, all.ptr);
	rb_buf_release(&all);
	return ret;
}

static int parse_base(struct build_run *b);

/* The build of the base in its cache entry. A base that does not
 * configure, or does not build without a diagnostic to blame, fails the
 * check: it says nothing about the series. */
static int build_base(struct build_run *b)
{
	struct rb_buf script = RB_BUF_INIT(1 << 20);
	char out[4200], saved[4300], hash[RB_SHA256_HEX];
	int ret;

	snprintf(out, sizeof(out), "%s/out", b->key);
	ret = make_cmd(&script, b->ctx->opts, &b->t, b->base_have,
		       b->ccache[0] != '\0', b->mode.sparse, true);
	/*
	 * The base's output for these objects (and sparse or not) is the
	 * same for every series on this base: kept beside its out/, read
	 * instead of building them again.
	 */
	rb_sha256_hex(hash, script.ptr ? script.ptr : "", script.len);
	snprintf(saved, sizeof(saved), "%s/diag-%.16s.out", b->key, hash);
	rb_buf_init(&b->rb.out, 16u << 20);
	rb_buf_init(&b->rb.err, 1);
	if (!ret && !rb_read_file(&b->rb.out, saved) && b->rb.out.ptr &&
	    strstr(b->rb.out.ptr, "rb-make-exit=")) {
		rb_buf_release(&script);
		b->have_rb = true;
		b->base_reused = true;
		return parse_base(b);
	}
	rb_err_clear();
	rb_buf_release(&b->rb.out);
	if (!ret)
		ret = run_make(&b->rb, b, b->src, out, true, script.ptr);
	rb_buf_release(&script);
	if (ret)
		return ret;
	b->have_rb = true;
	ret = parse_base(b);
	if (!ret && !b->rb.timed_out && !b->rb.truncated)
		rb_write_file_atomic(saved, b->rb.out.ptr, b->rb.out.len, 0600);
	rb_err_clear();
	return ret;
}

/* The base's diagnostics from its build's output. */
static int parse_base(struct build_run *b)
{
	char tail[600];
	int ret;

	if (b->rb.timed_out)
		return rb_err(RB_ETIMEOUT,
			      "the base build did not finish in time");
	if (b->rb.exit_code == 100 ||
	    strstr(b->rb.out.ptr, "rb-config-failed")) {
		tail_lines(tail, sizeof(tail), b->rb.out.ptr, 4);
		return rb_err(RB_EFAIL, "the base does not configure: %s",
			      tail);
	}
	b->base_exit = make_exit(&b->rb);
	ret = rb_build_parse(&b->base_diags, b->rb.out.ptr);
	if (!ret && b->mode.sparse)
		ret = rb_sparse_parse(&b->base_sparse, b->rb.out.ptr);
	if (ret)
		return ret;
	/* Without one diagnostic to blame, a broken base says nothing. */
	if (b->base_exit != 0 && !b->base_diags.n) {
		tail_lines(tail, sizeof(tail), b->rb.out.ptr, 4);
		return rb_err(RB_EFAIL, "the base does not build (exit %d): %s",
			      b->base_exit, tail);
	}
	return 0;
}

/* "cp -a @from @to" (the base's output, so make rebuilds only what the
 * series changes). */
static int copy_tree(const char *from, const char *to)
{
	const char *argv[] = { "cp", "-a", "--", from, to, NULL };
	struct rb_proc_opts po = RB_PROC_OPTS_INIT;
	struct rb_proc_result rc;
	int ret;

	po.argv = argv;
	po.merge_stderr = true;
	po.timeout_ms = 600000;
	ret = rb_proc_run(&rc, &po);
	if (ret)
		return ret;
	if (rc.exit_code)
		ret = rb_err(RB_EIO, "cp -a %s: %.200s", from, rc.out.ptr);
	rb_proc_result_release(&rc);
	return ret;
}

/* The series' sources at the first patch (or the whole series), and a
 * copy of the base's output. */
static int prepare_patched(struct build_run *b, const git_oid *first)
{
	char out[4200];
	int ret;

	snprintf(b->patched_src, sizeof(b->patched_src), "%s/src", b->run_dir);
	ret = rb_tree_overlay(b->repo, &b->ctx->base, first, b->src,
			      b->patched_src);
	if (ret)
		return ret;
	snprintf(out, sizeof(out), "%s/out", b->key);
	snprintf(b->patched_out, sizeof(b->patched_out), "%s/out", b->run_dir);
	return copy_tree(out, b->patched_out);
}

/* Seconds a step of the patch-by-patch build may take at least; below
 * that much time left, the last step (the whole series) goes first. */
#define STEP_RESERVE_MS 120000

/*
 * Patches 1 .. n-1 in turn, each on the output of the one before, so
 * make rebuilds only what a patch changed (and, through kbuild's
 * dependency files, what includes a changed header). The first patch
 * that breaks a tree that built is remembered with its errors, and the
 * first later one that builds again. The sources end at patch n-1.
 */
static int build_each(struct build_run *b, const git_oid *commits, size_t n)
{
	bool have[MAX_TARGETS];
	bool ok = b->base_exit == 0;
	size_t k, cur = 0; /* the sources are at commits[cur] */
	int ret = 0;

	for (k = 0; k + 1 < n && !ret; k++) {
		struct rb_buf script = RB_BUF_INIT(1 << 20);
		struct rb_proc_result r;
		int code;

		if (rb_check_time_left_ms(b->ctx, 1 << 30) < STEP_RESERVE_MS) {
			b->steps_skipped = (int)(n - 1 - k);
			break;
		}
		if (k) {
			ret = rb_tree_update(b->repo, &commits[cur],
					     &commits[k], b->patched_src);
			if (ret)
				break;
			cur = k;
		}
		if (!targets_at(b->repo, &b->t, &commits[k], have))
			continue;
		ret = make_cmd(&script, b->ctx->opts, &b->t, have,
			       b->ccache[0] != '\0', false, false);
		if (!ret)
			ret = run_make(&r, b, b->patched_src, b->patched_out,
				       false, script.ptr);
		rb_buf_release(&script);
		if (ret)
			break;
		code = r.timed_out ? -1 : make_exit(&r);
		if (code != 0 && ok && !b->broken_at) {
			b->broken_at = (int)k + 1;
			ret = rb_build_parse(&b->broken_diags, r.out.ptr);
			tail_lines(b->broken_tail, sizeof(b->broken_tail),
				   r.out.ptr, 4);
		} else if (code == 0 && b->broken_at && !b->repaired_at) {
			b->repaired_at = (int)k + 1;
		}
		ok = code == 0;
		rb_proc_result_release(&r);
	}
	if (!ret)
		ret = rb_tree_update(b->repo, &commits[cur], &b->ctx->applied,
				     b->patched_src);
	return ret;
}

/* The whole series: each target compiled (and checked) again. */
static int build_patched(struct build_run *b)
{
	struct rb_buf script = RB_BUF_INIT(1 << 20);
	const struct rb_check_ctx *ctx = b->ctx;
	bool each = b->mode.each && ctx->patch_commits && ctx->n_patches > 1 &&
		    ctx->n_patch_commits == ctx->n_patches;
	int ret;

	ret = prepare_patched(b, each ? &ctx->patch_commits[0] : &ctx->applied);
	if (!ret && each)
		ret = build_each(b, ctx->patch_commits, ctx->n_patch_commits);
	if (!ret)
		ret = make_cmd(&script, ctx->opts, &b->t, b->tip_have,
			       b->ccache[0] != '\0', b->mode.sparse, true);
	if (!ret)
		ret = run_make(&b->rp, b, b->patched_src, b->patched_out, false,
			       script.ptr);
	rb_buf_release(&script);
	if (ret)
		return ret;
	b->have_rp = true;
	b->patched_exit = make_exit(&b->rp);
	ret = rb_build_parse(&b->new_diags, b->rp.out.ptr);
	if (!ret && b->mode.sparse)
		ret = rb_sparse_parse(&b->new_sparse, b->rp.out.ptr);
	if (ret)
		return ret;
	/* make -j prints in the order jobs finish; report in file order. */
	if (b->new_diags.n > 1)
		qsort(b->new_diags.v, b->new_diags.n, sizeof(*b->new_diags.v),
		      cmp_diag);
	if (b->new_sparse.n > 1)
		qsort(b->new_sparse.v, b->new_sparse.n,
		      sizeof(*b->new_sparse.v), cmp_diag);
	return 0;
}

/* The patch of the series that last changed @file (a diagnostic's). */
static int patch_of_diag(const struct build_run *b, const char *file)
{
	int patch = 0;
	size_t k;

	for (k = 0; k < b->t.n; k++) {
		size_t n = strlen(b->t.v[k]);

		if (!strncmp(b->t.v[k], file, n - 1) &&
		    !strcmp(file + n - 1, "c"))
			patch = b->t.patch[k];
	}
	return patch ? patch : patch_of(b->ctx, file);
}

/* The lines the series adds, "+" lines of the diff base..applied. */
struct added {
	char **file; /* borrowed from @files */
	int *line;
	size_t n, cap;
	char **files; /* owned, one per file */
	size_t n_files;
	bool full;
};

static int added_line_cb(const git_diff_delta *d, const git_diff_hunk *h,
			 const git_diff_line *l, void *payload)
{
	struct added *a = payload;

	(void)h;
	if (l->origin != GIT_DIFF_LINE_ADDITION || l->new_lineno < 1)
		return 0;
	if (!a->n_files || strcmp(a->files[a->n_files - 1], d->new_file.path)) {
		char **v = realloc(a->files, (a->n_files + 1) * sizeof(*v));

		if (!v)
			return -1;
		a->files = v;
		v[a->n_files] = strdup(d->new_file.path);
		if (!v[a->n_files])
			return -1;
		a->n_files++;
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		char **f;
		int *ln;

		if (cap > 200000) {
			a->full = true;
			return 0;
		}
		f = realloc(a->file, cap * sizeof(*f));
		if (f)
			a->file = f;
		ln = f ? realloc(a->line, cap * sizeof(*ln)) : NULL;
		if (!f || !ln)
			return -1;
		a->line = ln;
		a->cap = cap;
	}
	a->file[a->n] = a->files[a->n_files - 1];
	a->line[a->n++] = l->new_lineno;
	return 0;
}

static void added_release(struct added *a)
{
	size_t i;

	for (i = 0; i < a->n_files; i++)
		free(a->files[i]);
	free(a->files);
	free(a->file);
	free(a->line);
	memset(a, 0, sizeof(*a));
}

static int added_lines(struct added *a, struct build_run *b)
{
	git_diff *diff = NULL;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	if (rb_tree_diff(&diff, b->repo, &b->ctx->base, &b->ctx->applied))
		return rb_err(RB_EIO, "diff base..applied: %s", rb_git_msg());
	if (git_diff_foreach(diff, NULL, NULL, NULL, added_line_cb, a))
		ret = rb_err(RB_ENOMEM, "the series' added lines");
	git_diff_free(diff);
	return ret;
}

static bool is_added(const struct added *a, const char *file, int line)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->line[i] == line && !strcmp(a->file[i], file))
			return true;
	return false;
}

/*
 * Whether now->v[i] is new: its (file, diagnostic) comes more often
 * with the series than without, and it is one of the surplus, those on
 * lines the series adds (@on_added, per finding of @now) first, then the
 * last ones. A warning the base has once somewhere does not hide a
 * second one the series adds.
 */
static bool is_new(const bool *on_added, const struct rb_findings *before,
		   const struct rb_findings *now, size_t i)
{
	const struct rb_finding *f = &now->v[i];
	size_t k, in_before = 0, same = 0, surplus;
	size_t n_added = 0, rank_added = 0, after = 0;

	for (k = 0; k < before->n; k++)
		in_before += !strcmp(before->v[k].file, f->file) &&
			     !strcmp(before->v[k].code, f->code);
	if (!in_before)
		return true;
	for (k = 0; k < now->n; k++) {
		const struct rb_finding *g = &now->v[k];

		if (strcmp(g->file, f->file) || strcmp(g->code, f->code))
			continue;
		same++;
		n_added += on_added[k];
		rank_added += on_added[k] && k < i;
		after += !on_added[k] && k > i;
	}
	if (same <= in_before)
		return false;
	surplus = same - in_before;
	if (on_added[i])
		return rank_added < surplus;
	/* The added ones first; then the others from the last. */
	return n_added < surplus && after < surplus - n_added;
}

/* A finding for each diagnostic of @now that @before did not have. */
static int report_new(struct build_run *b, struct rb_findings *out,
		      const struct rb_findings *before,
		      const struct rb_findings *now, bool sparse)
{
	bool *on_added = calloc(now->n ? now->n : 1, sizeof(*on_added));
	struct added a;
	size_t i;
	int ret;

	if (!on_added)
		return rb_err(RB_ENOMEM, "out of memory");
	ret = added_lines(&a, b);
	for (i = 0; i < now->n && !ret; i++)
		on_added[i] = is_added(&a, now->v[i].file, now->v[i].line);
	for (i = 0; i < now->n && !ret; i++) {
		struct rb_finding *f = &now->v[i];
		const char *level = strchr(f->category, '-') + 1;
		char *code, msg[1200];

		if (!is_new(on_added, before, now, i))
			continue;
		code = source_line(b->patched_src, f->file, f->line);
		if (sparse)
			snprintf(msg, sizeof(msg),
				 "With this series applied, sparse reports a "
				 "new %s here: \"%s\".",
				 level, f->message);
		else
			snprintf(msg, sizeof(msg),
				 "With this series applied, W=1 reports a new "
				 "%s here: \"%s\". Is that intended?",
				 level, f->message);
		ret = rb_findings_add(
			out,
			&(struct rb_finding_spec){
				.checker = sparse ? "sparse" : CHECKER,
				.checker_version = VERSION,
				.category = f->category,
				.severity = f->severity,
				.file = f->file,
				.line = f->line,
				.code = code ? code : f->code,
				.message = msg,
				.patch_index = patch_of_diag(b, f->file) });
		free(code);
	}
	added_release(&a);
	free(on_added);
	return ret;
}

/* A finding when the series' build hangs, or fails where the base's did
 * not with no new diagnostic to show for it. */
static int report_failure(struct build_run *b, struct rb_findings *out)
{
	char tail[800], msg[1000];
	bool any = false;
	size_t i;

	if (b->rp.timed_out)
		return rb_findings_add(
			out,
			&(struct rb_finding_spec){
				.checker = CHECKER,
				.checker_version = VERSION,
				.category = "build-failed",
				.severity = RB_FSEV_HIGH,
				.message =
					"The build with this series applied did "
					"not finish in time (the base build "
					"did). Does something in it hang?" });
	if (b->patched_exit == 0 || b->base_exit != 0)
		return 0;
	for (i = 0; i < b->new_diags.n; i++)
		any |= !in_base(&b->base_diags, &b->new_diags.v[i]);
	if (any)
		return 0;
	tail_lines(tail, sizeof(tail), b->rp.out.ptr, 6);
	snprintf(msg, sizeof(msg),
		 "The build fails with this series applied "
		 "(exit %d) and not without it. The last "
		 "lines of its output are quoted.",
		 b->patched_exit);
	return rb_findings_add(
		out, &(struct rb_finding_spec){ .checker = CHECKER,
						.checker_version = VERSION,
						.category = "build-failed",
						.severity = RB_FSEV_HIGH,
						.code = tail,
						.message = msg });
}

/*
 * The patch that breaks the build of a series that built before it,
 * when the series does not stay broken with no more to say than the
 * tip's errors: "build-bisect", on that patch.
 */
static int report_bisect(struct build_run *b, struct rb_findings *out)
{
	const struct rb_finding *e = NULL;
	char msg[1400], what[900];
	size_t i, n = b->ctx->n_patches;

	if (!b->broken_at)
		return 0;
	/* An error, else a warning that CONFIG_WERROR made fatal. */
	for (i = 0; i < b->broken_diags.n && !e; i++)
		if (!strcmp(b->broken_diags.v[i].category, "build-error") &&
		    !in_base(&b->base_diags, &b->broken_diags.v[i]))
			e = &b->broken_diags.v[i];
	for (i = 0; i < b->broken_diags.n && !e; i++)
		if (!in_base(&b->base_diags, &b->broken_diags.v[i]))
			e = &b->broken_diags.v[i];
	if (e)
		snprintf(what, sizeof(what), ": \"%s\" at %s:%d", e->message,
			 e->file, e->line);
	else
		snprintf(what, sizeof(what), " (make exits non-zero)");
	/* The last patch is the whole series, built last. */
	if (!b->repaired_at && b->patched_exit == 0)
		b->repaired_at = (int)n;
	if (b->repaired_at)
		snprintf(msg, sizeof(msg),
			 "The build breaks at patch %d/%zu of this series%s; "
			 "patch %d/%zu makes it build again. Each patch "
			 "should build on its own, so that the series stays "
			 "bisectable.",
			 b->broken_at, n, what, b->repaired_at, n);
	else
		snprintf(msg, sizeof(msg),
			 "The build first breaks at patch %d/%zu of this "
			 "series%s.",
			 b->broken_at, n, what);
	return rb_findings_add(
		out,
		&(struct rb_finding_spec){ .checker = CHECKER,
					   .checker_version = VERSION,
					   .category = "build-bisect",
					   .severity = RB_FSEV_HIGH,
					   .file = e ? e->file : NULL,
					   .line = e ? e->line : 0,
					   .code = e ? e->code : b->broken_tail,
					   .message = msg,
					   .patch_index = b->broken_at });
}

static int run_mode(const struct rb_check_ctx *ctx, struct rb_findings *out,
		    struct build_mode mode)
{
	struct build_run b = { .ctx = ctx, .lock = -1, .mode = mode };
	char nb[16], nn[16], ns[16];
	int ret;

	if (!ctx->repo_path || !ctx->has_base || !ctx->has_applied)
		return rb_err(
			RB_EINVAL,
			"the build check needs the base and applied trees");
	if (n_options(ctx->opts) && !ctx->has_tools)
		return rb_err(RB_EINVAL,
			      "build options need scripts/config from the "
			      "configured branch tip");
	rb_buf_init(&b.cfg_script, 1 << 20);
	ret = rb_check_repo_open(&b.repo, ctx);
	if (!ret)
		ret = find_targets(&b.t, b.repo, ctx);
	/* A series that touches no C file costs no build. */
	if (ret || !b.t.n)
		goto out;
	targets_at(b.repo, &b.t, &ctx->base, b.base_have);
	if (!targets_at(b.repo, &b.t, &ctx->applied, b.tip_have))
		goto out;
	ret = prepare_base(&b);
	if (!ret)
		ret = prepare_run_dir(&b);
	if (!ret)
		ret = build_base(&b);
	if (!ret)
		ret = build_patched(&b);
	if (ret)
		goto out;
	if (mode.diags)
		ret = report_new(&b, out, &b.base_diags, &b.new_diags, false);
	if (!ret && mode.diags)
		ret = report_failure(&b, out);
	if (!ret && mode.diags)
		ret = report_bisect(&b, out);
	if (!ret && mode.sparse)
		ret = report_new(&b, out, &b.base_sparse, &b.new_sparse, true);
	snprintf(nb, sizeof(nb), "%zu", b.base_diags.n);
	snprintf(nn, sizeof(nn), "%zu", b.new_diags.n);
	snprintf(ns, sizeof(ns), "%d", b.steps_skipped);
	rb_log(RB_LOG_INFO, "check.build", "targets", b.t.v[0], "base", nb,
	       "patched", nn, "steps_skipped", ns, "base_reused",
	       b.base_reused ? "yes" : "no", NULL);
out:
	build_run_release(&b);
	return ret;
}

static int run(const struct rb_check_ctx *ctx, struct rb_findings *out)
{
	struct build_mode m = { .diags = true,
				.each = ctx->opts->build_each,
				.sparse = ctx->opts->build_sparse };

	return run_mode(ctx, out, m);
}

static int run_sparse(const struct rb_check_ctx *ctx, struct rb_findings *out)
{
	struct build_mode m = { .sparse = true };

	return run_mode(ctx, out, m);
}

const struct rb_checker_ops rb_check_build_ops = {
	.name = "build",
	.label = "build",
	.tree = true,
	.version = VERSION,
	.run = run,
};

/* sparse: the same build with C=1, only sparse's new warnings. */
const struct rb_checker_ops rb_check_sparse_ops = {
	.name = "sparse",
	.label = "sparse",
	.tree = true,
	.version = VERSION,
	.run = run_sparse,
};
