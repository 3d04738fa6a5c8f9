// SPDX-License-Identifier: GPL-2.0-only
/*
 * pipeline.c - the one pipeline: ingest, parse, assemble, the job loop and
 * the table that wires stages to roles (pipeline.h). The stages' own work
 * lives in feedback.c (verdicts), review_stage.c (the review of one
 * series) and outbox.c (sending).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bot/config.h"
#include "bot/stages/assemble.h"
#include "util/fault.h"
#include "bot/stages/feedback.h"
#include "bot/stages/incomplete.h"
#include "bot/stages/ledger.h"
#include "bot/stages/outbox.h"
#include "bot/stages/pipeline.h"
#include "bot/stages/review_stage.h"
#include "bot/stages/series_view.h"
#include "bot/stages/trees.h"
#include "bot/store/store.h"
#include "mail/mbox.h"
#include "mail/message.h"
#include "mail/sender.h"
#include "mail/series.h"
#include "review/maint/maintainers.h"
#include "review/model/model.h"
#include "review/apply/patchid.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define RB_BATCH 256

/*
 * A cheap first look before the parser: the first line must be a header
 * field (RFC 5322 2.2: printable ASCII but ':' then ':'), and a message
 * that ends mid-line without ever ending its header section was cut short.
 */
static bool looks_like_mail(const char *raw, size_t len, const char **why)
{
	size_t i;

	if (!len) {
		*why = "empty";
		return false;
	}
	for (i = 0; i < len && raw[i] != ':'; i++) {
		unsigned char ch = (unsigned char)raw[i];

		if (ch < 33 || ch > 126) {
			*why = "the first line is not a header field";
			return false;
		}
	}
	if (i == 0 || i == len) {
		*why = "the first line is not a header field";
		return false;
	}
	if (raw[len - 1] != '\n' && !memmem(raw, len, "\n\n", 2) &&
	    !memmem(raw, len, "\n\r\n", 3)) {
		*why = "truncated: it ends inside its header section";
		return false;
	}
	return true;
}

/*
 * What the store keeps of a parsed message beside its bytes, copied out
 * of the parse into one block (strings[]), so that no later stage parses
 * the mail again unless it needs the body. A source makes it on its own
 * thread (rb_pipeline_prepare()): the parse is then freed on the thread
 * that allocated it, and the storing thread only writes.
 */
struct prepared {
	const char *message_id;
	struct rb_msgmeta meta; /* msg.references unset: meta.references */
	/* what loop_reason() reads beside meta */
	bool ours;
	const char *auto_submitted;
	const char *kind; /* rb_message_kind() of the message */
	char patch_id[RB_PATCH_ID_HEX]; /* meta.patch_id points here */
	char strings[];
};

static struct prepared *prepared_of(const struct rb_message *m);
static void prepared_for(struct prepared *pr, struct rb_pipeline *p);

/*
 * The checks and the parse of a raw message (NULL: over the size cap):
 * 0 and *@out, or -1 with why it was refused in @reason.
 */
static int parse_raw(const struct rb_pipeline *p, const char *raw, size_t len,
		     const char *origin, struct rb_message **out,
		     struct rb_buf *reason)
{
	struct rb_parse_opts opts = RB_PARSE_OPTS_INIT;
	const char *why = NULL;

	*out = NULL;
	if (!raw) {
		rb_buf_printf(reason,
			      "%s: message of %zu bytes is over the "
			      "size cap of %zu bytes; recorded and "
			      "skipped",
			      origin, len, rb_series_max_size(p->cfg));
		return -1;
	}
	if (!looks_like_mail(raw, len, &why)) {
		rb_buf_printf(reason,
			      "%s: not a mail message (%s); recorded "
			      "and skipped",
			      origin, why);
		return -1;
	}
	opts.max_size = rb_series_max_size(p->cfg);
	opts.received_at = rb_now();
	opts.no_recipients = true; /* the metadata needs none */
	if (rb_message_parse(out, raw, len, &opts)) {
		rb_buf_printf(reason, "%s: %s; recorded and skipped", origin,
			      rb_errmsg());
		return -1;
	}
	return 0;
}

/* The parse of @raw into a struct prepared; NULL when it is refused
 * (or memory ran out): the ingest then parses again and records why. */
void *rb_pipeline_prepare(const struct rb_pipeline *p, const char *raw,
			  size_t len)
{
	struct rb_buf reason = RB_BUF_INIT(4096);
	struct prepared *pr = NULL;
	struct rb_message *m;

	if (!parse_raw(p, raw, len, "", &m, &reason)) {
		pr = prepared_of(m);
		rb_message_free(m);
	}
	rb_buf_release(&reason);
	return pr;
}

void rb_pipeline_prepared_free(void *prepared)
{
	free(prepared);
}

