// SPDX-License-Identifier: GPL-2.0-only
/*
 * feedback.c - verdicts from replies to our reviews. See feedback.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/config.h"
#include "bot/fault.h"
#include "bot/feedback.h"
#include "bot/policy.h"
#include "bot/stage.h"
#include "bot/store.h"
#include "mail/addr.h"
#include "mail/compose.h"
#include "mail/dkim.h"
#include "mail/message.h"
#include "mail/verdict.h"
#include "review/findings.h"
#include "review/maintainers.h"
#include "review/render.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#ifndef RB_TEMPLATES_DIR
#define RB_TEMPLATES_DIR "templates"
#endif

#define EXEC(st, sql, ...)                                       \
	({                                                       \
		struct rb_dbv _p[] = { __VA_ARGS__ };            \
		(st)->db->ops->exec((st)->db, (sql), _p,         \
				    sizeof(_p) / sizeof(_p[0])); \
	})

static char *dupv(const struct rb_dbv *v)
{
	if (v->t == RB_DBT_NULL)
		return NULL;
	if (v->t == RB_DBT_INT) {
		char tmp[32];

		snprintf(tmp, sizeof(tmp), "%lld", (long long)v->i);
		return strdup(tmp);
	}
	return strndup(v->s ? v->s : "", v->len);
}

/* --- the replies to look at --- */

struct pending {
	char **ids;
	size_t n;
};

static int pending_row(const struct rb_dbrow *row, void *payload)
{
	struct pending *l = payload;
	char **v = realloc(l->ids, (l->n + 1) * sizeof(*v));

	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	l->ids = v;
	l->ids[l->n] = dupv(&row->v[0]);
	if (!l->ids[l->n])
		return rb_err(RB_ENOMEM, "out of memory");
	l->n++;
	return 0;
}

/* One reply being judged. */
struct reply_ctx {
	struct rb_pipeline *p;
	const char *msgid;
	struct rb_msgrow raw;
	struct rb_message *m;
	char *review; /* our review's Message-ID, as stored */
	char *series_id;
	struct rb_series_row row;
	struct rb_message **parts; /* [row.total + 1] */
	struct rb_maint *maint_index;
	struct rb_maint_result *maint;
	struct rb_effective_policy pol;
	bool have_pol;
	struct rb_verdicts verdicts;
	const char *state; /* feedback.state */
	char reason[512]; /* why refused, or "" */
	size_t n_stored; /* authorised verdicts stored */
};

static void reply_release(struct reply_ctx *c)
{
	int i;

	rb_msgrow_release(&c->raw);
	rb_message_free(c->m);
	free(c->review);
	free(c->series_id);
	for (i = 0; c->parts && i <= c->row.total; i++)
		rb_message_free(c->parts[i]);
	free(c->parts);
	rb_series_row_release(&c->row);
	rb_maint_result_free(c->maint);
	rb_maint_free(c->maint_index);
	if (c->have_pol)
		rb_effective_policy_release(&c->pol);
	rb_verdicts_release(&c->verdicts);
}

struct two_text {
	char *a, *b;
};

static int two_text_row(const struct rb_dbrow *row, void *payload)
{
	struct two_text *t = payload;

	t->a = dupv(&row->v[0]);
	t->b = dupv(&row->v[1]);
	return 1;
}

/* Is @id (bare, as messages hold it) one of our reviews? */
static int find_review(struct reply_ctx *c, const char *id)
{
	struct rb_buf br = RB_BUF_INIT(4096);
	struct two_text t = { 0 };
	int ret;

	if (!id || !*id)
		return 0;
	ret = rb_buf_printf(&br, "<%s>", id);
	if (!ret) {
		struct rb_dbv p[] = { RB_DB_TEXT(br.ptr), RB_DB_TEXT(id) };

		ret = c->p->st->db->ops->query(
			c->p->st->db,
			"SELECT message_id, series_id FROM reviews"
			" WHERE message_id IN (?, ?) LIMIT 1",
			p, 2, two_text_row, &t);
	}
	rb_buf_release(&br);
	if (ret || !t.a) {
		free(t.a);
		free(t.b);
		return ret;
	}
	c->review = t.a;
	c->series_id = t.b;
	return 0;
}

