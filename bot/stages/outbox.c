// SPDX-License-Identifier: GPL-2.0-only
/*
 * outbox.c - the send stage: mail stored in the outbox goes to the sender
 * (SMTP, or the Maildir outbox by default), at least once and byte for
 * byte the same each time.
 *
 * Each mail moves queued -> sending -> sent | failed, each move committed
 * before the next step, so that an intent is stored before anything that
 * cannot be undone (STYLE.md, durability). A mail left in 'sending' by a
 * crash is sent again with the same bytes and the same Message-ID, which
 * public-inbox and most MTAs drop as a duplicate (DESIGN.md fact 7).
 * A 4xx reply is retried with exponential backoff; a 5xx reply ends in
 * 'failed' with the server's words, shown by `reviewbot stats`.
 *
 * Rate limits (DESIGN.md fact 6), each over the last hour:
 *  - rate_per_hour: all mail. A mail over it stops the pass.
 *  - rate_per_recipient_hour: each person a poster chose, the mail's
 *    author (its To:) and the people of the patch's own To/Cc. This is
 *    what keeps a flood of patches under one name, or naming one
 *    person, from mailing that person more often.
 *  - rate_per_list_hour: each mailing list.
 * Maintainers (M:/R: of the touched sections, from the trusted tree)
 * and the admins count towards rate_per_hour only: every mm review
 * Cc's the same maintainer, and a limit on her would be a limit on the
 * whole list (issue 38). Who is which is decided from the trusted tree
 * and the config (bot/stages/policy.c), never from what a mail says,
 * and stored with the mail (outbox_rcpts), so that the check is a few
 * index ranges whatever the size of the outbox. A mail over a person's
 * or a list's limit waits alone, so that it cannot hold up everyone
 * else's reviews.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/config.h"
#include "util/fault.h"
#include "bot/stages/outbox.h"
#include "bot/stages/stage.h"
#include "bot/store/store.h"
#include "mail/sender.h"
#include "mail/sender_maildir.h"
#include "mail/sender_smtp.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define MAX_ATTEMPTS 12

static int make_sender(struct rb_pipeline *p)
{
	const struct rb_config *c = p->cfg;

	if (p->sender)
		return 0;
	if (!c->smtp.url)
		return rb_sender_maildir_new(
			&p->sender, p->outbox_override ? p->outbox_override :
							 c->outbox_maildir);
	/* smtp.*: the sender's own options, read in place (bot/config.h). */
	return rb_sender_smtp_new(&p->sender, &c->smtp);
}

/* Seconds to wait before attempt @n + 1: 1 min, doubling, at most 6 h. */
static int64_t backoff(int n)
{
	int64_t s = 60;

	while (--n > 0 && s < 6 * 3600)
		s *= 2;
	return s < 6 * 3600 ? s : 6 * 3600;
}

/* Splits "a\nb\nc" in place into an array of pointers. */
static size_t split_rcpts(char *s, const char **v, size_t max)
{
	size_t n = 0;
	char *nl;

	while (s && *s && n < max) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		if (*s)
			v[n++] = s;
		s = nl ? nl + 1 : NULL;
	}
	return n;
}

enum limit { LIMIT_NONE, LIMIT_GLOBAL, LIMIT_RECIPIENT, LIMIT_LIST };

/*
 * Which rate limit says "not now" to mail @message_id, if any; *@who
 * gets the counted address (its key, malloc'd) for LIMIT_RECIPIENT and
 * LIMIT_LIST. A failed count is an error: a limit that cannot be checked
 * holds.
 */
static int rate_limited(struct rb_pipeline *p, const char *message_id,
			enum limit *out, char **who)
{
	const struct rb_config *c = p->cfg;
	int64_t since = rb_now() - 3600, count = 0;
	struct rb_outrate *v = NULL;
	size_t n = 0, i;
	int ret;

	*out = LIMIT_NONE;
	ret = rb_store_outbox_sent_since(p->st, RB_RATE_ALL, NULL, since,
					 &count);
	if (ret)
		return ret;
	if (c->rate_per_hour > 0 && count >= c->rate_per_hour) {
		*out = LIMIT_GLOBAL;
		return 0;
	}
	ret = rb_store_outbox_rates(p->st, message_id, since, &v, &n);
	for (i = 0; !ret && i < n; i++) {
		bool list = v[i].kind == RB_RATE_LIST;
		int max = list ? c->rate_per_list_hour :
				 c->rate_per_recipient_hour;

		if (max <= 0 || v[i].sent < max)
			continue;
		*out = list ? LIMIT_LIST : LIMIT_RECIPIENT;
		*who = v[i].addr;
		v[i].addr = NULL;
		break;
	}
	rb_outrates_free(v, n);
	return ret;
}

/*
 * Claims the next due mail into @o in its own transaction; -RB_ENOTFOUND
 * when none is due.
 */