/*
 * Stores @raw with its metadata from its parse (@pr): the parse stage
 * then has nothing to do for it (a message is parsed once on its way).
 * The parse gives every message a Message-ID (one made of its From,
 * Date, Subject and body when it has none); one too long to key on is
 * quarantined by the store (rb_store_add_parsed()). @pr is freed.
 */
static int ingest_parsed(struct rb_pipeline *p, struct prepared *pr,
			 const char *raw, size_t len, const char *origin)
{
	int ret;

	prepared_for(pr, p);
	ret = rb_store_add_parsed(p->st, pr->message_id, raw, len, origin,
				  &pr->meta);
	if (ret == -RB_EEXISTS) {
		p->stats.duplicates++;
		ret = 0;
	} else if (!ret) {
		p->stats.stored++;
		p->stats.parsed++;
		p->assembled = false;
		rb_pipeline_progress(p);
		rb_fault_point("parse");
		if (p->batching && ++p->batch % RB_BATCH == 0) {
			ret = rb_store_commit(p->st);
			if (!ret)
				ret = rb_store_begin(p->st);
		}
		rb_fault_point("ingest");
	}
	free(pr);
	return ret;
}

int rb_pipeline_ingest_prepared(struct rb_pipeline *p, const char *raw,
				size_t len, const char *origin, void *prepared)
{
	struct prepared *pr = prepared;
	struct rb_buf reason = RB_BUF_INIT(4096);
	struct rb_message *m;
	int ret;

	if (pr)
		return ingest_parsed(p, pr, raw, len, origin);
	if (!parse_raw(p, raw, len, origin, &m, &reason)) {
		pr = prepared_of(m);
		rb_message_free(m);
		if (!pr)
			return rb_err(RB_ENOMEM, "out of memory");
		return ingest_parsed(p, pr, raw, len, origin);
	}
	p->stats.malformed++;
	rb_log_plain("reviewbot: %s\n", reason.ptr);
	rb_log(RB_LOG_WARN, "msg.malformed", "reason", reason.ptr, NULL);
	ret = rb_store_add_bad(p->st, origin, reason.ptr, raw, raw ? len : 0);
	rb_buf_release(&reason);
	return ret;
}

int rb_pipeline_ingest_raw(struct rb_pipeline *p, const char *raw, size_t len,
			   const char *origin)
{
	return rb_pipeline_ingest_prepared(p, raw, len, origin, NULL);
}

static int ingest_cb(const char *raw, size_t len, const char *origin,
		     void *payload)
{
	return rb_pipeline_ingest_raw(payload, raw, len, origin);
}

/*
 * A file stays where it is, so its messages are committed in batches of
 * RB_BATCH: a crash loses at most the batch in hand, and the next run reads
 * the file again (stored messages are skipped by Message-ID).
 */
int rb_pipeline_ingest_path(struct rb_pipeline *p, const char *path)
{
	int ret = rb_store_begin(p->st);

	if (ret)
		return ret;
	p->batch = 0;
	p->batching = true;
	ret = rb_mail_walk(path, rb_series_max_size(p->cfg), ingest_cb, p);
	p->batching = false;
	rb_pipeline_progress_done(p);
	if (ret) {
		/* What was stored is kept; the error is the caller's. */
		char why[1024];

		snprintf(why, sizeof(why), "%s", rb_errmsg());
		if (rb_store_commit(p->st))
			rb_store_rollback(p->st);
		return rb_err(RB_EIO, "%s", why);
	}
	return rb_store_commit(p->st);
}

void rb_pipeline_progress(struct rb_pipeline *p)
{
	int64_t now;
	char line[160];
	size_t n;

	if (!p->progress)
		return;
	now = rb_now();
	if (!p->progress_start) {
		p->progress_start = now;
		p->progress_base = p->stats.stored - 1;
	}
	if (now == p->progress_at)
		return;
	p->progress_at = now;
	n = p->stats.stored - p->progress_base;
	snprintf(line, sizeof(line),
		 "reviewbot: ingest: %zu messages stored, %.0f a second", n,
		 now > p->progress_start ?
			 (double)n / (double)(now - p->progress_start) :
			 (double)n);
	rb_log_status(line);
}

void rb_pipeline_progress_done(struct rb_pipeline *p)
{
	char line[160];
	int64_t secs;
	size_t n;

	if (!p->progress || !p->progress_start)
		return;
	secs = rb_now() - p->progress_start;
	n = p->stats.stored - p->progress_base;
	snprintf(line, sizeof(line),
		 "reviewbot: ingest: %zu messages stored in %lld s\n", n,
		 (long long)secs);
	rb_log_status(line);
	rb_log_status(NULL);
	p->progress_start = 0;
	p->progress_at = 0;
}

/*
 * DESIGN.md fact 6: only listed lists, never our own mail or a bot's. A
 * part fetched from a public-inbox to complete a series of our list
 * (origin "fetch:", bot/stages/incomplete.c) keeps the List-Id of the
 * list it was sent to, and that list must be on the allow-list too: an
 * archive holds every list, and anyone can post to one (issue 33).
 */
