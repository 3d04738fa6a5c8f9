/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * message.h - one list mail, parsed (RFC 5322, RFC 2045-2049 MIME,
 * RFC 2047 encoded words, RFC 3676 format=flowed) with libetpan; its
 * subject is read by subject.h.
 *
 * Everything in these structs is owned by the struct and freed with it;
 * all text is UTF-8 and NUL-terminated.
 */
#ifndef RB_MAIL_MESSAGE_H
#define RB_MAIL_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mail/subject.h"

struct rb_addr {
	char *name; /* display name, decoded; may be NULL */
	char *addr; /* local@domain */
};

struct rb_addr_list {
	struct rb_addr *v;
	size_t n;
};

struct rb_trailer {
	char *key; /* as written: "Signed-off-by" */
	char *value;
};

/* Problems found while parsing; reported, never silently "fixed". */
enum rb_msg_problem {
	RB_MSG_FLOWED = 1 << 0, /* format=flowed text/plain carrying a patch */
	RB_MSG_WS_DAMAGE = 1 << 1, /* context lines lost their leading space */
	RB_MSG_CRLF = 1 << 2, /* CRLF line endings in the body */
	RB_MSG_BAD_BOUNDARY = 1 << 3, /* a MIME boundary we refused to parse */
	RB_MSG_NO_MSGID = 1 << 4, /* Message-ID missing: a synthetic one */
	RB_MSG_CHARSET = 1 << 5, /* a charset that could not be converted */
	RB_MSG_FUTURE_DATE = 1 << 6, /* Date: after the time received */
	RB_MSG_NAME_CTRL = 1 << 7, /* control characters in a display name */
};

struct rb_message {
	char *message_id; /* without the angle brackets */
	char *in_reply_to; /* the first id of In-Reply-To, or NULL */
	char **references; /* References, oldest first */
	size_t n_references;
	struct rb_addr from; /* the one From: field's first mailbox */
	/*
	 * The patch's author: an in-body "From:" line at the top of the
	 * body (as git am reads it), else the same as from.
	 */
	struct rb_addr author;
	struct rb_addr_list to;
	struct rb_addr_list cc;
	char *date_raw; /* the Date header as sent, or NULL */
	/*
	 * Seconds since the epoch, 0 when unparseable; never later than
	 * rb_parse_opts.received_at + RB_MSG_DATE_SKEW when that is known.
	 */
	int64_t date;
	char *list_id; /* the id inside List-Id's angle brackets, or NULL */
	char *subject_raw; /* decoded, may hold any character */
	struct rb_subject subject;

	/* Loop rules (DESIGN.md fact 6). */
	char *auto_submitted;
	char *precedence;
	char *x_reviewbot; /* our own X-Reviewbot-Series on our own mail */

	char *body; /* the text/plain body, decoded to UTF-8, LF endings */
	char *commit_msg; /* the body up to the "---" line (or the diff) */
	struct rb_trailer *trailers; /* from commit_msg and after "---" */
	size_t n_trailers;
	char *diffstat; /* between "---" and the diff, or NULL */
	char *notes; /* text between "---" and the diffstat ("v2: ..."), or NULL */
	char *patch; /* the unified diff text, or NULL: not a patch */
	size_t patch_len;

	unsigned int problems; /* enum rb_msg_problem bits */
	char *problem_text; /* human-readable, NULL when none */
};

struct rb_parse_opts {
	size_t max_size; /* bytes; 0 means the default, RB_MSG_DEFAULT_MAX */
	/*
	 * When the message was received (seconds since the epoch; the
	 * store's received_at), 0 when unknown. A Date: later than this by
	 * more than RB_MSG_DATE_SKEW is a sender's clock or a lie: m->date
	 * becomes received_at (date_raw keeps what was sent) and
	 * RB_MSG_FUTURE_DATE is noted. Pass the same value each time the
	 * same stored message is parsed, so that its date does not change.
	 */
	int64_t received_at;
	/*
	 * To and Cc are not read (m->to and m->cc stay empty, and their
	 * names raise no problem): the ingest keeps only what assembly
	 * needs, and a review parses the mail again, whole. Long Cc lists
	 * were a fifth of the ingest's parse.
	 */
	bool no_recipients;
};
#define RB_PARSE_OPTS_INIT \
	{                  \
		0          \
	}
