/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * prereq.h - b4's prerequisites of a series, resolved from the store.
 *
 * "b4 prep --edit-deps" writes, after the cover letter's diffstat:
 *
 *   prerequisite-message-id: <20260110-k3-basic-dt-v4-0-d492f3a30ffa@x.com>
 *   prerequisite-patch-id: 0c859b4d131b3360875c795c6148c6176b55fb91
 *   prerequisite-patch-id: 2ed98dc1ab0f5ed923cc252415c345dc8caf6f17
 *
 * (the angle brackets are optional; the patch-ids are "git patch-id
 * --stable" of each patch of that series; "prerequisite-change-id:" is
 * followed by the patch-ids of that series as well). A message-id names a
 * series: the stored series that holds that message as a part, applied
 * whole. A patch-id names one patch: satisfied by a patch of a series
 * already resolved, else looked up by the patch-ids computed as each
 * mail was parsed (messages.patch_id, an index; only patches stored
 * before migration 10 are parsed again, among the RB_PREREQ_SCAN most
 * recent). Whatever is not found is named in the review or the failure
 * mail. The review shows a prerequisite's title only when its author is
 * the series' own; another's series or patch is named by the id the
 * poster wrote (issue 33: the store's titles are not the poster's to
 * read).
 *
 * The trailers come from mail, so they can only point at stored messages
 * (never a URL, a file or a tree), and the walk is bounded: a prerequisite
 * series' own prerequisites are resolved first, at most RB_PREREQ_DEPTH
 * levels deep, RB_PREREQ_SERIES series and RB_PREREQ_PATCHES patches in
 * all, RB_PREREQ_TRAILERS trailers read per series; a series already on
 * the walk (a cycle, or the series itself) is not applied again.
 */
#ifndef RB_BOT_PREREQ_H
#define RB_BOT_PREREQ_H

#include <stddef.h>

#include "review/apply/apply.h"
#include "util/buf.h"

struct rb_pipeline;
struct rb_message;

#define RB_PREREQ_DEPTH 3
#define RB_PREREQ_SERIES 8
#define RB_PREREQ_PATCHES 64
#define RB_PREREQ_TRAILERS 64
#define RB_PREREQ_SCAN 500

struct rb_prereq {
	/* The patches to apply first, in order; they borrow from msgs. */
	struct rb_apply_patch *patches;
	size_t n_patches;
	struct rb_message **msgs; /* owned */
	size_t n_msgs;
	size_t n_series; /* prerequisite series applied whole */
	/* "prerequisite series "x" (3 patches)", ...; empty: none. */
	struct rb_buf applied;
	/* What was named but not found, or refused, "; "-separated;
	 * empty when every prerequisite was found. */
	struct rb_buf missing;
};

void rb_prereq_init(struct rb_prereq *pr);
void rb_prereq_release(struct rb_prereq *pr);

/*
 * Resolves the prerequisites that @msgs (the parts of stored series
 * @series_id, [0] the cover, NULL where missing) name. 0 whatever was
 * found (read pr->missing), or a store error (-RB_ESTORE), -RB_ENOMEM.
 */
int rb_prereq_resolve(struct rb_prereq *pr, struct rb_pipeline *p,
		      const char *series_id, struct rb_message *const *msgs,
		      size_t n);

#endif
