// SPDX-License-Identifier: GPL-2.0-only
/*
 * testlib.c - see testlib.h. Uses only libgit2, libc and util/, so that
 * it links into the unit tests of any folder from review/ down.
 */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "tests/testlib.h"
#include "review/checks/sandbox.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/banned.h"

const char *rb_test_src(void)
{
	const char *src = getenv("RB_SRC");

	return src ? src : "..";
}

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), p;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
	p = ntohs(a.sin_port);
	close(fd);
	return p;
}

/* Until the server listens: 10 s at the most. */
static int wait_port(int p)
{
	int i;

	for (i = 0; i < 400; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons((uint16_t)p) };
		int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ok = !connect(fd, (struct sockaddr *)&a, sizeof(a));
		close(fd);
		if (ok)
			return 0;
		usleep(25000);
	}
	return -1;
}

void rb_test_server_script(struct rb_test_server *s, const char *json)
{
	static int gen;
	struct rb_buf b = RB_BUF_INIT(RB_BUF_NOLIMIT);

	/* A new generation, so the server forgets the used steps. */
	rb_buf_printf(&b, "{\"gen\": %d, %s", ++gen, json + 1);
	assert_int_equal(rb_write_file_atomic(s->script, b.ptr, b.len, 0600),
			 0);
	rb_buf_release(&b);
	/* A fresh log for each case. */
	assert_int_equal(rb_write_file_atomic(s->log, "", 0, 0600), 0);
}

int rb_test_server_start(struct rb_test_server *s)
{
	char portstr[16], path[1024];

	s->port = free_port();
	snprintf(portstr, sizeof(portstr), "%d", s->port);
	snprintf(path, sizeof(path), "%s/tests/model_server.py", rb_test_src());
	s->pid = fork();
	if (!s->pid) {
		/* Dies with the test, even when a sanitizer aborts it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl("/usr/bin/python3", "python3", path, "--port", portstr,
		      "--script", s->script, "--log", s->log, (char *)NULL);
		_exit(127);
	}
	return wait_port(s->port);
}

void rb_test_server_url(const struct rb_test_server *s, const char *provider,
			char *out, size_t size)
{
	snprintf(out, size, "http://127.0.0.1:%d/v1/%s", s->port,
		 !strcmp(provider, "anthropic") ? "messages" :
						  "chat/completions");
}

void rb_test_server_stop(struct rb_test_server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	s->pid = -1;
}

int rb_test_server_setup(struct rb_test_server *s, const char *tmpl)
{
	s->pid = -1;
	snprintf(s->dir, sizeof(s->dir), "%s", tmpl);
	if (!mkdtemp(s->dir))
		return -1;
	snprintf(s->script, sizeof(s->script), "%s/script.json", s->dir);
	snprintf(s->log, sizeof(s->log), "%s/requests.log", s->dir);
	rb_test_server_script(s, "{\"steps\": []}");
	return rb_test_server_start(s);
}

void rb_test_server_teardown(struct rb_test_server *s)
{
	rb_test_server_stop(s);
	if (!getenv("RB_KEEP"))
		rb_remove_tree(s->dir);
}

int rb_test_tmpdir(char *dir, size_t size, const char *tmpl)
{
	if ((size_t)snprintf(dir, size, "%s", tmpl) >= size)
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

int rb_test_tmpdir_remove(const char *dir)
{
	if (!getenv("RB_KEEP"))
		rb_remove_tree(dir);
	return 0;
}

static void repo_new(git_repository **out, char *dir, size_t size,
		     const char *tmpl, bool bare)
{
	assert_int_equal(rb_test_tmpdir(dir, size, tmpl), 0);
	assert_int_equal(git_repository_init(out, dir, bare), 0);
}

void rb_test_repo_new(git_repository **out, char *dir, size_t size,
		      const char *tmpl)
{
	repo_new(out, dir, size, tmpl, false);
}

void rb_test_bare_repo_new(git_repository **out, char *dir, size_t size,
			   const char *tmpl)
{
	repo_new(out, dir, size, tmpl, true);
}

void rb_test_repo_free(git_repository *repo, const char *dir)
{
	git_repository_free(repo);
	rb_remove_tree(dir);
}

void rb_test_commit(git_oid *out, git_repository *repo, const git_oid *parent,
		    const struct rb_test_file *files, size_t n, int64_t when,
		    const char *msg)
{
	git_index *idx = NULL;
	git_oid tree_oid;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_commit *pc = NULL;
	const git_commit *parents[1];
	size_t i;

	assert_int_equal(git_repository_index(&idx, repo), 0);
	assert_int_equal(git_index_clear(idx), 0);
	for (i = 0; i < n; i++) {
		git_index_entry e;
		size_t len;

		memset(&e, 0, sizeof(e));
		e.path = files[i].path;
		e.mode = files[i].mode ? files[i].mode : 0100644;
		len = files[i].len ? files[i].len : strlen(files[i].content);
		assert_int_equal(git_index_add_from_buffer(
					 idx, &e, files[i].content, len),
				 0);
	}
	assert_int_equal(git_index_write_tree(&tree_oid, idx), 0);
	assert_int_equal(git_tree_lookup(&tree, repo, &tree_oid), 0);
	assert_int_equal(git_signature_new(&sig, "T", "t@example.org", when, 0),
			 0);
	if (parent) {
		assert_int_equal(git_commit_lookup(&pc, repo, parent), 0);
		parents[0] = pc;
	}
	assert_int_equal(git_commit_create(out, repo, NULL, sig, sig, NULL,
					   msg ? msg : "test\n", tree,
					   parent ? 1 : 0, parents),
			 0);
	git_commit_free(pc);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(idx);
}
