/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * assemble.h - the assemble stage: the series of the stored mail
 * (mail/series.h) saved with their jobs (review or incomplete per
 * series, feedback per reply that names one of our mails).
 *
 * A pass assembles only what its new mail touches: the threads of the
 * messages no assembly has seen yet (found through the store's index of
 * Message-ID, In-Reply-To and References, bot/store/store_assembly.h),
 * the unthreaded parts that patchwork's fallback may join to them (by
 * join key), and the series of other threads that share a key of
 * version links with a series of these (so that every series whose
 * previous version may change is assembled again). It saves only the
 * series that changed, and marks those no assembly makes any more. The
 * result is the full assembly's: series depend on nothing else. The
 * whole store is assembled instead when many messages are new (the
 * first pass over an archive) or when what the new mail touches grows
 * past a budget (a hostile References header, a giant thread); the
 * budget is counted inside the walk.
 */
#ifndef RB_BOT_STAGES_ASSEMBLE_H
#define RB_BOT_STAGES_ASSEMBLE_H

#include <stdbool.h>

struct rb_pipeline;

/* Past this many new messages a pass assembles the whole store. */
#define RB_ASSEMBLE_FULL_AT 4096
/* Ids visited, rows read and keys followed before a pass gives up on
 * assembling a part and assembles the whole store. */
#define RB_ASSEMBLE_BUDGET 50000

/*
 * One assembly pass in one transaction: the new messages indexed, the
 * series saved, the jobs queued. With @full, or when the rules above
 * say so, every stored message is assembled. 0, or a store error.
 */
int rb_assemble(struct rb_pipeline *p, bool full);

#endif
