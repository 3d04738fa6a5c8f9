/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * source.h - where mail comes from: local files (mbox, Maildir, eml,
 * stdin; source_file.h), IMAP (RFC 3501, RFC 2177 IDLE; source_imap.h)
 * and NNTP (RFC 3977; source_nntp.h), behind one table of operations. A source hands each raw message to the deliver
 * callback, which makes it durable before returning; only then does the
 * source move its high-water mark (last UID, article number).
 */
#ifndef RB_MAIL_SOURCE_H
#define RB_MAIL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a source asks of its owner. All return 0 or a negative code. */
struct rb_source_env {
	/* The message is durable when this returns 0. */
	int (*deliver)(const char *raw, size_t len, const char *origin,
		       void *payload);
	/* -RB_ENOTFOUND when nothing is stored for (source, mailbox). */
	int (*get_state)(const char *source, const char *mailbox,
			 int64_t *validity, int64_t *last, void *payload);
	int (*set_state)(const char *source, const char *mailbox,
			 int64_t validity, int64_t last, void *payload);
	void *payload;
	/*
	 * Optional (NULL: every deliver is durable on its own). Between
	 * begin() and commit(), delivers and set_state() are one
	 * transaction: durable together when commit() returns 0, gone
	 * together after rollback(). A source that fetches in batches
	 * commits its high-water mark with the messages it covers, so
	 * that 256 articles cost one fsync instead of 256.
	 */
	int (*begin)(void *payload);
	int (*commit)(void *payload);
	void (*rollback)(void *payload);
	/*
	 * Optional, all three or none. prepare() does the part of a
	 * deliver that needs no store (the parse), and is safe to call on
	 * another thread beside the owner's: a source that fetches on a
	 * thread of its own runs it there, so that the owner's thread only
	 * stores. What it returns (NULL: nothing made; the message is then
	 * delivered as by deliver()) goes to deliver_prepared(), which
	 * frees it, or to release() when the message is not delivered.
	 */
	void *(*prepare)(const char *raw, size_t len, void *payload);
	int (*deliver_prepared)(const char *raw, size_t len, const char *origin,
				void *prepared, void *payload);
	void (*release)(void *prepared, void *payload);
};

struct rb_source;

struct rb_source_ops {
	const char *name; /* "file", "imap", "nntp" */
	/* Fetches what is new since the last call; 0, or -RB_EAGAIN when
	 * the server is down (retry later), -RB_ECONFIG for a bad config
	 * or refused credentials. */
	int (*poll)(struct rb_source *src, const struct rb_source_env *env);
	/* Blocks until there may be new mail or @timeout_ms passes; returns
	 * early when *@stop becomes non-zero. */
	int (*wait)(struct rb_source *src, int timeout_ms,
		    volatile const int *stop);
	void (*free)(struct rb_source *src);
};

struct rb_source {
	const struct rb_source_ops *ops;
	char *name;
};

enum rb_source_kind {
	RB_SOURCE_FILE, /* mbox, Maildir, eml or "-" */
	RB_SOURCE_IMAP,
	RB_SOURCE_NNTP,
};

struct rb_source_opts {
	enum rb_source_kind kind;
	const char *name;
	const char *path; /* file sources */
	const char *url; /* imap://, imaps://, nntp://, nntps:// */
	const char *user;
	const char *password; /* never logged */
	const char *const *mailboxes; /* IMAP mailboxes or NNTP groups */
	size_t n_mailboxes;
	bool tls_verify;
	bool starttls; /* required (true) or off */
	const char *ca_file;
	int poll_seconds;
	size_t max_size; /* message size cap */
	bool start_all; /* NNTP first contact: the whole group, not new only */
};

static inline void rb_source_free(struct rb_source *s)
{
	if (s)
		s->ops->free(s);
}

#endif
