// SPDX-License-Identifier: GPL-2.0-only
/*
 * store.c - the store itself: open and close, the single-owner lock of a
 * SQLite store, the schema and its migrations, transactions and the
 * clock. The operations live in one file per family of tables
 * (store.h); see docs/ARCHITECTURE.md for the tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/store/store_priv.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/*
 * Migrations, in order. {{ID}} and {{BLOB}} stand for the engine's
 * auto-increment key and binary types (expand()). Never edit a released migration:
 * add the next one.
 */
static const char *const migrations[] = {
	/* 1: the first schema */
	"CREATE TABLE messages ("
	" message_id TEXT PRIMARY KEY,"
	" raw {{BLOB}} NOT NULL,"
	" origin TEXT NOT NULL,"
	" received_at BIGINT NOT NULL,"
	" state TEXT NOT NULL DEFAULT 'new'," /* new parsed malformed */
	" reason TEXT,"
	" kind TEXT," /* patch cover reply other ignored */
	" subject TEXT, from_addr TEXT, from_name TEXT, date BIGINT,"
	" list_id TEXT, in_reply_to TEXT, refs TEXT,"
	" version INTEGER, idx INTEGER, total INTEGER, change_id TEXT);"
	"CREATE INDEX messages_state ON messages(state);"
	"CREATE TABLE series ("
	" id TEXT PRIMARY KEY, version INTEGER, total INTEGER, cover TEXT,"
	" title TEXT, author TEXT, previous TEXT, change_id TEXT,"
	" complete INTEGER NOT NULL DEFAULT 0, last_date BIGINT,"
	" first_seen BIGINT NOT NULL, updated_at BIGINT NOT NULL,"
	" state TEXT NOT NULL DEFAULT 'waiting', detail TEXT,"
	" subsystem TEXT, list_id TEXT,"
	" base_name TEXT, base_commit TEXT, applied_commit TEXT);"
	"CREATE TABLE patches ("
	" series_id TEXT NOT NULL, idx INTEGER NOT NULL,"
	" message_id TEXT NOT NULL, PRIMARY KEY (series_id, idx));"
	"CREATE TABLE attempts ("
	" id {{ID}}, series_id TEXT NOT NULL, base_name TEXT,"
	" base_commit TEXT, ok INTEGER NOT NULL, failed_patch INTEGER,"
	" failed_file TEXT, failed_hunk INTEGER, reason TEXT,"
	" created_at BIGINT NOT NULL);"
	"CREATE TABLE reviews ("
	" message_id TEXT PRIMARY KEY," /* the outgoing mail */
	" series_id TEXT NOT NULL, kind TEXT NOT NULL,"
	" patch_idx INTEGER NOT NULL, policy TEXT, words INTEGER,"
	" findings INTEGER, subsystem TEXT, model TEXT,"
	" tokens_in BIGINT, tokens_out BIGINT,"
	" cost BIGINT," /* micro-dollars */
	" latency BIGINT," /* seconds from the last patch to the review */
	" created_at BIGINT NOT NULL,"
	" UNIQUE (series_id, kind, patch_idx));"
	"CREATE TABLE findings ("
	" id {{ID}}, series_id TEXT NOT NULL, review_msgid TEXT, fid TEXT,"
	" patch_idx INTEGER, checker TEXT NOT NULL, checker_version TEXT,"
	" category TEXT NOT NULL, severity TEXT NOT NULL, file TEXT,"
	" line INTEGER, code TEXT, message TEXT NOT NULL,"
	" fingerprint TEXT NOT NULL,"
	" state TEXT NOT NULL," /* raised suppressed dropped */
	" created_at BIGINT NOT NULL);"
	"CREATE INDEX findings_fp ON findings(fingerprint);"
	"CREATE INDEX findings_review ON findings(review_msgid);"
	"CREATE TABLE outbox ("
	" message_id TEXT PRIMARY KEY, series_id TEXT, env_from TEXT NOT NULL,"
	" rcpts TEXT NOT NULL, bytes {{BLOB}} NOT NULL,"
	" state TEXT NOT NULL," /* held queued sending sent failed */
	" attempts INTEGER NOT NULL DEFAULT 0, send_after BIGINT NOT NULL,"
	" last_error TEXT, created_at BIGINT NOT NULL, sent_at BIGINT);"
	"CREATE INDEX outbox_state ON outbox(state, send_after);"
	"CREATE TABLE verdicts ("
	" id {{ID}}, reply_msgid TEXT NOT NULL, review_msgid TEXT,"
	" fid TEXT, fingerprint TEXT, verdict TEXT," /* false_positive ... */
	" judge TEXT, authorised INTEGER NOT NULL, reason TEXT,"
	" created_at BIGINT NOT NULL, UNIQUE (reply_msgid, fid));"
	"CREATE TABLE jobs ("
	" id {{ID}}, kind TEXT NOT NULL, key TEXT NOT NULL,"
	" state TEXT NOT NULL DEFAULT 'ready'," /* ready running done failed */
	" attempts INTEGER NOT NULL DEFAULT 0, owner TEXT,"
	" lease_until BIGINT, not_before BIGINT NOT NULL, error TEXT,"
	" created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,"
	" UNIQUE (kind, key));"
	"CREATE INDEX jobs_ready ON jobs(state, not_before);"
	"CREATE TABLE source_state ("
	" source TEXT NOT NULL, mailbox TEXT NOT NULL, validity BIGINT,"
	" last BIGINT, PRIMARY KEY (source, mailbox));",
	/* 2: the feedback stage's bookkeeping (bot/stages/feedback.c): each reply
	 * looked at once, with what became of it */
	"CREATE TABLE feedback ("
	" message_id TEXT PRIMARY KEY," /* the reply */
	" review_msgid TEXT," /* our review it answers, or NULL */
	" state TEXT NOT NULL," /* unrelated no_verdict judged refused */
	" judge TEXT, verdicts INTEGER NOT NULL DEFAULT 0, reason TEXT,"
	" created_at BIGINT NOT NULL);"
	"CREATE INDEX verdicts_fp ON verdicts(fingerprint);"
	"CREATE INDEX verdicts_review ON verdicts(review_msgid, fid);",
	/* 3: scale-out (bot/web/metrics.c, cmd_run.c --role): the outbox claim
	 * is a lease, so that two senders never both hold a mail and one that
	 * dies gives its mail back; a job remembers the worker whose lease on
	 * it ran out; each worker's counters for /metrics */
	"ALTER TABLE outbox ADD COLUMN lease_until BIGINT;"
	"ALTER TABLE jobs ADD COLUMN lost_by TEXT;"
	"CREATE TABLE workers ("
	" name TEXT PRIMARY KEY, role TEXT NOT NULL, host TEXT,"
	" pid INTEGER, state TEXT NOT NULL," /* idle busy draining stopped */
	" claimed BIGINT NOT NULL DEFAULT 0, done BIGINT NOT NULL DEFAULT 0,"
	" failed BIGINT NOT NULL DEFAULT 0,"
	" lease_expiries BIGINT NOT NULL DEFAULT 0,"
	" started_at BIGINT NOT NULL, seen_at BIGINT NOT NULL);",
	/* 4: trust (issue 17). A verdict keeps its judge's role for the
	 * finding and the author address whose series it speaks for
	 * (bot/stages/feedback.h: what a verdict may suppress); verdicts from
	 * before keep the reach of the judged series' author only. The
	 * outbox keeps which recipients are mailing lists, which have no
	 * per-recipient rate limit (bot/stages/outbox.c). */
	"ALTER TABLE verdicts ADD COLUMN role TEXT;"
	"ALTER TABLE verdicts ADD COLUMN owner TEXT;"
	"UPDATE verdicts SET owner = (SELECT s.author FROM reviews r"
	" JOIN series s ON s.id = r.series_id"
	" WHERE r.message_id = verdicts.review_msgid);"
	"ALTER TABLE outbox ADD COLUMN lists TEXT;",
	/* 5: quiet and right (issue 15). How many people max_recipients
	 * trimmed from each mail (bot/stages/scope.h: lists are never trimmed). */
	"ALTER TABLE reviews ADD COLUMN capped INTEGER NOT NULL DEFAULT 0;",
	/* 6: parse once (issue 21). What series assembly reads of the body
	 * (mail/series.h RB_SERIES_BODY_*), so that assembly works from the
	 * stored metadata; NULL for messages parsed before, which assembly
	 * parses again. */
	"ALTER TABLE messages ADD COLUMN body_facts INTEGER;",
	/* 7: versions (issue 18; bot/stages/versions.c). Which stored series is
	 * the previous version of a series and how that was found; each
	 * reviewed part's git patch-id and the version it is unchanged
	 * since (not reviewed again); a finding's outcome on a later
	 * version ("fixed"), the earlier finding it repeats, and the later
	 * patch of the series that changes its line again. */
	"CREATE TABLE series_versions ("
	" series_id TEXT PRIMARY KEY, previous_id TEXT NOT NULL,"
	" previous_version INTEGER NOT NULL,"
	" how TEXT NOT NULL);" /* assembly b4-link change-id author-title */
	"CREATE TABLE patch_ids ("
	" series_id TEXT NOT NULL, idx INTEGER NOT NULL,"
	" patch_id TEXT NOT NULL, unchanged_since INTEGER,"
	" PRIMARY KEY (series_id, idx));"
	"ALTER TABLE findings ADD COLUMN outcome TEXT;" /* fixed */
	"ALTER TABLE findings ADD COLUMN outcome_version INTEGER;"
	"ALTER TABLE findings ADD COLUMN prior_id BIGINT;"
	"ALTER TABLE findings ADD COLUMN later_patch INTEGER;"
	"CREATE INDEX findings_series ON findings(series_id);",
	/* 8: the prompt set's version (review/model/model_prompt.h) of each model
	 * review and model finding, so that stats split by it. */
	("ALTER TABLE reviews ADD COLUMN prompt TEXT;"
	 "ALTER TABLE findings ADD COLUMN prompt TEXT;"),
	/* 9: rate limits that fit a list (issue 38; bot/stages/outbox.c).
	 * Each address of a mail that a per-recipient ('person': the
	 * author, the patch's own To/Cc) or per-list ('list') limit counts,
	 * by its key (store_outbox.h), with the mail's sent_at; maintainers
	 * and admins have no row. Both counts are index ranges over the
	 * last hour, however many mails were sent before. */
	("CREATE TABLE outbox_rcpts ("
	 " message_id TEXT NOT NULL, kind TEXT NOT NULL," /* person list */
	 " addr TEXT NOT NULL, sent_at BIGINT,"
	 " PRIMARY KEY (message_id, kind, addr));"
	 "CREATE INDEX outbox_rcpts_rate ON outbox_rcpts(kind, addr, sent_at);"
	 "CREATE INDEX outbox_sent ON outbox(state, sent_at);"),
	/* 10: why a model finding was raised (issue 30): the finder's
	 * reasoning for its severity and the verifier's reason, for the
	 * dashboard; never mailed. */
	("ALTER TABLE findings ADD COLUMN severity_reason TEXT;"
	 "ALTER TABLE findings ADD COLUMN verifier_reason TEXT;"),
	/* 11: issue 33. Each patch's patch-id, computed as it is parsed, so
	 * that a prerequisite-patch-id: is one index lookup (it parsed the
	 * 500 newest patches); the dashboard's per-series counts of sent
	 * mail by index (a page of 6,000 series took 17 s); a part's series
	 * by index. Self-contained: renumber freely at a merge. */
	("ALTER TABLE messages ADD COLUMN patch_id TEXT;"
	 "CREATE INDEX messages_patch_id ON messages(patch_id);"
	 "CREATE INDEX outbox_series ON outbox(series_id, state);"
	 "CREATE INDEX patches_message ON patches(message_id);"),
	/* 12: the job quarantine (issue 33; store_jobs.h). in_hand is 1 from
	 * a claim until the job ends or is put back, so a claim that finds
	 * it still 1 knows the last one died with the job (a crash, an OOM
	 * kill, a lease run out) and counts it in lost. */
	("ALTER TABLE jobs ADD COLUMN in_hand INTEGER NOT NULL DEFAULT 0;"
	 "ALTER TABLE jobs ADD COLUMN lost INTEGER NOT NULL DEFAULT 0;"),
	/* 13: threads as a reviewer reads them (issue 37; bot/stages/
	 * versions.c, feedback.c, store_threads.c). A reply's own words under
	 * [Fn] kept with its verdict (comment); a verdict guessed from prose
	 * (proposed 1) until an admin confirms (2) or rejects (3) it, with
	 * how it was guessed; a finding whose line a reply in the thread
	 * had already quoted (quoted: reviewer, bot); the lines a reply on
	 * v(n) commented on and what v(n+1) did with them; the notes an
	 * admin approved for the model's prompt, per section; the replies
	 * to a part by index. Self-contained: it needs nothing of 14, and a
	 * store made to 14 without it gets it after 14. */
	("ALTER TABLE verdicts ADD COLUMN comment TEXT;"
	 "ALTER TABLE verdicts ADD COLUMN proposed INTEGER NOT NULL DEFAULT 0;"
	 "ALTER TABLE verdicts ADD COLUMN guessed_by TEXT;"
	 "ALTER TABLE verdicts ADD COLUMN confirmed_by TEXT;"
	 "ALTER TABLE verdicts ADD COLUMN confirmed_at BIGINT;"
	 "ALTER TABLE findings ADD COLUMN quoted TEXT;"
	 "CREATE TABLE thread_quotes ("
	 " series_id TEXT NOT NULL, reply_msgid TEXT NOT NULL,"
	 " n INTEGER NOT NULL," /* the comment's place in the reply */
	 " patch_idx INTEGER," /* this version's part, NULL: none */
	 " prev_id TEXT NOT NULL, prev_version INTEGER NOT NULL,"
	 " prev_idx INTEGER NOT NULL, source TEXT NOT NULL," /* reviewer bot */
	 " file TEXT, line INTEGER, code TEXT NOT NULL,"
	 " state TEXT NOT NULL," /* unchanged changed */
	 " PRIMARY KEY (series_id, reply_msgid, n));"
	 "CREATE TABLE notes ("
	 " id {{ID}}, section TEXT NOT NULL, text TEXT NOT NULL,"
	 " state TEXT NOT NULL," /* approved removed */
	 " verdict_id BIGINT, added_by TEXT, created_at BIGINT NOT NULL,"
	 " removed_at BIGINT);"
	 "CREATE INDEX notes_section ON notes(section, state);"
	 "CREATE INDEX messages_in_reply_to ON messages(in_reply_to);"),
	/* 14: sub-maintainers decide (issue 36; bot/stages/curate.c,
	 * ledger.c). A mail that carries another review's findings (a
	 * forward, a private copy) names it (copy_of), so that a reply to it
	 * judges those findings; each finding forwarded at most once; the
	 * findings a reply of the author answers; what each reply asked
	 * (send, retry, pause, resume) and whether it was allowed; the
	 * paused series; each tree's last scanned head, and each series
	 * seen in a tree (once per series and tree) with what was decided.
	 * Self-contained: it needs nothing of 13, which may come after it. */
	("ALTER TABLE reviews ADD COLUMN copy_of TEXT;"
	 "CREATE TABLE forwards ("
	 " finding_id BIGINT PRIMARY KEY, series_id TEXT NOT NULL,"
	 " review_msgid TEXT NOT NULL, fid TEXT NOT NULL,"
	 " message_id TEXT NOT NULL," /* the forward mail */
	 " by_addr TEXT NOT NULL, reply_msgid TEXT NOT NULL,"
	 " created_at BIGINT NOT NULL);"
	 "CREATE TABLE answers ("
	 " review_msgid TEXT NOT NULL, fid TEXT NOT NULL,"
	 " reply_msgid TEXT NOT NULL, by_addr TEXT,"
	 " created_at BIGINT NOT NULL,"
	 " PRIMARY KEY (review_msgid, fid, reply_msgid));"
	 "CREATE TABLE requests ("
	 " reply_msgid TEXT NOT NULL,"
	 " verb TEXT NOT NULL," /* send retry pause resume */
	 " series_id TEXT, actor TEXT, role TEXT,"
	 " authorised INTEGER NOT NULL, detail TEXT,"
	 " created_at BIGINT NOT NULL, PRIMARY KEY (reply_msgid, verb));"
	 "CREATE INDEX requests_series ON requests(series_id);"
	 "CREATE TABLE series_pause ("
	 " series_id TEXT PRIMARY KEY, by_addr TEXT,"
	 " created_at BIGINT NOT NULL);"
	 "CREATE TABLE tree_heads ("
	 " tree TEXT PRIMARY KEY, head TEXT NOT NULL,"
	 " scanned_at BIGINT NOT NULL);"
	 "CREATE TABLE sightings ("
	 " series_id TEXT NOT NULL, tree TEXT NOT NULL,"
	 " commit_id TEXT NOT NULL, parts INTEGER NOT NULL,"
	 " state TEXT NOT NULL DEFAULT 'pending'," /* pending mailed clear */
	 " message_id TEXT, open_findings INTEGER,"
	 " created_at BIGINT NOT NULL, decided_at BIGINT,"
	 " PRIMARY KEY (series_id, tree));"
	 "CREATE INDEX sightings_state ON sightings(state);"),
	/* 15: incremental assembly (issue 38; bot/stages/assemble.c). Each
	 * message's place in assembly order (arrival; NULL while no
	 * assembly has seen it: index messages_pending), the key by which
	 * patchwork's fallback joins it to other unthreaded parts
	 * (join_key), and the ids it answers or references (msg_links), so
	 * that a pass reads only the threads its new mail touches; each
	 * series' keys of version links (change_key, title_key; NULL once
	 * no assembly makes the series any more). Existing messages are
	 * pending: the first pass assembles the whole store once and fills
	 * all of it. The dashboard's order as an index (series_date).
	 * Self-contained: it needs nothing of 13 or 14. */
	("ALTER TABLE messages ADD COLUMN arrival BIGINT;"
	 "ALTER TABLE messages ADD COLUMN join_key TEXT;"
	 "CREATE INDEX messages_arrival ON messages(arrival);"
	 "CREATE INDEX messages_join ON messages(join_key);"
	 "CREATE INDEX messages_pending ON messages(received_at, message_id)"
	 " WHERE arrival IS NULL;"
	 "CREATE TABLE msg_links ("
	 " ref TEXT NOT NULL, message_id TEXT NOT NULL,"
	 " PRIMARY KEY (ref, message_id));"
	 "ALTER TABLE series ADD COLUMN change_key TEXT;"
	 "ALTER TABLE series ADD COLUMN title_key TEXT;"
	 "CREATE INDEX series_change_key ON series(change_key);"
	 "CREATE INDEX series_title_key ON series(title_key);"
	 /* The dashboard's order (store_reports.c SERIES_DATE), so that a
	  * page is a range of an index, not a sort of every series. */
	 "CREATE INDEX series_date ON series((CASE WHEN last_date > 0 AND"
	 " last_date < first_seen THEN last_date ELSE first_seen END) DESC,"
	 " id);"),
	/* 16: issue 38. When each message was stored, in microseconds and
	 * strictly increasing within the ingest process: assembly gives the
	 * new messages their arrival in that order, not by Message-ID
	 * (received_at is in seconds: one burst, one second), so the jobs
	 * of a burst are queued as its series came in. NULL for older rows.
	 * Self-contained: renumber freely at a merge. */
	("ALTER TABLE messages ADD COLUMN stored_us BIGINT;"),
	/* 17: issue 38. The dashboard's filters count the series by state
	 * and by section on every page of the list: without an index each
	 * count read every series row (0.9 s each at 164,000 series), with
	 * one it reads only the index. Self-contained: renumber freely at
	 * a merge. */
	("CREATE INDEX series_state ON series(state);"
	 "CREATE INDEX series_subsystem ON series(subsystem);"),
	/* 18: issue 38. What assembly needs is set as a message is stored
	 * or parsed, so that assembly never rewrites a message row (SQLite
	 * writes the whole record, raw bytes included, for any UPDATE: a
	 * 4.4 GB WAL for 305,710 messages): its arrival, a counter given by
	 * the INSERT, its join key by the parse; the messages no assembly
	 * has seen are the rows of asm_pending, which the INSERT adds to
	 * and assembly empties. Rows pending at the migration get their
	 * arrival and join key here, once (rb_store_asm_migrate()).
	 * Self-contained: renumber freely at a merge (with its entry in
	 * migration_code[] below). */
	("CREATE TABLE asm_pending (message_id TEXT PRIMARY KEY);"
	 "INSERT INTO asm_pending SELECT message_id FROM messages"
	 " WHERE arrival IS NULL;"
	 "DROP INDEX messages_pending;"),
};

