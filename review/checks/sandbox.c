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

#include "review/checks/sandbox.h"
#include "util/buf.h"
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

/* A running child: its process group, its deadline, and the pipes to
 * it: stdin (when there is input), stdout, stderr; -1 where closed. */
struct proc_io {
	pid_t pid;
	long long deadline; /* CLOCK_MONOTONIC ms, 0: none */
	int pin[2], pout[2], perr[2];
	size_t in_off; /* input bytes written */
	size_t max; /* the output cap */
};

/* Writes what the child's stdin takes; closes it at the end or on an
 * error. */
static void feed_input(struct proc_io *io, const struct rb_proc_opts *o)
{
	ssize_t k = write(io->pin[1], o->input + io->in_off,
			  o->input_len - io->in_off);

	if (k > 0)
		io->in_off += (size_t)k;
	if (k < 0 && errno == EAGAIN)
		return;
	if (k <= 0 || io->in_off >= o->input_len) {
		close(io->pin[1]);
		io->pin[1] = -1;
	}
}

/* Reads what @fd has into @r (capped); closes it at its end. */
static void drain(struct proc_io *io, int fd, struct rb_proc_result *r)
{
	char tmp[65536];
	ssize_t k = read(fd, tmp, sizeof(tmp));

	if (k < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (k <= 0) {
		close(fd);
		if (fd == io->pout[0])
			io->pout[0] = -1;
		else
			io->perr[0] = -1;
		return;
	}
	add_capped(fd == io->pout[0] ? &r->out : &r->err, tmp, (size_t)k,
		   io->max, &r->truncated);
}

/*
 * Moves the input and the output until both outputs end, poll fails or
 * the deadline passes; the child's process group is killed in the last
 * two cases (r->timed_out for the last).
 */
static void pump(struct proc_io *io, const struct rb_proc_opts *o,
		 struct rb_proc_result *r)
{
	pid_t pid = io->pid;
	long long deadline = io->deadline;

	while (io->pout[0] >= 0 || io->perr[0] >= 0) {
		struct pollfd pf[3];
		int n = 0, wait = -1, i;

		if (deadline) {
			long long left = deadline - now_ms();

			if (left <= 0) {
				r->timed_out = true;
				kill(-pid, SIGKILL);
				break;
			}
			wait = left > 1000 ? 1000 : (int)left;
		}
		if (io->pout[0] >= 0)
			pf[n++] = (struct pollfd){ .fd = io->pout[0],
						   .events = POLLIN };
		if (io->perr[0] >= 0)
			pf[n++] = (struct pollfd){ .fd = io->perr[0],
						   .events = POLLIN };
		if (io->pin[1] >= 0)
			pf[n++] = (struct pollfd){ .fd = io->pin[1],
						   .events = POLLOUT };
		if (poll(pf, n, wait) < 0) {
			if (errno == EINTR)
				continue;
			kill(-pid, SIGKILL);
			break;
		}
		for (i = 0; i < n; i++) {
			if (!pf[i].revents)
				continue;
			if (pf[i].fd == io->pin[1])
				feed_input(io, o);
			else
				drain(io, pf[i].fd, r);
		}
	}
}

/* Starts the child with its pipes (or /dev/null for stdin, @devnull
 * then open), keeping our ends of them in @io. */
static int start(pid_t *pid, struct proc_io *io, int *devnull,
		 const struct rb_proc_opts *o)
{
	int ret;

	if (pipe2(io->pout, O_CLOEXEC) || pipe2(io->perr, O_CLOEXEC) ||
	    (o->input && pipe2(io->pin, O_CLOEXEC)))
		return rb_err(RB_EIO, "pipe: %s", strerror(errno));
	if (!o->input) {
		*devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (*devnull < 0)
			return rb_err(RB_EIO, "/dev/null: %s", strerror(errno));
	}
	ret = spawn(pid, o, o->input ? io->pin[0] : *devnull, io->pout[1],
		    o->merge_stderr ? io->pout[1] : io->perr[1]);
	if (ret)
		return ret;
	close(io->pout[1]);
	close(io->perr[1]);
	io->pout[1] = io->perr[1] = -1;
	if (o->input) {
		close(io->pin[0]);
		io->pin[0] = -1;
		fcntl(io->pin[1], F_SETFL, O_NONBLOCK);
		if (!o->input_len) {
			close(io->pin[1]);
			io->pin[1] = -1;
		}
	}
	return 0;
}

int rb_proc_run(struct rb_proc_result *res, const struct rb_proc_opts *o)
{
	struct proc_io io = { .pin = { -1, -1 },
			      .pout = { -1, -1 },
			      .perr = { -1, -1 } };
	struct rb_proc_result r;
	pid_t pid = -1;
	int status = 0, ret, devnull = -1;

	io.deadline = o->timeout_ms ? now_ms() + o->timeout_ms : 0;
	io.max = o->max_output ? o->max_output : 16u << 20;
	memset(&r, 0, sizeof(r));
	rb_buf_init(&r.out, RB_BUF_NOLIMIT);
	rb_buf_init(&r.err, RB_BUF_NOLIMIT);
	ret = start(&pid, &io, &devnull, o);
	if (ret)
		goto out;
	io.pid = pid;
	pump(&io, o, &r);
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
		if (io.pin[i] >= 0)
			close(io.pin[i]);
		if (io.pout[i] >= 0)
			close(io.pout[i]);
		if (io.perr[i] >= 0)
			close(io.perr[i]);
	}
	if (devnull >= 0)
		close(devnull);
	if (ret)
		rb_proc_result_release(&r);
	return ret;
}

