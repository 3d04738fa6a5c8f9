/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clock.h - the clock of reviewbot: every timestamp the store writes and
 * every lease, backoff, embargo and rate-limit window the stages compute.
 * One function, so that a test or a replay can set the time (RB_NOW,
 * util/testenv.h).
 */
#ifndef RB_UTIL_CLOCK_H
#define RB_UTIL_CLOCK_H

#include <stdint.h>

/* Seconds since the epoch: time(NULL), or RB_NOW from the environment. */
int64_t rb_now(void);

#endif