#define N_MIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))

_Static_assert(N_MIGRATIONS == RB_SCHEMA_VERSION,
	       "RB_SCHEMA_VERSION is the number of the last migration");

/*
 * What a migration does in C after its SQL, in the same transaction:
 * rows computed by code that SQL shared by both engines cannot say.
 */
static int (*const migration_code[N_MIGRATIONS])(struct rb_store *) = {
	[8] = rb_store_outbox_backfill_rates,
	[17] = rb_store_asm_migrate,
};

int rb_store_begin(struct rb_store *st)
{
	return st->db->ops->exec(st->db, st->db->ops->begin, NULL, 0);
}

int rb_store_commit(struct rb_store *st)
{
	return st->db->ops->exec(st->db, "COMMIT", NULL, 0);
}

void rb_store_rollback(struct rb_store *st)
{
	st->db->ops->exec(st->db, "ROLLBACK", NULL, 0);
}

/*
 * A savepoint inside a batch: PostgreSQL aborts the whole transaction on
 * a refused value, so a batch of messages puts each one in its own
 * savepoint and can take back just that one (SQLite and PostgreSQL both
 * speak SAVEPOINT, RELEASE and ROLLBACK TO). An engine that takes every
 * value (SQLite) never needs to take an item back, and there a savepoint
 * per message only cost a copy of each page the message touched (6% of
 * an IMAP pass over the linux-api corpus): none is made, and
 * rb_store_rollback_to() fails, since nothing can ask for it.
 */