static int claim_next(struct rb_pipeline *p, struct rb_outrow *o)
{
	int ret;

	memset(o, 0, sizeof(*o));
	ret = rb_store_begin(p->st);
	if (ret)
		return ret;
	ret = rb_store_outbox_next(p->st, o);
	if (!ret)
		ret = rb_store_commit(p->st);
	if (ret) {
		rb_store_rollback(p->st);
		rb_outrow_release(o);
	}
	return ret;
}

/* The mail and its rate rows, in one transaction. */
static int mark_sent(struct rb_pipeline *p, const char *message_id)
{
	int ret = rb_store_begin(p->st);

	if (ret)
		return ret;
	ret = rb_store_outbox_sent(p->st, message_id);
	if (!ret)
		ret = rb_store_commit(p->st);
	if (ret)
		rb_store_rollback(p->st);
	return ret;
}

/*
 * Sends claimed mail @o, or postpones it under a rate limit, and records
 * the outcome. *@stop is set when the rest of the queue must wait too:
 * the global limit, a server that is down, a bad sender config.
 */
static int send_one(struct rb_pipeline *p, const struct rb_outrow *o,
		    bool *stop)
{
	const char *rcpts[1024];
	char *who = NULL;
	enum limit limit;
	size_t n;
	int ret;

	n = split_rcpts(o->rcpts, rcpts, 1024);
	ret = rate_limited(p, o->message_id, &limit, &who);
	if (ret) {
		/* Given back, as under a limit; the error ends the pass. */
		*stop = true;
		rb_store_outbox_postpone(p->st, o->message_id, rb_now() + 300,
					 "rate limit not checked");
		return ret;
	}
	if (limit == LIMIT_GLOBAL) {
		/* Nothing may go now: the rest waits too. */
		*stop = true;
		ret = rb_store_outbox_postpone(p->st, o->message_id,
					       rb_now() + 300,
					       "rate limit reached");
		rb_log(RB_LOG_INFO, "send.rate_limited", "msgid", o->message_id,
		       NULL);
		return ret;
	}
	if (limit == LIMIT_RECIPIENT || limit == LIMIT_LIST) {
		/*
		 * Only this mail waits: the next one in the queue may go to
		 * other people (it is due, this one is not).
		 */
		ret = rb_store_outbox_postpone(
			p->st, o->message_id, rb_now() + 300,
			limit == LIMIT_LIST ?
				"rate limit reached for a mailing list" :
				"rate limit reached for a recipient");
		rb_log(RB_LOG_INFO, "send.rate_limited", "msgid", o->message_id,
		       limit == LIMIT_LIST ? "list" : "rcpt", who, NULL);
		free(who);
		return ret;
	}
	ret = rb_sender_send(p->sender, o->env_from, rcpts, n, o->bytes,
			     o->len);
	if (!ret) {
		/* Accepted: a kill here means a byte-identical resend. */
		rb_fault_point("send");
		ret = mark_sent(p, o->message_id);
		p->stats.sent++;
		rb_log(RB_LOG_INFO, "send.sent", "msgid", o->message_id,
		       "sender", p->sender->ops->name, NULL);
	} else if (ret == -RB_EAGAIN && o->attempts < MAX_ATTEMPTS) {
		rb_log(RB_LOG_WARN, "send.retry", "msgid", o->message_id,
		       "reason", rb_errmsg(), NULL);
		/* The server is down: try the rest later too. */
		*stop = true;
		ret = rb_store_outbox_failed(p->st, o->message_id, false,
					     rb_now() + backoff(o->attempts),
					     rb_errmsg());
	} else if (ret == -RB_ECONFIG) {
		char why[1024];

		snprintf(why, sizeof(why), "%s", rb_errmsg());
		rb_store_outbox_failed(p->st, o->message_id, false,
				       rb_now() + 600, why);
		*stop = true;
		ret = rb_err(RB_ECONFIG, "sending: %s", why);
	} else {
		p->stats.send_failed++;
		rb_log(RB_LOG_ERROR, "send.failed", "msgid", o->message_id,
		       "reason", rb_errmsg(), NULL);
		ret = rb_store_outbox_failed(p->st, o->message_id, true,
					     rb_now(), rb_errmsg());
	}
	return ret;
}

int rb_outbox_send(struct rb_pipeline *p)
{
	const struct rb_config *c = p->cfg;
	struct rb_outrow o;
	bool stop = false;
	int ret;

	if (c->kill_switch_file && access(c->kill_switch_file, F_OK) == 0) {
		rb_log(RB_LOG_WARN, "send.kill_switch", "file",
		       c->kill_switch_file, NULL);
		return 0;
	}
	ret = make_sender(p);
	if (ret)
		return ret;
	if (!p->recovered) {
		ret = rb_store_outbox_recover(p->st);
		if (ret)
			return ret;
		p->recovered = true;
	}
	while (!stop) {
		ret = claim_next(p, &o);
		if (ret == -RB_ENOTFOUND)
			return 0;
		if (ret)
			return ret;
		ret = send_one(p, &o, &stop);
		rb_outrow_release(&o);
		if (ret)
			return ret;
	}
	return 0;
}
