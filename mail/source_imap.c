// SPDX-License-Identifier: GPL-2.0-only
/*
 * source_imap.c - an IMAP mailbox as a mail source (RFC 3501; RFC 2177
 * IDLE; RFC 4616 SASL PLAIN; RFC 2595 STARTTLS), with libetpan.
 *
 * For each mailbox the store keeps (UIDVALIDITY, last UID). A pass asks
 * for "UID FETCH last+1:* (UID RFC822.SIZE)" and keeps only uid > last
 * (RFC 3501 6.4.8: "n:*" always names the highest message, even when n is
 * above it), then fetches the messages with BODY.PEEK[] so that nothing is
 * marked \Seen, IMAP_BATCH (or IMAP_BATCH_BYTES announced) to one UID
 * FETCH of a set: one round trip per batch, not per message. The FETCHes
 * of the next two batches, and the parse of their messages (the source
 * env's prepare()), run on threads while the batch before them is stored,
 * so the server, the parser and the store work at the same time, as
 * mbsync keeps several FETCHes in flight; and each FETCH is pipelined:
 * the next one is written (by hand: libetpan sends and reads in one
 * call) before the answer to the one before is read, so that the server
 * never waits for us between two answers. Messages are delivered in UID
 * order and stored one transaction per IMAP_COMMIT messages (source.h
 * begin/commit) with the last UID: a store commit costs an fsync (about
 * 10 ms here) and rewrites every index page the batch touched (random
 * Message-IDs touch most of them), and a crash loses the messages since
 * the last commit and their mark together, fetched again next time.
 * Without begin/commit each deliver is durable and the mark is written
 * every RB_STATE_EVERY messages and at the end of a pass (what a crash
 * makes us fetch again is dropped as a duplicate).
 *
 * A UIDVALIDITY change is handled as mbsync does: UIDs mean nothing any
 * more, so the whole mailbox is fetched again and re-keyed by Message-ID
 * (the store keeps each Message-ID once); nothing is reprocessed, because
 * a message already stored is a duplicate.
 *
 * Size: the RFC822.SIZE is checked before fetching; a larger message is
 * recorded as too big (deliver with raw NULL) and skipped. libetpan has no
 * cap on a literal (DESIGN.md fact 2), so the bytes received during a
 * fetch are also counted (the stream logger) and the stream is cancelled
 * when a server sends more than it announced; the batch is then fetched
 * again one message at a time, to record the one that overran.
 *
 * TLS: imaps:// or STARTTLS (required unless starttls: off, which is only
 * allowed on loopback); the chain and host name are checked with OpenSSL
 * (tls_verify.c) before any credential is sent.
 *
 * Waiting: IDLE on the first mailbox, re-issued every 29 minutes (RFC 2177
 * asks clients to re-issue within 29 minutes), wakes the daemon when mail
 * arrives; with several mailboxes, IDLE is ended every WATCH_MS to ask the
 * others for their UIDNEXT (STATUS), and mail in one of them wakes the
 * daemon too (before: only at the next periodic pass, poll_seconds).
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libetpan/libetpan.h>

#include "mail/message.h"
#include "mail/source.h"
#include "mail/source_imap.h"
#include "mail/source_net.h"
#include "mail/tls_verify.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/testenv.h"
#include "util/banned.h"

#define IDLE_MAX_MS (29 * 60 * 1000)
/*
 * How often, while IDLE waits on the first mailbox, the others are asked
 * for their UIDNEXT: one STATUS each, a few hundred bytes; 100 mailboxes
 * every 30 s is about 3 commands a second. RB_IMAP_WATCH_MS sets it for
 * the tests (util/testenv.h).
 */
#define WATCH_MS (30 * 1000)
/* What a server may send beyond a message's size in one FETCH response. */
#define FETCH_SLACK (64 * 1024)
/* Caps on other answers: a mailbox's listing (about 60 bytes a message,
 * so room for two million), and everything else. */
#define LIST_CAP ((size_t)128 << 20)
#define SMALL_CAP ((size_t)4 << 20)

struct imap_mbox {
	char *name;
	/*
	 * The first UID no pass has seen: after a pass, the mailbox's
	 * UIDNEXT when it was opened, or past the last message delivered
	 * (a message expunged before it was fetched still counts as seen,
	 * so that the wait does not wake for it again and again). 0 until
	 * a pass has opened the mailbox.
	 */
	int64_t next_uid;
	int64_t uidnext; /* the UIDNEXT of this pass's EXAMINE */
	uint32_t solo_until; /* fetch one at a time up to this UID */
};

struct imap_source {
	struct rb_net_source net; /* first: its base is the source's */
	struct imap_mbox *mb;
	size_t n_mb;
	bool starttls;
	mailimap *imap;
	int selected; /* index of the mailbox EXAMINEd, or -1 */
	bool pass_ok; /* the last poll read every mailbox */
	int64_t pass_new; /* messages the last poll delivered */
	/* The last wait ended early on a UIDNEXT the server announced: when
	 * the poll after it delivers nothing, the next wait does not end
	 * early again (a server that announces mail it never gives would
	 * otherwise keep the daemon polling without a pause). */
	bool woken;
};

struct msg_ref {
	uint32_t uid;
	uint32_t size;
};

static void disconnect(struct imap_source *s)
{
	if (s->imap) {
		/* mailimap_free() says LOGOUT first on a live stream: polite,
		 * but not worth a long wait on a dead or hostile server. */
		rb_net_stream_timeout(s->imap->imap_stream,
				      RB_NET_GOODBYE_TIMEOUT);
		mailimap_free(s->imap);
		s->imap = NULL;
	}
	s->selected = -1;
}

/* A refusal: drop the connection and wait before the next try. */
static void drop(struct imap_source *s)
{
	disconnect(s);
	rb_backoff_fail(&s->net.backoff);
}

/* A network failure: drop the connection and wait before the next try. */
static int net_fail(struct imap_source *s, const char *what, int r)
{
	int ret = rb_net_source_fail(&s->net, "imap", what, r,
				     s->imap ? s->imap->imap_response : NULL);

	disconnect(s);
	return ret;
}

