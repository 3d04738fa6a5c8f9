// SPDX-License-Identifier: GPL-2.0-only
/*
 * netstream.c - libgit2's sockets with a deadline. See netstream.h.
 *
 * The stream follows libgit2's git2/sys/stream.h contract: connect()
 * returns 0 or -1 with git_error_set_str(); read() and write() return
 * the bytes moved or -1. Every wait is a poll() bounded by the thread's
 * deadline, so a silent remote costs at most the time left.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>
#include <git2/sys/stream.h>

#include "review/apply/netstream.h"
#include "util/err.h"
#include "util/banned.h"

static _Thread_local int64_t deadline;

struct ns {
	git_stream parent;
	char *host, *port;
	int fd;
};

int64_t rb_netstream_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rb_netstream_set_deadline(int64_t deadline_ms)
{
	deadline = deadline_ms;
}

/* Waits for @events on @fd until the deadline: 0, or -1 with the reason
 * set for libgit2. */
static int wait_fd(struct ns *s, short events, const char *what)
{
	struct pollfd p = { .fd = s->fd, .events = events };
	char msg[256];
	int r;

	for (;;) {
		int64_t left = deadline ? deadline - rb_netstream_now_ms() : -1;

		if (deadline && left <= 0) {
			snprintf(msg, sizeof(msg),
				 "%s %s:%s: timed out (the fetch's "
				 "fetch_timeout_seconds)",
				 what, s->host, s->port);
			git_error_set_str(GIT_ERROR_NET, msg);
			return -1;
		}
		r = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR) {
			snprintf(msg, sizeof(msg), "%s %s:%s: %s", what,
				 s->host, s->port, strerror(errno));
			git_error_set_str(GIT_ERROR_NET, msg);
			return -1;
		}
	}
}

static int ns_connect(git_stream *stream)
{
	struct ns *s = (struct ns *)stream;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai = NULL, *p;
	char msg[256];
	int r, err = 0;
	socklen_t len = sizeof(err);

	r = getaddrinfo(s->host, s->port, &hints, &ai);
	if (r) {
		snprintf(msg, sizeof(msg), "%s:%s: %s", s->host, s->port,
			 gai_strerror(r));
		git_error_set_str(GIT_ERROR_NET, msg);
		return -1;
	}
	for (p = ai; p; p = p->ai_next) {
		s->fd = socket(p->ai_family,
			       p->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			       p->ai_protocol);
		if (s->fd < 0)
			continue;
		if (!connect(s->fd, p->ai_addr, p->ai_addrlen))
			break;
		if (errno == EINPROGRESS &&
		    !wait_fd(s, POLLOUT, "connect to") &&
		    !getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) &&
		    !err)
			break;
		close(s->fd);
		s->fd = -1;
		if (deadline && rb_netstream_now_ms() >= deadline)
			break;
	}
	freeaddrinfo(ai);
	if (s->fd < 0) {
		if (!git_error_last() || !git_error_last()->message) {
			snprintf(msg, sizeof(msg), "cannot connect to %s:%s",
				 s->host, s->port);
			git_error_set_str(GIT_ERROR_NET, msg);
		}
		return -1;
	}
	return 0;
}

static ssize_t ns_read(git_stream *stream, void *buf, size_t len)
{
	struct ns *s = (struct ns *)stream;
	ssize_t n;

	for (;;) {
		n = recv(s->fd, buf, len, 0);
		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			git_error_set_str(GIT_ERROR_NET, strerror(errno));
			return -1;
		}
		if (wait_fd(s, POLLIN, "read from"))
			return -1;
	}
}

static ssize_t ns_write(git_stream *stream, const char *data, size_t len,
			int flags)
{
	struct ns *s = (struct ns *)stream;
	size_t done = 0;

	(void)flags;
	while (done < len) {
		ssize_t n = send(s->fd, data + done, len - done, MSG_NOSIGNAL);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			git_error_set_str(GIT_ERROR_NET, strerror(errno));
			return -1;
		}
		if (wait_fd(s, POLLOUT, "write to"))
			return -1;
	}
	return (ssize_t)done;
}

static int ns_close(git_stream *stream)
{
	struct ns *s = (struct ns *)stream;

	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	return 0;
}

static void ns_free(git_stream *stream)
{
	struct ns *s = (struct ns *)stream;

	if (!s)
		return;
	ns_close(stream);
	free(s->host);
	free(s->port);
	free(s);
}

static int ns_new(git_stream **out, const char *host, const char *port)
{
	struct ns *s = calloc(1, sizeof(*s));

	if (!s || !(s->host = strdup(host)) ||
	    !(s->port = strdup(port ? port : "80"))) {
		if (s)
			free(s->host);
		free(s);
		git_error_set_str(GIT_ERROR_NOMEMORY, "out of memory");
		return -1;
	}
	s->fd = -1;
	s->parent.version = GIT_STREAM_VERSION;
	s->parent.connect = ns_connect;
	s->parent.read = ns_read;
	s->parent.write = ns_write;
	s->parent.close = ns_close;
	s->parent.free = ns_free;
	*out = &s->parent;
	return 0;
}

int rb_netstream_register(void)
{
	git_stream_registration reg = {
		.version = GIT_STREAM_VERSION,
		.init = ns_new,
	};

	/* Each time: a git_libgit2_shutdown() to zero may reset it. */
	if (git_stream_register(GIT_STREAM_STANDARD, &reg) < 0)
		return rb_err(RB_EIO, "libgit2 refused the network stream: %s",
			      git_error_last() ? git_error_last()->message :
						 "");
	return 0;
}
