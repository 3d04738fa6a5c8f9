/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * series.h - assembling patch series from a set of messages, as b4 does:
 * a cover letter and its patches through In-Reply-To and References,
 * series without a cover, out-of-order arrival, versions linked by subject,
 * change-id or a reply to the previous version, partial rerolls, and
 * unthreaded mail (same sender, version and total in a time window, as
 * patchwork does).
 *
 * Within one thread (messages linked by In-Reply-To and References) the
 * rules are b4 0.12's LoreMailbox: one series per version, the first patch
 * seen for a number wins, a cover is an explicit 0/N (or the diffstat-only
 * parent of a patch), and an incomplete v(n) whose patches reply to the
 * same numbers of v(n-1) is filled from v(n-1) (a partial reroll). Unlike
 * b4, each revision of a thread has one owner, the sender of its first
 * part to arrive (a patch or a 0/N), and a part or cover joins it only
 * when its From: is the owner's (the address, or the same full display
 * name: one person's two addresses): a [PATCH 3/3] or 0/N that someone else
 * posts into the thread is ignored for assembly, so it can neither fill
 * a missing slot, rename the series nor make its sender an author. A
 * partial reroll is filled only from the same owner's revision.
 */
#ifndef RB_MAIL_SERIES_H
#define RB_MAIL_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_message;

/* All char * fields are borrowed from the set and live as long as it. */
struct rb_series {
	char *id; /* stable: the cover's Message-ID, else patch 1's */
	int version;
	int total; /* number of patches, not counting the cover */
	char *cover; /* Message-ID of the cover letter, or NULL */
	char **patches; /* [total] Message-IDs of 1..total, NULL if missing */
	bool complete;
	char *previous; /* id of the previous version's series, or NULL */
	char *change_id; /* from the change-id: trailer, or NULL */
	char *title; /* the cover's title, else patch 1's */
	char *author; /* address of the sender */
	int64_t last_date; /* date of the newest part seen */
	int64_t first_date; /* date of the oldest part seen */
	/* Slots filled from the previous version (b4's partial reroll). */
	bool partial_reroll;
	bool unthreaded; /* grouped by the patchwork fallback */
};

/* What a message is to the series assembly. */
enum rb_msg_kind {
	RB_KIND_UNKNOWN = 0, /* not in the set */
	RB_KIND_PATCH, /* a patch: has a diff, not a reply */
	RB_KIND_COVER, /* an explicit 0/N cover letter */
	RB_KIND_REPLY, /* a reply: review or discussion */
	RB_KIND_TRAILERS, /* a reply giving Acked-by/Reviewed-by/Tested-by */
	RB_KIND_BOT, /* a reply from a known bot (or from us) */
	RB_KIND_PULL, /* [GIT PULL]: not a series */
	RB_KIND_OTHER, /* none of the above (no diff, not a reply) */
};

struct rb_series_set;

/*
 * Whether a sender is a bot that assembly ignores (the 0-day robot,
 * syzbot, patchwork, CI systems, "noreply" senders): by its address
 * @addr and display name @name (either may be NULL). Threads read
 * such a reply as a bot's, never a reviewer's (bot/stages/threads.h).
 */
bool rb_series_from_bot(const char *addr, const char *name);

/* Borrowed pointers stay valid until the set is freed. */
int rb_series_set_new(struct rb_series_set **out);
void rb_series_set_free(struct rb_series_set *set);

/*
 * Time window for unthreaded mail (default 12 hours): parts without any
 * threading header from the same sender with the same version and total
 * join one series when each is within @seconds of the previous part.
 */
void rb_series_set_window(struct rb_series_set *set, int64_t seconds);

/*
 * What assembly reads of one message, so that a store can keep it beside
 * the raw bytes and assemble again without parsing the mail: the headers
 * below and a few facts about the body (RB_SERIES_BODY_*). The strings are
 * borrowed for the call.
 */
struct rb_series_msg {
	const char *message_id;
	const char *subject; /* decoded, as rb_message.subject_raw */
	const char *from_addr, *from_name;
	int64_t date;
	const char *in_reply_to;
	const char *const *references;
	size_t n_references;
	const char *change_id; /* the change-id: trailer, or NULL */
	uint32_t body; /* RB_SERIES_BODY_* */
};

