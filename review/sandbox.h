/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sandbox.h - running other programs: a plain child process with a
 * deadline and capped output, and the bubblewrap sandbox for anything that
 * runs code from a patched tree (DESIGN.md fact 5): no network, read-only
 * source, one writable output directory, uid nobody (setpriv, when we are
 * root), rlimits on CPU, memory, processes and file size, a wall-clock
 * deadline, and --die-with-parent.
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

struct rb_sandbox_opts {
	const char *src; /* bound read-only at /src */
	const char *out; /* bound read-write at /out */
	const char *cache; /* bound at /cache (ccache), or NULL */
	bool cache_ro; /* ...read-only */
	const char *chdir; /* inside the sandbox; default /src */
	int timeout_seconds; /* wall clock; default 1800 */
	int cpu_seconds; /* RLIMIT_CPU; default 3600 */
	long mem_mb; /* RLIMIT_AS in MiB; 0: 4096; negative: none */
	int nproc; /* RLIMIT_NPROC; default 2048 */
	long fsize_mb; /* RLIMIT_FSIZE in MiB; default 4096 */
	size_t max_output; /* captured output; default 4 MiB */
};
#define RB_SANDBOX_OPTS_INIT                                                  \
	{                                                                     \
		.timeout_seconds = 1800, .cpu_seconds = 3600, .mem_mb = 4096, \
		.nproc = 2048, .fsize_mb = 4096, .max_output = 4u << 20       \
	}

/*
 * Runs @script with /bin/sh -c inside the sandbox; stdout and stderr are
 * merged into res->out. @src and @out must be readable (and @out writable)
 * by uid 65534 when we run as root: see rb_sandbox_prepare_dir(). Returns
 * as rb_proc_run().
 */
int rb_sandbox_run(struct rb_proc_result *res, const struct rb_sandbox_opts *o,
		   const char *script);

/* Creates @path (mkdir -p) and, as root, gives it to uid/gid 65534. */
int rb_sandbox_prepare_dir(const char *path);

/* True when bwrap is installed and can create a sandbox here. */
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

/* rm -rf @path (no symlinks followed). Returns 0 or -RB_EIO. */
int rb_remove_tree(const char *path);

#endif
