// SPDX-License-Identifier: GPL-2.0-only
/*
 * sandbox.c - child processes with a deadline, and the bubblewrap sandbox.
 * The sandbox follows ../shared/rig/kbuild.sh, tested on Debian 12:
 * prlimit -> bwrap with its own mount, pid, net, ipc and uts namespaces
 * (so no network: only a loopback of its own), /usr read-only, a /tmp
 * tmpfs with a size cap, the binds asked for and nothing else, a cleared
 * environment; as root, setpriv inside drops to uid 65534 without
 * capabilities (see sb_prefix()).
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
	struct stat st;
	int fd, ret = 0;

	if (mkdir(path, 0755) && errno != EEXIST)
		return rb_err(RB_EIO, "mkdir %s: %s", path, strerror(errno));
	/* Never through a symlink someone planted there. */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return rb_err(RB_EIO, "%s: %s", path,
			      errno == ELOOP || errno == ENOTDIR ?
				      "not a directory (a symlink?)" :
				      strerror(errno));
	if (fstat(fd, &st)) {
		ret = rb_err(RB_EIO, "stat %s: %s", path, strerror(errno));
	} else if (st.st_uid != geteuid() &&
		   !(geteuid() == 0 && st.st_uid == NOBODY)) {
		ret = rb_err(RB_EIO, "%s belongs to uid %u, not to us", path,
			     (unsigned)st.st_uid);
	} else if (geteuid() == 0 && fchown(fd, NOBODY, NOBODY)) {
		ret = rb_err(RB_EIO, "chown %s: %s", path, strerror(errno));
	}
	close(fd);
	return ret;
}

int rb_private_dir(const char *path)
{
	struct stat st;
	int fd, ret = 0;

	if (mkdir(path, 0700) && errno == ENOENT) {
		char *parent = strdup(path), *slash;

		if (!parent)
			return -RB_ENOMEM;
		slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = '\0';
			ret = rb_mkdirs(parent);
		}
		free(parent);
		if (ret)
			return ret;
		mkdir(path, 0700);
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return rb_err(RB_EIO, "%s: %s", path,
			      errno == ELOOP || errno == ENOTDIR ?
				      "not a directory (a symlink?)" :
				      strerror(errno));
	if (fstat(fd, &st))
		ret = rb_err(RB_EIO, "stat %s: %s", path, strerror(errno));
	else if (st.st_uid != geteuid())
		ret = rb_err(RB_EIO,
			     "%s belongs to uid %u, not to us: a private "
			     "directory is needed",
			     path, (unsigned)st.st_uid);
	else if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700))
		ret = rb_err(RB_EIO, "chmod %s: %s", path, strerror(errno));
	close(fd);
	return ret;
}

/*
 * The command line up to the program: prlimit, then bwrap. As root, bwrap
 * itself runs privileged (it can bind what root can read: the trees and
 * the private cache) and setpriv inside it drops to uid nobody with no
 * capabilities before the program starts; otherwise bwrap makes a user
 * namespace and the program keeps our uid without any capability.
 */
struct sb_argv {
	const char *v[128];
	int n;
	char nproc[32], cpu[32], as[48], fsize[48], tmpfs[48];
};

static int sb_push(struct sb_argv *a, const char *s)
{
	if (a->n >= (int)(sizeof(a->v) / sizeof(a->v[0])) - 1)
		return rb_err(RB_EINVAL, "sandbox: too many arguments");
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
	return 0;
}

