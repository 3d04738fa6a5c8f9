/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sandbox.h - running other programs: a plain child process with a
 * deadline and capped output, and the bubblewrap sandbox for everything
 * that runs code or tools on mail-controlled input (DESIGN.md fact 5):
 * checkpatch.pl and the build.
 *
 * What the sandbox gives (rb_sandbox_run/exec):
 *   - namespaces: mount, pid, net, ipc, uts (and user when we are not
 *     root): no network but a loopback of its own, only its own processes,
 *     all killed with it (--die-with-parent; the deadline kills the group);
 *   - files: /usr read-only, /etc/alternatives (symlinks into /usr), /proc
 *     of its pid namespace, a minimal /dev, /tmp a tmpfs capped at
 *     tmpfs_mb, and only the binds asked for (/src read-only, /out, /cache,
 *     opts.binds). Not /etc, not $HOME, not the store, not the config: no
 *     secret the bot holds is readable;
 *   - environment: cleared (--clearenv), then PATH, HOME=/tmp, LC_ALL=C,
 *     LANG=C and opts.env: the bot's variables (model API key, PGPASSWORD)
 *     are not passed;
 *   - identity: as root, bwrap binds as root and setpriv inside drops to
 *     uid/gid 65534, no supplementary groups, no capabilities (bounding set
 *     empty), no_new_privs; otherwise our uid in a user namespace with every
 *     capability dropped;
 *   - limits (prlimit): RLIMIT_CPU, RLIMIT_AS (the memory cap, per
 *     process), RLIMIT_FSIZE, RLIMIT_NOFILE, no core, and RLIMIT_NPROC: with
 *     the pid namespace, that is the sandbox's pid limit (the count is the
 *     sandbox uid's; a fork bomb inside stops at it and dies with the
 *     sandbox); a wall-clock deadline.
 */
#ifndef RB_REVIEW_SANDBOX_H
#define RB_REVIEW_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

struct rb_proc_opts {
	const char *const *argv; /* argv[0] is looked up in PATH */
	const char *cwd; /* or NULL */
	const char *input; /* written to stdin, or NULL: /dev/null */
	size_t input_len;
	int timeout_ms; /* 0: none */
	size_t max_output; /* per stream; more is dropped; 0: 16 MiB */
	bool merge_stderr; /* stderr goes to the stdout buffer */
};
#define RB_PROC_OPTS_INIT \
	{                 \
		NULL      \
	}

struct rb_proc_result {
	int exit_code; /* 0..255, or 128 + signal */
	bool timed_out; /* killed at the deadline */
	bool truncated; /* output went past max_output */
	struct rb_buf out;
	struct rb_buf err;
};

/*
 * Runs a program in its own process group and waits for it, killing the
 * whole group at the deadline. @res is initialised here and must be
 * released with rb_proc_result_release() on success. Returns 0 when the
 * program ran (whatever its exit code), -RB_EIO when it could not start.
 */
int rb_proc_run(struct rb_proc_result *res, const struct rb_proc_opts *o);
void rb_proc_result_release(struct rb_proc_result *res);

/* A host path bound into the sandbox. */
struct rb_sandbox_bind {
	const char *src; /* host path */
	const char *dest; /* inside */
	bool rw; /* default read-only */
};

