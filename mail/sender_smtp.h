/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sender_smtp.h - the SMTP sender, through libcurl (RFC 5321, RFC 3207
 * STARTTLS, RFC 8314 implicit TLS, RFC 4954 AUTH).
 */
#ifndef RB_MAIL_SENDER_SMTP_H
#define RB_MAIL_SENDER_SMTP_H

#include "mail/sender.h"

enum rb_starttls {
	RB_STARTTLS_REQUIRED = 0, /* smtp://: STARTTLS or no mail at all */
	RB_STARTTLS_OFF, /* only for 127.0.0.0/8, ::1 and localhost */
};

/* All borrowed: copied by rb_sender_smtp_new(). */
struct rb_smtp_opts {
	const char *url; /* smtp://host[:port] or smtps://host[:port] */
	const char *user; /* AUTH when set */
	const char *password;
	enum rb_starttls starttls; /* ignored for smtps://, which is TLS */
	const char *ca_file; /* PEM bundle; NULL: the system's */
	long timeout_ms; /* connect, and the whole transaction; 0: 60 s */
	const char *helo; /* EHLO name; NULL: the from address's domain */
};
#define RB_SMTP_OPTS_INIT                                         \
	{                                                         \
		.starttls = RB_STARTTLS_REQUIRED, .timeout_ms = 0 \
	}

/*
 * An SMTP sender. -RB_ECONFIG (reason in rb_errmsg()) for a URL that is
 * not smtp:// or smtps://, or starttls off for a host that is not
 * loopback; -RB_ENOMEM. No connection is made until the first send; each
 * send uses a fresh connection. *out is owned by the caller.
 */
int rb_sender_smtp_new(struct rb_sender **out, const struct rb_smtp_opts *o);

#endif
