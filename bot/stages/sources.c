// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/config.h"
#include "bot/stages/pipeline.h"
#include "bot/stages/sources.h"
#include "bot/store/store.h"
#include "mail/source.h"
#include "mail/source_file.h"
#include "mail/source_imap.h"
#include "mail/source_nntp.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

struct rb_sources {
	struct rb_source **v;
	size_t n;
	int poll_seconds; /* the shortest */
	struct rb_store *st; /* borrowed */
	struct rb_pipeline *p; /* borrowed, during a poll */
	bool in_batch; /* between env_begin and env_commit */
};

/*
 * Each message is committed before the source moves on; one the store
 * refuses (-RB_EINVAL: the engine would not take a value of it, db.h) is
 * quarantined with the reason instead, so that the source moves past it
 * rather than fetching it again forever. A store that fails (-RB_ESTORE)
 * or a server that is down stops the poll: the message is fetched again
 * next time.
 */
static int env_deliver_prepared(const char *raw, size_t len, const char *origin,
				void *prepared, void *payload)
{
	struct rb_sources *s = payload;
	char why[1024];
	int ret;

	if (s->in_batch) {
		ret = rb_store_savepoint(s->st);
		if (ret) {
			rb_pipeline_prepared_free(prepared);
			return ret;
		}
	}
	ret = rb_pipeline_ingest_prepared(s->p, raw, len, origin, prepared);
	if (s->in_batch) {
		int r2 = ret == -RB_EINVAL ? rb_store_rollback_to(s->st) :
					     rb_store_release(s->st);

		if (r2 && (!ret || ret == -RB_EINVAL))
			return r2;
	}
	if (ret != -RB_EINVAL)
		return ret;
	snprintf(why, sizeof(why), "%s: the store refused it: %s; quarantined",
		 origin, rb_errmsg());
	rb_log(RB_LOG_WARN, "source.quarantined", "origin", origin, "reason",
	       why, NULL);
	return rb_store_add_bad(s->st, origin, why, raw, raw ? len : 0);
}

static int env_deliver(const char *raw, size_t len, const char *origin,
		       void *payload)
{
	return env_deliver_prepared(raw, len, origin, NULL, payload);
}

/* The parse, on a source's fetching thread (source.h). */
static void *env_prepare(const char *raw, size_t len, void *payload)
{
	const struct rb_sources *s = payload;

	return rb_pipeline_prepare(s->p, raw, len);
}

static void env_release(void *prepared, void *payload)
{
	(void)payload;
	rb_pipeline_prepared_free(prepared);
}

static int env_get(const char *source, const char *mailbox, int64_t *validity,
		   int64_t *last, void *payload)
{
	struct rb_sources *s = payload;

	return rb_store_source_get(s->st, source, mailbox, validity, last);
}

static int env_set(const char *source, const char *mailbox, int64_t validity,
		   int64_t last, void *payload)
{
	struct rb_sources *s = payload;

	return rb_store_source_set(s->st, source, mailbox, validity, last);
}

/*
 * A batch of a source (source.h): one transaction for its messages and its
 * high-water mark. Each message sits in a savepoint (env_deliver), so that
 * one the store refuses is taken back and quarantined alone.
 */
static int env_begin(void *payload)
{
	struct rb_sources *s = payload;
	int ret = rb_store_begin(s->st);

	s->in_batch = !ret;
	return ret;
}

static int env_commit(void *payload)
{
	struct rb_sources *s = payload;
	int ret = rb_store_commit(s->st);

	if (ret)
		rb_store_rollback(s->st);
	s->in_batch = false;
	return ret;
}

static void env_rollback(void *payload)
{
	struct rb_sources *s = payload;

	rb_store_rollback(s->st);
	s->in_batch = false;
}

size_t rb_sources_count(const struct rb_sources *s)
{
	return s ? s->n : 0;
}

void rb_sources_free(struct rb_sources *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		rb_source_free(s->v[i]);
	free(s->v);
	free(s);
}

int rb_sources_new(struct rb_sources **out, const struct rb_config *cfg,
		   struct rb_store *st)
{
	struct rb_sources *s = calloc(1, sizeof(*s));
	size_t i;
	int ret = 0;

	if (!s)
		return rb_err(RB_ENOMEM, "out of memory");
	s->st = st;
	s->poll_seconds = 300;
	s->v = calloc(cfg->n_sources + 1, sizeof(*s->v));
	if (!s->v) {
		free(s);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	for (i = 0; i < cfg->n_sources && !ret; i++) {
		const struct rb_source_config *sc = &cfg->sources[i];
		struct rb_source_opts o = { 0 };

		o.name = sc->name;
		o.path = sc->type == RB_SRC_STDIN ? "-" : sc->path;
		o.url = sc->url;
		o.user = sc->user;
		o.password = sc->password;
		o.tls_verify = sc->tls_verify;
		o.starttls = sc->starttls;
		o.ca_file = sc->ca_file;
		o.poll_seconds = sc->poll_seconds;
		o.max_size = cfg->max_message_size;
		o.start_all = sc->start_all;
		if (sc->type == RB_SRC_IMAP) {
			o.mailboxes = (const char *const *)sc->mailboxes;
			o.n_mailboxes = sc->n_mailboxes;
			ret = rb_source_imap_new(&s->v[s->n], &o);
		} else if (sc->type == RB_SRC_NNTP) {
			o.mailboxes = (const char *const *)sc->groups;
			o.n_mailboxes = sc->n_groups;
			ret = rb_source_nntp_new(&s->v[s->n], &o);
		} else {
			ret = rb_source_file_new(&s->v[s->n], &o);
		}
		if (!ret) {
			s->n++;
			if (sc->poll_seconds > 0 &&
			    sc->poll_seconds < s->poll_seconds)
				s->poll_seconds = sc->poll_seconds;
		}
	}
	if (ret) {
		rb_sources_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int rb_sources_poll(struct rb_sources *s, struct rb_pipeline *p)
{
	struct rb_source_env env = {
		.deliver = env_deliver,
		.get_state = env_get,
		.set_state = env_set,
		.payload = s,
		.begin = env_begin,
		.commit = env_commit,
		.rollback = env_rollback,
		.prepare = env_prepare,
		.deliver_prepared = env_deliver_prepared,
		.release = env_release,
	};
	size_t i;
	int ret, first = 0;

	s->p = p;
	for (i = 0; i < s->n; i++) {
		ret = s->v[i]->ops->poll(s->v[i], &env);
		if (ret) {
			rb_log(RB_LOG_WARN, "source.poll_failed", "source",
			       s->v[i]->name, "reason", rb_errmsg(), NULL);
			if (!first)
				first = ret;
		}
	}
	rb_pipeline_progress_done(p);
	s->p = NULL;
	return first;
}

void rb_sources_wait(struct rb_sources *s, int max_seconds,
		     volatile sig_atomic_t *stop, volatile sig_atomic_t *reload)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int secs = s ? s->poll_seconds : 30;
	size_t k;
	int i;

	if (max_seconds > 0 && max_seconds < secs)
		secs = max_seconds;
	/* IDLE on the first network source wakes us early; the others are
	 * polled at the shortest interval. */
	for (k = 0; s && k < s->n; k++) {
		if (strcmp(s->v[k]->ops->name, "file")) {
			s->v[k]->ops->wait(s->v[k], secs * 1000,
					   (volatile const int *)stop);
			return;
		}
	}
	for (i = 0; i < secs * 10 && !*stop && !*reload; i++)
		nanosleep(&ts, NULL);
}
