/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scope.h - what a series touches and who governs it, in one place: the
 * MAINTAINERS sections of its files (read from the trusted tree, never
 * from the patch), its home subsystem, the policy that follows, which
 * files belong to sections that are off, and the people and lists a
 * reply may go to. The review stage and the feedback stage both take it
 * from here, so they never disagree about who maintains what or which
 * policy rules.
 *
 * The home (policy.resolve: home, the default): each changed file counts
 * for the most specific section covering it that has opted in (a policy
 * entry whose mode is not off; for a section without one, the entry of
 * the list the series came from, else a default, that is not off), weighted by
 * its changed lines; the section with most lines is home, ties going to
 * the section whose list the series came from. Catch-all sections
 * (policy.catch_all: THE REST, generic headers, selftests, documentation)
 * never decide. The home's policy is its entry (else the list's, else
 * the default), and the mode of the list's entry is the most it gets:
 * a list in shadow mode mails only the admins. Without an opted-in
 * section every touched section and the list's entry take part, the
 * most restrictive value of each knob winning. Sections that are off neither veto the review nor get
 * mail, and findings in their files are left out. With policy.resolve:
 * strictest, every touched section takes part and the most restrictive
 * value of each knob wins (policy.h), as before.
 *
 * Then the subject prefix (issue 36): a series whose first part's
 * subject tags hold one of the ruling entry's prefixes ("RFC",
 * "mm-hotfixes") gets that prefix's mode (rb_policy_apply_prefix()).
 */
#ifndef RB_BOT_SCOPE_H
#define RB_BOT_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/stages/policy.h"

struct rb_pipeline;
struct rb_message;
struct rb_maint;
struct rb_maint_result;

struct rb_scope_file {
	char *path; /* the path the patch writes (new, or old if deleted) */
	size_t lines; /* added + removed, at least 1 */
	const char *section; /* its most specific section, or NULL (borrowed) */
	bool off; /* that section is off: findings here are left out */
};

struct rb_scope {
	struct rb_maint *maint; /* the trusted tree's MAINTAINERS, or NULL */
	/* The entry of the series' list (its List-Id), or NULL (borrowed
	 * from the config): a section without an entry takes it. */
	const struct rb_policy *list_pol;
	struct rb_maint_result *touched; /* the series', or NULL */
	/* Touched sections that are not catch-all (or only catch-all ones
	 * when that is all there is), names borrowed from maint. */
	const char **sections;
	size_t n_sections;
	struct rb_effective_policy pol;
	const char *home; /* the home section, or NULL (list/default) */
	struct rb_scope_file *files;
	size_t n_files;
	/* Recipients by relevance (mailboxes, borrowed from maint): the home
	 * section's M:/R: people, then the other opted-in sections'; the L:
	 * lists of the home section, then of the other opted-in sections
	 * and THE REST's. */
	const char **people;
	size_t n_people, n_home_people;
	const char **lists;
	size_t n_lists, n_home_lists;
	/* Every M:/R: person and every L: list of the touched sections,
	 * whatever their policy: of the patch's own To/Cc, only these stay
	 * on a reply (bot/stages/policy.h). */
	const char **touched_people;
	size_t n_touched_people;
	const char **touched_lists;
	size_t n_touched_lists;
	/* Every L: address of MAINTAINERS (bare, sorted): what a list is. */
	char **known_lists;
	size_t n_known_lists;
};

/*
 * Resolves the scope of the series whose parts are @parts[0..n) ([0] the
 * cover; NULL entries are missing parts) that came from @list_id (may be
 * NULL). MAINTAINERS comes from the command line's tree or the first
 * configured tree, at its configured branch; a tree without one leaves
 * no sections and the list's or the default policy. *out is owned by the
 * caller (rb_scope_release()). Returns 0, or -RB_ENOMEM and errors of
 * the MAINTAINERS lookup.
 */
int rb_scope_resolve(struct rb_scope *out, struct rb_pipeline *p,
		     const struct rb_message *const *parts, size_t n,
		     const char *list_id);
void rb_scope_release(struct rb_scope *s);

/* The arrays behind a struct rb_policy_people (rb_scope_people()). */
struct rb_scope_people_buf {
	char **orig;
	size_t n_orig;
	char *author;
	char *inbody;
};

/*
 * Who a reply to part @m of the series may go to (@who borrows from @s
 * and @b): its poster (the sender, or with @relay, a B4 Relay part
 * whose relay signature passed (rb_scope_relayed()), the in-body
 * author), the in-body author when someone else, the scope's people
 * and lists (the home section's first), and the patch's own To/Cc for
 * reply-all. @b is released with rb_scope_people_release(). Returns 0 or
 * -RB_ENOMEM.
 */
int rb_scope_people(struct rb_policy_people *who, struct rb_scope_people_buf *b,
		    const struct rb_scope *s, const struct rb_message *m,
		    bool relay);
void rb_scope_people_release(struct rb_scope_people_buf *b);

/*
 * Whether part @m (its raw bytes @raw, @len) came through B4 Relay
 * (mail/message.h), so that its in-body author is the poster. Where the
 * policy checks DKIM, the relay's own signature (d=kernel.org, From:
 * aligned) must pass: anybody can write "devnull@kernel.org" in a From:.
 */
bool rb_scope_relayed(const struct rb_scope *s, const struct rb_message *m,
		      const char *raw, size_t len);

/* True when findings in @path are left out (its section is off). */
bool rb_scope_file_off(const struct rb_scope *s, const char *path);

/* True for a catch-all section name (policy.catch_all; @cfg NULL: the
 * built-in list). */
bool rb_scope_catch_all(const struct rb_config *cfg, const char *name);

#endif