static size_t max_size(const struct rb_pipeline *p)
{
	return p->cfg->max_message_size ? p->cfg->max_message_size :
					  RB_MSG_DEFAULT_MAX;
}

/* The series' parts, parsed (for authors and MAINTAINERS). */
static int load_series(struct reply_ctx *c)
{
	struct rb_parse_opts opts = RB_PARSE_OPTS_INIT;
	int i, ret;

	ret = rb_store_series_load(c->p->st, c->series_id, &c->row);
	if (ret)
		return ret;
	c->parts = calloc((size_t)c->row.total + 1, sizeof(*c->parts));
	if (!c->parts)
		return rb_err(RB_ENOMEM, "out of memory");
	opts.max_size = max_size(c->p);
	for (i = 0; i <= c->row.total; i++) {
		struct rb_msgrow r = { 0 };

		if (!c->row.msgids[i] ||
		    rb_store_get_raw(c->p->st, c->row.msgids[i], &r))
			continue;
		if (rb_message_parse(&c->parts[i], r.raw, r.len, &opts))
			c->parts[i] = NULL;
		rb_msgrow_release(&r);
	}
	return 0;
}

/* MAINTAINERS sections of the series, from the trusted first tree. */
static int load_sections(struct reply_ctx *c)
{
	const struct rb_config *cfg = c->p->cfg;
	const char *path = NULL, *ref = "HEAD";
	struct rb_maint_query *q = NULL;
	int i, ret;

	if (c->p->cli_tree) {
		path = c->p->cli_tree;
	} else if (cfg->n_trees) {
		path = cfg->trees[0].path;
		if (cfg->trees[0].branch)
			ref = cfg->trees[0].branch;
	}
	if (!path)
		return 0;
	if (!c->p->maint) {
		ret = rb_maint_cache_new(&c->p->maint);
		if (ret)
			return ret;
	}
	if (rb_maint_cache_get(&c->maint_index, c->p->maint, path, ref)) {
		rb_log(RB_LOG_WARN, "feedback.maintainers", "tree", path,
		       "reason", rb_errmsg(), NULL);
		return 0;
	}
	ret = rb_maint_query_new(&q, c->maint_index);
	for (i = 1; !ret && i <= c->row.total; i++)
		if (c->parts[i] && c->parts[i]->patch)
			ret = rb_maint_query_add_patch(q, c->parts[i]->patch,
						       c->parts[i]->patch_len);
	if (!ret)
		ret = rb_maint_query_run(&c->maint, q);
	rb_maint_query_free(q);
	return ret;
}

/* As review_stage decides: THE REST only when nothing else is touched. */
static bool catch_all(const char *name)
{
	return !strcasecmp(name, "THE REST");
}

static int resolve_policy(struct reply_ctx *c)
{
	const char **names;
	const char *list_id = NULL;
	size_t i, k = 0, n = c->maint ? c->maint->nsections : 0;
	int ret;

	names = calloc(n ? n : 1, sizeof(*names));
	if (!names)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		if (!catch_all(c->maint->sections[i]->name))
			names[k++] = c->maint->sections[i]->name;
	for (i = 0; !k && i < n; i++)
		names[k++] = c->maint->sections[i]->name;
	for (i = 0; !list_id && c->parts && (int)i <= c->row.total; i++)
		if (c->parts[i])
			list_id = c->parts[i]->list_id;
	ret = rb_policy_resolve(&c->pol, c->p->cfg, (const char *const *)names,
				k, list_id);
	free(names);
	if (!ret)
		c->have_pol = true;
	return ret;
}

static bool in_list(const char *const *v, size_t n, const char *addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rb_addr_same(v[i], addr))
			return true;
	return false;
}

