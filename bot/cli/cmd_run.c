// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_run.c - reviewbot run, the daemon: sources -> pipeline -> outbox ->
 * sending, until SIGTERM or SIGINT (which finish the current step first).
 * SIGHUP reloads the config; a config that no longer loads is reported and
 * the old one kept. One process owns a SQLite store (its lock file).
 *
 * On a PostgreSQL store the work splits into roles (issue 11), each run
 * as many times as wanted, on as many machines:
 *  - ingest: sources, parse, assemble. Only the holder of a session-level
 *    advisory lock works; the others wait as standbys and one takes over
 *    when the holder dies (its connection closes, the lock goes with it).
 *  - worker: claims review jobs for a lease (FOR UPDATE SKIP LOCKED),
 *    which a heartbeat thread renews while the worker lives; the job of a
 *    worker killed mid-job goes back to the queue when its lease runs
 *    out, and another worker finishes it. Workers fetch their own trees.
 *  - sender: drains the outbox; each mail is claimed for a lease too, so
 *    two senders never hold the same mail.
 *  - all: the three in one process (the only role on SQLite).
 * A worker (or all) runs review.parallel_series review jobs at once
 * (bot/stages/pipeline.c), each with a lease the heartbeat renews.
 * SIGTERM lets the jobs in hand finish and then stops (a drain).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <git2.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "bot/web/metrics.h"
#include "bot/stages/pipeline.h"
#include "bot/stages/retention.h"
#include "bot/stages/sources.h"
#include "bot/store/store.h"
#include "bot/store/store_reports.h"
#include "bot/stages/trees.h"
#include "review/apply/base.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

static volatile sig_atomic_t stop_requested, reload_requested;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

static const char usage[] =
	"usage: reviewbot run [-c CONFIG] [--once] [--role ROLE] [--name NAME]\n"
	"                     [--lease SECONDS] [--record DIR | --replay DIR]\n\n"
	"Follows the configured sources (IMAP, NNTP, mbox, Maildir, eml,\n"
	"stdin), reviews each complete series and sends what the policy\n"
	"allows. SIGTERM finishes the current step and stops; SIGHUP reloads\n"
	"the config. Logs are one line per event, key=value, on stderr.\n\n"
	"  -c, --config FILE  the config (default ./config.yaml)\n"
	"      --once         read every source once, work until nothing is\n"
	"                     left to do, then exit\n"
	"      --role ROLE    ingest, worker, sender or all (default); roles\n"
	"                     other than all need a PostgreSQL store\n"
	"      --name NAME    this process in job leases and /metrics\n"
	"                     (default HOST-ROLE-PID; unique per process)\n"
	"      --lease SECS   a worker's hold on the job in hand, renewed\n"
	"                     every third of it while the worker lives; the\n"
	"                     job of a dead worker goes back to the queue\n"
	"                     within that time (default 300)\n"
	"      --record DIR   keep every model exchange (tool calls and\n"
	"                     results too) in DIR\n"
	"      --replay DIR   answer model calls from the exchanges recorded\n"
	"                     in DIR instead of calling the provider: a\n"
	"                     review reruns offline, identically\n";

enum { DO_INGEST = 1, DO_WORK = 2, DO_SEND = 4 };

struct runner {
	struct rb_pipeline *p; /* borrowed */
	struct rb_store *st; /* borrowed */
	struct rb_sources *srcs; /* owned; made while we may ingest */
	const char *name;
	const char *role; /* --role: ingest, worker, sender or all */
	int what; /* DO_* */
	int lease;
	bool pg; /* a shared PostgreSQL store */
	bool leader; /* holds the ingest lock (always true on SQLite) */
	bool standby_logged;
	bool busy; /* the last pass did some work */
	int64_t pruned_at; /* the last retention pass (prune_step()) */

