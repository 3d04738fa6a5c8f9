/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ledger.h - the blocking ledger (issue 36): each finding a review raised
 * under mode blocking has an answer state (store_ledger.h
 * rb_store_ledger(): answered, judged, fixed in a later version, or
 * open), and when a series turns up in one of its home section's trees
 * while some of those are open, the section's M: people get one short
 * mail naming them: once per series and tree.
 *
 * How a series turns up: each configured tree's branch head is compared
 * with the head scanned last time (table tree_heads; the first look
 * only records it, so that what a tree held before the bot watched it
 * is not news). The commits new since then (the head's history without
 * the old head's, at most RB_LEDGER_MAX_COMMITS of them, merges left
 * out) get the patch-id of their diff against their parent (git
 * patch-id --stable, review/apply/patchid.h), and each is looked up among the
 * stored patches (messages.patch_id): a match is a sighting of its
 * series in that tree (table sightings, once per series and tree).
 * Every series that holds the patch-id is seen (the first
 * RB_LEDGER_MAX_MATCHES seen, less those a later one of them is a new
 * version of): a copy posted under another name is seen as itself and
 * never hides the series it copied.
 * After a fetch moves mm-unstable, the series Andrew took that day are
 * found this way.
 *
 * A sighting is decided once the series' review is over (not while it
 * waits for its parts or its trees): when the tree is one of the home
 * policy's bases (every tree, for a policy without bases) and the
 * ledger holds open findings, a notice goes to the home section's M:
 * people (the admins when it has none) through the outbox, as a reply
 * in the series' thread; else it is recorded as clear. Both in one
 * transaction with the decision.
 *
 * Nothing here runs unless some policy (or a prefix of one) is blocking.
 */
#ifndef RB_BOT_LEDGER_H
#define RB_BOT_LEDGER_H

struct rb_pipeline;

/* New commits of a tree looked at per scan, at most. */
#define RB_LEDGER_MAX_COMMITS 2000
/* Series one commit's patch-id is looked up in, at most (the first seen
 * first), and links back followed to tell a version from a copy. */
#define RB_LEDGER_MAX_MATCHES 16

/*
 * The ledger's step of the one pipeline (workers): scans the trees that
 * moved and decides the sightings that are due (above). A tree that
 * cannot be read is logged and skipped. Returns 0 or a store error.
 */
int rb_ledger_step(struct rb_pipeline *p);

#endif