/* Who may judge: the role that allows @addr, or NULL. */
static const char *allowed(const struct reply_ctx *c, const char *addr)
{
	const struct rb_config *cfg = c->p->cfg;
	size_t i, n = c->maint ? c->maint->nsections : 0, others = 0;
	int k;

	if (!addr || !rb_addr_valid(addr))
		return NULL;
	if (in_list((const char *const *)cfg->admins, cfg->n_admins, addr))
		return "admin";
	if (c->row.author && rb_addr_same(c->row.author, addr))
		return "author";
	for (k = 0; c->parts && k <= c->row.total; k++) {
		const struct rb_message *m = c->parts[k];

		if (m &&
		    ((m->from.addr && rb_addr_same(m->from.addr, addr)) ||
		     (m->author.addr && rb_addr_same(m->author.addr, addr))))
			return "author";
	}
	for (i = 0; i < n; i++)
		if (!catch_all(c->maint->sections[i]->name))
			others++;
	for (i = 0; i < n; i++) {
		const struct rb_maint_section *s = c->maint->sections[i];

		if (others && catch_all(s->name))
			continue;
		if (in_list(s->maintainers, s->nmaintainers, addr))
			return "maintainer";
		if (in_list(s->reviewers, s->nreviewers, addr))
			return "reviewer";
	}
	return NULL;
}

static int fingerprint_of(struct reply_ctx *c, const char *fid, char **out)
{
	struct rb_dbv p[] = { RB_DB_TEXT(c->review), RB_DB_TEXT(fid) };

	*out = NULL;
	return rb_db_query_text(c->p->st->db, out,
				"SELECT fingerprint FROM findings WHERE"
				" review_msgid = ? AND fid = ? LIMIT 1",
				p, 2);
}

static int add_verdict(struct reply_ctx *c, const char *fid, const char *fp,
		       const char *verdict, bool authorised, const char *reason)
{
	return EXEC(c->p->st,
		    "INSERT INTO verdicts (reply_msgid, review_msgid, fid,"
		    " fingerprint, verdict, judge, authorised, reason,"
		    " created_at) VALUES (?,?,?,?,?,?,?,?,?)"
		    " ON CONFLICT DO NOTHING",
		    RB_DB_TEXT(c->msgid), RB_DB_TEXT(c->review),
		    RB_DB_TEXT(fid), RB_DB_TEXT(fp), RB_DB_TEXT(verdict),
		    RB_DB_TEXT(c->m ? c->m->from.addr : NULL),
		    RB_DB_INT(authorised), RB_DB_TEXT(reason),
		    RB_DB_INT(rb_now()));
}

/* Stores every verdict; refused ones with authorised = 0. */
static int store_verdicts(struct reply_ctx *c, bool authorised)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < c->verdicts.n && !ret; i++) {
		const struct rb_verdict_item *it = &c->verdicts.v[i];
		const char *kind = rb_verdict_kind_name(it->kind);
		char fid[16], why[128];
		char *fp = NULL;

		snprintf(fid, sizeof(fid), "F%d", it->id);
		ret = fingerprint_of(c, fid, &fp);
		if (ret)
			break;
		if (!fp) {
			snprintf(why, sizeof(why),
				 "line %d: %s is not a finding of the review",
				 it->line, fid);
			ret = add_verdict(c, fid, NULL, kind, false, why);
		} else if (!authorised) {
			ret = add_verdict(c, fid, fp, kind, false, c->reason);
		} else {
			ret = add_verdict(c, fid, fp, kind, true, NULL);
			if (!ret && c->p->st->db->ops->changes(c->p->st->db))
				c->n_stored++;
		}
		free(fp);
	}
	return ret;
}

static int ack_kind(enum rb_verdict_kind k)
{
	return k == RB_VK_VALID ? RB_VERDICT_VALID :
	       k == RB_VK_FIXED ? RB_VERDICT_FIXED :
				  RB_VERDICT_FALSE_POSITIVE;
}