	/* The heartbeat thread (PostgreSQL workers), on its own connection:
	 * renews the lease of the job in hand, marks the worker seen. */
	struct rb_store *hb_st; /* owned */
	pthread_t hb_thread;
	pthread_mutex_t hb_lock;
	pthread_cond_t hb_cond;
	bool hb_running, hb_stop;
	/* The jobs in hand (review.parallel_series of them at most), 0 for
	 * a free place; in_hand counts them for the worker's state. */
	int64_t hb_jobs[64];
	int in_hand;
};

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Sleeps up to @seconds, waking early on a signal. */
static void nap(int seconds)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int i;

	for (i = 0; i < seconds * 10 && !stop_requested && !reload_requested;
	     i++)
		nanosleep(&ts, NULL);
}

/*
 * Takes the ingest lock, or checks that it is still ours (a dropped and
 * re-made connection loses it). Taking it never waits.
 */
static int ingest_lock(struct runner *r)
{
	bool v = false;
	int ret;

	if (!r->pg) {
		r->leader = true;
		return 0;
	}
	if (r->leader) {
		ret = rb_store_ingest_lock_held(r->st, &v);
		if (ret)
			return ret;
		if (v)
			return 0;
		r->leader = false;
		rb_log(RB_LOG_WARN, "ingest.lock_lost", "name", r->name, NULL);
		rb_sources_free(r->srcs);
		r->srcs = NULL;
	}
	ret = rb_store_ingest_lock(r->st, &v);
	if (ret)
		return ret;
	if (!v) {
		if (!r->standby_logged)
			rb_log(RB_LOG_INFO, "ingest.standby", "name", r->name,
			       NULL);
		r->standby_logged = true;
		return 0;
	}
	r->leader = true;
	r->standby_logged = false;
	rb_log(RB_LOG_INFO, "ingest.leader", "name", r->name, NULL);
	return 0;
}

/* The sources, while we hold the ingest lock; parse and assemble follow
 * in the pipeline's ingest stages. */
static int ingest_sources(struct runner *r)
{
	int ret = ingest_lock(r);

	if (ret || !r->leader)
		return ret;
	if (!r->srcs) {
		ret = rb_sources_new(&r->srcs, r->p->cfg, r->st);
		if (ret) {
			char why[1024];

			snprintf(why, sizeof(why), "%s", rb_errmsg());
			return rb_err(RB_ECONFIG, "%s", why);
		}
	}
	ret = rb_sources_poll(r->srcs, r->p);
	if (ret)
		rb_log(RB_LOG_WARN, "run.sources", "reason", rb_errmsg(), NULL);
	return 0;
}

/*
 * Every third of the lease: the job in hand keeps its lease (while it is
 * still ours), and the worker is seen, so that a long review outlives a
 * short lease and /metrics tells a live idle worker from a dead one.
 * A worker that dies stops renewing: its job goes back to the queue
 * within one lease.
 */
static void *heartbeat(void *arg)
{
	struct runner *r = arg;
	struct timespec ts;
	int64_t jobs[64];
	size_t i;

	pthread_mutex_lock(&r->hb_lock);
	while (!r->hb_stop) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += r->lease / 3 > 0 ? r->lease / 3 : 1;
		pthread_cond_timedwait(&r->hb_cond, &r->hb_lock, &ts);
		if (r->hb_stop)
			break;
		memcpy(jobs, r->hb_jobs, sizeof(jobs));
		pthread_mutex_unlock(&r->hb_lock);
		{
			int64_t now = rb_now();

			for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++)
				if (jobs[i] &&
				    rb_store_job_renew(r->hb_st, jobs[i],
						       r->name, now + r->lease))
					rb_log(RB_LOG_WARN, "worker.heartbeat",
					       "reason", rb_errmsg(), NULL);
			rb_store_worker_seen(r->hb_st, r->name, now);
		}
		pthread_mutex_lock(&r->hb_lock);
	}
	pthread_mutex_unlock(&r->hb_lock);
	return NULL;
}

/* Job @id is in hand (@add) or no longer: the heartbeat renews the
 * lease of each job in hand. */
static void hb_set_job(struct runner *r, int64_t id, bool add)
{
	size_t i, n = sizeof(r->hb_jobs) / sizeof(r->hb_jobs[0]);

	if (!r->hb_running)
		return;
	pthread_mutex_lock(&r->hb_lock);
	for (i = 0; i < n && r->hb_jobs[i] != (add ? 0 : id); i++)
		;
	if (i < n)
		r->hb_jobs[i] = add ? id : 0;
	pthread_mutex_unlock(&r->hb_lock);
}

