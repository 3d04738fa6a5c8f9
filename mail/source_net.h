/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * source_net.h - what the IMAP and NNTP sources share (source_net.c): their
 * URLs, the reconnect backoff, TLS SNI, the received-bytes cap, and
 * waiting on a socket while watching the daemon's stop flag.
 */
#ifndef RB_MAIL_SOURCE_NET_H
#define RB_MAIL_SOURCE_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "mail/source.h"

#include <libetpan/mailstream_types.h>

struct mailstream_ssl_context;

/* Seconds a network read or write may stall before the server counts as
 * down (mailstream_network_delay and each session's timeout). */
#define RB_NET_TIMEOUT 60

/* Messages delivered between two writes of a source's high-water mark. */
#define RB_STATE_EVERY 32

struct rb_net_url {
	char *host; /* owned; without the [] of an IPv6 literal */
	uint16_t port;
	bool tls; /* imaps:// or nntps:// (TLS from the first byte) */
};

/*
 * Parses "SCHEME://HOST[:PORT][/]" where SCHEME is @plain or @tls (which
 * default to @plain_port and @tls_port). A user, a password, a path or a
 * query are refused. *out is owned by the caller (rb_net_url_release).
 */
int rb_net_url_parse(struct rb_net_url *out, const char *url, const char *plain,
		     uint16_t plain_port, const char *tls, uint16_t tls_port);
void rb_net_url_release(struct rb_net_url *u);

/* True for 127.0.0.0/8, ::1 and "localhost". */
bool rb_net_is_loopback(const char *host);

/* libetpan TLS callback: sets SNI to @data (a host name; IP literals are
 * left out, RFC 6066 section 3). */
void rb_net_sni_cb(struct mailstream_ssl_context *ctx, void *data);

/*
 * Exponential backoff for reconnecting: 1 s after the first failure,
 * doubling up to RB_NET_BACKOFF_MAX; reset by a success.
 */
#define RB_NET_BACKOFF_MAX 300
/*
 * The bytes received during one command, against a cap: libetpan has no
 * cap on a literal or an article (DESIGN.md fact 2), so the sources count
 * what the stream logger reports and cancel the stream past the cap.
 */
struct rb_recv_guard {
	size_t received;
	size_t cap; /* 0: no cap */
	bool over; /* the cap was passed and the stream cancelled */
};

static inline void rb_recv_guard_reset(struct rb_recv_guard *g, size_t cap)
{
	g->received = 0;
	g->cap = cap;
	g->over = false;
}

/* Counts a stream-logger event; cancels @stream once past the cap. */
void rb_recv_guard_count(struct rb_recv_guard *g, int log_type, size_t size,
			 mailstream *stream);

/*
 * libetpan 1.9 takes a read of 0 bytes (the end of the stream) as
 * "nothing yet" where it waits for more: inside an IMAP literal, and in
 * the lines of a multi-line NNTP response. A server that closed the
 * connection there made the reading thread spin on recv() for ever,
 * and an NNTP article grow by an empty line each turn. Under this driver
 * the end of the stream is an error: libetpan returns its stream error,
 * and the source reconnects.
 */
struct rb_eof_driver {
	mailstream_low_driver drv; /* first: the stream points at it */
	mailstream_low_driver *orig;
};

/* Puts @d under @stream's lowest layer; again on a new stream (STARTTLS
 * makes one). Does nothing when it is there already. */
void rb_net_guard_eof(struct rb_eof_driver *d, mailstream *stream);

/*
 * The session's stream to @n's server (its url: host, port, TLS), opened
 * as libetpan's *_socket_connect() and *_ssl_connect_with_callback() open
 * theirs but with a read buffer of @buffer bytes, and reading through
 * @n's end-of-stream driver before the greeting is read. NULL when the
 * connection is refused or fails (*@tls_failed: its TLS handshake, or
 * memory).
 *
 * The buffer suits how the protocol is read. libetpan moves what is left
 * in the buffer to its start after every line it reads (memmove): IMAP
 * reads a message as one literal, and takes RB_NET_STREAM_BUFFER; NNTP
 * reads an article line by line, and with that buffer spent 55% of its
 * CPU in memmove (RB_NNTP_STREAM_BUFFER, source_nntp.c).
 */
#define RB_NET_STREAM_BUFFER ((size_t)256 << 10)
struct rb_net_source;
mailstream *rb_net_open_stream(struct rb_net_source *n, size_t buffer,
			       bool *tls_failed);

/*
 * Bounds each later read on @stream to @secs (a source's goodbye: LOGOUT,
 * QUIT). libetpan reads a session's own timeout (mailimap_set_timeout(),
 * newsnntp_set_timeout()) only when it opens a stream, so setting that
 * on an open session changes nothing.
 */