int rb_store_savepoint(struct rb_store *st)
{
	if (!st->db->ops->refuses_values)
		return 0;
	return st->db->ops->exec(st->db, "SAVEPOINT rb_item", NULL, 0);
}

int rb_store_release(struct rb_store *st)
{
	if (!st->db->ops->refuses_values)
		return 0;
	return st->db->ops->exec(st->db, "RELEASE SAVEPOINT rb_item", NULL, 0);
}

int rb_store_rollback_to(struct rb_store *st)
{
	if (!st->db->ops->refuses_values)
		return rb_err(RB_ESTORE,
			      "%s takes every value: no item to take "
			      "back",
			      st->db->ops->name);
	return st->db->ops->exec(st->db,
				 "ROLLBACK TO SAVEPOINT rb_item;"
				 " RELEASE SAVEPOINT rb_item",
				 NULL, 0);
}

static int expand(struct rb_buf *out, const struct rb_db_ops *ops,
		  const char *sql)
{
	const char *p;
	int ret = 0;

	for (p = sql; *p && !ret;) {
		if (!strncmp(p, "{{ID}}", 6)) {
			ret = rb_buf_puts(out, ops->autoid);
			p += 6;
		} else if (!strncmp(p, "{{BLOB}}", 8)) {
			ret = rb_buf_puts(out, ops->blob);
			p += 8;
		} else if (!strncmp(p, "{{SKIP_LOCKED}}", 15)) {
			ret = rb_buf_puts(out, ops->skip_locked);
			p += 15;
		} else {
			ret = rb_buf_putc(out, *p++);
		}
	}
	return ret;
}