/* Starts the heartbeat on a connection of its own (libpq's are not
 * shared between threads). */
static int hb_start(struct runner *r)
{
	int ret = rb_store_open_again(&r->hb_st, r->st);

	if (ret)
		return ret;
	pthread_mutex_init(&r->hb_lock, NULL);
	pthread_cond_init(&r->hb_cond, NULL);
	if (pthread_create(&r->hb_thread, NULL, heartbeat, r)) {
		pthread_mutex_destroy(&r->hb_lock);
		pthread_cond_destroy(&r->hb_cond);
		rb_store_close(r->hb_st);
		r->hb_st = NULL;
		return rb_err(RB_EIO, "cannot start the heartbeat thread");
	}
	r->hb_running = true;
	return 0;
}

static void hb_stop(struct runner *r)
{
	if (!r->hb_running)
		return;
	pthread_mutex_lock(&r->hb_lock);
	r->hb_stop = true;
	pthread_cond_signal(&r->hb_cond);
	pthread_mutex_unlock(&r->hb_lock);
	pthread_join(r->hb_thread, NULL);
	pthread_mutex_destroy(&r->hb_lock);
	pthread_cond_destroy(&r->hb_cond);
	rb_store_close(r->hb_st);
	r->hb_st = NULL;
	r->hb_running = false;
}

/*
 * Around each job of the pipeline's job stage: the worker's counters and
 * state in table workers (for /metrics), the heartbeat's job, and a lease
 * that ran out on another worker (that worker died mid-job).
 */
static int job_claimed(struct rb_pipeline *p, const struct rb_job *job)
{
	struct runner *r = p->hooks->payload;
	char *state = NULL, *lost = NULL;
	int ret;

	ret = rb_store_job_state(r->st, job->id, &state, &lost);
	if (!ret)
		ret = rb_metrics_count(r->st, r->name, RB_METRIC_CLAIMED);
	if (!ret && lost) {
		rb_log(RB_LOG_WARN, "worker.lease_expired", "series", job->key,
		       "lost_by", lost, "taken_by", r->name, NULL);
		ret = rb_metrics_count(r->st, lost, RB_METRIC_LEASE_EXPIRED);
	}
	if (!ret)
		ret = rb_metrics_state(r->st, r->name, "busy");
	free(state);
	free(lost);
	if (!ret) {
		rb_log(RB_LOG_INFO, "worker.claimed", "name", r->name, "job",
		       job->kind, "series", job->key, NULL);
		hb_set_job(r, job->id, true);
		r->in_hand++;
	}
	return ret;
}

static int job_finished(struct rb_pipeline *p, const struct rb_job *job,
			int result)
{
	struct runner *r = p->hooks->payload;
	char *state = NULL;
	int ret = 0;

	hb_set_job(r, job->id, false);
	if (r->in_hand > 0)
		r->in_hand--;
	if (!result) {
		ret = rb_store_job_state(r->st, job->id, &state, NULL);
		if (!ret)
			ret = rb_metrics_count(r->st, r->name,
					       state && !strcmp(state,
								"failed") ?
						       RB_METRIC_FAILED :
						       RB_METRIC_DONE);
		rb_log(RB_LOG_INFO, "worker.done", "name", r->name, "job",
		       job->kind, "series", job->key, "state",
		       state ? state : "?", NULL);
		free(state);
	}
	/* Idle when the last job in hand ended (review.parallel_series). */
	if (!ret && !r->in_hand)
		ret = rb_metrics_state(r->st, r->name, "idle");
	return ret;
}

/*
 * The retention policy (bot/stages/retention.h), at most once an hour, by
 * the workers; a failure is logged and tried again in an hour.
 */
