/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log.h - structured logs: one line per event, "ts=... level=... event=...
 * key=value ...", on stderr. Values with spaces or quotes are quoted, and
 * control characters from mail are escaped, so a log line is always one
 * line. Secrets are never passed here.
 */
#ifndef RB_UTIL_LOG_H
#define RB_UTIL_LOG_H

enum rb_log_level { RB_LOG_DEBUG, RB_LOG_INFO, RB_LOG_WARN, RB_LOG_ERROR };

void rb_log_set_level(enum rb_log_level lvl);
/* Silences logging below ERROR (for CLI commands that print results). */
void rb_log_set_quiet(int quiet);

/*
 * Logs @event with key/value pairs given as alternating const char *
 * arguments, terminated by NULL: rb_log(RB_LOG_INFO, "msg.stored",
 * "id", mid, "source", name, NULL).
 */
void rb_log(enum rb_log_level lvl, const char *event, ...)
	__attribute__((sentinel));

/*
 * A status line on a terminal: rb_log_status() shows @text on the last
 * line of stderr, in place of what it showed before; a log line clears it
 * first and shows it again below itself, so that the two never mix. It
 * does nothing unless rb_log_status_enable(1) was called (the caller
 * checked that stderr is a terminal). rb_log_status(NULL) clears it.
 */
void rb_log_status_enable(int on);
void rb_log_status(const char *text);

/* A plain line on stderr ("reviewbot: ..."), printf-style, that keeps
 * to the status line as a log line does. */
void rb_log_plain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