static void stream_logger(mailimap *imap, int type, const char *str,
			  size_t size, void *ctx)
{
	struct imap_source *s = ctx;

	(void)str;
	rb_recv_guard_count(&s->net.guard, type, size, imap->imap_stream);
}

static bool is_ok(int r)
{
	return r == MAILIMAP_NO_ERROR || r == MAILIMAP_NO_ERROR_AUTHENTICATED ||
	       r == MAILIMAP_NO_ERROR_NON_AUTHENTICATED;
}

/* A tagged NO or BAD (the server refused) rather than a broken stream. */
static bool is_refusal(int r)
{
	return r != MAILIMAP_ERROR_STREAM && r != MAILIMAP_ERROR_PARSE &&
	       r != MAILIMAP_ERROR_CONNECTION_REFUSED &&
	       r != MAILIMAP_ERROR_MEMORY && r != MAILIMAP_ERROR_FATAL &&
	       r != MAILIMAP_ERROR_SSL;
}

static int login(struct imap_source *s)
{
	const char *method;
	int r;

	if (mailimap_has_authentication(s->imap, "PLAIN")) {
		method = "AUTHENTICATE PLAIN";
		r = mailimap_authenticate(s->imap, "PLAIN", s->net.url.host,
					  NULL, NULL, s->net.user, s->net.user,
					  s->net.password, NULL);
	} else if (mailimap_has_extension(s->imap, "LOGINDISABLED")) {
		drop(s);
		return rb_err(RB_ECONFIG,
			      "imap %s: the server disables LOGIN and offers "
			      "no AUTH=PLAIN",
			      s->net.url.host);
	} else {
		method = "LOGIN";
		r = mailimap_login(s->imap, s->net.user, s->net.password);
	}
	if (is_ok(r)) {
		rb_log(RB_LOG_INFO, "imap.login", "source", s->net.base.name,
		       "host", s->net.url.host, "method", method, NULL);
		return 0;
	}
	if (!is_refusal(r))
		return net_fail(s, method, r);
	rb_err(RB_ECONFIG, "imap %s: %s as %s refused: %s", s->net.url.host,
	       method, s->net.user,
	       s->imap->imap_response ? s->imap->imap_response : "(no text)");
	drop(s);
	return -RB_ECONFIG;
}

static int refresh_capability(struct imap_source *s)
{
	struct mailimap_capability_data *cap = NULL;
	int r = mailimap_capability(s->imap, &cap);

	if (cap)
		mailimap_capability_data_free(cap);
	return is_ok(r) ? 0 : net_fail(s, "CAPABILITY", r);
}

static int connect_server(struct imap_source *s)
{
	bool tls = s->net.url.tls, tls_failed;
	mailstream *st;
	int r, ret;

	ret = rb_net_source_ready(&s->net, "imap");
	if (ret)
		return ret;
	s->imap = mailimap_new(0, NULL);
	if (!s->imap)
		return rb_err(RB_ENOMEM, "out of memory");
	mailimap_set_timeout(s->imap, RB_NET_TIMEOUT);
	/* The greeting, STARTTLS and the login are capped too: a server
	 * that sent an endless first line grew the daemon without bound. */
	mailimap_set_logger(s->imap, stream_logger, s);
	rb_recv_guard_reset(&s->net.guard, SMALL_CAP);
	/* mailimap_connect() keeps the stream, even when it fails: the
	 * session closes it. */
	st = rb_net_open_stream(&s->net, RB_NET_STREAM_BUFFER, &tls_failed);
	if (!st)
		r = !tls_failed ? MAILIMAP_ERROR_CONNECTION_REFUSED :
		    tls		? MAILIMAP_ERROR_SSL :
				  MAILIMAP_ERROR_MEMORY;
	else
		r = mailimap_connect(s->imap, st);
	if (!is_ok(r))
		return net_fail(s, "connect", r);
	if (!tls && s->starttls) {
		ret = refresh_capability(s);
		if (ret)
			return ret;
		if (!mailimap_has_extension(s->imap, "STARTTLS")) {
			drop(s);
			return rb_err(RB_ECONFIG,
				      "imap %s: the server offers no STARTTLS "
				      "(starttls: required)",
				      s->net.url.host);
		}
		r = mailimap_socket_starttls_with_callback(
			s->imap, rb_net_sni_cb, s->net.url.host);
		if (!is_ok(r))
			return net_fail(s, "STARTTLS", r);
		rb_net_guard_eof(&s->net.eof, s->imap->imap_stream);
		tls = true;
	}
	if (tls) {
		ret = rb_net_source_verify(&s->net, s->imap->imap_stream,
					   "imap.tls_refused");
		if (ret) {
			disconnect(s);
			return ret;
		}
	}
	/* RFC 3501 6.2.1: capabilities change after STARTTLS. */
	ret = refresh_capability(s);
	if (ret)
		return ret;
	ret = login(s);
	if (ret)
		return ret;
	ret = refresh_capability(s);
	if (ret)
		return ret;
	rb_backoff_ok(&s->net.backoff);
	return 0;
}

static int examine(struct imap_source *s, size_t i)
{
	int r;

	rb_recv_guard_reset(&s->net.guard, SMALL_CAP);
	r = mailimap_examine(s->imap, s->mb[i].name);
	if (is_ok(r)) {
		s->selected = (int)i;
		return 0;
	}
	s->selected = -1;
	if (!is_refusal(r))
		return net_fail(s, "EXAMINE", r);
	return rb_err(RB_ENOTFOUND, "imap %s: mailbox %s: %s", s->net.url.host,
		      s->mb[i].name,
		      s->imap->imap_response ? s->imap->imap_response : "");
}

