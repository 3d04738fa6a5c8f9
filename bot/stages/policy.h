/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * policy.h - the policy engine: what reviewbot may do for one series, and
 * to whom it writes (DESIGN.md fact 10, issue 8 item 4).
 *
 * Each subsystem (a MAINTAINERS section name) or list (a List-Id) may have
 * an entry under policy.subsystems in the config; a section without one
 * uses policy.default, whose mode is off: every subsystem is off until it
 * opts in.
 *
 * A series that touches several sections gets the most restrictive of
 * their policies, knob by knob, where "restrictive" means "sends less":
 *
 *   mode                off < shadow < advisory < blocking: the lowest wins
 *                       (off sends nothing, shadow only to the admins,
 *                       advisory to the people; blocking sends as much as
 *                       advisory but claims more, so a subsystem that only
 *                       opted into advisory is never made blocking)
 *   recipients          the intersection of the bits
 *   embargo_minutes     the longest
 *   min_severity        the highest
 *   max_findings        the smallest (0 or less: no cap)
 *   send_when_empty     only when all say so
 *   report_apply_failures  the one that tells the fewest (off < admins <
 *                       author)
 *   require_dkim        when any says so
 *   suppress_similar    the smallest positive value
 *   already_quoted      drop when any says so (drop < mark)
 *   skip_authors        the union
 *   incomplete          the one that sends the least (ignore, notify,
 *                       review-prefix)
 *   checkers            the intersection (a build runs only where every
 *                       section asked for it)
 *   blocking_text, templates_dir  from the entry whose mode won (the
 *                       first one, in the order given)
 *
 * A section without an entry of its own takes the entry of the list the
 * series came from (its List-Id), else policy.default. The List-Id's
 * entry, when there is one, also takes part like a section; a list
 * without an entry does not (it would drag every series to default).
 *
 * That is policy.resolve: strictest. By default (policy.resolve: home)
 * one section decides, the series' home (bot/stages/scope.h):
 * rb_policy_resolve_home() gives its entry (or its list's, or the
 * default), and the mode of the list's entry is the most it gets: a list
 * in shadow mode gets no mail but the admins', whatever its sections
 * say. check-config refuses a section whose mode no list lets it have.
 */
#ifndef RB_BOT_POLICY_H
#define RB_BOT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/config.h"
#include "review/findings.h"

struct rb_effective_policy {
	enum rb_mode mode;
	unsigned checkers; /* RB_CHECKER_BIT()s (review/checks/checks.h) */
	enum rb_incomplete incomplete;
	unsigned int recipients; /* enum rb_recipient bits */
	int embargo_minutes;
	enum rb_fsev min_severity;
	int max_findings; /* per patch; 0: no cap */
	bool send_when_empty;
	enum rb_apply_notice report_apply_failures;
	bool require_dkim;
	int suppress_similar; /* 0: off */
	enum rb_already_quoted already_quoted; /* drop when any says so */
	const char **skip_authors; /* owned array of borrowed strings */
	size_t n_skip_authors;
	const struct rb_policy *governing; /* borrowed: whose mode won */
	const char *blocking_text; /* borrowed from governing, may be NULL */
	const char *templates_dir; /* borrowed from governing, may be NULL */
	/* Issue 36, from governing: who gets shadow mail, the static Cc,
	 * and the subject prefix whose mode rules (rb_policy_apply_prefix(),
	 * NULL when none does). */
	enum rb_shadow_to shadow_to;
	const char *const *cc; /* borrowed */
	size_t n_cc;
	const char *prefix; /* borrowed from the config */
	/*
	 * For the mail's footer: the names that took part, "MEMORY
	 * MANAGEMENT" or "MEMORY MANAGEMENT, NETWORKING and 2 more".
	 */
	char *subsystem;
};

/*
 * Resolves the policy for a series touching @sections (MAINTAINERS section
 * names, borrowed, may be empty) that came from the list @list_id (may be
 * NULL). Entries of @cfg are matched by name, exactly first, then without
 * regard to case. @out is owned by the caller (rb_effective_policy_release())
 * and borrows from @cfg. Returns 0 or -RB_ENOMEM.
 */
int rb_policy_resolve(struct rb_effective_policy *out,
		      const struct rb_config *cfg, const char *const *sections,
		      size_t n_sections, const char *list_id);
/*
 * The policy of a series whose home section is @home (policy.resolve:
 * home): @home's entry, else the entry of the list @list_id (may be
 * NULL), else the default; its mode at most the list entry's. Same
 * ownership and errors as rb_policy_resolve().
 */
int rb_policy_resolve_home(struct rb_effective_policy *out,
			   const struct rb_config *cfg, const char *home,
			   const char *list_id);
