// SPDX-License-Identifier: GPL-2.0-only
/*
 * sandbox.c - child processes with a deadline, and the bubblewrap sandbox.
 * The sandbox follows ../shared/rig/kbuild.sh, tested on Debian 12:
 * setpriv (uid 65534, no new privileges) -> prlimit -> bwrap with every
 * namespace unshared (so no network: only a loopback that is down),
 * /usr read-only, the source read-only at /src, the output at /out.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "review/sandbox.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

extern char **environ;

#define NOBODY 65534

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int add_capped(struct rb_buf *b, const char *data, size_t n, size_t max,
		      bool *truncated)
{
	if (b->len >= max) {
		*truncated = true;
		return 0;
	}
	if (n > max - b->len) {
		n = max - b->len;
		*truncated = true;
	}
	return rb_buf_add(b, data, n);
}

void rb_proc_result_release(struct rb_proc_result *res)
{
	rb_buf_release(&res->out);
	rb_buf_release(&res->err);
}

static int spawn(pid_t *out, const struct rb_proc_opts *o, int in_fd,
		 int out_fd, int err_fd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t def;
	pid_t pid;
	int ret;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	if (o->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
	/* Its own process group, so the deadline kills all of it. */
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr,
				 POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
	ret = posix_spawnp(&pid, o->argv[0], &fa, &attr, (char *const *)o->argv,
			   environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (ret)
		return rb_err(RB_EIO, "cannot run %s: %s", o->argv[0],
			      strerror(ret));
	*out = pid;
	return 0;
}

int rb_proc_run(struct rb_proc_result *res, const struct rb_proc_opts *o)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	size_t max = o->max_output ? o->max_output : 16u << 20;
	size_t in_off = 0;
	long long deadline = o->timeout_ms ? now_ms() + o->timeout_ms : 0;
	struct rb_proc_result r;
	pid_t pid = -1;
	int status = 0, ret, devnull = -1;
	char tmp[65536];

	memset(&r, 0, sizeof(r));
	rb_buf_init(&r.out, RB_BUF_NOLIMIT);
	rb_buf_init(&r.err, RB_BUF_NOLIMIT);
	if (pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC) ||
	    (o->input && pipe2(pin, O_CLOEXEC))) {
		ret = rb_err(RB_EIO, "pipe: %s", strerror(errno));
		goto out;
	}
	if (!o->input) {
		devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (devnull < 0) {
			ret = rb_err(RB_EIO, "/dev/null: %s", strerror(errno));
			goto out;
		}
	}
	ret = spawn(&pid, o, o->input ? pin[0] : devnull, pout[1],
		    o->merge_stderr ? pout[1] : perr[1]);
	if (ret)
		goto out;
	close(pout[1]);
	close(perr[1]);
	pout[1] = perr[1] = -1;
	if (o->input) {
		close(pin[0]);
		pin[0] = -1;
		fcntl(pin[1], F_SETFL, O_NONBLOCK);
		if (!o->input_len) {
			close(pin[1]);
			pin[1] = -1;
		}
	}

	while (pout[0] >= 0 || perr[0] >= 0) {
		struct pollfd pf[3];
		int n = 0, wait = -1, i;

		if (deadline) {
			long long left = deadline - now_ms();

			if (left <= 0) {
				r.timed_out = true;
				kill(-pid, SIGKILL);
				break;
			}
			wait = left > 1000 ? 1000 : (int)left;
		}
		if (pout[0] >= 0)
			pf[n++] = (struct pollfd){ .fd = pout[0],
						   .events = POLLIN };
		if (perr[0] >= 0)
			pf[n++] = (struct pollfd){ .fd = perr[0],
						   .events = POLLIN };
		if (pin[1] >= 0)
			pf[n++] = (struct pollfd){ .fd = pin[1],
						   .events = POLLOUT };
		if (poll(pf, n, wait) < 0) {
			if (errno == EINTR)
				continue;
			kill(-pid, SIGKILL);
			break;
		}
		for (i = 0; i < n; i++) {
			ssize_t k;

			if (!pf[i].revents)
				continue;
			if (pf[i].fd == pin[1]) {
				k = write(pin[1], o->input + in_off,
					  o->input_len - in_off);
				if (k > 0)
					in_off += (size_t)k;
				if (k < 0 && errno == EAGAIN)
					continue;
				if (k <= 0 || in_off >= o->input_len) {
					close(pin[1]);
					pin[1] = -1;
				}
				continue;
			}
			k = read(pf[i].fd, tmp, sizeof(tmp));
			if (k < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (k <= 0) {
				close(pf[i].fd);
				if (pf[i].fd == pout[0])
					pout[0] = -1;
				else
					perr[0] = -1;
				continue;
			}
			add_capped(pf[i].fd == pout[0] ? &r.out : &r.err, tmp,
				   (size_t)k, max, &r.truncated);
		}
	}
	/* Descendants that kept the pipes open die with the group too. */
	if (r.timed_out)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pid = -1;
	if (WIFEXITED(status))
		r.exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		r.exit_code = 128 + WTERMSIG(status);
	*res = r;
	memset(&r, 0, sizeof(r));
	ret = 0;
out:
	if (pid > 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (pin[i] >= 0)
			close(pin[i]);
		if (pout[i] >= 0)
			close(pout[i]);
		if (perr[i] >= 0)
			close(perr[i]);
	}
	if (devnull >= 0)
		close(devnull);
	if (ret)
		rb_proc_result_release(&r);
	return ret;
}