static void prune_step(struct runner *r)
{
	const struct rb_config *cfg = r->p->cfg;
	int64_t now = rb_now();

	if ((cfg->retention_raw_days <= 0 &&
	     cfg->retention_exchanges_days <= 0) ||
	    (r->pruned_at && now - r->pruned_at < 3600))
		return;
	r->pruned_at = now;
	if (rb_retention_run(cfg, r->st, r->p->record_dir, NULL)) {
		rb_log(RB_LOG_WARN, "retention.failed", "reason", rb_errmsg(),
		       NULL);
		rb_err_clear();
	}
}

/* What a pass did, to tell a busy pass from an idle one. */
static size_t work_done(const struct rb_pipeline_stats *s)
{
	return s->stored + s->malformed + s->parsed + s->jobs + s->sent +
	       s->send_failed;
}

/*
 * One pass of every part this process plays: the sources (ingest), the
 * retention policy (workers), then the pipeline's stages for those roles
 * (pipeline.h; the workers' first is the trees' fetch). A pass that found nothing to do after one that did logs
 * run.idle once: every due job has run and every due mail has gone.
 */
static int run_step(struct runner *r)
{
	size_t before = work_done(&r->p->stats);
	unsigned roles = 0;
	int ret = 0;

	if (r->what & DO_INGEST) {
		ret = ingest_sources(r);
		if (r->leader)
			roles |= RB_ROLE_INGEST;
	}
	if (r->what & DO_WORK) {
		prune_step(r);
		roles |= RB_ROLE_WORKER;
	}
	if (r->what & DO_SEND)
		roles |= RB_ROLE_SENDER;
	if (!ret && !stop_requested)
		ret = rb_pipeline_step(r->p, roles);
	if ((r->what & DO_WORK) && stop_requested)
		rb_log(RB_LOG_INFO, "worker.drained", "name", r->name, NULL);
	if (work_done(&r->p->stats) != before) {
		r->busy = true;
	} else if (!ret && r->busy) {
		r->busy = false;
		rb_log(RB_LOG_INFO, "run.idle", "name", r->name, NULL);
	}
	return ret;
}

/* Seconds until the next due job or mail (at least 1), or 0 for none:
 * the wait for new mail ends then, so an "incomplete" notice or a held
 * review goes out when it is due, not at the next poll. */
static int due_in(struct rb_store *st)
{
	int64_t when = 0, now = rb_now();

	if (rb_store_next_due(st, &when) || !when)
		return 0;
	return when <= now ? 1 : when - now > 3600 ? 3600 : (int)(when - now);
}

static int parse_role(const char *role)
{
	if (!strcmp(role, "all"))
		return DO_INGEST | DO_WORK | DO_SEND;
	if (!strcmp(role, "ingest"))
		return DO_INGEST;
	if (!strcmp(role, "worker"))
		return DO_WORK;
	if (!strcmp(role, "sender"))
		return DO_SEND;
	return 0;
}

/* --lease SECONDS */
static int parse_lease(const char *arg, void *to)
{
	char *end = NULL;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || (int)v < 1) {
		fprintf(stderr,
			"reviewbot run: --lease '%s': not a number of seconds\n",
			arg);
		return -1;
	}
	*(int *)to = (int)v;
	return 0;
}

/*
 * Everything between opening the store and the first pass: the role's
 * check against the store, the process's name (@defname, the caller's
 * buffer, when --name was not given), the pipeline's wiring, the metrics
 * row, the heartbeat and, on SQLite, the sources. Returns an exit code.
 */