/* The one-line acknowledgement, to the judge, through the outbox. */
static int queue_ack(struct reply_ctx *c, struct rb_feedback_stats *stats)
{
	struct rb_render_ack_item *items = NULL;
	struct rb_render_ack_ctx a = { 0 };
	struct rb_buf body = RB_BUF_INIT(64 * 1024);
	struct rb_buf bytes = RB_BUF_INIT(1u << 20);
	struct rb_buf to = RB_BUF_INIT(4096), rc = RB_BUF_INIT(64 * 1024);
	struct rb_reply r = { 0 };
	const char **refs = NULL;
	const char *to_v[1];
	char *msgid = NULL, *env_from = NULL, **env = NULL;
	size_t i, n = 0, n_env = 0;
	int64_t idx = 0;
	int ret;

	if (!c->p->cfg->ack_verdicts || !c->n_stored || !c->p->cfg->smtp_from)
		return 0;
	items = calloc(c->verdicts.n + 1, sizeof(*items));
	refs = calloc(c->m->n_references + 1, sizeof(*refs));
	if (!items || !refs) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < c->verdicts.n; i++) {
		items[n].id = c->verdicts.v[i].id;
		items[n].verdict = ack_kind(c->verdicts.v[i].kind);
		n++;
	}
	a.items = items;
	a.n_items = n;
	a.dirs.templates_dir = c->p->templates_dir ? c->p->templates_dir :
						     RB_TEMPLATES_DIR;
	a.dirs.override_dir = c->pol.templates_dir;
	ret = rb_render_ack(&body, &a);
	if (!ret)
		ret = rb_addr_format(&to, &c->m->from);
	if (ret)
		goto out;
	for (i = 0; i < c->m->n_references; i++)
		refs[i] = c->m->references[i];
	refs[i] = c->m->message_id;
	to_v[0] = to.ptr;
	r.from = c->p->cfg->smtp_from;
	r.to = to_v;
	r.n_to = 1;
	r.subject = c->m->subject_raw ? c->m->subject_raw : "";
	r.in_reply_to = c->m->message_id;
	r.references = refs;
	r.n_references = c->m->n_references + 1;
	r.date = rb_now();
	r.policy = rb_mode_name(c->pol.mode);
	r.series_id = c->series_id;
	r.body = body.ptr;
	ret = rb_compose(&bytes, &msgid, &r);
	if (!ret)
		ret = rb_compose_envelope(&env_from, &env, &n_env, &r);
	for (i = 0; !ret && i < n_env; i++)
		ret = rb_buf_printf(&rc, "%s%s", i ? "\n" : "", env[i]);
	if (!ret) {
		struct rb_dbv p = RB_DB_TEXT(c->series_id);

		ret = rb_db_query_int(c->p->st->db, &idx,
				      "SELECT COALESCE(MAX(patch_idx), 0) + 1"
				      " FROM reviews WHERE series_id = ? AND"
				      " kind = 'ack'",
				      &p, 1);
	}
	if (!ret) {
		struct rb_outmail om = {
			.message_id = msgid,
			.series_id = c->series_id,
			.kind = "ack",
			.patch_idx = (int)idx,
			.env_from = env_from,
			.rcpts = rc.ptr,
			.bytes = bytes.ptr,
			.len = bytes.len,
			.policy = rb_mode_name(c->pol.mode),
			.subsystem = c->pol.subsystem,
			.send_after = rb_now(),
		};

		ret = rb_store_add_outmail(c->p->st, &om);
		if (ret == -RB_EEXISTS)
			ret = 0;
		else if (!ret) {
			stats->acks++;
			c->p->stats.queued++;
		}
	}
out:
	if (env)
		rb_addr_list_free(env, n_env);
	free(env_from);
	free(msgid);
	free(items);
	free(refs);
	rb_buf_release(&body);
	rb_buf_release(&bytes);
	rb_buf_release(&to);
	rb_buf_release(&rc);
	return ret;
}