int rb_sandbox_prepare_dir(const char *path)
{
	int ret = rb_mkdirs(path);

	if (ret)
		return ret;
	if (geteuid() == 0 && chown(path, NOBODY, NOBODY))
		return rb_err(RB_EIO, "chown %s: %s", path, strerror(errno));
	return 0;
}

bool rb_sandbox_available(void)
{
	const char *argv[] = { "bwrap",	 "--ro-bind",	  "/usr",
			       "/usr",	 "--symlink",	  "usr/bin",
			       "/bin",	 "--symlink",	  "usr/lib",
			       "/lib",	 "--symlink",	  "usr/lib64",
			       "/lib64", "--unshare-all", "--die-with-parent",
			       "--",	 "/bin/true",	  NULL };
	struct rb_proc_opts o = RB_PROC_OPTS_INIT;
	struct rb_proc_result r;
	bool ok;

	o.argv = argv;
	o.timeout_ms = 10000;
	if (rb_proc_run(&r, &o))
		return false;
	ok = r.exit_code == 0;
	rb_proc_result_release(&r);
	return ok;
}

int rb_sandbox_run(struct rb_proc_result *res, const struct rb_sandbox_opts *o,
		   const char *script)
{
	char nproc[32], cpu[32], as[48], fsize[48];
	const char *argv[80];
	struct rb_proc_opts po = RB_PROC_OPTS_INIT;
	int n = 0;

	snprintf(nproc, sizeof(nproc), "--nproc=%d",
		 o->nproc ? o->nproc : 2048);
	snprintf(cpu, sizeof(cpu), "--cpu=%d",
		 o->cpu_seconds ? o->cpu_seconds : 3600);
	snprintf(as, sizeof(as), "--as=%lld",
		 (long long)(o->mem_mb ? o->mem_mb : 4096) << 20);
	snprintf(fsize, sizeof(fsize), "--fsize=%lld",
		 (long long)(o->fsize_mb ? o->fsize_mb : 4096) << 20);

	/* Only root can switch users; otherwise bwrap's own user namespace. */
	if (geteuid() == 0) {
		argv[n++] = "setpriv";
		argv[n++] = "--reuid=65534";
		argv[n++] = "--regid=65534";
		argv[n++] = "--clear-groups";
		argv[n++] = "--no-new-privs";
	}
	argv[n++] = "prlimit";
	argv[n++] = nproc;
	argv[n++] = cpu;
	if (o->mem_mb >= 0)
		argv[n++] = as;
	argv[n++] = fsize;
	argv[n++] = "--core=0";
	argv[n++] = "--nofile=4096";
	argv[n++] = "--";
	argv[n++] = "bwrap";
	argv[n++] = "--ro-bind";
	argv[n++] = "/usr";
	argv[n++] = "/usr";
	argv[n++] = "--symlink";
	argv[n++] = "usr/lib";
	argv[n++] = "/lib";
	argv[n++] = "--symlink";
	argv[n++] = "usr/lib64";
	argv[n++] = "/lib64";
	argv[n++] = "--symlink";
	argv[n++] = "usr/bin";
	argv[n++] = "/bin";
	argv[n++] = "--symlink";
	argv[n++] = "usr/sbin";
	argv[n++] = "/sbin";
	argv[n++] = "--ro-bind";
	argv[n++] = "/etc/alternatives";
	argv[n++] = "/etc/alternatives";
	argv[n++] = "--proc";
	argv[n++] = "/proc";
	argv[n++] = "--dev";
	argv[n++] = "/dev";
	argv[n++] = "--tmpfs";
	argv[n++] = "/tmp";
	argv[n++] = "--ro-bind";
	argv[n++] = o->src;
	argv[n++] = "/src";
	argv[n++] = "--bind";
	argv[n++] = o->out;
	argv[n++] = "/out";
	if (o->cache) {
		argv[n++] = o->cache_ro ? "--ro-bind" : "--bind";
		argv[n++] = o->cache;
		argv[n++] = "/cache";
	}
	argv[n++] = "--unshare-all";
	argv[n++] = "--die-with-parent";
	argv[n++] = "--new-session";
	argv[n++] = "--cap-drop";
	argv[n++] = "ALL";
	argv[n++] = "--clearenv";
	argv[n++] = "--setenv";
	argv[n++] = "PATH";
	argv[n++] = "/usr/bin:/bin";
	argv[n++] = "--setenv";
	argv[n++] = "HOME";
	argv[n++] = "/tmp";
	argv[n++] = "--setenv";
	argv[n++] = "LC_ALL";
	argv[n++] = "C";
	argv[n++] = "--chdir";
	argv[n++] = o->chdir ? o->chdir : "/src";
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n] = NULL;

	po.argv = argv;
	po.timeout_ms = (o->timeout_seconds ? o->timeout_seconds : 1800) * 1000;
	po.max_output = o->max_output ? o->max_output : 4u << 20;
	po.merge_stderr = true;
	return rb_proc_run(res, &po);
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) && errno != ENOENT ? -1 : 0;
	return unlink(path) && errno != ENOENT ? -1 : 0;
}

