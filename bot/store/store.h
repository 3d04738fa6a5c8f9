/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store.h - the durable state of reviewbot: raw messages, series, apply
 * attempts, findings, reviews, the outbox, verdicts and the job table that
 * drives the stages. Every stage reads its input from the store and writes
 * its output in one transaction, so that a crash or kill -9 at any point
 * resumes without loss or repetition.
 *
 * The store owns the schema: every SQL statement lives in the files of bot/store/,
 * one file per family of tables, each with its header, all included
 * here:
 *
 *   store_messages.h  messages, series, patches, apply attempts, sources
 *   store_jobs.h      the job queue and its leases, workers, ingest lock
 *   store_outbox.h    reviews and the outbox
 *   store_verdicts.h  findings, verdicts, the feedback bookkeeping
 *   store_reports.h   read-only figures: stats, /metrics, the dashboard
 *   store_ledger.h    forwards, answers, requests, pauses, sightings in
 *                     the trees (issue 36)
 *   store_assembly.h  what incremental assembly reads and keeps: arrival
 *                     order, links, join and link keys (issue 38)
 *
 * struct rb_store is opaque. The schema is versioned; migrations run in
 * order inside a transaction (rb_store_migrate). The same SQL runs on
 * SQLite and PostgreSQL; what differs between them is behind the driver's
 * table of operations (bot/store/db.h), which only the store files see.
 */
#ifndef RB_BOT_STORE_H
#define RB_BOT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_store;

#define RB_SCHEMA_VERSION 18

/*
 * Opens the store and runs pending migrations. For SQLite, takes an
 * exclusive lock on "<path>.lock" so that one process owns the store:
 * -RB_ELOCKED when another holds it. With @shared (workers on
 * PostgreSQL) no lock is taken.
 */
int rb_store_open(struct rb_store **out, const char *path_or_url, bool shared);
/*
 * A second handle on the store @st opened, on a connection of its own
 * (a thread's: libpq's connections are not shared between threads). It
 * takes no lock and runs no migration. *out is owned by the caller
 * (rb_store_close()).
 */
int rb_store_open_again(struct rb_store **out, const struct rb_store *st);
void rb_store_close(struct rb_store *st);

/*
 * True when several processes may work on the store at once
 * (PostgreSQL): then the roles of `reviewbot run`, the job and outbox
 * leases and the ingest lock apply. A SQLite store has one owner.
 */
bool rb_store_is_shared(const struct rb_store *st);
/* Where the store is, for messages: its path, or its URL without the
 * password. Borrowed from @st. */
const char *rb_store_where(const struct rb_store *st);

/* Creates or upgrades the schema; @from and @to report the versions before and after. */
int rb_store_migrate(struct rb_store *st, int *from, int *to);

int rb_store_begin(struct rb_store *st);
int rb_store_commit(struct rb_store *st);
void rb_store_rollback(struct rb_store *st);
/* One item of an open batch that can be taken back alone: savepoint, then
 * release (kept) or rollback_to (undone, the batch goes on). Only on an
 * engine that refuses values (db.h); elsewhere the first two do nothing
 * and rollback_to fails. */
int rb_store_savepoint(struct rb_store *st);
int rb_store_release(struct rb_store *st);
int rb_store_rollback_to(struct rb_store *st);

/* The store stamps rows with rb_now(); its users read the same clock. */
#include "util/clock.h"

#include "bot/store/store_messages.h"
#include "bot/store/store_jobs.h"
#include "bot/store/store_outbox.h"
#include "bot/store/store_verdicts.h"
#include "bot/store/store_reports.h"
#include "bot/store/store_threads.h"
#include "bot/store/store_ledger.h"
#include "bot/store/store_assembly.h"

#endif