static const char *loop_reason(const struct rb_pipeline *p,
			       const struct prepared *pr, enum rb_drop *why)
{
	const struct rb_config *c = p->cfg;
	const char *from = pr->meta.msg.from_addr, *list = pr->meta.list_id;
	size_t i;

	*why = RB_DROP_OURS;
	if (pr->ours)
		return "our own mail (X-Reviewbot-Series)";
	if (from && c->smtp_from && strcasestr(c->smtp_from, from))
		return "our own mail (From)";
	*why = RB_DROP_BOT;
	for (i = 0; from && i < c->n_known_bots; i++)
		if (!strcasecmp(from, c->known_bots[i]))
			return "a known bot";
	*why = RB_DROP_AUTO;
	if (pr->auto_submitted && strcasecmp(pr->auto_submitted, "no"))
		return "Auto-Submitted mail";
	*why = RB_DROP_LIST;
	if (c->n_list_ids) {
		for (i = 0; i < c->n_list_ids; i++)
			if (list && !strcasecmp(list, c->list_ids[i]))
				break;
		if (i == c->n_list_ids)
			return "List-Id not on the allow-list";
	}
	return NULL;
}

/* Counts a message ignored for @why; the allow-list's by List-Id. */
static void count_drop(struct rb_pipeline *p, enum rb_drop why,
		       const char *list_id)
{
	size_t k;

	p->stats.dropped[why]++;
	p->stats.dropped_total[why]++;
	if (why != RB_DROP_LIST)
		return;
	if (!list_id || !*list_id)
		list_id = "(none)";
	for (k = 0; k < 4 && p->drop_ids[k][0]; k++)
		if (!strcasecmp(p->drop_ids[k], list_id)) {
			p->drop_id_n[k]++;
			return;
		}
	if (k < 4) {
		snprintf(p->drop_ids[k], sizeof(p->drop_ids[k]), "%s", list_id);
		p->drop_id_n[k] = 1;
	}
}

void rb_pipeline_report_drops(struct rb_pipeline *p, bool force)
{
	static const char *const names[RB_DROP_N] = {
		[RB_DROP_OURS] = "our own mail",
		[RB_DROP_BOT] = "a known bot",
		[RB_DROP_AUTO] = "Auto-Submitted",
		[RB_DROP_LIST] = "List-Id not in list_ids",
	};
	struct rb_buf why = RB_BUF_INIT(4096);
	int64_t now = rb_now();
	size_t i, n = 0;
	char count[32];

	for (i = 0; i < RB_DROP_N; i++)
		n += p->stats.dropped[i];
	if (!n ||
	    (!force && p->drops_logged_at && now - p->drops_logged_at < 3600))
		return;
	for (i = 0; i < RB_DROP_N; i++) {
		if (!p->stats.dropped[i])
			continue;
		rb_buf_printf(&why, "%s%s: %zu", why.len ? "; " : "", names[i],
			      p->stats.dropped[i]);
		p->stats.dropped[i] = 0;
	}
	/* What the allow-list met: a posting address in list_ids (linux-mm@
	 * kvack.org) drops every message, and these say what it should be. */
	for (i = 0; i < 4 && p->drop_ids[i][0]; i++) {
		rb_buf_printf(&why, "%s%s x%zu",
			      i ? ", " : " (List-Ids seen: ", p->drop_ids[i],
			      p->drop_id_n[i]);
		p->drop_ids[i][0] = '\0';
		p->drop_id_n[i] = 0;
	}
	if (i)
		rb_buf_putc(&why, ')');
	snprintf(count, sizeof(count), "%zu", n);
	rb_log(RB_LOG_WARN, "ingest.dropped", "count", count, "why",
	       why.ptr ? why.ptr : "", "next", "at most once an hour", NULL);
	p->drops_logged_at = now;
	rb_buf_release(&why);
}

/* The stored References: space-separated, at most 1 MB of them. */
#define REFS_MAX ((size_t)1 << 20)

/* How many of @m's References are stored, their bytes in *@len. */
static size_t refs_fit(const struct rb_message *m, size_t *len)
{
	size_t i, l;

	*len = 0;
	for (i = 0; i < m->n_references; i++) {
		l = strlen(m->references[i]) + (i ? 1 : 0);
		if (*len + l >= REFS_MAX)
			break;
		*len += l;
	}
	return i;
}

/* Copies @s to *@w and moves *@w past it; NULL stays NULL. */
static const char *put_str(char **w, const char *s)
{
	size_t n;
	char *r = *w;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	memcpy(r, s, n);
	*w += n;
	return r;
}