static int run_prepare(struct runner *r, struct rb_config *cfg, char *defname,
		       size_t size)
{
	struct rb_pipeline *p = r->p;
	char host[256] = "";
	int ret;

	r->pg = rb_store_is_shared(r->st);
	if (strcmp(r->role, "all") && !r->pg) {
		fprintf(stderr,
			"reviewbot run: role '%s' needs a PostgreSQL store "
			"(store.url); a SQLite store has one process, "
			"--role all\n",
			r->role);
		return RB_EXIT_USAGE;
	}
	if (!r->name) {
		if (gethostname(host, sizeof(host) - 1))
			snprintf(host, sizeof(host), "host");
		snprintf(defname, size, "%s-%s-%d", host, r->role,
			 (int)getpid());
		r->name = defname;
	}
	install_signals();
	p->cfg = cfg;
	p->parallel = cfg->parallel_series;
	p->st = r->st;
	p->owner = r->name;
	p->lease = r->lease;
	/* Workers fetch their own trees (the fetch stage, trees.h). */
	p->fetch_trees = true;
	p->stop = &stop_requested;
	/*
	 * On a shared store another sender may hold mail in 'sending': its
	 * lease, not a blanket recovery at start, gives such mail back.
	 */
	p->recovered = r->pg;
	ret = rb_metrics_register(r->st, r->name, r->role);
	if (!ret && r->pg)
		ret = hb_start(r);
	if (ret) {
		fprintf(stderr, "reviewbot: %s\n", rb_errmsg());
		return RB_EXIT_FAIL;
	}
	if (r->pg)
		return RB_EXIT_OK;
	/*
	 * This process owns the SQLite store (its lock file), so a job still
	 * 'running' was left by a process that died: it goes back to the
	 * queue now rather than when its lease runs out (an hour).
	 */
	if (rb_store_job_reset_running(r->st)) {
		fprintf(stderr, "reviewbot: %s\n", rb_errmsg());
		return RB_EXIT_FAIL;
	}
	if (rb_sources_new(&r->srcs, cfg, r->st)) {
		fprintf(stderr, "reviewbot: %s\n", rb_errmsg());
		return RB_EXIT_USAGE;
	}
	return RB_EXIT_OK;
}

/*
 * SIGHUP: the config file again. A config that no longer loads is
 * reported and the old one kept; nonzero when the new sources cannot be
 * made.
 */
static int run_reload(struct runner *r, struct rb_config **cfg)
{
	struct rb_config *ncfg = NULL;

	if (rb_cli_load_config(&ncfg, (*cfg)->file)) {
		rb_log(RB_LOG_ERROR, "run.reload_failed", "keeping",
		       "the old config", NULL);
		return 0;
	}
	rb_sources_free(r->srcs);
	r->srcs = NULL;
	rb_pipeline_release(r->p);
	rb_config_free(*cfg);
	*cfg = ncfg;
	r->p->cfg = ncfg;
	r->p->parallel = ncfg->parallel_series;
	if ((r->what & DO_INGEST) && r->leader) {
		int ret = rb_sources_new(&r->srcs, ncfg, r->st);

		if (ret)
			return ret;
	}
	rb_log(RB_LOG_INFO, "run.reload", NULL);
	return 0;
}

/*
 * Between passes: the ingest leader waits for new mail or the next due
 * job; workers, senders and standbys poll the store.
 */
static void run_wait(struct runner *r)
{
	int due;

	if (!(r->what & DO_INGEST) || !r->leader) {
		nap(1);
		return;
	}
	due = due_in(r->st);
	if (r->srcs && rb_sources_count(r->srcs))
		rb_sources_wait(r->srcs, due, &stop_requested,
				&reload_requested);
	else
		nap(r->what != (DO_INGEST | DO_WORK | DO_SEND) ? 1 :
		    due > 0 && due < 30			       ? due :
								 30);
}

/* "2026-12-06 22:08 UTC" */
/* @t as "YYYY-MM-DD HH:MM UTC" into @out, or "" when it is not set. */
static void utc(char *out, size_t size, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	*out = '\0';
	if (t > 0 && gmtime_r(&tt, &tm))
		strftime(out, size, "%Y-%m-%d %H:%M UTC", &tm);
}

/* What the closing summary gathers from the store. */
struct summary {
	struct rb_buf line;
	int64_t total, n;
	FILE *f;
};

/*
 * "<n> <state> (<why>)<label><at>" after @sep (but first on the line);
 * an empty <why> or <at> is left out with what frames it.
 */
static int sum_state(struct summary *s, const char *sep, int64_t n,
		     const char *state, const char *why, const char *label,
		     const char *at)
{
	return rb_buf_printf(&s->line, "%s%" PRId64 " %s%s%s%s%s%s",
			     s->line.len ? sep : "", n, state, *why ? " (" : "",
			     why, *why ? ")" : "", *at ? label : "", at);
}