#define RB_NET_GOODBYE_TIMEOUT 5
void rb_net_stream_timeout(mailstream *stream, time_t secs);

struct rb_backoff {
	int delay; /* seconds; 0 after a success */
	time_t next; /* no attempt before this (monotonic seconds) */
};
void rb_backoff_fail(struct rb_backoff *b);
void rb_backoff_ok(struct rb_backoff *b);
/* Milliseconds until the next attempt is allowed; 0 when it is now. */
int rb_backoff_remaining_ms(const struct rb_backoff *b);

/*
 * Waits until @fd is readable (1), @timeout_ms passes (0), or *@stop
 * becomes non-zero or a signal arrives (2). -1 when poll() fails.
 */
int rb_net_wait_readable(int fd, int timeout_ms, volatile const int *stop);

/* Sleeps up to @timeout_ms; returns early on *@stop or a signal. */
void rb_net_nap(int timeout_ms, volatile const int *stop);

/*
 * What an IMAP and an NNTP source hold alike; each embeds it first, so
 * that its struct rb_source is the source's.
 */
struct rb_net_source {
	struct rb_source base;
	struct rb_net_url url;
	char *user; /* NULL: no login (NNTP only) */
	char *password; /* wiped by rb_net_source_release() */
	char *ca_file;
	bool tls_verify;
	size_t max_size; /* a message's cap */
	struct rb_backoff backoff;
	struct rb_recv_guard guard; /* for the command under way */
	struct rb_eof_driver eof; /* under the session's stream */
};

/*
 * Copies @name and what @o says of the credentials, the TLS check and the
 * size cap into @n (url is parsed by the caller, which checks it first),
 * and sets libetpan's network timeout. 0 or -RB_ENOMEM.
 */
int rb_net_source_init(struct rb_net_source *n, const char *name,
		       const struct rb_source_opts *o);
void rb_net_source_release(struct rb_net_source *n);

/*
 * -RB_EAGAIN when the backoff does not allow a connection yet ("@proto
 * HOST:PORT: down; ..."), else 0.
 */
int rb_net_source_ready(const struct rb_net_source *n, const char *proto);

/*
 * A network failure of @what (libetpan code @r, the server's last
 * response @resp or NULL): records "@proto HOST:PORT: @what failed ...;
 * retrying in N s" and moves the backoff on. Returns -RB_EAGAIN; the
 * caller drops its connection.
 */
int rb_net_source_fail(struct rb_net_source *n, const char *proto,
		       const char *what, int r, const char *resp);

/*
 * Checks the certificate of @stream when the source asks for it; on a
 * refusal logs @event and moves the backoff on (the caller drops its
 * connection) and returns rb_tls_verify_stream()'s code.
 */
int rb_net_source_verify(struct rb_net_source *n, mailstream *stream,
			 const char *event);

/*
 * A source's batch of messages (source.h begin/commit): the messages it
 * delivered and the mark that covers them, committed together. Without
 * begin/commit in the env, each deliver is durable on its own and the
 * mark is written every RB_STATE_EVERY messages.
 */
struct rb_src_batch {
	const struct rb_source_env *env;
	const char *source, *mailbox; /* borrowed */
	int64_t validity; /* written with the mark */
	bool open; /* a store transaction is open */
	int64_t mark; /* the last message delivered or skipped */
	int64_t saved; /* the mark the store holds */
	int unsaved; /* messages since it was saved */
};

/* Opens a store transaction when the env has them and none is open. */
int rb_src_batch_begin(struct rb_src_batch *b);
/* Saves the mark, with the batch's messages when a transaction is open. */
int rb_src_batch_commit(struct rb_src_batch *b);
/* @mark was delivered; commits once @every messages are in hand (or
 * RB_STATE_EVERY without transactions). */
int rb_src_batch_moved(struct rb_src_batch *b, int64_t mark, int every);
/*
 * The end of a pass that stopped with @ret: what was delivered is kept
 * with its mark (a network error, -RB_EAGAIN), but a failed deliver (the
 * store) rolls the open batch back. Returns @ret, or the commit's error.
 */
int rb_src_batch_end(struct rb_src_batch *b, int ret);

/* Logs @event: the @count messages of @mailbox one pass stored and the
 * milliseconds since @t0 (CLOCK_MONOTONIC); the rate bench/ingest.sh reads. */
void rb_net_log_synced(const struct rb_net_source *n, const char *event,
		       const char *mailbox, int64_t count,
		       const struct timespec *t0);

#endif