static size_t str_size(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* What the store keeps of @m (struct prepared); NULL: out of memory. */
static struct prepared *prepared_of(const struct rb_message *m)
{
	struct rb_series_msg sm;
	struct prepared *pr;
	size_t size, rn, nrefs = refs_fit(m, &rn), i;
	char *w;

	rb_series_msg_of(&sm, m);
	size = sizeof(*pr) + str_size(sm.message_id) + str_size(sm.subject) +
	       str_size(sm.from_addr) + str_size(sm.from_name) +
	       str_size(sm.in_reply_to) + str_size(sm.change_id) +
	       str_size(m->list_id) + str_size(m->auto_submitted) + rn + 1;
	pr = malloc(size);
	if (!pr)
		return NULL;
	memset(pr, 0, sizeof(*pr));
	w = pr->strings;
	pr->meta.msg = sm;
	pr->meta.msg.references = NULL;
	pr->meta.msg.n_references = 0;
	pr->message_id = pr->meta.msg.message_id = put_str(&w, sm.message_id);
	pr->meta.msg.subject = put_str(&w, sm.subject);
	pr->meta.msg.from_addr = put_str(&w, sm.from_addr);
	pr->meta.msg.from_name = put_str(&w, sm.from_name);
	pr->meta.msg.in_reply_to = put_str(&w, sm.in_reply_to);
	pr->meta.msg.change_id = put_str(&w, sm.change_id);
	pr->meta.list_id = put_str(&w, m->list_id);
	pr->auto_submitted = put_str(&w, m->auto_submitted);
	pr->meta.references = w;
	for (i = 0; i < nrefs; i++) {
		size_t l = strlen(m->references[i]);

		if (i)
			*w++ = ' ';
		memcpy(w, m->references[i], l);
		w += l;
	}
	*w = '\0';
	pr->ours = m->x_reviewbot;
	pr->kind = rb_msg_kind_name(rb_message_kind(m));
	pr->meta.version = m->subject.version;
	pr->meta.idx = m->subject.index;
	pr->meta.total = m->subject.total;
	/* Its patch-id now, while the parse is at hand (bot/stages/prereq.c
	 * looks a prerequisite-patch-id: up by it). */
	if (m->patch && m->patch_len) {
		if (!rb_patch_id(pr->patch_id, m->patch, m->patch_len))
			pr->meta.patch_id = pr->patch_id;
		else
			rb_err_clear();
	}
	return pr;
}

/* Sets @pr's kind and reason; where it came from does not matter. */
static void prepared_for(struct prepared *pr, struct rb_pipeline *p)
{
	enum rb_drop why;

	pr->meta.reason = loop_reason(p, pr, &why);
	pr->meta.kind = pr->meta.reason ? "ignored" : pr->kind;
	if (pr->meta.reason)
		count_drop(p, why, pr->meta.list_id);
}

static int parse_one(struct rb_msgrow *row, void *payload)
{
	struct rb_pipeline *p = payload;
	struct rb_parse_opts opts = RB_PARSE_OPTS_INIT;
	struct rb_message *m = NULL;
	struct prepared *pr;
	int ret;

	opts.max_size = rb_series_max_size(p->cfg);
	opts.received_at = row->received_at;
	opts.no_recipients = true;
	if (rb_message_parse(&m, row->raw, row->len, &opts)) {
		struct rb_buf why = RB_BUF_INIT(4096);

		rb_buf_printf(&why, "%s: %s", row->origin, rb_errmsg());
		rb_log_plain("reviewbot: %s; recorded and skipped\n", why.ptr);
		ret = rb_store_mark_malformed(p->st, row->message_id, why.ptr);
		rb_buf_release(&why);
		p->stats.malformed++;
		goto out;
	}
	pr = prepared_of(m);
	if (!pr) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	prepared_for(pr, p);
	ret = rb_store_mark_parsed(p->st, row->message_id, &pr->meta);
	free(pr);
	p->stats.parsed++;
out:
	rb_message_free(m);
	if (!ret && ++p->batch % RB_BATCH == 0) {
		ret = rb_store_commit(p->st);
		if (!ret)
			ret = rb_store_begin(p->st);
	}
	if (!ret)
		rb_fault_point("parse");
	return ret;
}

/*
 * Parsing is repeatable from the stored bytes, so its results are
 * committed in batches: one fsync per RB_BATCH messages, not per message
 * (30,000 list mails would otherwise cost 30,000 fsyncs). A crash loses
 * at most the batch in hand, which the next run parses again.
 */
int rb_pipeline_parse(struct rb_pipeline *p)
{
	size_t before = p->stats.parsed;
	int ret = rb_store_begin(p->st);

	if (ret)
		return ret;
	p->batch = 0;
	ret = rb_store_each_new(p->st, parse_one, p);
	if (ret) {
		rb_store_rollback(p->st);
		return ret;
	}
	ret = rb_store_commit(p->st);
	/* Something new for assemble (a crash before it is seen at start). */
	if (!ret && p->stats.parsed != before)
		p->assembled = false;
	return ret;
}

int rb_pipeline_assemble(struct rb_pipeline *p)
{
	int ret;

	if (p->assembled)
		return 0;
	ret = rb_assemble(p, p->assemble_full);
	if (!ret)
		p->assembled = true;
	return ret;
}

/* Every kind of job and its stage (the job table's "kind"). */
static const struct {
	const char *kind;
	rb_job_fn run;
	const char *fault; /* its kill point after the job, or NULL */
	rb_job_fn then; /* when run returns RB_JOB_NEXT, or NULL */
} job_kinds[] = {
	{ "feedback", rb_feedback_job, NULL /* feedback.c has its own */ },
	{ "review", rb_review_job, "review" },
	/* A series nothing completed is reviewed (incomplete.h). */
	{ "incomplete", rb_incomplete_job, "review", rb_review_job },
};

/* Claims the next due job for p->owner, with the caller's claim hook in
 * the same transaction. -RB_ENOTFOUND when none is due. */
static int claim(struct rb_pipeline *p, struct rb_job *job)
{
	int lease = p->lease > 0 ? p->lease : 3600;
	int ret = rb_store_begin(p->st);

	if (ret)
		return ret;
	ret = rb_store_job_claim(p->st, p->owner ? p->owner : "local", lease,
				 job);
	if (!ret && p->hooks && p->hooks->claimed)
		ret = p->hooks->claimed(p, job);
	if (!ret)
		ret = rb_store_commit(p->st);
	if (ret) {
		if (ret != -RB_ENOTFOUND)
			rb_job_release(job);
		rb_store_rollback(p->st);
	}
	return ret;
}

/* limits.max_job_attempts, or its default. */
static int max_lost(const struct rb_pipeline *p)
{
	return p->cfg->max_job_attempts > 0 ? p->cfg->max_job_attempts : 3;
}

/*
 * A job the worker died with max_lost() times is not run again (issue
 * 33): a series whose review kills the process (an OOM kill, a crash)
 * would otherwise be claimed on every restart, and nothing after it
 * reviewed. A series gets its one notice; when the worker died once
 * more, in the quarantine itself, the job only records why.
 */
static int quarantine(struct rb_pipeline *p, const struct rb_job *job)
{
	char why[256];

	if (!strcmp(job->kind, "review") || !strcmp(job->kind, "incomplete"))
		return rb_review_quarantine(p, job, job->lost == max_lost(p));
	snprintf(why, sizeof(why),
		 "quarantined: the worker died %d times while it had this "
		 "job (limits.max_job_attempts); not tried again",
		 job->lost);
	rb_log(RB_LOG_ERROR, "job.quarantined", "kind", job->kind, "key",
	       job->key, NULL);
	return rb_store_job_done(p->st, job->id, why);
}

static int run_job(struct rb_pipeline *p, const struct rb_job *job,
		   const char **fault)
{
	size_t i;
	int ret;

	if (job->lost >= max_lost(p)) {
		*fault = NULL;
		return quarantine(p, job);
	}
	rb_fault_point_key("job", job->key);

	for (i = 0; i < sizeof(job_kinds) / sizeof(job_kinds[0]); i++) {
		if (strcmp(job->kind, job_kinds[i].kind))
			continue;
		*fault = job_kinds[i].fault;
		ret = job_kinds[i].run(p, job);
		if (ret == RB_JOB_NEXT && job_kinds[i].then)
			ret = job_kinds[i].then(p, job);
		return ret == RB_JOB_NEXT ? 0 : ret;
	}
	/* A kind this build does not know (a newer version queued it). */
	*fault = NULL;
	rb_log(RB_LOG_ERROR, "job.unknown_kind", "kind", job->kind, "key",
	       job->key, NULL);
	return rb_store_job_done(p->st, job->id, "unknown job kind");
}

/*
 * When this pass also sends, the mail a job queued goes now rather than
 * after every other due job: with reviews that take minutes (a model, a
 * build), the first author of a burst would otherwise wait for the last
 * review. A failure here ends the sending between jobs for this pass;
 * the send stage after the jobs meets it again and reports it.
 */
static void send_between(struct rb_pipeline *p)
{
	if (p->send_each && rb_outbox_send(p)) {
		rb_log(RB_LOG_WARN, "send.after_jobs", "reason", rb_errmsg(),
		       NULL);
		p->send_each = false;
	}
}

/* With p->progress: how many jobs ran, and what came of them. */
static void jobs_progress(struct rb_pipeline *p)
{
	const struct rb_pipeline_stats *s = &p->stats;
	int64_t now;
	char line[200];

	if (!p->progress)
		return;
	now = rb_now();
	if (now == p->progress_at)
		return;
	p->progress_at = now;
	snprintf(line, sizeof(line),
		 "reviewbot: jobs: %zu run: %zu reviewed, %zu apply nowhere, "
		 "%zu not for these trees; %zu mails queued",
		 s->jobs, s->reviewed, s->apply_failed, s->foreign, s->queued);
	rb_log_status(line);
}

/*
 * What follows the run of @job, whose result is @ret, on the thread that
 * claimed it: the count, a temporary failure put back (*@more false: the
 * rest waits for the next pass), the caller's hook, the job's kill
 * point, the mail it queued sent (send_between()) and the progress line.
 * Returns nonzero when the stage stops.
 */
static int job_ended(struct rb_pipeline *p, const struct rb_job *job, int ret,
		     const char *fault, bool *more)
{
	p->stats.jobs++;
	if (ret == -RB_EAGAIN) {
		/*
		 * A tree or a server is down: the job is put back, due in
		 * five minutes, with the reason (the kill tests print it to
		 * tell deferred from lost).
		 */
		char why[1024];

		snprintf(why, sizeof(why), "%s", rb_errmsg());
		p->stats.deferred++;
		rb_log(RB_LOG_WARN, "job.deferred", "kind", job->kind, "key",
		       job->key, "reason", why, NULL);
		if (p->force_complete)
			fprintf(stderr, "reviewbot: %s <%s> deferred: %s\n",
				job->kind, job->key, why);
		ret = rb_store_job_retry(p->st, job->id, rb_now() + 300, why);
		if (p->hooks && p->hooks->finished)
			p->hooks->finished(p, job, -RB_EAGAIN);
		*more = false;
		return ret;
	}
	if (p->hooks && p->hooks->finished) {
		int r2 = p->hooks->finished(p, job, ret);

		if (!ret)
			ret = r2;
	}
	if (ret)
		return ret;
	if (fault)
		rb_fault_point(fault);
	send_between(p);
	jobs_progress(p);
	return 0;
}

static bool stopping(const struct rb_pipeline *p)
{
	return p->stop && *p->stop;
}

/* One job at a time, on the caller's thread. */
static int jobs_serial(struct rb_pipeline *p)
{
	const char *fault = NULL;
	struct rb_job job;
	bool more = true;
	int ret;

	while (more && !stopping(p)) {
		memset(&job, 0, sizeof(job));
		ret = claim(p, &job);
		if (ret == -RB_ENOTFOUND)
			break;
		if (ret)
			return ret;
		ret = run_job(p, &job, &fault);
		ret = job_ended(p, &job, ret, fault, &more);
		rb_job_release(&job);
		if (ret)
			return ret;
	}
	if (p->progress && p->progress_at)
		rb_log_status(NULL);
	return 0;
}

/*
 * The job threads of review.parallel_series. Each slot is one thread's
 * context: a copy of the parent's with a store connection of its own (a
 * SQLite connection, as libpq's, serves one thread at a time), its own
 * MAINTAINERS cache and counters, and the parent's model, borrowed (its
 * provider holds the requests in flight to model.concurrency over every
 * thread). The review opens its own repositories (libgit2 objects are
 * per thread); the code index of the model's tools is shared under its
 * lock (review/model/model_tools.c). The parent alone claims, runs the hooks,
 * counts and sends; a slot only runs the job.
 */
struct job_slot {
	struct rb_pipeline w; /* the thread's context */
	struct rb_job job; /* the job in hand */
	struct rb_job_pool *pool; /* borrowed */
	pthread_t th;
	int ret;
	const char *fault;
	char why[1024]; /* the thread's reason for a nonzero ret */
	bool busy; /* a job in hand: its thread runs or waits to be joined */
	bool done; /* its thread is over */
};

struct rb_job_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n;
	struct job_slot slots[];
};