void rb_effective_policy_release(struct rb_effective_policy *p);

/*
 * Subject-prefix scoping (issue 36): when the series' subject tags
 * (@tags, "RFC PATCH mm-hotfixes v2 1/3", NULL for none) hold, as a
 * whole word and without regard to case, one of the prefixes of the
 * governing entry (policy key "prefixes"), the series gets that
 * prefix's mode instead, the first that matches; the mode of the list
 * @list_id's entry (its own prefix's, when one matches) is still the most
 * it gets. Sets p->prefix to the prefix that ruled.
 */
void rb_policy_apply_prefix(struct rb_effective_policy *p,
			    const struct rb_config *cfg, const char *tags,
			    const char *list_id);

/* The most restrictive of two modes (see above). */
enum rb_mode rb_mode_most_restrictive(enum rb_mode a, enum rb_mode b);

/*
 * True when the series' author is in skip_authors. @author is a mailbox
 * ("Name <a@b>") or a bare address. An entry is an address (compared as
 * rb_addr_same() does), "@domain" (every address there) or an fnmatch(3)
 * glob ("*-bot@example.org"), case-insensitive.
 */
bool rb_policy_skip_author(const struct rb_effective_policy *p,
			   const char *author);

/* When the review may go out: the last patch's date plus the embargo. */
int64_t rb_policy_send_after(const struct rb_effective_policy *p,
			     int64_t last_patch_date);

/*
 * Marks in @keep (an array of @n) the findings to show: severity at least
 * min_severity, then per patch (patch_index) at most max_findings, the
 * most severe first (ties: the order given). Returns how many are kept.
 */
size_t rb_policy_filter_findings(const struct rb_effective_policy *p,
				 const struct rb_finding *v, size_t n,
				 bool *keep);

/*
 * Whether a review with @n_findings (after filtering) is sent at all: never
 * when the mode is off, and with no findings only when send_when_empty.
 */
bool rb_policy_should_send(const struct rb_effective_policy *p,
			   size_t n_findings);

/* Who a series' review could go to; mailboxes, all borrowed. */
struct rb_policy_people {
	/* The poster: the From: of the patch mail, or the in-body author of
	 * a B4 Relay mail (mail/message.h: rb_message_poster()). */
	const char *author;
	/* The in-body From: of the patch when it names someone other than
	 * the poster, or NULL: a reply Cc's them only where the poster did
	 * (git send-email Cc's the author of a patch it sends). */
	const char *inbody;
	/* M: and R: people of the opted-in sections, by relevance: the
	 * first n_home_maintainers are the home section's
	 * (bot/stages/scope.h). */
	const char *const *maintainers;
	size_t n_maintainers;
	size_t n_home_maintainers;
	/* L: lists of the opted-in sections, the home's n_home_lists
	 * first. */
	const char *const *lists;
	size_t n_lists;
	size_t n_home_lists;
	const char *const *orig_cc; /* To: and Cc: of the patch mail */
	size_t n_orig_cc;
	/* Every M:/R: person and L: list of the touched sections, opted in
	 * or not: who of orig_cc may stay. */
	const char *const *touched_people;
	size_t n_touched_people;
	const char *const *touched_lists;
	size_t n_touched_lists;
	/* Every L: address of MAINTAINERS, bare, sorted (strcasecmp): what
	 * is a list rather than a person. */
	char *const *known_lists;
	size_t n_known_lists;
};

/* Mailboxes as given ("Name <addr>"), each a malloc'd copy. */
struct rb_recipients {
	char **to;
	size_t n_to;
	char **cc;
	size_t n_cc;
	/* invalid, undeliverable, duplicate of a kept one, or over a cap */
	size_t n_dropped;
	size_t n_capped; /* people trimmed by max_recipients (in n_dropped) */
	size_t n_lists_capped; /* lists trimmed by max_lists (in n_dropped) */
	/* addresses no mail can reach (rb_addr_deliverable(); in n_dropped) */
	size_t n_undeliverable;
	/* of the patch's To/Cc, those neither its author nor MAINTAINERS'
	 * nor a list read: left out (not in n_dropped) */
	size_t n_refused;
	/* The kept recipients that are mailing lists, bare addresses: the
	 * L: lists of @who, and addresses whose "local.domain" is on the
	 * config's List-Id allow-list. They have the per-list rate limit,
	 * not the per-recipient one (bot/stages/outbox.c). */
	char **lists;
	size_t n_lists;
	/* The kept people whom the trusted tree or the config put on the
	 * mail, bare addresses: the M:/R: people of the touched sections
	 * and the admins (shadow mode). Bounded by the global rate only.
	 * Every other person (the poster, the in-body author, the people
	 * of the patch's own To/Cc) has the per-recipient limit: a poster
	 * chooses them. */
	char **trusted;
	size_t n_trusted;
	/* People the config's "people" keeps off this mail (issue 36):
	 * every "none" is counted in n_optout; a "shadow" person left off a
	 * public mail is in private (mailboxes), for a private copy. */
	size_t n_optout;
	char **private_to;
	size_t n_private;
	bool private_trusted; /* the private ones were all trusted */
};