int rb_store_migrate(struct rb_store *st, int *from, int *to)
{
	struct rb_db *db = st->db;
	struct rb_buf sql = RB_BUF_INIT(1 << 20);
	int64_t v = 0;
	size_t i;
	int ret;

	ret = db->ops->exec(db,
			    "CREATE TABLE IF NOT EXISTS schema_version ("
			    " version INTEGER NOT NULL)",
			    NULL, 0);
	if (ret)
		return ret;
	ret = rb_store_begin(st);
	if (ret)
		return ret;
	if (rb_db_query_int(db, &v, "SELECT MAX(version) FROM schema_version",
			    NULL, 0) < 0)
		v = 0;
	if (from)
		*from = (int)v;
	if (v > (int64_t)N_MIGRATIONS) {
		rb_store_rollback(st);
		return rb_err(RB_ESTORE,
			      "%s: schema version %lld is newer than this "
			      "reviewbot (%zu); upgrade reviewbot",
			      st->where, (long long)v, N_MIGRATIONS);
	}
	for (i = 0; i < N_MIGRATIONS; i++) {
		struct rb_dbv p = RB_DB_INT((int64_t)i + 1);
		int64_t have = 0;

		if (!migrations[i])
			continue; /* a number another branch holds */
		/* Below the newest one applied, a number is run only when
		 * schema_version lacks it: a migration merged in between
		 * after the store was made (each one is self-contained). */
		if ((int64_t)i < v) {
			ret = rb_db_query_int(
				db, &have,
				"SELECT COUNT(*) FROM"
				" schema_version WHERE version = ?",
				&p, 1);
			if (ret < 0) {
				rb_store_rollback(st);
				rb_buf_release(&sql);
				return ret;
			}
			ret = 0;
			if (have)
				continue;
		}
		rb_buf_reset(&sql);
		ret = expand(&sql, db->ops, migrations[i]);
		if (!ret)
			ret = db->ops->exec(db, sql.ptr, NULL, 0);
		if (!ret && migration_code[i])
			ret = migration_code[i](st);
		if (!ret)
			ret = db->ops->exec(
				db, "INSERT INTO schema_version VALUES (?)", &p,
				1);
		if (ret) {
			rb_store_rollback(st);
			rb_buf_release(&sql);
			return rb_err(RB_ESTORE, "migration %zu: %s", i + 1,
				      rb_errmsg());
		}
	}
	rb_buf_release(&sql);
	if (to)
		*to = (int)N_MIGRATIONS;
	return rb_store_commit(st);
}