static void pool_free(struct rb_job_pool *pool)
{
	int i;

	if (!pool)
		return;
	for (i = 0; i < pool->n; i++) {
		rb_store_close(pool->slots[i].w.st);
		rb_maint_cache_free(pool->slots[i].w.maint);
	}
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->cond);
	free(pool);
}

/* p->pool with p->parallel slots, their connections opened once. */
static int pool_get(struct rb_pipeline *p, struct rb_job_pool **out)
{
	struct rb_job_pool *pool = p->pool;
	int i, ret = 0, n = p->parallel > 64 ? 64 : p->parallel;

	if (pool && pool->n == n) {
		*out = pool;
		return 0;
	}
	pool_free(pool);
	p->pool = NULL;
	pool = calloc(1, sizeof(*pool) + (size_t)n * sizeof(pool->slots[0]));
	if (!pool)
		return rb_err(RB_ENOMEM, "out of memory");
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->cond, NULL);
	for (i = 0; i < n && !ret; i++) {
		ret = rb_store_open_again(&pool->slots[i].w.st, p->st);
		pool->slots[i].pool = pool;
		pool->n = i + (ret ? 0 : 1);
	}
	if (ret) {
		pool_free(pool);
		return ret;
	}
	p->pool = pool;
	*out = pool;
	return 0;
}