/*
 * The recipients of a review under @p:
 *  - off: none;
 *  - shadow: To: the admins (cfg->admins), nobody else; with shadow_to:
 *    maintainers, To: the home section's M: and R: people but the
 *    poster and the in-body author, and the admins only when none is
 *    left;
 *  - advisory, blocking: To: the poster (RB_RCPT_AUTHOR), Cc: the
 *    in-body author if the poster addressed them; Cc: the maintainers
 *    (RB_RCPT_MAINTAINERS), the lists (RB_RCPT_LIST) and, when the reply
 *    goes to either, the patch's own To/Cc (reply-all is the list
 *    etiquette) as far as they are the author's and MAINTAINERS' (issue
 *    33): the M:/R: people of the touched files, their L: lists and the
 *    lists the bot reads (list_ids); anybody else the poster named is
 *    left out; and the static Cc of the policy (cc). Without
 *    RB_RCPT_AUTHOR the first Cc becomes the To.
 * Whatever the mode, a person whom the config's "people" says "none" is
 * left out, and one who says "shadow" is left off every public mail
 * (advisory, blocking, a poster's notice, a forward) and put in
 * out->private_to instead.
 * Every entry must parse as a mailbox with an address rb_addr_valid()
 * accepts (no CR, LF or other control character, RFC 5321 syntax, at most
 * 254 bytes) and, but for the admins, one rb_addr_deliverable() accepts;
 * duplicates (rb_addr_same()) keep the first place and the most relevant
 * class; people are capped at cfg->max_recipients and lists at
 * cfg->max_lists, the least relevant trimmed first (policy.c). Dropped
 * entries are logged and counted. *out is owned by the caller
 * (rb_recipients_release()). Returns 0 or -RB_ENOMEM.
 */
int rb_policy_recipients(struct rb_recipients *out,
			 const struct rb_effective_policy *p,
			 const struct rb_config *cfg,
			 const struct rb_policy_people *who);

/*
 * The recipients of a notice for the poster (an incomplete series, an
 * apply failure where the section opted in): none when the mode is off;
 * the admins in shadow mode; otherwise To: the poster, Cc: the in-body
 * author where the poster addressed them. Same rules and ownership as
 * rb_policy_recipients().
 */
int rb_policy_author_recipients(struct rb_recipients *out,
				const struct rb_effective_policy *p,
				const struct rb_config *cfg,
				const struct rb_policy_people *who);

/* To: the admins (cfg->admins), for the operator's notices. */
int rb_policy_admin_recipients(struct rb_recipients *out,
			       const struct rb_config *cfg);

/*
 * A forward (issue 36): findings of a review that a maintainer of the
 * home section chose to send on. To: the poster (RB_RCPT_AUTHOR), Cc:
 * the in-body author where the poster addressed them, the maintainer
 * who forwarded (@by, a mailbox), the lists (RB_RCPT_LIST: the home
 * section's, then the other opted-in sections' and the lists read) and
 * the policy's static Cc. A public mail: "people" rules as above.
 */
int rb_policy_forward_recipients(struct rb_recipients *out,
				 const struct rb_effective_policy *p,
				 const struct rb_config *cfg,
				 const struct rb_policy_people *who,
				 const char *by);

/*
 * A private mail to @to[0..n) (mailboxes: the ledger's notice to the
 * home section's M: people, a private copy of a review): To: them, the
 * admins when none is left. "people"'s "none" holds; "shadow" gets
 * private mail. @trusted: the trusted tree or the config chose them all
 * (only the global rate limit); else each has the per-recipient limit.
 */
int rb_policy_private_recipients(struct rb_recipients *out,
				 const struct rb_config *cfg,
				 const char *const *to, size_t n, bool trusted);

/*
 * Who is told that a series applies nowhere: nobody when the mode is
 * off; report_apply_failures otherwise, but never the author in shadow
 * mode (only the admins get shadow mail).
 */
enum rb_apply_notice
rb_policy_apply_failure_notice(const struct rb_effective_policy *p);

void rb_recipients_release(struct rb_recipients *r);

#endif