int rb_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	if (nftw(path, rm_one, 64, FTW_DEPTH | FTW_PHYS))
		return rb_err(RB_EIO, "cannot remove %s: %s", path,
			      strerror(errno));
	return 0;
}

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

int rb_tree_checkout(struct git_repository *repo, const struct git_oid *commit,
		     const char *dir)
{
	git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
	git_index *empty = NULL;
	git_commit *c = NULL;
	int ret;

	ret = rb_mkdirs(dir);
	if (ret)
		return ret;
	/* Sandboxed builds run as nobody: the tree must be readable. */
	chmod(dir, 0755);
	if (git_commit_lookup(&c, repo, commit))
		return rb_err(RB_ENOTFOUND, "commit %s: %s",
			      git_oid_tostr_s(commit), git_msg());
	/*
	 * The baseline defaults to HEAD's tree, whose files checkout would
	 * then take as already there: an empty index says nothing is.
	 */
	if (git_index_new(&empty)) {
		ret = rb_err(RB_ENOMEM, "index: %s", git_msg());
		goto out;
	}
	co.baseline_index = empty;
	co.checkout_strategy = GIT_CHECKOUT_FORCE |
			       GIT_CHECKOUT_DONT_UPDATE_INDEX |
			       GIT_CHECKOUT_DONT_WRITE_INDEX;
	co.target_directory = dir;
	co.disable_filters = 1;
	co.dir_mode = 0755;
	co.file_mode = 0; /* 0644 or 0755 from the tree */
	if (git_checkout_tree(repo, (const git_object *)c, &co))
		ret = rb_err(RB_EIO, "checkout of %s into %s: %s",
			     git_oid_tostr_s(commit), dir, git_msg());
out:
	git_index_free(empty);
	git_commit_free(c);
	return ret;
}

/* Writes one blob of @tree at @path under @dir, replacing what is there. */
static int mkdirs_0755(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return rb_err(RB_EIO, "mkdir %s: %s", path,
				      strerror(errno));
		}
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return rb_err(RB_EIO, "mkdir %s: %s", path, strerror(errno));
	return 0;
}