/* The slot's context for its next job: the parent's settings, the
 * slot's own connection and cache, counters at zero. */
static void slot_ctx(struct job_slot *s, const struct rb_pipeline *p)
{
	struct rb_store *st = s->w.st;
	struct rb_maint_cache *maint = s->w.maint;

	memset(&s->w, 0, sizeof(s->w));
	s->w.cfg = p->cfg;
	s->w.st = st;
	s->w.maint = maint;
	s->w.force_complete = p->force_complete;
	s->w.owner = p->owner;
	s->w.lease = p->lease;
	s->w.cli_tree = p->cli_tree;
	s->w.outbox_override = p->outbox_override;
	s->w.templates_dir = p->templates_dir;
	s->w.replay_dir = p->replay_dir;
	s->w.record_dir = p->record_dir;
	s->w.stop = p->stop;
	s->w.model = p->model;
	s->w.model_made = true;
}

/* Adds a slot's counters to the parent's (every field is a size_t). */
static void stats_add(struct rb_pipeline_stats *to,
		      const struct rb_pipeline_stats *from)
{
	size_t *t = (size_t *)to, i;
	const size_t *f = (const size_t *)from;

	_Static_assert(sizeof(*to) % sizeof(size_t) == 0,
		       "rb_pipeline_stats holds size_t counters only");
	for (i = 0; i < sizeof(*to) / sizeof(size_t); i++)
		t[i] += f[i];
}