struct claim {
	rb_dbrow_fn fn;
	void *payload;
	bool found;
};

static int claim_row(const struct rb_dbrow *row, void *payload)
{
	struct claim *c = payload;

	c->found = true;
	return c->fn(row, c->payload);
}

int rb_store_claim_query(struct rb_store *st, const char *sql,
			 const struct rb_dbv *p, size_t n, rb_dbrow_fn fn,
			 void *payload)
{
	struct rb_buf x = RB_BUF_INIT(1 << 20);
	struct claim c = { fn, payload, false };
	int ret = expand(&x, st->db->ops, sql);

	if (!ret)
		ret = st->db->ops->query(st->db, x.ptr, p, n, claim_row, &c);
	rb_buf_release(&x);
	return !ret && !c.found ? -RB_ENOTFOUND : ret;
}

int rb_store_exists(struct rb_store *st, bool *out, const char *sql,
		    const struct rb_dbv *p, size_t n)
{
	int64_t count = 0;
	int ret;

	ret = rb_db_query_int(st->db, &count, sql, p, n);
	if (ret)
		return ret;
	*out = count > 0;
	return 0;
}

int rb_store_two_text_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_two_text *t = payload;

	t->a = rb_dbv_strdup(&row->v[0]);
	t->b = row->n > 1 ? rb_dbv_strdup(&row->v[1]) : NULL;
	return 1;
}

