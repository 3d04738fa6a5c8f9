/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * testlib.h - what the unit tests of review/ and below share: the
 * scripted model server (tests/model_server.py) on a free loopback port,
 * and small git repositories built with libgit2 in a temporary directory.
 * A failure is a cmocka failure of the calling test. It links rb_review
 * and nothing above it, so that a review/ test stays a review/ test; what
 * the bot/ tests share is in testlib_bot.h.
 */
#ifndef RB_TESTS_TESTLIB_H
#define RB_TESTS_TESTLIB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <git2.h>

/* The source tree: $RB_SRC, or ".." (a run from the build's tests/). */
const char *rb_test_src(void);

/*
 * A test's own directory, made from @tmpl ("/tmp/rb-NAME-XXXXXX"), its
 * path written to @dir (@size bytes): 0, or -1 (a cmocka setup's answer).
 */
int rb_test_tmpdir(char *dir, size_t size, const char *tmpl);
/* Removes @dir, unless RB_KEEP is set; 0 (a group teardown's answer). */
int rb_test_tmpdir_remove(const char *dir);

/* tests/model_server.py, playing the steps of a script file. */
struct rb_test_server {
	char dir[256]; /* the test's temporary directory */
	char script[512]; /* dir/script.json: the steps the server plays */
	char log[512]; /* dir/requests.log: one request a line */
	int port; /* on 127.0.0.1 */
	pid_t pid; /* -1: not running */
};

/*
 * Makes the directory from @tmpl ("/tmp/rb-model.XXXXXX"), an empty
 * script and log, and starts the server. Returns 0 once the server takes
 * connections, -1 otherwise (a cmocka group setup's answer).
 */
int rb_test_server_setup(struct rb_test_server *s, const char *tmpl);
/* Starts the server on a new free port; 0 once it takes connections.
 * The server dies with the test, even when a sanitizer aborts it. */
int rb_test_server_start(struct rb_test_server *s);
void rb_test_server_stop(struct rb_test_server *s);
/* Stops the server and removes the directory, unless RB_KEEP is set. */
void rb_test_server_teardown(struct rb_test_server *s);
/*
 * The server's endpoint for @provider into @out: Anthropic's
 * /v1/messages for "anthropic", else the OpenAI /v1/chat/completions.
 */
void rb_test_server_url(const struct rb_test_server *s, const char *provider,
			char *out, size_t size);
/*
 * Writes @json ("{\"steps\": [...]}") as the script, with a new
 * generation so that the server forgets the steps it played, and empties
 * the log.
 */
void rb_test_server_script(struct rb_test_server *s, const char *json);

/* One file of a commit made with rb_test_commit(). */
struct rb_test_file {
	const char *path;
	const char *content;
	unsigned mode; /* 0: 100644 */
	size_t len; /* 0: strlen(content) */
};

/*
 * A new repository (with a work tree) in a directory made from @tmpl
 * ("/tmp/rb-test-apply.XXXXXX"), whose path is written to @dir (@size
 * bytes). libgit2 is the test's: its main() initialises it once.
 */
void rb_test_repo_new(git_repository **out, char *dir, size_t size,
		      const char *tmpl);
/* The same, bare: the trees a checker or the model reads. */
void rb_test_bare_repo_new(git_repository **out, char *dir, size_t size,
			   const char *tmpl);
/* Frees @repo and removes @dir. */
void rb_test_repo_free(git_repository *repo, const char *dir);
/*
 * Commits exactly @files (a whole tree) on @parent (NULL: a root commit)
 * through the repository's index, at time @when, with message @msg
 * (NULL: "test\n"); no ref is moved.
 */
void rb_test_commit(git_oid *out, git_repository *repo, const git_oid *parent,
		    const struct rb_test_file *files, size_t n, int64_t when,
		    const char *msg);

#endif