static int cmp_ref(const void *a, const void *b)
{
	const struct msg_ref *x = a, *y = b;

	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

static void att_statics(struct mailimap_msg_att *att, uint32_t *uid,
			uint32_t *size, char **body, size_t *len)
{
	clistiter *it;

	for (it = clist_begin(att->att_list); it; it = clist_next(it)) {
		struct mailimap_msg_att_item *item = clist_content(it);
		struct mailimap_msg_att_static *st;

		if (item->att_type != MAILIMAP_MSG_ATT_ITEM_STATIC)
			continue;
		st = item->att_data.att_static;
		if (!st)
			continue;
		switch (st->att_type) {
		case MAILIMAP_MSG_ATT_UID:
			*uid = st->att_data.att_uid;
			break;
		case MAILIMAP_MSG_ATT_RFC822_SIZE:
			if (size)
				*size = st->att_data.att_rfc822_size;
			break;
		case MAILIMAP_MSG_ATT_BODY_SECTION:
			if (body && st->att_data.att_body_section &&
			    st->att_data.att_body_section->sec_body_part) {
				*body = st->att_data.att_body_section
						->sec_body_part;
				*len = st->att_data.att_body_section->sec_length;
			}
			break;
		default:
			break;
		}
	}
}

/* Frees what a UID FETCH was given and gave back (each may be NULL). */
static void fetch_free(clist *res, struct mailimap_set *set,
		       struct mailimap_fetch_type *ft)
{
	if (res)
		mailimap_fetch_list_free(res);
	if (set)
		mailimap_set_free(set);
	if (ft)
		mailimap_fetch_type_free(ft);
}

/* UIDs above @last with their sizes, ascending; *out is malloc'd. */
static int list_new(struct imap_source *s, int64_t last, struct msg_ref **out,
		    size_t *n_out)
{
	struct mailimap_fetch_type *ft = NULL;
	struct mailimap_set *set = NULL;
	clist *res = NULL;
	clistiter *it;
	struct msg_ref *v = NULL;
	size_t n = 0;
	int r, ret = 0;

	set = mailimap_set_new_interval((uint32_t)(last + 1), 0);
	ft = mailimap_fetch_type_new_fetch_att_list_empty();
	if (!set || !ft ||
	    mailimap_fetch_type_new_fetch_att_list_add(
		    ft, mailimap_fetch_att_new_uid()) ||
	    mailimap_fetch_type_new_fetch_att_list_add(
		    ft, mailimap_fetch_att_new_rfc822_size())) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	/* About 60 bytes a message in the answer. */
	rb_recv_guard_reset(&s->net.guard, LIST_CAP);
	r = mailimap_uid_fetch(s->imap, set, ft, &res);
	if (!is_ok(r)) {
		ret = is_refusal(r) ? rb_err(RB_EAGAIN,
					     "imap %s: UID FETCH refused: %s",
					     s->net.url.host,
					     s->imap->imap_response ?
						     s->imap->imap_response :
						     "") :
				      net_fail(s, "UID FETCH", r);
		goto out;
	}
	v = calloc(clist_count(res) + 1, sizeof(*v));
	if (!v) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (it = clist_begin(res); it; it = clist_next(it)) {
		uint32_t uid = 0, size = 0;

		att_statics(clist_content(it), &uid, &size, NULL, NULL);
		if ((int64_t)uid > last) {
			v[n].uid = uid;
			v[n].size = size;
			n++;
		}
	}
	qsort(v, n, sizeof(*v), cmp_ref);
	*out = v;
	*n_out = n;
	v = NULL;
out:
	fetch_free(res, set, ft);
	free(v);
	return ret;
}

/* Messages per UID FETCH, and the announced bytes one FETCH may hold in
 * memory (libetpan parses a whole response before returning it; up to
 * IMAP_AHEAD + 1 batches are held at once, the one stored and those
 * fetched ahead). The store commits every IMAP_COMMIT messages or so
 * (source.h begin/commit). */
#define IMAP_BATCH 256
#define IMAP_BATCH_BYTES ((size_t)8 << 20)
#define IMAP_COMMIT 1024

/*
 * The body of @uid in a FETCH response, or NULL. Servers answer a UID set
 * in UID order, so the search starts after the last message found (*@at):
 * a batch costs one walk of its response, not one per message.
 */
static char *find_body(clist *res, clistiter **at, uint32_t uid, size_t *len)
{
	clistiter *start = *at ? clist_next(*at) : NULL, *it;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (it = pass || !start ? clist_begin(res) : start; it;
		     it = clist_next(it)) {
			uint32_t got = 0;
			char *b = NULL;
			size_t l = 0;

			att_statics(clist_content(it), &got, NULL, &b, &l);
			if (got == uid && b) {
				*len = l;
				*at = it;
				return b;
			}
			if (pass && it == start)
				return NULL; /* all seen */
		}
		if (!start)
			break;
	}
	return NULL;
}

/*
 * EXAMINE mailbox @i, and where this pass starts: *@cur its UIDVALIDITY,
 * *@last the highest UID already delivered (0 after a UIDVALIDITY
 * change, which is logged and stored). 1 when there is nothing new.
 */
static int open_mailbox(struct imap_source *s, const struct rb_source_env *env,
			size_t i, int64_t *cur, int64_t *last)
{
	struct imap_mbox *mb = &s->mb[i];
	struct mailimap_selection_info *sel;
	int64_t validity = 0;
	uint32_t uidnext;
	char vbuf[24], lbuf[24];
	int ret;

	ret = examine(s, i);
	if (ret)
		return ret;
	sel = s->imap->imap_selection_info;
	if (!sel || !sel->sel_uidvalidity)
		return rb_err(RB_EAGAIN, "imap %s: mailbox %s: no UIDVALIDITY",
			      s->net.url.host, mb->name);
	*cur = sel->sel_uidvalidity;
	uidnext = sel->sel_uidnext;
	mb->uidnext = uidnext;
	*last = 0;
	ret = env->get_state(s->net.base.name, mb->name, &validity, last,
			     env->payload);
	if (ret == -RB_ENOTFOUND) {
		validity = 0;
		*last = 0;
	} else if (ret) {
		return ret;
	}
	if (validity != *cur) {
		if (validity) {
			/* mbsync: UIDs are void; refetch, the store re-keys
			 * every message by its Message-ID. */
			snprintf(vbuf, sizeof(vbuf), "%lld",
				 (long long)validity);
			snprintf(lbuf, sizeof(lbuf), "%lld", (long long)*cur);
			rb_log(RB_LOG_WARN, "imap.uidvalidity_changed",
			       "source", s->net.base.name, "mailbox", mb->name,
			       "old", vbuf, "new", lbuf, "action",
			       "refetch all, dedupe by Message-ID", NULL);
		}
		*last = 0;
		ret = env->set_state(s->net.base.name, mb->name, *cur, 0,
				     env->payload);
		if (ret)
			return ret;
	}
	mb->next_uid = *last + 1;
	return uidnext && (int64_t)uidnext <= *last + 1 ? 1 : 0;
}