static int write_entry(git_repository *repo, const git_diff_file *f,
		       const char *dir, bool remove_only)
{
	git_blob *blob = NULL;
	char path[4096], *slash;
	int ret = 0, fd = -1;
	const char *data;
	size_t len;

	if (snprintf(path, sizeof(path), "%s/%s", dir, f->path) >=
	    (int)sizeof(path))
		return rb_err(RB_EINVAL, "path too long: %s", f->path);
	if (unlink(path) && errno != ENOENT)
		return rb_err(RB_EIO, "unlink %s: %s", path, strerror(errno));
	if (remove_only || f->mode == GIT_FILEMODE_COMMIT || !f->mode)
		return 0;
	slash = strrchr(path, '/');
	*slash = '\0';
	ret = mkdirs_0755(path);
	if (ret)
		return ret;
	*slash = '/';
	if (git_blob_lookup(&blob, repo, &f->id))
		return rb_err(RB_EIO, "blob of %s: %s", f->path, git_msg());
	data = git_blob_rawcontent(blob);
	len = (size_t)git_blob_rawsize(blob);
	if (f->mode == GIT_FILEMODE_LINK) {
		char target[4096];

		if (len >= sizeof(target)) {
			ret = rb_err(RB_EINVAL, "symlink %s too long", f->path);
			goto out;
		}
		memcpy(target, data, len);
		target[len] = '\0';
		if (symlink(target, path))
			ret = rb_err(RB_EIO, "symlink %s: %s", path,
				     strerror(errno));
		goto out;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		  f->mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644);
	if (fd < 0) {
		ret = rb_err(RB_EIO, "create %s: %s", path, strerror(errno));
		goto out;
	}
	while (len) {
		ssize_t k = write(fd, data, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			ret = rb_err(RB_EIO, "write %s: %s", path,
				     strerror(errno));
			goto out;
		}
		data += k;
		len -= (size_t)k;
	}
out:
	if (fd >= 0)
		close(fd);
	git_blob_free(blob);
	return ret;
}

int rb_tree_overlay(struct git_repository *repo, const struct git_oid *base,
		    const struct git_oid *applied, const char *base_dir,
		    const char *dir)
{
	const char *argv[] = { "cp", "-al", "--", base_dir, dir, NULL };
	struct rb_proc_opts po = RB_PROC_OPTS_INIT;
	struct rb_proc_result res;
	git_commit *cb = NULL, *ca = NULL;
	git_tree *tb = NULL, *ta = NULL;
	git_diff *diff = NULL;
	size_t i;
	int ret;

	if (git_commit_lookup(&cb, repo, base) ||
	    git_commit_lookup(&ca, repo, applied) || git_commit_tree(&tb, cb) ||
	    git_commit_tree(&ta, ca) ||
	    git_diff_tree_to_tree(&diff, repo, tb, ta, NULL)) {
		ret = rb_err(RB_EIO, "diff of %s and the applied tree: %s",
			     git_oid_tostr_s(base), git_msg());
		goto out;
	}
	po.argv = argv;
	po.timeout_ms = 600000;
	po.merge_stderr = true;
	ret = rb_proc_run(&res, &po);
	if (ret)
		goto out;
	if (res.exit_code) {
		ret = rb_err(RB_EIO, "cp -al %s %s: %.200s", base_dir, dir,
			     res.out.ptr);
		rb_proc_result_release(&res);
		goto out;
	}
	rb_proc_result_release(&res);
	for (i = 0; i < git_diff_num_deltas(diff) && !ret; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		/* The old path goes (delete, or the type changed)... */
		if (d->status == GIT_DELTA_DELETED ||
		    d->status == GIT_DELTA_TYPECHANGE)
			ret = write_entry(repo, &d->old_file, dir, true);
		/* ...and the new content comes from the applied blob. */
		if (!ret && d->status != GIT_DELTA_DELETED)
			ret = write_entry(repo, &d->new_file, dir, false);
	}
out:
	git_diff_free(diff);
	git_tree_free(tb);
	git_tree_free(ta);
	git_commit_free(cb);
	git_commit_free(ca);
	return ret;
}