static void *slot_main(void *arg)
{
	struct job_slot *s = arg;

	rb_err_clear();
	s->ret = run_job(&s->w, &s->job, &s->fault);
	if (s->ret)
		snprintf(s->why, sizeof(s->why), "%s", rb_errmsg());
	pthread_mutex_lock(&s->pool->lock);
	s->done = true;
	pthread_cond_signal(&s->pool->cond);
	pthread_mutex_unlock(&s->pool->lock);
	return NULL;
}

/* Review and incomplete jobs run on threads; a feedback job runs on the
 * parent's, before the next claim: a verdict queued before a review is
 * judged before that review starts, as one at a time. */
static bool threaded(const struct rb_job *job)
{
	return !strcmp(job->kind, "review") || !strcmp(job->kind, "incomplete");
}

/*
 * A later version of a series (assembly linked it, or it says v2 or
 * more) waits for the jobs in hand: its review reads what the review
 * of the version before it stored (the parts unchanged since, the
 * findings raised there), and that review may be one of them. Its
 * store lookup failing is no reason to wait.
 */
static bool waits_for_hand(struct rb_pipeline *p, const struct rb_job *job)
{
	struct rb_series_view v = { 0 };
	bool later;

	if (strcmp(job->kind, "review") ||
	    rb_series_view_open(&v, p->st, job->key, rb_series_max_size(p->cfg),
				0)) {
		rb_series_view_release(&v);
		rb_err_clear();
		return false;
	}
	later = v.row.version > 1 || (v.row.previous && *v.row.previous);
	rb_series_view_release(&v);
	return later;
}

/* Takes a finished slot's job back on the parent's thread. */
static int slot_reap(struct rb_pipeline *p, struct job_slot *s, bool *more)
{
	int ret;

	pthread_join(s->th, NULL);
	stats_add(&p->stats, &s->w.stats);
	memset(&s->w.stats, 0, sizeof(s->w.stats));
	ret = s->ret;
	if (ret)
		rb_err(-ret, "%s", s->why);
	ret = job_ended(p, &s->job, ret, s->fault, more);
	rb_job_release(&s->job);
	s->busy = s->done = false;
	return ret;
}

/*
 * Start @job on a free slot of @pool: true when a thread took it; false
 * when it runs here (feedback, no free slot, or no threads any more).
 */
static bool slot_start(struct rb_pipeline *p, struct rb_job_pool *pool,
		       const struct rb_job *job, bool *threads)
{
	struct job_slot *s = NULL;
	int i;

	if (!threaded(job) || !*threads)
		return false;
	/* The threads borrow the parent's model: made first. */
	if (!p->model_made && rb_review_model_prepare(p)) {
		rb_log(RB_LOG_WARN, "jobs.one_at_a_time", "reason", rb_errmsg(),
		       NULL);
		rb_err_clear();
		*threads = false;
		return false;
	}
	for (i = 0; i < pool->n; i++)
		if (!pool->slots[i].busy) {
			s = &pool->slots[i];
			break;
		}
	if (!s)
		return false;
	slot_ctx(s, p);
	s->job = *job;
	s->busy = true;
	s->done = false;
	if (!pthread_create(&s->th, NULL, slot_main, s))
		return true;
	s->busy = false;
	return false;
}

/*
 * Wait until a thread of @pool has ended, then reap each that has:
 * @running counts them off; the first error is returned.
 */