/* Facts about the body; stored, so the values never change. */
#define RB_SERIES_BODY_DIFF (1u << 0) /* b4's DIFF_RE matches */
#define RB_SERIES_BODY_DIFFSTAT (1u << 1) /* b4's DIFFSTAT_RE matches */
#define RB_SERIES_BODY_TRAILERS (1u << 2) /* follow-up trailers */
#define RB_SERIES_BODY_ACK (1u << 3) /* Acked-by, Reviewed-by, ... */
#define RB_SERIES_BODY_OURS (1u << 4) /* X-Reviewbot: our own mail */

/* @m as assembly reads it; borrows from @m. */
void rb_series_msg_of(struct rb_series_msg *out, const struct rb_message *m);

/*
 * Adds a message (copies what it needs). Non-patches are kept as replies.
 * A Message-ID added before is ignored (cross-posting): returns
 * -RB_EEXISTS without recording a reason. -RB_EINVAL for a message
 * without a Message-ID, -RB_ENOMEM.
 */
int rb_series_set_add_msg(struct rb_series_set *set,
			  const struct rb_series_msg *m);
/* rb_series_set_add_msg() of rb_series_msg_of(@m). */
int rb_series_set_add(struct rb_series_set *set, const struct rb_message *m);

/*
 * Groups what was added into series; call after the last add. It may be
 * called again after more adds: the series are rebuilt and earlier
 * rb_series pointers become invalid.
 */
int rb_series_set_assemble(struct rb_series_set *set);

size_t rb_series_set_count(const struct rb_series_set *set);
/* Series in order of first arrival. */
const struct rb_series *rb_series_set_get(const struct rb_series_set *set,
					  size_t i);

/* Fills @out with the missing patch numbers (1-based); returns the count. */
size_t rb_series_missing(const struct rb_series *s, int *out, size_t max);

/* Messages stored (distinct Message-IDs). */
size_t rb_series_set_messages(const struct rb_series_set *set);

/* The kind of the message @msgid (after assemble), RB_KIND_UNKNOWN if absent. */
enum rb_msg_kind rb_series_set_kind(const struct rb_series_set *set,
				    const char *msgid);
const char *rb_msg_kind_name(enum rb_msg_kind kind);
/*
 * What one message is on its own, before assembly, by its subject, its
 * diff and its threading: RB_KIND_PATCH, RB_KIND_COVER (an explicit 0/N),
 * RB_KIND_REPLY or RB_KIND_OTHER ([GIT PULL] included). The store keeps
 * its rb_msg_kind_name(); assembly refines it (rb_series_set_kind()).
 */
enum rb_msg_kind rb_message_kind(const struct rb_message *m);

/*
 * The Message-ID of the patch or cover letter that the reply @msgid
 * answers (following In-Reply-To, else the nearest known References id,
 * up through other replies), or NULL. After assemble.
 */
const char *rb_series_set_answers(const struct rb_series_set *set,
				  const char *msgid);

/* The series that holds @msgid as its cover or a patch, or NULL. */
const struct rb_series *rb_series_set_find(const struct rb_series_set *set,
					   const char *msgid);

/*
 * What ties a message or a series to others beyond its thread, for an
 * assembly of only the part of a store that new mail touches
 * (bot/stages/assemble.c): series in different threads are the same
 * posting when their messages share a join key, and versions of one
 * another when they share a link key.
 *
 * rb_series_join_key(): the key by which patchwork's fallback joins @m,
 * a part without In-Reply-To or References, to the other parts of its
 * posting (sender, revision, total); *@out NULL when @m never joins.
 * rb_series_link_keys(): the keys by which versions are linked: the
 * change-id's (*@change, NULL without one) and the title's (*@title),
 * each with the author. Every key is the caller's to free; -RB_ENOMEM.
 */
int rb_series_join_key(char **out, const struct rb_series_msg *m);
int rb_series_link_keys(const struct rb_series *s, char **change, char **title);

#endif
