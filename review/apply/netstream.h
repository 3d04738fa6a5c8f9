/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * netstream.h - libgit2's sockets with a deadline. libgit2 1.5 has no
 * timeout for a fetch (GIT_OPT_SET_SERVER_TIMEOUT came in 1.7): a remote
 * that accepts and then says nothing held a worker for as long as it
 * liked (issue 33: over 100 s). This registers libgit2's standard stream
 * (plain sockets, under its TLS stream too) with one whose connect, read
 * and write wait in poll() until the calling thread's deadline, then
 * fail with "timed out".
 */
#ifndef RB_REVIEW_NETSTREAM_H
#define RB_REVIEW_NETSTREAM_H

#include <stdint.h>

/* Registers the stream with libgit2 (after git_libgit2_init(); again
 * after a shutdown). 0, or -RB_EIO when libgit2 refuses it. */
int rb_netstream_register(void);

/* This thread's network deadline, CLOCK_MONOTONIC milliseconds
 * (rb_netstream_now_ms() + a timeout); 0: none. */
void rb_netstream_set_deadline(int64_t deadline_ms);
int64_t rb_netstream_now_ms(void);

#endif