struct rb_sandbox_opts {
	const char *src; /* bound read-only at /src, or NULL */
	const char *out; /* bound read-write at /out, or NULL */
	const char *cache; /* bound at /cache (ccache), or NULL */
	bool cache_ro; /* ...read-only */
	/* borrowed: more binds; a dest's missing parents are made 0700 as
	 * root, so give top-level dests (/cp, /git) */
	const struct rb_sandbox_bind *binds;
	size_t n_binds;
	const char *const *env; /* NAME, VALUE, ..., NULL: more variables */
	const char *chdir; /* inside the sandbox; default /src, else / */
	int timeout_seconds; /* wall clock; default 1800 */
	int cpu_seconds; /* RLIMIT_CPU; default 3600 */
	long mem_mb; /* RLIMIT_AS in MiB; 0: 4096; negative: none */
	int nproc; /* RLIMIT_NPROC; default 1024 */
	long fsize_mb; /* RLIMIT_FSIZE in MiB; default 4096 */
	long tmpfs_mb; /* size of the /tmp tmpfs in MiB; default 512 */
	size_t max_output; /* captured output; default 4 MiB */
	bool split_stderr; /* stderr in res->err; default merged in res->out */
};
#define RB_SANDBOX_OPTS_INIT                                                  \
	{                                                                     \
		.timeout_seconds = 1800, .cpu_seconds = 3600, .mem_mb = 4096, \
		.nproc = 1024, .fsize_mb = 4096, .tmpfs_mb = 512,             \
		.max_output = 4u << 20                                        \
	}

/*
 * Runs @script with /bin/sh -c inside the sandbox. As root, what the
 * program reads must be readable by uid 65534 (the binds themselves are
 * made as root) and what it writes must belong to it: see
 * rb_sandbox_prepare_dir(). Returns as rb_proc_run(); when bwrap cannot
 * make the sandbox the program does not run and the exit code is bwrap's
 * (1, with "bwrap: ..." on stderr): check rb_sandbox_available() first.
 */
int rb_sandbox_run(struct rb_proc_result *res, const struct rb_sandbox_opts *o,
		   const char *script);

/* The same with an argument vector (argv[0] a path inside the sandbox). */
int rb_sandbox_exec(struct rb_proc_result *res, const struct rb_sandbox_opts *o,
		    const char *const *argv);

/*
 * A directory the sandbox writes (/out, /cache): creates @path (one level,
 * 0755) unless it exists, opens it without following a symlink, checks
 * that it is ours (or, as root, already uid 65534's) and, as root, gives
 * it to uid/gid 65534 with fchown() on that descriptor. 0 or -RB_EIO.
 */
int rb_sandbox_prepare_dir(const char *path);

/*
 * A private directory (the build cache): created 0700 (with missing
 * parents) unless it exists; refused (-RB_EIO) when it is a symlink, not
 * a directory or not ours; made 0700 when it is ours and looser.
 */
int rb_private_dir(const char *path);

/* True when bwrap is installed and can create this sandbox here now. */
bool rb_sandbox_available(void);

struct git_repository;
struct git_oid;

/*
 * Writes the tree of @commit into @dir (created; must not hold files) with
 * libgit2, without touching the repository's index or HEAD.
 */
int rb_tree_checkout(struct git_repository *repo, const struct git_oid *commit,
		     const char *dir);

/*
 * Materialises @applied in @dir cheaply from @base_dir, a checkout of
 * @base: a hard-link copy of @base_dir, then every path that differs
 * between the two commits is unlinked and written afresh from the blobs of
 * @applied (so @base_dir is never written through a link).
 */
int rb_tree_overlay(struct git_repository *repo, const struct git_oid *base,
		    const struct git_oid *applied, const char *base_dir,
		    const char *dir);

/*
 * Moves @dir, a tree materialised by rb_tree_overlay() (or this), from
 * commit @from to commit @to: each path that differs is unlinked (never
 * written through a hard link) and written from @to's blob. Paths that
 * do not differ keep their mtime, so make rebuilds only what changed.
 */
int rb_tree_update(struct git_repository *repo, const struct git_oid *from,
		   const struct git_oid *to, const char *dir);

/*
 * The diff of the trees of commits @base and @applied into *@out
 * (git_diff_free()). -RB_EIO when a commit, a tree or the diff cannot be
 * had; the caller names what failed, with rb_git_msg().
 */
struct git_diff;
int rb_tree_diff(struct git_diff **out, struct git_repository *repo,
		 const struct git_oid *base, const struct git_oid *applied);

/* libgit2's last error message, or "unknown libgit2 error". */
const char *rb_git_msg(void);

/* rm -rf @path (no symlinks followed). Returns 0 or -RB_EIO. */
int rb_remove_tree(const char *path);

#endif