/* One of the series waiting or not sent yet, the oldest's time given. */
static int sum_dated(void *payload, int64_t n, const char *state,
		     const char *why, const char *label, int64_t when)
{
	struct summary *s = payload;
	char at[40];

	utc(at, sizeof(at), when);
	s->n += n;
	return sum_state(s, "; ", n, state, why, label, at);
}

static int sum_series(const char *state, const char *why, int64_t n,
		      int64_t when, void *payload)
{
	struct summary *s = payload;

	(void)when;
	s->total += n;
	return sum_state(s, ", ", n, state, why, "", "");
}

static int sum_waiting(const char *state, const char *kind, int64_t n,
		       int64_t when, void *payload)
{
	return sum_dated(payload, n,
			 !strcmp(state, "apply_waiting") ?
				 "apply nowhere yet: tried again after the "
				 "trees' next fetch" :
			 !strcmp(kind, "incomplete") ?
				 "wait for missing parts" :
			 !strcmp(kind, "review") ? "wait for their review" :
						   "wait",
			 "", ", the first at ", when);
}

static int sum_unsent(const char *state, const char *why, int64_t n,
		      int64_t when, void *payload)
{
	return sum_dated(payload, n, state, why, ", until ", when);
}

static int sum_mails(const char *kind, const char *state, int64_t n,
		     int64_t when, void *payload)
{
	struct summary *s = payload;
	static const struct {
		const char *kind, *what;
	} names[] = {
		{ "review", "reviews" },
		{ "summary", "summaries to a cover letter" },
		{ "apply-failure", "apply-failure notices to the poster" },
		{ "apply-failure-admin",
		  "apply-failure notices to the admins" },
		{ "incomplete", "incomplete-series notices" },
		{ "ack", "verdict acknowledgements" },
	};
	const char *what = kind;
	size_t i;

	(void)when;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(kind, names[i].kind))
			what = names[i].what;
	s->n += n;
	return rb_buf_printf(&s->line, "%s%" PRId64 " %s %s",
			     s->line.len ? ", " : "", n, what, state);
}

/* Runs one report into one line "LABEL: ...", or "LABEL: none". */
static int sum_line(struct summary *s, struct rb_store *st, const char *label,
		    enum rb_report_summary what, rb_report_summary_fn fn)
{
	int ret;

	rb_buf_reset(&s->line);
	s->total = s->n = 0;
	ret = rb_store_report_summary(st, what, fn, s);
	if (!ret)
		fprintf(s->f, "  %s: %s\n", label,
			s->line.len ? s->line.ptr : "none");
	return ret;
}

/*
 * run --once ends with what it did and what is left (issue 34): the
 * messages this run read, the series in the store by state, what waits
 * and until when, the mail not sent yet and why, the mails by kind, and
 * the recipients left out. On stdout; the logs stay on stderr.
 */
static void print_summary(struct runner *r, int64_t started, FILE *f)
{
	const struct rb_pipeline_stats *ps = &r->p->stats;
	struct summary s = { .line = RB_BUF_INIT(1 << 20), .f = f };
	size_t dropped = 0, i;
	int ret;

	for (i = 0; i < RB_DROP_N; i++)
		dropped += ps->dropped_total[i];
	fprintf(f, "reviewbot run --once: done in %" PRId64 " s\n",
		rb_now() - started);
	fprintf(f,
		"  messages: %zu stored, %zu already stored, %zu malformed, "
		"%zu ignored (our own, bots, Auto-Submitted, List-Id not in "
		"list_ids)\n",
		ps->stored, ps->duplicates, ps->malformed, dropped);
	ret = sum_line(&s, r->st, "series", RB_SUM_SERIES, sum_series);
	if (!ret)
		fprintf(f,
			"  jobs this run: %zu; %zu series not for these "
			"trees, said nothing\n",
			ps->jobs, ps->foreign);
	ret = ret   ?:
		      sum_line(&s, r->st, "waiting", RB_SUM_WAITING,
			       sum_waiting);
	ret = ret   ?:
		      sum_line(&s, r->st, "not sent yet", RB_SUM_UNSENT,
			       sum_unsent);
	ret = ret ?: sum_line(&s, r->st, "mails", RB_SUM_MAILS, sum_mails);
	if (!ret)
		fprintf(f,
			"  recipients left out: %zu that cannot receive mail, "
			"%zu of a patch's To/Cc neither its author's nor "
			"MAINTAINERS', %zu lists over outbox.max_lists; %zu "
			"mails with nobody to send to\n",
			ps->undeliverable, ps->refused, ps->lists_capped,
			ps->unsent);
	if (ret)
		fprintf(f, "  (the store could not say more: %s)\n",
			rb_errmsg());
	rb_buf_release(&s.line);
	fflush(f);
}

