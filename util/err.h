/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * err.h - the project's error codes and the one place a failure's
 * human-readable reason is recorded.
 *
 * A function that can fail returns 0 or a negative RB_E* code. Where the
 * failure happens it calls rb_err(), which records the reason (per thread)
 * and returns -code, so callers write "return rb_err(RB_EINVAL, ...)".
 * Callers pass the code on and never overwrite the reason.
 */
#ifndef RB_UTIL_ERR_H
#define RB_UTIL_ERR_H

#include <stdarg.h>

enum rb_errcode {
	RB_OK = 0,
	RB_ENOMEM = 1, /* out of memory */
	RB_EINVAL = 2, /* bad argument or bad input: skip this item */
	RB_ENOTFOUND = 3, /* no such thing */
	RB_EAGAIN = 4, /* temporary: a server is down, retry later */
	RB_EIO = 5, /* a file or a socket failed */
	RB_EPARSE = 6, /* hostile input could not be parsed: record, skip */
	RB_ETOOBIG = 7, /* a size cap was hit */
	RB_ECONFIG = 8, /* configuration or credentials: stop */
	RB_EEXISTS = 9, /* already there (idempotent stages use this) */
	RB_ESTORE = 10, /* the store failed */
	RB_ELOCKED = 11, /* another process holds the lock */
	RB_EFAIL = 12, /* the work ran and reported a failure */
	RB_ETIMEOUT = 13, /* a deadline passed */
	RB_EQUOTA = 14, /* a provider's quota or spend limit: do not retry */
	RB__EMAX
};

/* Records the reason for the failure and returns -code. */
int rb_err(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int rb_verr(int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* The reason recorded by the last rb_err() on this thread, or "". */
const char *rb_errmsg(void);

/* The short name of a code ("EINVAL"); code may be negative. */
const char *rb_errname(int code);

void rb_err_clear(void);

#endif