/*
 * The default cap on one raw message (limits.max_message_size). The
 * largest of the 30,571 mails of linux-api is 357 KB (9 are over 256 KB,
 * none over 512 KB), and a review stops at 10,000 changed lines
 * (review/apply/apply.h), about 0.5 MB of diff: no mail over a few MB can be
 * reviewed. 4 MiB is ten times the largest real mail; a review of a
 * patch of 4 MiB peaks at about 110 MB (short lines, the worst case),
 * one of 20 MB took 480 MB.
 */
#define RB_MSG_DEFAULT_MAX (4u << 20)
#define RB_MSG_DATE_SKEW (15 * 60) /* clock skew allowed, seconds */

/*
 * Parses one raw message (LF or CRLF). *out is owned by the caller and
 * freed with rb_message_free(). Fails with -RB_EPARSE (the reason is in
 * rb_errmsg()) for mail that is not a message at all, or that carries a
 * field RFC 5322 section 3.6 allows once (From, Sender, Reply-To, To, Cc,
 * Bcc, Subject, Message-ID, In-Reply-To, References, Date) more than once:
 * which of two From: fields a reader uses is a choice an attacker can
 * exploit (DKIM verifies the last one, a first-match reader uses the
 * first), so such mail never becomes a patch or a verdict.
 * -RB_ETOOBIG past the size cap; anything recoverable is noted in
 * problems instead. Display names never hold control characters: C0, DEL,
 * C1, U+2028 and U+2029 become spaces (RB_MSG_NAME_CTRL), so a name cannot
 * start a header line or a body line of a reply.
 * A message without Message-ID gets a stable synthetic one derived from its
 * content ("rb-<sha256 prefix>@reviewbot.invalid").
 */
int rb_message_parse(struct rb_message **out, const char *raw, size_t len,
		     const struct rb_parse_opts *opts);

/*
 * How many times rb_message_parse() ran in this process. The pipeline
 * parses each message once on its way (and again only where a stage needs
 * the body); tests/t_parse_once.sh holds it to that with this counter,
 * which `reviewbot review` logs (event=review.done parses=N).
 */
unsigned long rb_message_parse_count(void);
void rb_message_free(struct rb_message *m);

/* The value of the first trailer named @key (case-insensitive), or NULL. */
const char *rb_message_trailer(const struct rb_message *m, const char *key);

/*
 * Whether @m came through B4 Relay, b4's web endpoint for people whose
 * mail setup cannot send patches: it sends as "NAME via B4 Relay
 * <devnull+LOCAL.DOMAIN@kernel.org>", an address nobody reads, with the
 * author's own "From:" as the first line of the body. True when the
 * From: address is the relay's (devnull or devnull+TAG at kernel.org,
 * any case) and the body names another author; then that author is who
 * sent the patch (b4 treats it so), and the only person a reply can
 * reach. The From: header says it, so anybody can claim it: a caller
 * that checks DKIM (the relay signs as kernel.org) checks it before it
 * believes this (bot/stages/review_stage.c).
 */
bool rb_message_b4_relay(const struct rb_message *m);
/* Is @addr the relay's sending address (devnull[+TAG]@kernel.org)? */
bool rb_message_relay_addr(const char *addr);

/*
 * Who posted @m: the in-body author of a B4 Relay mail
 * (rb_message_b4_relay()), else the From: header's mailbox. Borrowed.
 * An in-body From: of any other mail names the patch's author, who is
 * not the poster: git send-email Cc's that author, and the poster
 * decides whether it does.
 */
const struct rb_addr *rb_message_poster(const struct rb_message *m);

#endif