/*
 * Opens the directory @path, never through a symlink someone planted
 * there, and stats it: *@fd is the caller's on success.
 */
static int open_dir(int *fd, struct stat *st, const char *path)
{
	*fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return rb_err(RB_EIO, "%s: %s", path,
			      errno == ELOOP || errno == ENOTDIR ?
				      "not a directory (a symlink?)" :
				      strerror(errno));
	if (fstat(*fd, st)) {
		int ret = rb_err(RB_EIO, "stat %s: %s", path, strerror(errno));

		close(*fd);
		return ret;
	}
	return 0;
}

int rb_sandbox_prepare_dir(const char *path)
{
	struct stat st;
	int fd, ret = 0;

	if (mkdir(path, 0755) && errno != EEXIST)
		return rb_err(RB_EIO, "mkdir %s: %s", path, strerror(errno));
	ret = open_dir(&fd, &st, path);
	if (ret)
		return ret;
	if (st.st_uid != geteuid() &&
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
	ret = open_dir(&fd, &st, path);
	if (ret)
		return ret;
	if (st.st_uid != geteuid())
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
	const char **v; /* grows: a checkpatch batch names every patch */
	size_t n, cap;
	char nproc[32], cpu[32], as[48], fsize[48], tmpfs[48];
};

/* The kernel's own limit on a command line is far above this. */
#define SB_MAX_ARGS 65536

static int sb_push(struct sb_argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		const char **v;

		if (a->n + 2 > SB_MAX_ARGS)
			return rb_err(RB_EINVAL, "sandbox: too many arguments");
		v = rb_grow(a->v, &a->cap, a->n + 1, sizeof(*v));
		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		a->v = v;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
	return 0;
}

static void sb_release(struct sb_argv *a)
{
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

/* Appends the NULL-terminated @list. */
static int sb_push_list(struct sb_argv *a, const char *const *list)
{
	int ret = 0;

	for (; *list && !ret; list++)
		ret = sb_push(a, *list);
	return ret;
}

#define PUSH(x)                                \
	do {                                   \
		if (!ret)                      \
			ret = sb_push(a, (x)); \
	} while (0)

/* prlimit and its limits, from @o or their defaults. */
static int sb_limits(struct sb_argv *a, const struct rb_sandbox_opts *o)
{
	static const char *const tail[] = { "--core=0", "--nofile=4096", "--",
					    NULL };
	int ret = 0;

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
	PUSH("prlimit");
	PUSH(a->nproc);
	PUSH(a->cpu);
	if (o->mem_mb >= 0)
		PUSH(a->as);
	PUSH(a->fsize);
	if (!ret)
		ret = sb_push_list(a, tail);
	return ret;
}

/* bwrap and what the sandbox sees: /usr, /etc/alternatives, /proc,
 * /dev, a /tmp of its own, and the binds of @o. */
static int sb_mounts(struct sb_argv *a, const struct rb_sandbox_opts *o)
{
	/* Symlinks into /usr only: no secret lives there. As root, bwrap
	 * makes missing parents 0700: /etc must be 0755 for uid 65534. */
	/* clang-format off */
	static const char *const fs[] = {
		"bwrap",
		"--ro-bind", "/usr", "/usr",
		"--symlink", "usr/lib", "/lib",
		"--symlink", "usr/lib64", "/lib64",
		"--symlink", "usr/bin", "/bin",
		"--symlink", "usr/sbin", "/sbin",
		"--perms", "0755", "--dir", "/etc",
		"--ro-bind-try", "/etc/alternatives", "/etc/alternatives",
		"--proc", "/proc",
		"--dev", "/dev",
		"--perms", "1777", "--size",
		NULL,
	};
	/* clang-format on */
	int ret = sb_push_list(a, fs);
	size_t i;

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
	return ret;
}

/* The namespaces, a cleared environment with @o's variables, and the
 * working directory. */
static int sb_session(struct sb_argv *a, const struct rb_sandbox_opts *o,
		      bool root)
{
	/* No user namespace as root: setpriv needs CAP_SETUID to drop. */
	/* clang-format off */
	static const char *const ns_root[] = {
		"--unshare-ipc", "--unshare-pid", "--unshare-net",
		"--unshare-uts", "--unshare-cgroup-try",
		NULL,
	};
	/* clang-format on */
	static const char *const ns_user[] = { "--unshare-all", "--cap-drop",
					       "ALL", NULL };
	/* clang-format off */
	static const char *const env[] = {
		"--die-with-parent", "--new-session", "--clearenv",
		"--setenv", "PATH", "/usr/bin:/bin",
		"--setenv", "HOME", "/tmp",
		"--setenv", "LC_ALL", "C",
		"--setenv", "LANG", "C",
		NULL,
	};
	/* clang-format on */
	int ret = sb_push_list(a, root ? ns_root : ns_user);
	size_t i;

	if (!ret)
		ret = sb_push_list(a, env);
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
	return ret;
}

#undef PUSH

static int sb_prefix(struct sb_argv *a, const struct rb_sandbox_opts *o)
{
	/* clang-format off */
	static const char *const setpriv[] = {
		"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
		"--clear-groups", "--no-new-privs",
		"--inh-caps=-all", "--bounding-set=-all",
		"--",
		NULL,
	};
	/* clang-format on */
	bool root = geteuid() == 0;
	int ret;

	memset(a, 0, sizeof(*a));
	ret = sb_limits(a, o);
	if (!ret)
		ret = sb_mounts(a, o);
	if (!ret)
		ret = sb_session(a, o, root);
	if (!ret && root)
		ret = sb_push_list(a, setpriv);
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
	if (sb_prefix(&a, &o) || sb_push(&a, "/bin/true") ||
	    sb_run(&r, &o, &a)) {
		sb_release(&a);
		return false;
	}
	sb_release(&a);
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
	if (!ret)
		ret = sb_run(res, o, &a);
	sb_release(&a);
	return ret;
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
	if (!ret)
		ret = sb_run(res, o, &a);
	sb_release(&a);
	return ret;
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

const char *rb_git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

int rb_tree_diff(git_diff **out, git_repository *repo, const git_oid *base,
		 const git_oid *applied)
{
	git_commit *cb = NULL, *ca = NULL;
	git_tree *tb = NULL, *ta = NULL;
	int ret = 0;

	if (git_commit_lookup(&cb, repo, base) ||
	    git_commit_lookup(&ca, repo, applied) || git_commit_tree(&tb, cb) ||
	    git_commit_tree(&ta, ca) ||
	    git_diff_tree_to_tree(out, repo, tb, ta, NULL))
		ret = -RB_EIO;
	git_tree_free(tb);
	git_tree_free(ta);
	git_commit_free(cb);
	git_commit_free(ca);
	return ret;
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
			      git_oid_tostr_s(commit), rb_git_msg());
	/*
	 * The baseline defaults to HEAD's tree, whose files checkout would
	 * then take as already there: an empty index says nothing is.
	 */
	if (git_index_new(&empty)) {
		ret = rb_err(RB_ENOMEM, "index: %s", rb_git_msg());
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
			     git_oid_tostr_s(commit), dir, rb_git_msg());
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
		return rb_err(RB_EIO, "blob of %s: %s", f->path, rb_git_msg());
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

/* Every path that differs between @from and @to, from @to's blobs. */
static int update_paths(git_repository *repo, git_diff *diff, const char *dir)
{
	size_t i;
	int ret = 0;

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
	return ret;
}

int rb_tree_update(struct git_repository *repo, const struct git_oid *from,
		   const struct git_oid *to, const char *dir)
{
	git_diff *diff = NULL;
	int ret;

	if (rb_tree_diff(&diff, repo, from, to))
		return rb_err(RB_EIO, "diff of %s and the next patch: %s",
			      git_oid_tostr_s(from), rb_git_msg());
	ret = update_paths(repo, diff, dir);
	git_diff_free(diff);
	return ret;
}

int rb_tree_overlay(struct git_repository *repo, const struct git_oid *base,
		    const struct git_oid *applied, const char *base_dir,
		    const char *dir)
{
	const char *argv[] = { "cp", "-al", "--", base_dir, dir, NULL };
	struct rb_proc_opts po = RB_PROC_OPTS_INIT;
	struct rb_proc_result res;
	git_diff *diff = NULL;
	int ret;

	if (rb_tree_diff(&diff, repo, base, applied)) {
		ret = rb_err(RB_EIO, "diff of %s and the applied tree: %s",
			     git_oid_tostr_s(base), rb_git_msg());
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
	ret = update_paths(repo, diff, dir);
out:
	git_diff_free(diff);
	return ret;
}
