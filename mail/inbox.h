/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * inbox.h - a thread from a public-inbox server over HTTP(S), the software
 * behind lore.kernel.org: GET BASE/MSGID/t.mbox.gz returns every message
 * of the thread that holds MSGID as a gzipped mboxrd, which is how b4 finds
 * the parts of a series that were not sent to the list it read ("b4 am").
 * BASE is an inbox URL such as https://lore.kernel.org/all/ (the "all"
 * inbox holds every list lore archives).
 *
 * What comes back is list mail: as hostile as anything a source reads.
 * The Message-ID is percent-encoded into the path, the download and its
 * decompressed size are capped, and each message goes to the callback
 * with its origin "fetch:URL:N".
 */
#ifndef RB_MAIL_INBOX_H
#define RB_MAIL_INBOX_H

#include <stddef.h>

#include "mail/mbox.h"

struct rb_inbox_opts {
	const char *base_url; /* "https://lore.kernel.org/all/" */
	const char *ca_file; /* NULL: the system's CA bundle */
	long timeout_seconds; /* the whole request; default 30 */
	size_t max_bytes; /* the thread, decompressed; default 64 MiB */
	size_t max_message; /* one message; default 32 MiB */
};
#define RB_INBOX_OPTS_INIT                                     \
	{                                                      \
		.timeout_seconds = 30, .max_bytes = 64u << 20, \
		.max_message = 32u << 20                       \
	}

/*
 * Fetches the thread of @msgid (bare, without <>) and calls @fn for each
 * message, in the server's order. Returns 0; -RB_ENOTFOUND when the server
 * does not know the message (HTTP 404, or 410); -RB_EAGAIN when it cannot
 * be reached or answers 5xx or 429 (retry later); -RB_ETOOBIG over a cap;
 * -RB_EPARSE for a body that is not gzip; -RB_EINVAL for a bad URL or
 * Message-ID; or what @fn returned.
 */
int rb_inbox_fetch_thread(const struct rb_inbox_opts *o, const char *msgid,
			  rb_mail_fn fn, void *payload);

/* The URL of @msgid's thread under @base ("BASE/ESCAPED/t.mbox.gz"),
 * malloc'd, or NULL for a Message-ID with a control character. */
char *rb_inbox_thread_url(const char *base, const char *msgid);

#endif