/*
 * The batch from v[@k]: up to IMAP_BATCH messages and IMAP_BATCH_BYTES
 * announced (at least one) into @pick (*@fetch_n of them); messages over
 * the cap are recorded without being fetched. After a message that
 * overran its announced size, one at a time up to it, so that the guilty
 * one is found. Returns the end of the batch in @v.
 */
static size_t next_batch(const struct imap_source *s, uint32_t solo_until,
			 const struct msg_ref *v, size_t n, size_t k,
			 struct msg_ref *pick, size_t *fetch_n)
{
	size_t end, bytes = 0;

	*fetch_n = 0;
	for (end = k; end < n && end - k < IMAP_BATCH; end++) {
		if (end > k && v[end].uid <= solo_until)
			break;
		if (v[end].size > s->net.max_size)
			continue;
		if (*fetch_n && bytes + v[end].size > IMAP_BATCH_BYTES)
			break;
		bytes += v[end].size;
		pick[(*fetch_n)++] = v[end];
		if (v[end].uid <= solo_until)
			return end + 1;
	}
	return end;
}

/* What one mailbox's pass works with. */
struct mbox_pass {
	struct imap_source *s;
	struct imap_mbox *mb;
	struct rb_src_batch b;
	int64_t cur; /* UIDVALIDITY */
};

static void origin_of(char *buf, size_t size, const struct mbox_pass *p,
		      uint32_t uid)
{
	snprintf(buf, size, "imap://%s:%u/%s;UIDVALIDITY=%lld/;UID=%u",
		 p->s->net.url.host, p->s->net.url.port, p->mb->name,
		 (long long)p->cur, uid);
}

/*
 * After a FETCH of @pick that overran the announced sizes: narrow down
 * (one at a time next pass), or, for a single message, record it as too
 * big. Returns -RB_EAGAIN (reconnect) or another error.
 */
static int overran(struct mbox_pass *p, const struct msg_ref *pick,
		   size_t fetch_n, uint32_t first_uid)
{
	const struct rb_source_env *env = p->b.env;
	char origin[512];
	int ret;

	if (fetch_n > 1 || pick[0].uid != first_uid) {
		p->mb->solo_until = pick[fetch_n - 1].uid;
		return -RB_EAGAIN; /* the reason is fetch_set()'s */
	}
	/* The server sent more than it announced. */
	origin_of(origin, sizeof(origin), p, pick[0].uid);
	rb_log(RB_LOG_WARN, "imap.too_big", "origin", origin, "reason",
	       "more bytes than the size cap", NULL);
	ret = env->deliver(NULL, p->s->net.guard.received, origin,
			   env->payload);
	if (ret)
		return ret;
	p->b.mark = pick[0].uid;
	p->mb->next_uid = p->b.mark + 1;
	return rb_err(RB_EAGAIN,
		      "imap %s: reconnecting after an oversized "
		      "message",
		      p->s->net.url.host);
}

/*
 * Batches in flight: the one being stored and IMAP_AHEAD after it. Each
 * runs on a thread of its own: its FETCH, then the parse of its messages.
 * libetpan's mailimap_uid_fetch() sends, waits and parses a whole
 * response before it returns, so the server would sit idle while we
 * parse; with two batches ahead, the FETCH of one runs while the batch
 * before it is parsed and the one before that is stored.
 *
 * The FETCHes take turns on the session in batch order (struct
 * imap_turns): only the thread whose turn it is touches the session, and
 * after a FETCH that failed no later one is sent (the session may be
 * gone). Only the caller touches the store.
 *
 * Pipelined: the thread on its turn writes the next batch's UID FETCH
 * (written here by hand: libetpan sends a command and reads its answer in
 * one call) before it reads its own answer, so that the server always has
 * a FETCH to answer, even while every thread waits for the store. The
 * next batch's thread then only reads. The answers come in the order of
 * the commands (RFC 3501 5.5), each checked against its own tag.
 */
#define IMAP_AHEAD 2

struct imap_turns {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned next; /* the batch whose FETCH may go now */
	bool failed; /* a FETCH failed: send no more */
	/* Touched by the thread on its turn only: the FETCH sent ahead for
	 * batch pre_seq (its tag, first UID and count), not read yet. */
	bool pre_sent;
	unsigned pre_seq;
	int pre_tag;
	uint32_t pre_first;
	size_t pre_n;
	size_t pre_bytes; /* its announced sizes and slack */
	/* FETCH items of the batch sent ahead that came with the answer
	 * read before it: a server may run pipelined FETCHes at once and
	 * interleave their untagged answers (RFC 3501 5.5; Dovecot does). */
	clist *carry;
};

struct imap_batch {
	struct imap_source *s;
	const struct rb_source_env *env;
	struct imap_turns *turns;
	uint32_t solo_until; /* the mailbox's, when the batch began */
	const struct msg_ref *v; /* the pass's list, n of them */
	size_t n;
	unsigned seq;
	size_t k, end; /* v[k..end) */
	struct msg_ref pick[IMAP_BATCH];
	size_t fetch_n;
	/* pick[j]'s bytes in res (NULL: expunged since the listing) and
	 * what env->prepare() made of them on the thread */
	char *body[IMAP_BATCH];
	size_t len[IMAP_BATCH];
	void *prep[IMAP_BATCH];
	clist *res;
	bool over;
	int ret;
	char why[512]; /* rb_errmsg() of the thread, when ret */
	pthread_t th;
	bool started;
};

/*
 * Writes "TAG UID FETCH set (UID BODY.PEEK[])" for @pick (@n of them, in
 * UID order; runs of UIDs as ranges) and flushes it; *@tag is the tag,
 * the session's next. A libetpan code.
 */