/* Decides about one reply; the store writes follow in write_reply(). */
static int judge_reply(struct reply_ctx *c, bool *authorised)
{
	struct rb_parse_opts opts = RB_PARSE_OPTS_INIT;
	const char *role;
	size_t i;
	int ret;

	*authorised = false;
	ret = rb_store_get_raw(c->p->st, c->msgid, &c->raw);
	if (ret)
		return ret;
	opts.max_size = max_size(c->p);
	if (rb_message_parse(&c->m, c->raw.raw, c->raw.len, &opts)) {
		c->m = NULL;
		c->state = "unrelated";
		snprintf(c->reason, sizeof(c->reason), "unreadable: %s",
			 rb_errmsg());
		return 0;
	}
	/* In-Reply-To first, then References from the newest. */
	ret = find_review(c, c->m->in_reply_to);
	for (i = c->m->n_references; !ret && !c->review && i > 0; i--)
		ret = find_review(c, c->m->references[i - 1]);
	if (ret)
		return ret;
	if (!c->review) {
		c->state = "unrelated";
		return 0;
	}
	if (rb_verdicts_parse(&c->verdicts, c->m->body ? c->m->body : "",
			      c->m->body ? strlen(c->m->body) : 0)) {
		c->state = "refused";
		snprintf(c->reason, sizeof(c->reason), "unreadable: %s",
			 rb_errmsg());
		return 0;
	}
	if (!c->verdicts.n) {
		c->state = "no_verdict";
		return 0;
	}
	ret = load_series(c);
	if (!ret)
		ret = load_sections(c);
	if (!ret)
		ret = resolve_policy(c);
	if (ret)
		return ret;
	role = allowed(c, c->m->from.addr);
	if (!role) {
		c->state = "refused";
		snprintf(c->reason, sizeof(c->reason),
			 "%s is neither an author of the series, a maintainer "
			 "or reviewer of the touched files, nor an admin",
			 c->m->from.addr ? c->m->from.addr : "(no From:)");
		return 0;
	}
	if (c->pol.require_dkim) {
		struct rb_dkim_result d;

		ret = rb_dkim_verify(&d, c->raw.raw, c->raw.len,
				     c->m->from.addr, getenv("RB_DKIM_KEYS"));
		if (ret)
			return ret;
		if (!d.pass) {
			c->state = "refused";
			snprintf(c->reason, sizeof(c->reason),
				 "the policy requires DKIM: %s", d.reason);
			return 0;
		}
	}
	c->state = "judged";
	*authorised = true;
	rb_log(RB_LOG_INFO, "feedback.judge", "reply", c->msgid, "judge",
	       c->m->from.addr, "role", role, NULL);
	return 0;
}

static int one_reply(struct rb_pipeline *p, const char *msgid,
		     struct rb_feedback_stats *stats)
{
	struct reply_ctx c = { .p = p, .msgid = msgid };
	bool authorised = false;
	int ret;

	ret = judge_reply(&c, &authorised);
	if (ret && ret != -RB_ESTORE && ret != -RB_ENOMEM) {
		/*
		 * This reply cannot be judged (a tree, DKIM set-up): record
		 * why and go on, so that it does not block the stage.
		 */
		authorised = false;
		c.state = "refused";
		snprintf(c.reason, sizeof(c.reason), "cannot judge: %s",
			 rb_errmsg());
		ret = 0;
	}
	if (ret)
		goto out;
	ret = rb_store_begin(p->st);
	if (ret)
		goto out;
	if (c.review && strcmp(c.state, "no_verdict")) {
		if (c.verdicts.n)
			ret = store_verdicts(&c, authorised);
		else
			/* Unreadable: recorded with its reason. */
			ret = add_verdict(&c, NULL, NULL, NULL, false,
					  c.reason);
	}
	if (!ret && authorised)
		ret = queue_ack(&c, stats);
	if (!ret)
		ret = EXEC(p->st,
			   "INSERT INTO feedback (message_id, review_msgid,"
			   " state, judge, verdicts, reason, created_at)"
			   " VALUES (?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
			   RB_DB_TEXT(msgid), RB_DB_TEXT(c.review),
			   RB_DB_TEXT(c.state),
			   RB_DB_TEXT(c.m ? c.m->from.addr : NULL),
			   RB_DB_INT((int64_t)c.n_stored),
			   RB_DB_TEXT(c.reason[0] ? c.reason : NULL),
			   RB_DB_INT(rb_now()));
	if (ret) {
		rb_store_rollback(p->st);
		goto out;
	}
	ret = rb_store_commit(p->st);
	if (ret)
		goto out;
	stats->looked++;
	if (!strcmp(c.state, "judged")) {
		stats->judged++;
		stats->verdicts += c.n_stored;
	} else if (!strcmp(c.state, "refused")) {
		stats->refused++;
		rb_log(RB_LOG_WARN, "feedback.refused", "reply", msgid,
		       "reason", c.reason, NULL);
	}
	rb_fault_point("feedback");
out:
	reply_release(&c);
	return ret;
}

