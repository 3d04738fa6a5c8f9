// SPDX-License-Identifier: GPL-2.0-only
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "log.h"
#include "banned.h"

static enum rb_log_level min_level = RB_LOG_INFO;

/* The status line (rb_log_status()): on, and what it shows now. */
static pthread_mutex_t status_lock = PTHREAD_MUTEX_INITIALIZER;
static int status_on;
static char status[256];

void rb_log_status_enable(int on)
{
	status_on = on;
}

/* Under status_lock: wipes the status line off the terminal. */
static void status_clear(void)
{
	if (status[0])
		fputs("\r\033[K", stderr);
}

void rb_log_status(const char *text)
{
	if (!status_on)
		return;
	pthread_mutex_lock(&status_lock);
	status_clear();
	snprintf(status, sizeof(status), "%s", text ? text : "");
	if (status[0])
		fputs(status, stderr);
	fflush(stderr);
	pthread_mutex_unlock(&status_lock);
}

void rb_log_set_level(enum rb_log_level lvl)
{
	min_level = lvl;
}

void rb_log_set_quiet(int quiet)
{
	min_level = quiet ? RB_LOG_ERROR : RB_LOG_INFO;
}

void rb_log_plain(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&status_lock);
	status_clear();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (status[0])
		fputs(status, stderr);
	pthread_mutex_unlock(&status_lock);
}

static void put_value(struct rb_buf *b, const char *v)
{
	const unsigned char *p;
	int quote = !*v;

	for (p = (const unsigned char *)v; *p; p++)
		if (*p <= ' ' || *p == '"' || *p == '=' || *p == 0x7f)
			quote = 1;
	if (!quote) {
		rb_buf_puts(b, v);
		return;
	}
	rb_buf_putc(b, '"');
	for (p = (const unsigned char *)v; *p; p++) {
		if (*p == '"' || *p == '\\')
			rb_buf_printf(b, "\\%c", *p);
		else if (*p == '\n')
			rb_buf_puts(b, "\\n");
		else if (*p < ' ' || *p == 0x7f)
			rb_buf_printf(b, "\\x%02x", *p);
		else
			rb_buf_putc(b, (char)*p);
	}
	rb_buf_putc(b, '"');
}

void rb_log(enum rb_log_level lvl, const char *event, ...)
{
	static const char *const names[] = { "debug", "info", "warn", "error" };
	struct rb_buf b = RB_BUF_INIT(64 * 1024);
	char ts[32];
	struct tm tm;
	time_t now;
	va_list ap;
	const char *k, *v;

	if (lvl < min_level)
		return;
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rb_buf_printf(&b, "ts=%s level=%s event=", ts, names[lvl]);
	put_value(&b, event);
	va_start(ap, event);
	while ((k = va_arg(ap, const char *))) {
		v = va_arg(ap, const char *);
		rb_buf_printf(&b, " %s=", k);
		put_value(&b, v ? v : "");
	}
	va_end(ap);
	rb_buf_putc(&b, '\n');
	pthread_mutex_lock(&status_lock);
	status_clear();
	fwrite(b.ptr, 1, b.len, stderr);
	if (status[0])
		fputs(status, stderr);
	pthread_mutex_unlock(&status_lock);
	rb_buf_release(&b);
}