static int slots_reap(struct rb_pipeline *p, struct rb_job_pool *pool,
		      bool *more, int *running)
{
	int i, ret = 0;

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		for (i = 0; i < pool->n; i++)
			if (pool->slots[i].busy && pool->slots[i].done)
				break;
		if (i < pool->n)
			break;
		pthread_cond_wait(&pool->cond, &pool->lock);
	}
	pthread_mutex_unlock(&pool->lock);
	for (i = 0; i < pool->n; i++) {
		struct job_slot *s = &pool->slots[i];
		bool done;
		int r;

		pthread_mutex_lock(&pool->lock);
		done = s->busy && s->done;
		pthread_mutex_unlock(&pool->lock);
		if (!done)
			continue;
		r = slot_reap(p, s, more);
		(*running)--;
		if (r && !ret)
			ret = r;
	}
	return ret;
}

/*
 * Up to p->parallel jobs at once, claimed oldest first (the order
 * assembly queued them, bot/stages/assemble.c), each mail sent as soon
 * as its job ends. A job a worker died with runs alone, after the jobs
 * in hand. A stop, a job put back or a store failure claims no more;
 * the jobs in hand finish first.
 */
static int jobs_parallel(struct rb_pipeline *p)
{
	struct rb_job_pool *pool = NULL;
	struct rb_job isolated = { 0 }; /* claimed; runs once the rest end */
	struct rb_job held = { 0 }; /* claimed; starts once the rest end */
	bool more = true, threads = true;
	int r, ret, running = 0;

	ret = pool_get(p, &pool);
	if (ret)
		return ret;
	for (;;) {
		while (!ret && running < pool->n && !isolated.id &&
		       (held.id ? !running : more && !stopping(p))) {
			const char *fault = NULL;
			struct rb_job job = { 0 };

			if (held.id) {
				job = held;
				memset(&held, 0, sizeof(held));
				r = 0;
			} else {
				r = claim(p, &job);
				if (!r && running && waits_for_hand(p, &job)) {
					held = job;
					break;
				}
			}
			if (r == -RB_ENOTFOUND) {
				more = false;
				break;
			}
			if (r) {
				ret = r;
				break;
			}
			/*
			 * A job a worker died with runs alone: its next death
			 * takes no other series with it (the claim put it
			 * after every job none died with).
			 */
			if (job.lost > 0) {
				isolated = job;
				break;
			}
			if (slot_start(p, pool, &job, &threads)) {
				running++;
				continue;
			}
			/* Feedback, or no thread: here, now. */
			r = run_job(p, &job, &fault);
			r = job_ended(p, &job, r, fault, &more);
			rb_job_release(&job);
			if (r)
				ret = r;
		}
		if (!running && held.id) {
			if (!ret)
				continue;
			/* Claimed, so run: here, as the isolated one is. */
			isolated = held;
			memset(&held, 0, sizeof(held));
		}
		if (!running && isolated.id) {
			const char *fault = NULL;

			r = run_job(p, &isolated, &fault);
			r = job_ended(p, &isolated, r, fault, &more);
			rb_job_release(&isolated);
			if (r && !ret)
				ret = r;
			continue;
		}
		if (!running)
			break;
		r = slots_reap(p, pool, &more, &running);
		if (r && !ret)
			ret = r;
	}
	if (p->progress && p->progress_at)
		rb_log_status(NULL);
	return ret;
}

int rb_pipeline_jobs(struct rb_pipeline *p)
{
	if (p->parallel > 1)
		return jobs_parallel(p);
	return jobs_serial(p);
}

int rb_pipeline_step(struct rb_pipeline *p, unsigned roles)
{
	static const struct {
		unsigned role;
		int (*run)(struct rb_pipeline *p);
	} stages[] = {
		{ RB_ROLE_INGEST, rb_pipeline_parse },
		{ RB_ROLE_INGEST, rb_pipeline_assemble },
		/* A tree fetched now is the base of the jobs after it. */
		{ RB_ROLE_WORKER, rb_trees_fetch_step },
		{ RB_ROLE_WORKER, rb_pipeline_jobs },
		/* After the jobs: a series reviewed now is decided now. */
		{ RB_ROLE_WORKER, rb_ledger_step },
		{ RB_ROLE_SENDER, rb_outbox_send },
	};
	size_t i;
	int ret = 0;

	p->send_each = (roles & RB_ROLE_WORKER) && (roles & RB_ROLE_SENDER);
	for (i = 0; i < sizeof(stages) / sizeof(stages[0]) && !ret; i++) {
		if (!(stages[i].role & roles) || (p->stop && *p->stop))
			continue;
		ret = stages[i].run(p);
	}
	p->send_each = false;
	return ret;
}

void rb_pipeline_release(struct rb_pipeline *p)
{
	rb_sender_free(p->sender);
	p->sender = NULL;
	rb_maint_cache_free(p->maint);
	p->maint = NULL;
	rb_model_free(p->model);
	p->model = NULL;
	p->model_made = false;
	pool_free(p->pool);
	p->pool = NULL;
	/* A reloaded config: the stamps in the clones decide again. */
	free(p->tree_tried);
	p->tree_tried = NULL;
	p->n_tree_tried = 0;
}