static int sb_prefix(struct sb_argv *a, const struct rb_sandbox_opts *o)
{
	bool root = geteuid() == 0;
	int ret = 0;
	size_t i;

	a->n = 0;
	snprintf(a->nproc, sizeof(a->nproc), "--nproc=%d",
		 o->nproc ? o->nproc : 1024);
	snprintf(a->cpu, sizeof(a->cpu), "--cpu=%d",
		 o->cpu_seconds ? o->cpu_seconds : 3600);
	snprintf(a->as, sizeof(a->as), "--as=%lld",
		 (long long)(o->mem_mb ? o->mem_mb : 4096) << 20);
	snprintf(a->fsize, sizeof(a->fsize), "--fsize=%lld",
		 (long long)(o->fsize_mb ? o->fsize_mb : 4096) << 20);
	snprintf(a->tmpfs, sizeof(a->tmpfs), "%lld",
		 (long long)(o->tmpfs_mb > 0 ? o->tmpfs_mb : 512) << 20);

#define PUSH(x)                                \
	do {                                   \
		if (!ret)                      \
			ret = sb_push(a, (x)); \
	} while (0)
	PUSH("prlimit");
	PUSH(a->nproc);
	PUSH(a->cpu);
	if (o->mem_mb >= 0)
		PUSH(a->as);
	PUSH(a->fsize);
	PUSH("--core=0");
	PUSH("--nofile=4096");
	PUSH("--");
	PUSH("bwrap");
	PUSH("--ro-bind");
	PUSH("/usr");
	PUSH("/usr");
	PUSH("--symlink");
	PUSH("usr/lib");
	PUSH("/lib");
	PUSH("--symlink");
	PUSH("usr/lib64");
	PUSH("/lib64");
	PUSH("--symlink");
	PUSH("usr/bin");
	PUSH("/bin");
	PUSH("--symlink");
	PUSH("usr/sbin");
	PUSH("/sbin");
	/* Symlinks into /usr only: no secret lives there. As root, bwrap
	 * makes missing parents 0700: /etc must be 0755 for uid 65534. */
	PUSH("--perms");
	PUSH("0755");
	PUSH("--dir");
	PUSH("/etc");
	PUSH("--ro-bind-try");
	PUSH("/etc/alternatives");
	PUSH("/etc/alternatives");
	PUSH("--proc");
	PUSH("/proc");
	PUSH("--dev");
	PUSH("/dev");
	PUSH("--perms");
	PUSH("1777");
	PUSH("--size");
	PUSH(a->tmpfs);
	PUSH("--tmpfs");
	PUSH("/tmp");
	if (o->src) {
		PUSH("--ro-bind");
		PUSH(o->src);
		PUSH("/src");
	}
	if (o->out) {
		PUSH("--bind");
		PUSH(o->out);
		PUSH("/out");
	}
	if (o->cache) {
		PUSH(o->cache_ro ? "--ro-bind" : "--bind");
		PUSH(o->cache);
		PUSH("/cache");
	}
	for (i = 0; i < o->n_binds; i++) {
		PUSH(o->binds[i].rw ? "--bind" : "--ro-bind");
		PUSH(o->binds[i].src);
		PUSH(o->binds[i].dest);
	}
	if (root) {
		/* No user namespace: setpriv needs CAP_SETUID to drop. */
		PUSH("--unshare-ipc");
		PUSH("--unshare-pid");
		PUSH("--unshare-net");
		PUSH("--unshare-uts");
		PUSH("--unshare-cgroup-try");
	} else {
		PUSH("--unshare-all");
		PUSH("--cap-drop");
		PUSH("ALL");
	}
	PUSH("--die-with-parent");
	PUSH("--new-session");
	PUSH("--clearenv");
	PUSH("--setenv");
	PUSH("PATH");
	PUSH("/usr/bin:/bin");
	PUSH("--setenv");
	PUSH("HOME");
	PUSH("/tmp");
	PUSH("--setenv");
	PUSH("LC_ALL");
	PUSH("C");
	PUSH("--setenv");
	PUSH("LANG");
	PUSH("C");
	for (i = 0; o->env && o->env[i] && !ret; i += 2) {
		PUSH("--setenv");
		PUSH(o->env[i]);
		PUSH(o->env[i + 1] ? o->env[i + 1] : "");
		if (!o->env[i + 1])
			break;
	}
	PUSH("--chdir");
	PUSH(o->chdir ? o->chdir : o->src ? "/src" : "/");
	PUSH("--");
	if (root) {
		PUSH("/usr/bin/setpriv");
		PUSH("--reuid=65534");
		PUSH("--regid=65534");
		PUSH("--clear-groups");
		PUSH("--no-new-privs");
		PUSH("--inh-caps=-all");
		PUSH("--bounding-set=-all");
		PUSH("--");
	}
#undef PUSH
	return ret;
}

static int sb_run(struct rb_proc_result *res, const struct rb_sandbox_opts *o,
		  struct sb_argv *a)
{
	struct rb_proc_opts po = RB_PROC_OPTS_INIT;

	po.argv = a->v;
	po.timeout_ms = (o->timeout_seconds ? o->timeout_seconds : 1800) * 1000;
	po.max_output = o->max_output ? o->max_output : 4u << 20;
	po.merge_stderr = !o->split_stderr;
	return rb_proc_run(res, &po);
}

bool rb_sandbox_available(void)
{
	struct rb_sandbox_opts o = RB_SANDBOX_OPTS_INIT;
	struct rb_proc_result r;
	struct sb_argv a;
	bool ok;

	o.timeout_seconds = 10;
	o.split_stderr = true;
	if (sb_prefix(&a, &o) || sb_push(&a, "/bin/true") || sb_run(&r, &o, &a))
		return false;
	ok = r.exit_code == 0;
	rb_proc_result_release(&r);
	return ok;
}

int rb_sandbox_run(struct rb_proc_result *res, const struct rb_sandbox_opts *o,
		   const char *script)
{
	struct sb_argv a;
	int ret;

	ret = sb_prefix(&a, o);
	if (!ret)
		ret = sb_push(&a, "/bin/sh");
	if (!ret)
		ret = sb_push(&a, "-c");
	if (!ret)
		ret = sb_push(&a, script);
	return ret ? ret : sb_run(res, o, &a);
}

int rb_sandbox_exec(struct rb_proc_result *res, const struct rb_sandbox_opts *o,
		    const char *const *argv)
{
	struct sb_argv a;
	int ret;
	size_t i;

	ret = sb_prefix(&a, o);
	for (i = 0; !ret && argv[i]; i++)
		ret = sb_push(&a, argv[i]);
	return ret ? ret : sb_run(res, o, &a);
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