int rb_store_two_text(struct rb_store *st, char **a, char **b, const char *sql,
		      const struct rb_dbv *p, size_t n)
{
	struct rb_two_text t = { 0 };
	int ret;

	ret = st->db->ops->query(st->db, sql, p, n, rb_store_two_text_row, &t);
	if (!ret && !t.a)
		ret = -RB_ENOTFOUND;
	if (ret) {
		free(t.a);
		free(t.b);
		return ret;
	}
	*a = t.a;
	if (b)
		*b = t.b;
	else
		free(t.b);
	return 0;
}

int rb_store_each_str_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_each_str *e = payload;
	const char *s = rb_dbv_str(&row->v[0]);

	return s ? e->fn(s, e->payload) : 0;
}

int rb_store_each_int_row(const struct rb_dbrow *row, void *payload)
{
	struct rb_each_int *e = payload;

	return e->fn(rb_dbv_int(&row->v[0]), e->payload);
}

/* A URL without its password, for messages and logs. */
static char *redact(const char *url)
{
	const char *at = strchr(url, '@'), *scheme = strstr(url, "://");
	const char *colon;
	struct rb_buf b = RB_BUF_INIT(4096);

	if (!at || !scheme || at < scheme)
		return strdup(url);
	colon = memchr(scheme + 3, ':', (size_t)(at - scheme - 3));
	if (!colon)
		return strdup(url);
	rb_buf_add(&b, url, (size_t)(colon - url));
	rb_buf_puts(&b, ":***");
	rb_buf_puts(&b, at);
	return rb_buf_detach(&b, NULL);
}