/* Passes until a signal stops them (or, with @once, until one is idle). */
static int run_loop(struct runner *r, struct rb_config **cfg, bool once)
{
	int ret = 0, passes = 0;

	while (!stop_requested) {
		if (reload_requested) {
			reload_requested = 0;
			ret = run_reload(r, cfg);
			if (ret)
				break;
		}
		ret = run_step(r);
		rb_pipeline_report_drops(r->p, false);
		if (ret == -RB_ECONFIG) {
			rb_log(RB_LOG_ERROR, "run.stop", "reason", rb_errmsg(),
			       NULL);
			break;
		}
		if (ret)
			rb_log(RB_LOG_ERROR, "run.step", "reason", rb_errmsg(),
			       NULL);
		/*
		 * A pass that did work may have left work for the next (a
		 * fetched part to parse, a review a verdict unblocked): go on
		 * at once; --once stops at the first pass with nothing to do.
		 */
		if (r->busy && !ret && ++passes < 1000)
			continue;
		passes = 0;
		if (once)
			break;
		run_wait(r);
	}
	return ret;
}

int cmd_run(int argc, char **argv)
{
	const char *config = NULL;
	struct rb_pipeline p = { 0 };
	struct runner r = { .p = &p, .role = "all", .lease = 300, .busy = true };
	struct rb_job_hooks hooks = { job_claimed, job_finished, &r };
	bool once = false;
	const struct rb_cli_opt opts[] = {
		{ "config", 'c', &config },
		{ "once", 0, .flag = &once },
		{ "role", 0, &r.role },
		{ "name", 0, &r.name },
		{ "lease", 0, .parse = parse_lease, .to = &r.lease },
		{ "record", 0, &p.record_dir },
		{ "replay", 0, &p.replay_dir },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, opts };
	struct rb_config *cfg = NULL;
	char defname[300];
	int64_t started;
	int ret;

	ret = rb_cli_parse(&args, argc, argv);
	if (ret != RB_CLI_GO)
		return ret;
	r.what = parse_role(r.role);
	if (!r.what) {
		fprintf(stderr,
			"reviewbot run: unknown role '%s'; one of ingest, "
			"worker, sender, all\n",
			r.role);
		return RB_EXIT_USAGE;
	}
	p.hooks = &hooks;
	ret = rb_cli_config_store(&cfg, &r.st, config, NULL, false);
	if (!ret)
		ret = run_prepare(&r, cfg, defname, sizeof(defname));
	if (ret)
		goto out;
	rb_log(RB_LOG_INFO, "run.start", "store", rb_store_where(r.st),
	       "config", cfg->file ? cfg->file : "(embedded defaults)", "role",
	       r.role, "name", r.name, NULL);
	/* On a terminal, long work says how far it is (one status line). */
	p.progress = isatty(STDERR_FILENO);
	rb_log_status_enable(p.progress);
	started = rb_now();
	ret = run_loop(&r, &cfg, once);
	rb_pipeline_report_drops(&p, true);
	if (once)
		print_summary(&r, started, stdout);
	hb_stop(&r);
	rb_metrics_state(r.st, r.name, "stopped");
	rb_log(RB_LOG_INFO, "run.stop", "stored",
	       stop_requested ? "signal" : "done", "name", r.name, NULL);
	ret = ret == -RB_ECONFIG ? RB_EXIT_USAGE : RB_EXIT_OK;
out:
	hb_stop(&r);
	rb_sources_free(r.srcs);
	rb_pipeline_release(&p);
	rb_store_close(r.st);
	rb_config_free(cfg);
	return ret;
}
