// SPDX-License-Identifier: GPL-2.0-only
/*
 * reply.c - one reply composed and put in the outbox. See reply.h.
 */
#include <stdlib.h>
#include <string.h>

#include "bot/stages/policy.h"
#include "bot/stages/reply.h"
#include "bot/stages/stage.h"
#include "bot/store/store.h"
#include "mail/addr.h"
#include "mail/compose.h"
#include "mail/message.h"
#include "util/err.h"
#include "util/banned.h"

void rb_reply_mail_init(struct rb_reply_mail *m, size_t max_bytes)
{
	memset(m, 0, sizeof(*m));
	rb_buf_init(&m->bytes, max_bytes);
	rb_buf_init(&m->rcpts, 1u << 20);
	rb_buf_init(&m->lists, 1u << 20);
	rb_buf_init(&m->trusted, 1u << 20);
}

void rb_reply_mail_release(struct rb_reply_mail *m)
{
	rb_buf_release(&m->bytes);
	rb_buf_release(&m->rcpts);
	rb_buf_release(&m->lists);
	rb_buf_release(&m->trusted);
	free(m->message_id);
	m->message_id = NULL;
	free(m->env_from);
	m->env_from = NULL;
}

/* One address a line into @b. */
static int lines(struct rb_buf *b, char *const *v, size_t n)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < n; i++)
		ret = rb_buf_printf(b, "%s%s", i ? "\n" : "", v[i]);
	return ret;
}

int rb_reply_compose(struct rb_reply_mail *out, struct rb_reply *reply,
		     const struct rb_message *parent,
		     const struct rb_recipients *r)
{
	const char **refs;
	char **env = NULL;
	size_t i, n_env = 0;
	int ret;

	refs = calloc(parent->n_references + 1, sizeof(*refs));
	if (!refs)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < parent->n_references; i++)
		refs[i] = parent->references[i];
	refs[i] = parent->message_id;
	if (r) {
		reply->to = (const char *const *)r->to;
		reply->n_to = r->n_to;
		reply->cc = (const char *const *)r->cc;
		reply->n_cc = r->n_cc;
	}
	reply->subject = parent->subject_raw ? parent->subject_raw : "";
	reply->in_reply_to = parent->message_id;
	reply->references = refs;
	reply->n_references = parent->n_references + 1;
	reply->date = rb_now();
	ret = rb_compose(&out->bytes, &out->message_id, reply);
	if (!ret)
		ret = rb_compose_envelope(&out->env_from, &env, &n_env, reply);
	if (!ret)
		ret = lines(&out->rcpts, env, n_env);
	if (!ret && r)
		ret = lines(&out->lists, r->lists, r->n_lists);
	if (!ret && r)
		ret = lines(&out->trusted, r->trusted, r->n_trusted);
	if (env)
		rb_addr_list_free(env, n_env);
	reply->references = NULL;
	reply->n_references = 0;
	free(refs);
	return ret;
}

int rb_reply_queue(struct rb_pipeline *p, const struct rb_reply_mail *mail,
		   struct rb_outmail *om)
{
	int ret;

	om->message_id = mail->message_id;
	om->env_from = mail->env_from;
	om->rcpts = mail->rcpts.ptr;
	om->bytes = mail->bytes.ptr;
	om->len = mail->bytes.len;
	ret = rb_store_add_outmail(p->st, om);
	if (!ret)
		p->stats.queued++;
	return ret;
}