int rb_store_open(struct rb_store **out, const char *path_or_url, bool shared)
{
	struct rb_store *st = calloc(1, sizeof(*st));
	bool pg = strstr(path_or_url, "://") != NULL;
	int ret;

	if (!st)
		return rb_err(RB_ENOMEM, "out of memory");
	st->lock_fd = -1;
	st->url = strdup(path_or_url);
	st->where = redact(path_or_url);
	if (!st->url || !st->where) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto fail;
	}
	if (!pg && !shared) {
		struct rb_buf lk = RB_BUF_INIT(4096);

		rb_buf_printf(&lk, "%s.lock", path_or_url);
		st->lock_fd = open(lk.ptr,
				   O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
				   0600);
		/* 0600 whatever the umask, as the store itself (db_sqlite.c). */
		if (st->lock_fd >= 0 && fchmod(st->lock_fd, 0600) &&
		    errno != EPERM) {
			close(st->lock_fd);
			st->lock_fd = -1;
		}
		if (st->lock_fd < 0) {
			ret = rb_err(RB_ESTORE, "%s: %s", lk.ptr,
				     strerror(errno));
			rb_buf_release(&lk);
			goto fail;
		}
		rb_buf_release(&lk);
		if (flock(st->lock_fd, LOCK_EX | LOCK_NB)) {
			ret = rb_err(RB_ELOCKED,
				     "%s: another reviewbot process owns this "
				     "store",
				     st->where);
			goto fail;
		}
	}
	ret = rb_db_open(&st->db, path_or_url);
	if (ret)
		goto fail;
	ret = rb_store_migrate(st, NULL, NULL);
	if (ret)
		goto fail;
	*out = st;
	return 0;
fail:
	rb_store_close(st);
	return ret;
}

int rb_store_open_again(struct rb_store **out, const struct rb_store *st)
{
	struct rb_store *again = calloc(1, sizeof(*again));
	int ret;

	if (!again)
		return rb_err(RB_ENOMEM, "out of memory");
	again->lock_fd = -1;
	again->url = strdup(st->url);
	again->where = strdup(st->where);
	if (!again->url || !again->where) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto fail;
	}
	ret = rb_db_open(&again->db, again->url);
	if (ret)
		goto fail;
	*out = again;
	return 0;
fail:
	rb_store_close(again);
	return ret;
}

void rb_store_close(struct rb_store *st)
{
	if (!st)
		return;
	rb_db_close(st->db);
	if (st->lock_fd >= 0)
		close(st->lock_fd);
	free(st->url);
	free(st->where);
	free(st);
}

bool rb_store_is_shared(const struct rb_store *st)
{
	return st->db->ops->shared;
}

const char *rb_store_where(const struct rb_store *st)
{
	return st->where;
}