int rb_feedback_run_stats(struct rb_pipeline *p,
			  struct rb_feedback_stats *stats)
{
	struct pending l = { 0 };
	size_t i;
	int ret;

	/*
	 * Collected first: each reply's writes touch these tables. A verdict
	 * sent to the bot directly carries no List-Id, so the parse stage
	 * ignores it (pipeline.c, loop_reason()); it is still read here,
	 * since it must name one of our own mails to count. Mail ignored for
	 * any other reason (our own, a bot's, Auto-Submitted) is not.
	 */
	ret = p->st->db->ops->query(
		p->st->db,
		"SELECT m.message_id FROM messages m WHERE m.state = 'parsed'"
		" AND (m.kind = 'reply' OR (m.kind = 'ignored' AND m.reason ="
		" 'List-Id not on the allow-list')) AND NOT EXISTS (SELECT 1"
		" FROM feedback f WHERE f.message_id = m.message_id)"
		" ORDER BY m.received_at, m.message_id",
		NULL, 0, pending_row, &l);
	for (i = 0; !ret && i < l.n; i++)
		ret = one_reply(p, l.ids[i], stats);
	for (i = 0; i < l.n; i++)
		free(l.ids[i]);
	free(l.ids);
	return ret;
}

int rb_feedback_run(struct rb_pipeline *p)
{
	struct rb_feedback_stats s = { 0 };

	return rb_feedback_run_stats(p, &s);
}

int rb_feedback_similar_rejected(struct rb_store *st,
				 const struct rb_finding *f, int n, bool *out)
{
	struct rb_dbv p[] = { RB_DB_TEXT(f->checker), RB_DB_TEXT(f->category),
			      RB_DB_TEXT(f->file ? f->file : "") };
	int64_t count = 0;
	int ret;

	if (n <= 0) {
		*out = false;
		return 0;
	}
	ret = rb_db_query_int(st->db, &count,
			      "SELECT COUNT(DISTINCT v.fingerprint) FROM"
			      " verdicts v WHERE v.authorised = 1 AND"
			      " v.verdict = 'false_positive' AND EXISTS"
			      " (SELECT 1 FROM findings f WHERE"
			      " f.fingerprint = v.fingerprint AND"
			      " f.checker = ? AND f.category = ? AND"
			      " COALESCE(f.file, '') = ?)",
			      p, 3);
	if (ret)
		return ret;
	*out = count >= n;
	return 0;
}

int rb_feedback_job(struct rb_pipeline *p, const struct rb_job *job)
{
	struct rb_feedback_stats s = { 0 };
	struct rb_dbv id = RB_DB_TEXT(job->key);
	int64_t seen = 0;
	int ret;

	/* Looked at already: a rerun after a kill between the reply's commit
	 * and the job's end. */
	ret = rb_db_query_int(p->st->db, &seen,
			      "SELECT COUNT(*) FROM feedback"
			      " WHERE message_id = ?",
			      &id, 1);
	if (!ret && !seen)
		ret = one_reply(p, job->key, &s);
	if (ret)
		return ret;
	p->stats.judged += s.judged;
	ret = rb_store_begin(p->st);
	if (ret)
		return ret;
	ret = rb_store_job_done_by(p->st, job->id,
				   p->owner ? p->owner : "local", NULL);
	if (ret) {
		rb_store_rollback(p->st);
		/* Another worker took the job over: its run counts. */
		return ret == -RB_ELOCKED ? 0 : ret;
	}
	return rb_store_commit(p->st);
}
