/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * retention.h - what is kept, and for how long (issue 33: nothing was
 * ever deleted). Two config keys, 0 (the default) keeping for ever:
 *  - retention.raw_days: the raw bytes of a mail received more than that
 *    many days ago are emptied (rb_store_prune_raw()), unless its series
 *    still has a job to run; the row stays, with what assembly, the
 *    dashboard and the stats read, so the mail is not taken in again,
 *    and the reviews, findings and verdicts are kept. A verdict on a
 *    pruned series is judged by the series' author address and the
 *    trusted tree's MAINTAINERS (the parts' text is gone).
 *  - retention.exchanges_days: the model exchanges recorded in the
 *    record directory (--record, or STORE.exchanges for "reviewbot
 *    review") older than that are deleted: regular files named *.json
 *    directly in it, never followed through a symlink.
 * "reviewbot prune" runs it once; the daemon's workers run it at most
 * once an hour (bot/cli/cmd_run.c).
 */
#ifndef RB_BOT_RETENTION_H
#define RB_BOT_RETENTION_H

#include <stdint.h>

struct rb_config;
struct rb_store;

struct rb_retention_stats {
	int64_t raw; /* mails whose raw bytes were emptied */
	int64_t exchanges; /* exchange files deleted */
};

/*
 * Applies @cfg's retention now (rb_now()), to the store @st and to
 * @record_dir (NULL: no exchanges). 0, or a store error; a file that
 * cannot be deleted is logged and left.
 */
int rb_retention_run(const struct rb_config *cfg, struct rb_store *st,
		     const char *record_dir, struct rb_retention_stats *out);

#endif