static int send_fetch(struct imap_source *s, const struct msg_ref *pick,
		      size_t n, int *tag)
{
	char cmd[IMAP_BATCH * 24 + 64];
	size_t len, i, j;
	int k;

	if (!n || n > IMAP_BATCH)
		return MAILIMAP_ERROR_INVAL;
	*tag = ++s->imap->imap_tag;
	k = snprintf(cmd, sizeof(cmd), "%d UID FETCH ", *tag);
	len = (size_t)k;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && pick[j].uid == pick[j - 1].uid + 1;
		     j++)
			;
		k = j - i > 1 ? snprintf(cmd + len, sizeof(cmd) - len,
					 "%s%u:%u", i ? "," : "", pick[i].uid,
					 pick[j - 1].uid) :
				snprintf(cmd + len, sizeof(cmd) - len, "%s%u",
					 i ? "," : "", pick[i].uid);
		len += (size_t)k;
	}
	k = snprintf(cmd + len, sizeof(cmd) - len, " (UID BODY.PEEK[])\r\n");
	len += (size_t)k;
	if (mailstream_write(s->imap->imap_stream, cmd, len) != (ssize_t)len ||
	    mailstream_flush(s->imap->imap_stream))
		return MAILIMAP_ERROR_STREAM;
	return MAILIMAP_NO_ERROR;
}

/*
 * Reads the answer to the UID FETCH tagged @tag (the oldest one in
 * flight) as mailimap_uid_fetch() does after sending: the FETCH items
 * into *@res, and MAILIMAP_ERROR_UID_FETCH for a NO without any. An
 * answer under another tag is MAILIMAP_ERROR_PROTOCOL. The bytes are
 * capped by the stream logger (the guard), inside libetpan's loop.
 */
static int read_fetch(struct imap_source *s, int tag, clist **res)
{
	struct mailimap_response *resp = NULL;
	int top = s->imap->imap_tag, r, cond;

	*res = NULL;
	if (!mailimap_read_line(s->imap))
		return MAILIMAP_ERROR_STREAM;
	/* libetpan checks the answer's tag against the session's last. */
	s->imap->imap_tag = tag;
	r = mailimap_parse_response(s->imap, &resp);
	s->imap->imap_tag = top;
	if (r != MAILIMAP_NO_ERROR)
		return r;
	if (!s->imap->imap_response_info) {
		mailimap_response_free(resp);
		return MAILIMAP_ERROR_MEMORY;
	}
	*res = s->imap->imap_response_info->rsp_fetch_list;
	s->imap->imap_response_info->rsp_fetch_list = NULL;
	cond = *res && clist_count(*res) ?
		       MAILIMAP_RESP_COND_STATE_OK :
		       resp->rsp_resp_done->rsp_data.rsp_tagged->rsp_cond_state
			       ->rsp_type;
	mailimap_response_free(resp);
	if (cond == MAILIMAP_RESP_COND_STATE_OK && *res)
		return MAILIMAP_NO_ERROR;
	fetch_free(*res, NULL, NULL);
	*res = NULL;
	return MAILIMAP_ERROR_UID_FETCH;
}

/*
 * Moves the FETCH items carried from the answer before into @b->res,
 * then, when a FETCH was sent ahead, the items of @b->res outside
 * @b's UIDs out to the carry (for the batch after; what belongs to
 * neither is dropped at the end of the pass). 0 or -RB_ENOMEM.
 */
static int carry_over(struct imap_turns *t, struct imap_batch *b)
{
	uint32_t lo = b->pick[0].uid, hi = b->pick[b->fetch_n - 1].uid;
	clistiter *it;

	if (t->carry) {
		while ((it = clist_begin(t->carry))) {
			if (clist_append(b->res, clist_content(it)))
				return rb_err(RB_ENOMEM, "out of memory");
			clist_delete(t->carry, it);
		}
	}
	if (!t->pre_sent)
		return 0;
	if (!t->carry && !(t->carry = clist_new()))
		return rb_err(RB_ENOMEM, "out of memory");
	for (it = clist_begin(b->res); it;) {
		uint32_t uid = 0;

		att_statics(clist_content(it), &uid, NULL, NULL, NULL);
		if (uid >= lo && uid <= hi) {
			it = clist_next(it);
			continue;
		}
		if (clist_append(t->carry, clist_content(it)))
			return rb_err(RB_ENOMEM, "out of memory");
		it = clist_delete(b->res, it);
	}
	return 0;
}

/*
 * The FETCH of batch @b, on its turn: its command, unless the batch
 * before sent it ahead; the next batch's command; then its own answer,
 * into @b->res (fetch_free it). -RB_EAGAIN with the stream dropped and
 * @b->over set when the server sent more than the sizes it announced.
 */
