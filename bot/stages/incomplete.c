// SPDX-License-Identifier: GPL-2.0-only
/*
 * incomplete.c - the "incomplete" job. See incomplete.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/config.h"
#include "bot/stages/incomplete.h"
#include "bot/stages/series_view.h"
#include "bot/stages/stage.h"
#include "bot/store/store.h"
#include "mail/addr.h"
#include "mail/inbox.h"
#include "mail/message.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

/* A fetch that fails this many times is given up: the notice goes out. */
#define FETCH_TRIES 3

struct inc_ctx {
	struct rb_pipeline *p;
	const struct rb_job *job;
	/* The series and its parts ([0] the cover, NULL where missing). */
	struct rb_series_view view;
	const struct rb_message *first; /* the first part we have */
	char *author; /* the series' author address (borrowed from row) */
	size_t n_fetched; /* missing parts found and stored */
};

static void inc_release(struct inc_ctx *c)
{
	rb_series_view_release(&c->view);
}

static int load(struct inc_ctx *c)
{
	int ret;

	ret = rb_series_view_load(&c->view, c->p->st, c->job->key,
				  rb_series_max_size(c->p->cfg), 0);
	if (ret)
		return ret;
	c->first = c->view.first;
	if (!c->first)
		return rb_err(RB_EINVAL, "series <%s>: no part parses",
			      c->job->key);
	c->author = c->view.row.author ? c->view.row.author :
					 c->first->from.addr;
	return 0;
}

/* Ends the job without a mail, saying why on the series. */
static int end_quietly(struct inc_ctx *c, const char *state, const char *detail)
{
	struct rb_store *st = c->p->st;
	int ret = rb_store_begin(st);

	if (ret)
		return ret;
	ret = rb_store_set_series_state(st, c->view.row.id, state, detail);
	if (!ret)
		ret = rb_store_job_done_by(st, c->job->id,
					   c->p->owner ? c->p->owner : "local",
					   NULL);
	if (ret) {
		rb_store_rollback(st);
		return ret == -RB_ELOCKED ? 0 : ret;
	}
	rb_log(RB_LOG_INFO, "incomplete.quiet", "series", c->view.row.id,
	       "state", state, "detail", detail, NULL);
	return rb_store_commit(st);
}

/*
 * Is @list_id on the config's allow-list (any, when there is none)? A
 * fetched part must have been sent to a list the bot reads: an archive
 * such as lore holds every list, and a poster can send a part "of" any
 * series to any list it archives (issue 33).
 */
static bool list_allowed(const struct rb_config *cfg, const char *list_id)
{
	size_t i;

	if (!cfg->n_list_ids)
		return true;
	for (i = 0; list_id && i < cfg->n_list_ids; i++)
		if (!strcasecmp(list_id, cfg->list_ids[i]))
			return true;
	return false;
}

/* One message of the fetched thread: a missing part of ours is stored. */
static int fetched_one(const char *raw, size_t len, const char *origin,
		       void *payload)
{
	struct inc_ctx *c = payload;
	struct rb_parse_opts opts = RB_PARSE_OPTS_INIT;
	struct rb_message *m = NULL;
	const struct rb_subject *s;
	int ret = 0;

	if (!raw)
		return 0; /* over the size cap: not a part we can review */
	opts.max_size = rb_series_max_size(c->p->cfg);
	if (rb_message_parse(&m, raw, len, &opts))
		return 0; /* a bad message in someone's thread: not ours */
	s = &m->subject;
	/*
	 * A part of this series: the same author, version and count, an
	 * index we miss, a patch, sent to a list on the allow-list (the
	 * same rule as mail from the list). The thread may hold other people's
	 * series (a v2 in reply to v1, a fix posted as a reply): those are
	 * not stored, so nothing that never reached our list is reviewed.
	 */
	if (s->is_patch && !s->is_reply && m->patch &&
	    s->total == c->view.row.total &&
	    s->version == c->view.row.version && s->index > 0 &&
	    s->index <= c->view.row.total && !c->view.row.msgids[s->index] &&
	    !c->view.msgs[s->index] && m->from.addr && c->author &&
	    rb_addr_same(m->from.addr, c->author) &&
	    list_allowed(c->p->cfg, m->list_id) && m->message_id) {
		ret = rb_store_add_raw(c->p->st, m->message_id, raw, len,
				       origin);
		if (!ret) {
			c->n_fetched++;
			/* Found once: a second copy in the thread is skipped. */
			c->view.msgs[s->index] = m;
			m = NULL;
		} else if (ret == -RB_EEXISTS) {
			ret = 0; /* stored already, from the list */
		}
	}
	rb_message_free(m);
	return ret;
}

/*
 * Fetches the thread and stores the missing parts found. 0 with
 * c->n_fetched set; -RB_EAGAIN when the inbox cannot be reached.
 */
static int fetch_missing(struct inc_ctx *c)
{
	const struct rb_config *cfg = c->p->cfg;
	struct rb_inbox_opts o = RB_INBOX_OPTS_INIT;
	int ret;

	o.base_url = cfg->fetch_url;
	o.timeout_seconds = cfg->fetch_timeout_seconds;
	o.max_message = rb_series_max_size(c->p->cfg);
	ret = rb_inbox_fetch_thread(&o, c->first->message_id, fetched_one, c);
	if (ret == -RB_ENOTFOUND) {
		rb_log(RB_LOG_INFO, "incomplete.fetch", "series",
		       c->view.row.id, "found", "0", "reason", rb_errmsg(),
		       NULL);
		return 0;
	}
	if (ret)
		return ret;
	{
		char n[32];

		snprintf(n, sizeof(n), "%zu", c->n_fetched);
		rb_log(RB_LOG_INFO, "incomplete.fetch", "series",
		       c->view.row.id, "found", n, "url", cfg->fetch_url, NULL);
	}
	return 0;
}

int rb_incomplete_job(struct rb_pipeline *p, const struct rb_job *job)
{
	struct inc_ctx c = { .p = p, .job = job };
	char detail[256];
	int ret;

	ret = load(&c);
	if (ret)
		goto out;
	if (!p->cfg->review_stable && rb_subject_is_stable(&c.first->subject)) {
		ret = end_quietly(&c, "skipped",
				  "a stable review series: not reviewed "
				  "(series.review_stable)");
		goto out;
	}
	if (p->cfg->fetch_url && c.view.n_missing) {
		ret = fetch_missing(&c);
		if (ret == -RB_EAGAIN && job->attempts < FETCH_TRIES)
			goto out; /* the inbox is down: try again later */
		if (ret == -RB_EAGAIN) {
			rb_log(RB_LOG_WARN, "incomplete.fetch_failed", "series",
			       c.view.row.id, "reason", rb_errmsg(), NULL);
			ret = 0;
		}
		if (ret)
			goto out;
		if (c.n_fetched == c.view.n_missing) {
			/* Parse and assemble queue the review; no notice. */
			snprintf(detail, sizeof(detail),
				 "%zu missing parts fetched from %s",
				 c.n_fetched, p->cfg->fetch_url);
			ret = end_quietly(&c, "waiting", detail);
			goto out;
		}
	}
	inc_release(&c);
	return RB_JOB_NEXT; /* the review stage decides */
out:
	inc_release(&c);
	return ret;
}