static int fetch_set(struct imap_batch *b)
{
	struct imap_source *s = b->s;
	struct imap_turns *t = b->turns;
	struct msg_ref next[IMAP_BATCH];
	size_t k, announced = 0, next_n = 0, ahead = 0;
	int r = MAILIMAP_NO_ERROR, tag = 0, ret = 0;
	const char *what = "UID FETCH BODY.PEEK[]";

	b->res = NULL;
	b->over = false;
	for (k = 0; k < b->fetch_n; k++)
		announced += b->pick[k].size;
	if (!s->imap || s->selected < 0)
		return rb_err(RB_EAGAIN, "imap %s: no mailbox open",
			      s->net.url.host);
	if (t->pre_sent) {
		/* Sent ahead by the batch before: the same set, or the
		 * answer in flight is not this batch's. */
		if (t->pre_seq != b->seq || t->pre_first != b->pick[0].uid ||
		    t->pre_n != b->fetch_n) {
			disconnect(s);
			return rb_err(RB_EAGAIN,
				      "imap %s: the FETCH sent ahead was not "
				      "batch %u's",
				      s->net.url.host, b->seq);
		}
		tag = t->pre_tag;
		t->pre_sent = false;
		t->pre_bytes = 0;
	} else {
		r = send_fetch(s, b->pick, b->fetch_n, &tag);
	}
	/* The next batch's FETCH, before this one's answer is read. */
	if (r == MAILIMAP_NO_ERROR && b->end < b->n)
		next_batch(s, b->solo_until, b->v, b->n, b->end, next, &next_n);
	if (r == MAILIMAP_NO_ERROR && next_n) {
		r = send_fetch(s, next, next_n, &t->pre_tag);
		if (r == MAILIMAP_NO_ERROR) {
			t->pre_sent = true;
			t->pre_seq = b->seq + 1;
			t->pre_first = next[0].uid;
			t->pre_n = next_n;
			for (k = 0; k < next_n; k++)
				ahead += next[k].size;
			t->pre_bytes = ahead + next_n * FETCH_SLACK;
		}
	}
	if (r != MAILIMAP_NO_ERROR)
		return net_fail(s, "UID FETCH", r);
	/* What comes of the next answer before this one's end (a buffer
	 * read ahead, or all of it when the server interleaves them) is
	 * counted with this one. */
	rb_recv_guard_reset(
		&s->net.guard,
		announced + b->fetch_n * FETCH_SLACK +
			(t->pre_sent ? t->pre_bytes + RB_NET_STREAM_BUFFER :
				       0));
	r = read_fetch(s, tag, &b->res);
	if (s->net.guard.over) {
		b->over = true;
		disconnect(s);
		ret = rb_err(RB_EAGAIN,
			     "imap %s: reconnecting after an oversized "
			     "message",
			     s->net.url.host);
	} else if (r != MAILIMAP_NO_ERROR) {
		ret = is_refusal(r) && r != MAILIMAP_ERROR_PROTOCOL ?
			      rb_err(RB_EAGAIN,
				     "imap %s: UID FETCH %u:%u refused: %s",
				     s->net.url.host, b->pick[0].uid,
				     b->pick[b->fetch_n - 1].uid,
				     s->imap->imap_response ?
					     s->imap->imap_response :
					     "") :
			      net_fail(s, what, r);
	}
	if (!ret)
		ret = carry_over(t, b);
	if (ret) {
		fetch_free(b->res, NULL, NULL);
		b->res = NULL;
	}
	return ret;
}

/* Finds each fetched message in the response and prepares it. */
static void batch_index(struct imap_batch *b)
{
	const struct rb_source_env *env = b->env;
	clistiter *at = NULL;
	size_t j;

	for (j = 0; j < b->fetch_n; j++) {
		b->body[j] = find_body(b->res, &at, b->pick[j].uid, &b->len[j]);
		b->prep[j] = NULL;
		if (b->body[j] && b->len[j] <= b->s->net.max_size &&
		    env->prepare)
			b->prep[j] = env->prepare(b->body[j], b->len[j],
						  env->payload);
	}
}

/* The FETCH of @b on its turn; then the next batch's turn. */
static void batch_fetch_turn(struct imap_batch *b)
{
	struct imap_turns *t = b->turns;
	bool failed;

	pthread_mutex_lock(&t->mu);
	while (t->next != b->seq)
		pthread_cond_wait(&t->cv, &t->mu);
	failed = t->failed;
	pthread_mutex_unlock(&t->mu);
	if (failed)
		b->ret = rb_err(RB_EAGAIN,
				"imap %s: not fetched after a "
				"FETCH that failed",
				b->s->net.url.host);
	else if (b->fetch_n)
		b->ret = fetch_set(b);
	pthread_mutex_lock(&t->mu);
	if (b->ret)
		t->failed = true;
	t->next++;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

static void *batch_fetch(void *arg)
{
	struct imap_batch *b = arg;

	batch_fetch_turn(b);
	if (b->ret)
		snprintf(b->why, sizeof(b->why), "%s", rb_errmsg());
	else if (b->res)
		batch_index(b);
	return NULL;
}

/* Frees the response and what was prepared and not delivered. */
static void batch_free(struct imap_batch *b)
{
	size_t j;

	for (j = 0; b->res && j < b->fetch_n; j++)
		if (b->prep[j])
			b->env->release(b->prep[j], b->env->payload);
	fetch_free(b->res, NULL, NULL);
	b->res = NULL;
}

/*
 * Delivers the batch's v[k..end) in UID order: the fetched ones and,
 * between them, the ones over the cap (@b->pick is v[k..end) less
 * those, in the same order).
 */
static int deliver_batch(struct mbox_pass *p, const struct msg_ref *v,
			 struct imap_batch *b)
{
	const struct rb_source_env *env = p->b.env;
	size_t max = p->s->net.max_size, i, j = 0;
	int ret = 0;

	for (i = b->k; i < b->end && !ret; i++) {
		const struct msg_ref *m = &v[i];
		char origin[512], *body = NULL;
		size_t len = 0;
		void *prep = NULL;

		origin_of(origin, sizeof(origin), p, m->uid);
		while (j < b->fetch_n && b->pick[j].uid < m->uid)
			j++;
		if (b->res && j < b->fetch_n && b->pick[j].uid == m->uid) {
			body = b->body[j];
			len = b->len[j];
			prep = b->prep[j];
			b->prep[j] = NULL;
		}
		if (m->size > max)
			ret = env->deliver(NULL, m->size, origin, env->payload);
		/* None: expunged since the listing. */
		else if (body && len > max)
			ret = env->deliver(NULL, len, origin, env->payload);
		else if (prep)
			ret = env->deliver_prepared(body, len, origin, prep,
						    env->payload);
		else if (body)
			ret = env->deliver(body, len, origin, env->payload);
		/* Committed (or recorded as skipped): the mark may move. */
		if (!ret)
			ret = rb_src_batch_moved(&p->b, m->uid, INT_MAX);
		if (!ret)
			p->mb->next_uid = m->uid + 1;
	}
	return ret;
}

/*
 * Starts the FETCH of the batch from v[@k], number @seq, on a thread
 * (here when no thread can be made: the batches before it are then all
 * fetched, since it waits for its turn).
 */
static void batch_start(struct imap_batch *b, struct imap_source *s,
			const struct rb_source_env *env,
			const struct imap_mbox *mb, const struct msg_ref *v,
			size_t n, size_t k, struct imap_turns *turns,
			unsigned seq)
{
	b->s = s;
	b->env = env;
	b->turns = turns;
	b->solo_until = mb->solo_until;
	b->v = v;
	b->n = n;
	b->seq = seq;
	b->k = k;
	b->res = NULL;
	b->over = false;
	b->ret = 0;
	b->why[0] = '\0';
	b->end = next_batch(s, mb->solo_until, v, n, k, b->pick, &b->fetch_n);
	b->started = b->fetch_n &&
		     !pthread_create(&b->th, NULL, batch_fetch, b);
	if (!b->started)
		batch_fetch(b);
}

/* Waits for the batch's FETCH (its error is read by the caller). */
static void batch_wait(struct imap_batch *b)
{
	if (b->started)
		pthread_join(b->th, NULL);
	b->started = false;
}

/* Stores the fetched batch @cur; an error of its FETCH is returned. */
static int store_batch(struct mbox_pass *p, const struct msg_ref *v,
		       struct imap_batch *cur)
{
	int ret;

	if (cur->over) {
		/* fetch_set()'s reason, recorded on this thread. */
		rb_err(-cur->ret, "%s", cur->why);
		ret = rb_src_batch_begin(&p->b);
		if (!ret)
			ret = overran(p, cur->pick, cur->fetch_n,
				      v[cur->k].uid);
		return ret ? ret : -RB_EAGAIN;
	}
	if (cur->ret)
		/* Recorded again: it may come from the thread. */
		return rb_err(-cur->ret, "%s", cur->why);
	ret = rb_src_batch_begin(&p->b);
	if (!ret)
		ret = deliver_batch(p, v, cur);
	return ret;
}

static int sync_mailbox(struct imap_source *s, const struct rb_source_env *env,
			size_t i)
{
	struct mbox_pass p = { .s = s, .mb = &s->mb[i] };
	struct imap_turns turns = { .mu = PTHREAD_MUTEX_INITIALIZER,
				    .cv = PTHREAD_COND_INITIALIZER };
	struct imap_batch bt[IMAP_AHEAD + 1];
	struct msg_ref *v = NULL;
	unsigned started = 0, done = 0;
	size_t k = 0, n = 0;
	int64_t last = 0;
	struct timespec t0;
	int ret;

	ret = open_mailbox(s, env, i, &p.cur, &last);
	if (ret)
		return ret > 0 ? 0 : ret;
	ret = list_new(s, last, &v, &n);
	if (ret)
		return ret;
	p.b = (struct rb_src_batch){ .env = env,
				     .source = s->net.base.name,
				     .mailbox = p.mb->name,
				     .validity = p.cur,
				     .mark = last,
				     .saved = last };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (done < started || k < n) {
		struct imap_batch *cur;

		/* Keep the batch in hand and IMAP_AHEAD after it going. */
		while (!ret && k < n && started - done <= IMAP_AHEAD) {
			struct imap_batch *b = &bt[started % (IMAP_AHEAD + 1)];

			batch_start(b, s, env, p.mb, v, n, k, &turns, started);
			k = b->end;
			started++;
		}
		/*
		 * One transaction (one fsync) per IMAP_COMMIT messages or so;
		 * the pass's end commits the rest (rb_src_batch_end()). The
		 * commit comes after the batch stored last is freed and the
		 * one after the batches ahead is started: a commit (its
		 * fsync, a WAL checkpoint) can take longer than a FETCH, and
		 * the FETCHes stalled behind one 19 times a pass, 170 ms in
		 * a pass of 1.7 s.
		 */
		if (!ret && p.b.unsaved >= IMAP_COMMIT)
			ret = rb_src_batch_commit(&p.b);
		if (done == started)
			break;
		cur = &bt[done++ % (IMAP_AHEAD + 1)];
		batch_wait(cur);
		if (!ret)
			ret = store_batch(&p, v, cur);
		/* After an error, the batches in flight are joined and
		 * dropped. */
		batch_free(cur);
	}
	/* A FETCH sent ahead for a batch that was never read (the pass
	 * stopped): its answer is still in flight. */
	if (turns.pre_sent && s->imap)
		disconnect(s);
	fetch_free(turns.carry, NULL, NULL);
	pthread_cond_destroy(&turns.cv);
	pthread_mutex_destroy(&turns.mu);
	ret = rb_src_batch_end(&p.b, ret);
	free(v);
	/* Every UID below the EXAMINE's UIDNEXT was listed and delivered:
	 * those past the last one delivered were expunged before the
	 * listing, and the wait must not take them for new mail. */
	if (!ret && p.mb->uidnext > p.mb->next_uid)
		p.mb->next_uid = p.mb->uidnext;
	if (p.b.saved > last) {
		s->pass_new += p.b.saved - last;
		rb_net_log_synced(&s->net, "imap.synced", p.mb->name,
				  p.b.saved - last, &t0);
	}
	return ret;
}

static int imap_poll(struct rb_source *src, const struct rb_source_env *env)
{
	struct imap_source *s = (struct imap_source *)src;
	size_t i;
	int ret, first = 0;

	s->pass_ok = false;
	s->pass_new = 0;
	if (!s->imap) {
		ret = connect_server(s);
		if (ret)
			return ret;
	}
	for (i = 0; i < s->n_mb; i++) {
		ret = sync_mailbox(s, env, i);
		if (!ret)
			continue;
		if (!s->imap || ret != -RB_ENOTFOUND)
			return ret; /* server down or store failed */
		/* A missing mailbox does not stop the others. */
		rb_log(RB_LOG_WARN, "imap.mailbox", "source", s->net.base.name,
		       "reason", rb_errmsg(), NULL);
		if (!first)
			first = ret;
	}
	s->pass_ok = !first;
	return first;
}

/* The wait ends early: mailbox @i has mail past what the last pass saw. */
static void woken_by(struct imap_source *s, size_t i)
{
	s->woken = true;
	rb_log(RB_LOG_INFO, "imap.woken", "source", s->net.base.name, "mailbox",
	       s->mb[i].name, NULL);
}

/*
 * Whether a mailbox other than the first (IDLE's) has mail that no pass
 * has seen: STATUS (UIDNEXT) of each one a pass has opened. 1 (and
 * woken_by() it) when one has, 0 when none has, -1 when the connection
 * failed (dropped; the next poll connects again). A mailbox the server
 * refuses is left to the next pass, which says why.
 */
static int others_moved(struct imap_source *s)
{
	struct mailimap_status_att_list *atts;
	struct mailimap_mailbox_data_status *st;
	clistiter *it;
	size_t i;
	int r, moved = 0;

	atts = mailimap_status_att_list_new_empty();
	if (!atts ||
	    mailimap_status_att_list_add(atts, MAILIMAP_STATUS_ATT_UIDNEXT) !=
		    MAILIMAP_NO_ERROR) {
		if (atts)
			mailimap_status_att_list_free(atts);
		return 0;
	}
	for (i = 1; i < s->n_mb && !moved; i++) {
		if (!s->mb[i].next_uid)
			continue;
		st = NULL;
		rb_recv_guard_reset(&s->net.guard, SMALL_CAP);
		r = mailimap_status(s->imap, s->mb[i].name, atts, &st);
		if (!is_ok(r)) {
			if (is_refusal(r))
				continue;
			net_fail(s, "STATUS", r);
			moved = -1;
			break;
		}
		for (it = st && st->st_info_list ?
				  clist_begin(st->st_info_list) :
				  NULL;
		     it; it = clist_next(it)) {
			const struct mailimap_status_info *si =
				clist_content(it);

			if (si->st_att == MAILIMAP_STATUS_ATT_UIDNEXT &&
			    (int64_t)si->st_value > s->mb[i].next_uid)
				moved = 1;
		}
		if (moved)
			woken_by(s, i);
		mailimap_mailbox_data_status_free(st);
	}
	mailimap_status_att_list_free(atts);
	return moved;
}

static int imap_wait(struct rb_source *src, int timeout_ms,
		     volatile const int *stop)
{
	struct imap_source *s = (struct imap_source *)src;
	int left = timeout_ms, chunk, r, woke, watch = WATCH_MS;
	struct mailimap_selection_info *sel;
	bool early = !s->woken || s->pass_new > 0;

	if (!s->imap) {
		chunk = rb_backoff_remaining_ms(&s->net.backoff);
		rb_net_nap(chunk && chunk < left ? chunk : left, stop);
		return 0;
	}
	if (!mailimap_has_idle(s->imap) || !s->n_mb) {
		rb_net_nap(left, stop);
		return 0;
	}
	/* Open the first mailbox again: this also tells whether mail came
	 * in since the pass ended. */
	if (examine(s, 0)) {
		/* Missing mailbox or server gone: no busy loop. */
		chunk = s->imap ? left :
				  rb_backoff_remaining_ms(&s->net.backoff);
		rb_net_nap(chunk && chunk < left ? chunk : left, stop);
		return 0;
	}
	sel = s->imap->imap_selection_info;
	s->woken = false;
	if (early && s->pass_ok && sel && sel->sel_uidnext &&
	    sel->sel_uidnext > s->mb[0].next_uid) {
		woken_by(s, 0);
		return 0;
	}
	rb_test_imap_watch_ms(&watch);
	/* Mail that came to another mailbox since the pass read it. */
	if (early && s->n_mb > 1 && others_moved(s))
		return 0;
	while (left > 0 && !*stop) {
		chunk = left < IDLE_MAX_MS ? left : IDLE_MAX_MS;
		if (s->n_mb > 1 && chunk > watch)
			chunk = watch;
		rb_recv_guard_reset(&s->net.guard, SMALL_CAP);
		r = mailimap_idle(s->imap);
		if (!is_ok(r)) {
			net_fail(s, "IDLE", r);
			return 0;
		}
		if (s->imap->imap_stream->read_buffer_len)
			woke = 1;
		else
			woke = rb_net_wait_readable(
				mailimap_idle_get_fd(s->imap), chunk, stop);
		r = mailimap_idle_done(s->imap);
		if (!is_ok(r)) {
			net_fail(s, "IDLE DONE", r);
			return 0;
		}
		if (woke) /* mail, a signal (SIGHUP) or stop */
			return 0;
		left -= chunk;
		if (s->n_mb > 1 && left > 0 && others_moved(s))
			return 0;
	}
	return 0;
}

static void imap_free(struct rb_source *src)
{
	struct imap_source *s = (struct imap_source *)src;
	size_t i;

	if (!s)
		return;
	disconnect(s);
	for (i = 0; i < s->n_mb; i++)
		free(s->mb[i].name);
	free(s->mb);
	rb_net_source_release(&s->net);
	free(s);
}

static const struct rb_source_ops imap_ops = {
	.name = "imap",
	.poll = imap_poll,
	.wait = imap_wait,
	.free = imap_free,
};

int rb_source_imap_new(struct rb_source **out, const struct rb_source_opts *o)
{
	struct imap_source *s;
	const char *name = o->name ? o->name : "imap";
	size_t i, n = o->n_mailboxes ? o->n_mailboxes : 1;
	int ret;

	if (!o->user || !o->password)
		return rb_err(RB_ECONFIG,
			      "source %s: IMAP needs user and "
			      "password_file",
			      name);
	s = calloc(1, sizeof(*s));
	if (!s)
		return rb_err(RB_ENOMEM, "out of memory");
	s->net.base.ops = &imap_ops;
	s->selected = -1;
	ret = rb_net_url_parse(&s->net.url, o->url, "imap", 143, "imaps", 993);
	if (ret)
		goto fail;
	if (!s->net.url.tls && !o->starttls &&
	    !rb_net_is_loopback(s->net.url.host)) {
		ret = rb_err(RB_ECONFIG,
			     "source %s: starttls: off sends the password in "
			     "clear; it is allowed only for a loopback server, "
			     "not %s",
			     name, s->net.url.host);
		goto fail;
	}
	ret = rb_net_source_init(&s->net, name, o);
	if (ret)
		goto fail;
	s->mb = calloc(n, sizeof(*s->mb));
	if (!s->mb) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++) {
		s->mb[i].name =
			strdup(o->n_mailboxes ? o->mailboxes[i] : "INBOX");
		if (!s->mb[i].name) {
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto fail;
		}
		s->n_mb++;
	}
	s->starttls = o->starttls;
	*out = &s->net.base;
	return 0;
fail:
	imap_free(&s->net.base);
	return ret;
}
