// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_feedback.c - the feedback stage end to end on a real store, a real
 * git tree (scripts/demo.sh's), real DKIM keys (opendkim-genkey) and
 * signatures (libopendkim's signer):
 *
 *  1. a patch is reviewed with 3 commit-message findings;
 *  2. its author replies (DKIM-signed) marking F2 false positive and F1
 *     valid: two authorised verdicts with the findings' fingerprints;
 *  3. `reviewbot stats --json` shows precision 1/2 for the subsystem and
 *     the words per review;
 *  4. a spoofed From: (neither author nor maintainer) and a maintainer's
 *     reply whose DKIM signature fails (body changed after signing) are
 *     recorded as refused and change nothing;
 *  5. v2 of the patch raises the same findings: F2's is suppressed and not
 *     in the mail;
 *  6. the similar-findings rule, the acknowledgement, DKIM alignment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <git2.h>
#include <jansson.h>
#include <opendkim/dkim.h>

#include "bot/config.h"
#include "bot/stages/feedback.h"
#include "bot/web/http.h"
#include "bot/stages/outbox.h"
#include "bot/stages/pipeline.h"
#include "bot/store/store.h"
#include "bot/store/store_priv.h" /* white-box: the tables as stored */
#include "mail/dkim.h"
#include "review/findings.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "tests/testlib_bot.h"
#include "util/banned.h"

static char dir[] = "/tmp/rb-feedback-XXXXXX";
static char db_path[256], keys[256];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	struct rb_buf b = RB_BUF_INIT(1 << 16);
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rb_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	rc = system(b.ptr);
	rb_buf_release(&b);
	return rc;
}

static void write_text(const char *name, const char *text)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(rb_write_file_atomic(path, text, strlen(text), 0644),
			 0);
}

/* The demo tree, then one patch with three commit-message problems. */
static const char make_patch[] =
	"set -e; cd %s; bash %s/scripts/demo.sh --make-only demo >/dev/null;"
	" cd demo/tree;"
	" export GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org"
	" GIT_COMMITTER_NAME='Ada Lovelace' GIT_COMMITTER_EMAIL=ada@example.org"
	" GIT_AUTHOR_DATE=2026-11-03T09:00:00Z"
	" GIT_COMMITTER_DATE=2026-11-03T09:00:00Z;"
	" sed -i 's/r->tail = 0;/r->tail = 0; \\/\\* empty \\*\\//' lib/ring.c;"
	" printf 'ring: note that a new ring is empty\\n\\n"
	"Say so where the indices are reset.\\n\\n"
	"Fixes: 1234abc (ring)\\n"
	"Cc: stable@vger.kernel.org 6.1+\\n' >../msg;"
	" git commit -q -a -F ../msg;"
	" git format-patch -q -1 --stdout HEAD >../v1.patch;"
	/* v2 changes the line, so that it is reviewed again (bot/stages/versions.h:
	 * an unchanged part is not), with the same commit message. */
	" sed -i 's/empty \\*\\//empty again \\*\\//' lib/ring.c;"
	" git commit -q -a --amend -F ../msg;"
	" git format-patch -q -1 --stdout -v2 HEAD >../v2.patch;"
	" git reset -q --hard HEAD~1;"
	" for v in v1 v2; do sed -e '0,/^Subject:/s//To: demo-list@example.org\\n"
	"List-Id: <demo-list.example.org>\\nSubject:/' ../$v.patch >../$v.mbox;"
	" done;"
	/* v2 is a later mail with its own Message-ID */
	" sed -i -e 's/^Message-Id: <\\(.*\\)>/Message-Id: <v2-\\1>/'"
	" -e 's/^Date: .*/Date: Wed, 4 Nov 2026 07:00:00 +0000/' ../v2.mbox";

/* After the store, the demo tree and the outbox (testlib_bot.h). */
static const char config_more[] =
	"admins: [root@example.net]\n"
	/* Replies come to the bot directly, without List-Id. */
	"list_ids: [demo-list.example.org]\n"
	"feedback:\n  ack: true\n"
	"policy:\n  default:\n    mode: off\n"
	"  subsystems:\n    RING BUFFER:\n      mode: advisory\n"
	"      require_dkim: true\n      max_findings: 10\n";

static int setup(void **state)
{
	const char *src = getenv("RB_SRC");

	(void)state;
	if (!src || system("command -v opendkim-genkey >/dev/null")) {
		fprintf(stderr, "needs RB_SRC and opendkim-tools\n");
		return -1;
	}
	if (!mkdtemp(dir))
		return -1;
	setenv("RB_NOW", "1793780000", 1);
	snprintf(db_path, sizeof(db_path), "%s/rb.db", dir);
	snprintf(keys, sizeof(keys), "%s/keys", dir);
	if (sh(make_patch, dir, src))
		return -1;
	/* Two signing domains, their public keys in a DKIM_QUERY_FILE. */
	if (sh("set -e; cd %s; for d in example.org evil.example; do"
	       " mkdir -p k-$d; opendkim-genkey -D k-$d -d $d -s rbtest;"
	       " python3 -c 'import re,sys; t=open(sys.argv[1]).read();"
	       " print(\"rbtest._domainkey.\"+sys.argv[2]+\" \"+"
	       "\"\".join(re.findall(r\"\\\"([^\\\"]*)\\\"\", t)))'"
	       " k-$d/rbtest.txt $d >>keys; done",
	       dir))
		return -1;
	setenv("RB_DKIM_KEYS", keys, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return rb_test_demo_teardown(dir);
}

/* Ingests @file of the test dir and runs every stage and feedback. */
static void step(struct rb_test_env *e, const char *file,
		 struct rb_feedback_stats *fs)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (rb_pipeline_ingest_path(&e->p, path))
		fail_msg("ingest %s: %s", file, rb_errmsg());
	if (rb_pipeline_parse(&e->p) || rb_pipeline_assemble(&e->p) ||
	    rb_feedback_run_stats(&e->p, fs) || rb_pipeline_jobs(&e->p) ||
	    rb_outbox_send(&e->p))
		fail_msg("pipeline: %s", rb_errmsg());
}

static char *q_text(struct rb_test_env *e, const char *sql)
{
	char *v = NULL;

	if (rb_db_query_text(e->st->db, &v, sql, NULL, 0))
		fail_msg("%s: %s", sql, rb_errmsg());
	return v;
}

/*
 * Signs test dir file @in into @out with @domain's key (selector rbtest),
 * rsa-sha256, relaxed/simple, through libopendkim's signer.
 * (opendkim-testmsg 2.11 signs with rsa-sha1 only.)
 */
static void dkim_sign_file(const char *in, const char *out, const char *domain)
{
	struct rb_buf key = RB_BUF_INIT(1 << 16), msg = RB_BUF_INIT(1 << 20);
	struct rb_buf signed_msg = RB_BUF_INIT(1 << 20);
	char path[1024], hdr[4096], *r, *w;
	DKIM_LIB *lib = dkim_init(NULL, NULL);
	DKIM *d;
	DKIM_STAT st;
	unsigned int flags = DKIM_LIBFLAGS_FIXCRLF;

	assert_non_null(lib);
	dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_FLAGS, &flags,
		     sizeof(flags));
	snprintf(path, sizeof(path), "%s/k-%s/rbtest.private", dir, domain);
	assert_int_equal(rb_read_file(&key, path), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, in);
	assert_int_equal(rb_read_file(&msg, path), 0);
	d = dkim_sign(lib, (const unsigned char *)"test", NULL,
		      (dkim_sigkey_t)key.ptr, (const unsigned char *)"rbtest",
		      (const unsigned char *)domain, DKIM_CANON_RELAXED,
		      DKIM_CANON_SIMPLE, DKIM_SIGN_RSASHA256, -1, &st);
	assert_non_null(d);
	assert_int_equal(dkim_chunk(d, (unsigned char *)msg.ptr, msg.len),
			 DKIM_STAT_OK);
	assert_int_equal(dkim_chunk(d, NULL, 0), DKIM_STAT_OK);
	assert_int_equal(dkim_eom(d, NULL), DKIM_STAT_OK);
	assert_int_equal(dkim_getsighdr(d, (unsigned char *)hdr, sizeof(hdr),
					strlen(DKIM_SIGNHEADER) + 2),
			 DKIM_STAT_OK);
	/* The folding comes as CRLF; the rest of this file is LF. */
	for (r = w = hdr; *r; r++)
		if (*r != '\r')
			*w++ = *r;
	*w = '\0';
	rb_buf_printf(&signed_msg, "%s: %s\n", DKIM_SIGNHEADER, hdr);
	rb_buf_add(&signed_msg, msg.ptr, msg.len);
	snprintf(path, sizeof(path), "%s/%s", dir, out);
	assert_int_equal(rb_write_file_atomic(path, signed_msg.ptr,
					      signed_msg.len, 0644),
			 0);
	dkim_free(d);
	dkim_close(lib);
	rb_buf_release(&key);
	rb_buf_release(&msg);
	rb_buf_release(&signed_msg);
}

/* A reply to our v1 review, signed by @sign_domain's key (or unsigned),
 * then optionally changed after signing. */
static void make_reply(struct rb_test_env *e, const char *name,
		       const char *from, const char *body,
		       const char *sign_domain, const char *tamper)
{
	char *review = q_text(e, "SELECT message_id FROM reviews WHERE"
				 " kind = 'review' ORDER BY created_at"
				 " LIMIT 1");
	struct rb_buf m = RB_BUF_INIT(1 << 16);
	char raw[600];

	assert_non_null(review);
	rb_buf_printf(&m,
		      "From: %s\nTo: reviewbot <reviewbot@localhost>\n"
		      "Subject: Re: [PATCH] ring: note that a new ring is "
		      "empty\nDate: Thu, 5 Nov 2026 10:00:00 +0000\n"
		      "Message-ID: <%s@example.org>\nIn-Reply-To: %s\n"
		      "References: %s\n\n%s",
		      from, name, review, review, body);
	snprintf(raw, sizeof(raw), "%s.raw", name);
	write_text(raw, m.ptr);
	if (sign_domain)
		dkim_sign_file(raw, name, sign_domain);
	else
		assert_int_equal(sh("cd %s && cp %s %s", dir, raw, name), 0);
	if (tamper)
		assert_int_equal(
			sh("cd %s && sed -i '%s' %s", dir, tamper, name), 0);
	rb_buf_release(&m);
	free(review);
}

static json_t *stats_json(void)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	const char *bin = getenv("RB_BIN");
	char cmd[1024], buf[4096];
	json_error_t err;
	json_t *j;
	FILE *f;
	size_t n;

	assert_non_null(bin);
	snprintf(cmd, sizeof(cmd), "cd %s && %s stats --json --store %s", dir,
		 bin, db_path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		rb_buf_add(&out, buf, n);
	assert_int_equal(pclose(f), 0);
	j = json_loads(out.ptr, 0, &err);
	if (!j)
		fail_msg("stats --json: %s: %s", err.text, out.ptr);
	rb_buf_release(&out);
	return j;
}

static void test_end_to_end(void **state)
{
	struct rb_feedback_stats fs = { 0 };
	struct rb_test_env e;
	char *fp2, *msg2, *body;
	json_t *j, *sub;
	int64_t n;

	(void)state;
	rb_test_env_open(&e, dir, db_path, config_more);

	/* 1. v1 is reviewed with three findings. */
	step(&e, "demo/v1.mbox", &fs);
	n = rb_test_q_int(&e,
			  "SELECT COUNT(*) FROM findings WHERE state = 'raised'"
			  " AND fid IS NOT NULL");
	assert_int_equal(n, 3);
	fp2 = q_text(&e, "SELECT fingerprint FROM findings WHERE fid = 'F2'");
	/* The start of its text: the mail wraps the rest. */
	msg2 = q_text(&e, "SELECT substr(message, 1, 25) FROM findings WHERE"
			  " fid = 'F2'");
	assert_non_null(fp2);
	assert_non_null(msg2);

	/* 2. The author, signed by their domain: F2 false, F1 valid. */
	make_reply(&e, "reply-author", "Ada Lovelace <ada@example.org>",
		   "Thanks.\n\nF1: valid\nF2: false positive, the id is "
		   "fine.\n",
		   "example.org", NULL);
	step(&e, "reply-author", &fs);
	assert_int_equal(fs.judged, 1);
	assert_int_equal(fs.verdicts, 2);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM verdicts WHERE"
					   " authorised = 1 AND judge ="
					   " 'ada@example.org'"),
			 2);
	n = rb_test_q_int(&e,
			  "SELECT COUNT(*) FROM verdicts v JOIN findings f ON"
			  " f.review_msgid = v.review_msgid AND f.fid = v.fid"
			  " WHERE v.fid = 'F2' AND v.verdict = 'false_positive'"
			  " AND v.fingerprint = f.fingerprint");
	assert_int_equal(n, 1);
	/* The acknowledgement went to the judge. */
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM reviews WHERE"
					   " kind = 'ack'"),
			 1);
	body = q_text(&e, "SELECT bytes FROM outbox o JOIN reviews r ON"
			  " r.message_id = o.message_id WHERE r.kind = 'ack'");
	assert_non_null(body);
	assert_non_null(strstr(body, "F2"));
	assert_non_null(strstr(body, "ada@example.org"));
	free(body);

	/* 4a. A From: that is neither author nor maintainer. */
	make_reply(&e, "reply-spoof", "Mallory <mallory@evil.example>",
		   "F1: false positive\nF3: false positive\n", "evil.example",
		   NULL);
	/* 4b. The maintainer's address, but the body changed after signing. */
	make_reply(&e, "reply-tampered", "Grace Hopper <grace@example.org>",
		   "F1: valid\n", "example.org", "s/^F1: valid/F1: wrong/");
	step(&e, "reply-spoof", &fs);
	step(&e, "reply-tampered", &fs);
	assert_int_equal(fs.refused, 2);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM verdicts WHERE"
					   " authorised = 1"),
			 2);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM verdicts WHERE"
					   " authorised = 0 AND reason LIKE"
					   " '%neither an author%'"),
			 2);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM verdicts WHERE"
					   " authorised = 0 AND reason LIKE"
					   " '%requires DKIM%'"),
			 1);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM feedback WHERE"
					   " state = 'refused'"),
			 2);
	/* Looked at once: another pass changes nothing. */
	assert_int_equal(rb_feedback_run(&e.p), 0);
	assert_int_equal(rb_test_q_int(&e, "SELECT COUNT(*) FROM verdicts"), 5);

	/* 3. stats: precision 1/2 for the subsystem, words per review. */
	rb_test_env_close(&e);
	j = stats_json();
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(j, "findings"), "judged")),
			 2);
	sub = json_object_get(json_object_get(j, "by_subsystem"),
			      "RING BUFFER");
	assert_non_null(sub);
	assert_true(json_real_value(json_object_get(sub, "precision")) == 0.5);
	assert_true(json_is_number(json_object_get(
		json_object_get(j, "review_mails"), "words_per_review")));
	assert_true(json_number_value(
			    json_object_get(json_object_get(j, "review_mails"),
					    "words_per_review")) > 10);
	json_decref(j);

	/* 5. v2 has the same findings: F2's stays suppressed. */
	rb_test_env_open(&e, dir, db_path, config_more);
	step(&e, "demo/v2.mbox", &fs);
	n = rb_test_q_int(&e,
			  "SELECT COUNT(*) FROM reviews WHERE kind = 'review'");
	assert_int_equal(n, 2);
	{
		struct rb_buf sql = RB_BUF_INIT(4096);
		char *v2;

		rb_buf_printf(&sql,
			      "SELECT COUNT(*) FROM findings f JOIN series s"
			      " ON s.id = f.series_id WHERE s.version = 2"
			      " AND f.state = 'suppressed' AND"
			      " f.fingerprint = '%s'",
			      fp2);
		assert_int_equal(rb_test_q_int(&e, sql.ptr), 1);
		v2 = q_text(&e, "SELECT o.bytes FROM outbox o JOIN reviews r"
				" ON r.message_id = o.message_id JOIN series s"
				" ON s.id = r.series_id WHERE s.version = 2"
				" AND r.kind = 'review'");
		assert_non_null(v2);
		/*
		 * The v2 mail shows one finding: not F2 (judged false), not
		 * F1 (judged valid on v1: raised once, issue 18), only F3.
		 */
		assert_null(strstr(v2, "[F2]"));
		assert_non_null(strstr(v2, "[F1]"));
		assert_null(strstr(v2, msg2));
		free(v2);
		rb_buf_release(&sql);
	}
	free(fp2);
	free(msg2);
	rb_test_env_close(&e);
}

static bool suppressed(struct rb_test_env *e, const struct rb_feedback_scope *s,
		       const struct rb_finding *f)
{
	bool out = true;

	assert_int_equal(rb_feedback_suppressed(e->st, s, f, &out), 0);
	return out;
}

/* A verdict row as the feedback stage stores it, with its role. */
static void add_verdict_row(struct rb_test_env *e, const char *fp,
			    const char *judge, const char *role,
			    const char *owner)
{
	struct rb_dbv p[] = { RB_DB_TEXT(fp), RB_DB_TEXT(fp), RB_DB_TEXT(judge),
			      RB_DB_TEXT(role), RB_DB_TEXT(owner) };

	assert_int_equal(
		e->st->db->ops->exec(e->st->db,
				     "INSERT INTO verdicts (reply_msgid, fid,"
				     " fingerprint, verdict, judge, authorised,"
				     " created_at, role, owner) VALUES"
				     " ('t-' || ?, 'F9', ?, 'false_positive',"
				     " ?, 1, 0, ?, ?)",
				     p, 5),
		0);
}

/*
 * What each verdict may suppress (feedback.h, issues 17 and 33): the
 * author's in her own series only; an M:/R: person's in the series she
 * judged (its author's) only; an admin's in everyone's; suppress_similar
 * counts an admin's and an M:/R: person's of the finding's section.
 */
static void test_similar(void **state)
{
	struct rb_maint_result *ring = NULL;
	struct rb_maint *mi = NULL;
	struct rb_finding f = { 0 }, g;
	struct rb_feedback_scope ada = { 0 }, bob, none;
	struct rb_test_env e;
	char *cat, *checker, *fp2, path[512];

	(void)state;
	rb_test_env_open(&e, dir, db_path, config_more);
	cat = q_text(&e, "SELECT category FROM findings WHERE fid = 'F2'");
	checker = q_text(&e, "SELECT checker FROM findings WHERE fid = 'F2'");
	fp2 = q_text(&e, "SELECT fingerprint FROM findings WHERE fid = 'F2'");
	if (!cat || !checker || !fp2)
		skip(); /* runs after test_end_to_end only */
	snprintf(path, sizeof(path), "%s/demo/tree", dir);
	assert_int_equal(rb_maint_load_git(&mi, path, NULL), 0);
	assert_int_equal(
		rb_maint_lookup_patch(&ring, mi, "+++ b/lib/ring.c\n", 17), 0);
	f.checker = checker;
	f.category = cat;
	f.message = "x";
	snprintf(f.fingerprint, sizeof(f.fingerprint), "%s", fp2);
	ada.maint = mi;
	ada.touched = ring;
	ada.series_author = "ada@example.org";
	bob = ada;
	bob.series_author = "Bob <BOB@example.org>";
	none = bob;
	none.touched = NULL; /* a series outside RING BUFFER */

	/* Ada judged F2 false: her later series only. */
	assert_true(suppressed(&e, &ada, &f));
	assert_false(suppressed(&e, &bob, &f));
	bob.suppress_similar = 1;
	assert_false(suppressed(&e, &bob, &f));

	/* RING BUFFER's maintainer judged Carol's finding like it: Carol's
	 * series only, never section-wide (issue 33). */
	add_verdict_row(&e, "feedfacefeedface", "grace@example.org",
			"maintainer", "carol@example.org");
	assert_int_equal(
		e.st->db->ops->exec(e.st->db,
				    "INSERT INTO findings (series_id, checker,"
				    " category, severity, message, fingerprint,"
				    " state, created_at) SELECT series_id,"
				    " checker, category, severity, message,"
				    " 'feedfacefeedface', 'raised', 0 FROM"
				    " findings WHERE fid = 'F2' LIMIT 1",
				    NULL, 0),
		0);
	g = f;
	snprintf(g.fingerprint, sizeof(g.fingerprint), "feedfacefeedface");
	bob.suppress_similar = 0;
	assert_false(suppressed(&e, &bob, &g));
	assert_false(suppressed(&e, &none, &g));
	none.series_author = "carol@example.org";
	assert_true(suppressed(&e, &none, &g));
	none.series_author = bob.series_author;
	/* suppress_similar counts her verdict, not Ada's. */
	bob.suppress_similar = 1;
	assert_true(suppressed(&e, &bob, &f));
	bob.suppress_similar = 2;
	assert_false(suppressed(&e, &bob, &f));
	bob.suppress_similar = 0;
	g.file = "lib/other.c"; /* another file: neither the same nor similar */
	snprintf(g.fingerprint, sizeof(g.fingerprint), "0123456789abcdef");
	bob.suppress_similar = 1;
	assert_false(suppressed(&e, &bob, &g));

	/* An admin's verdict reaches every series. */
	add_verdict_row(&e, "0123456789abcdef", "root@example.net", "admin",
			"carol@example.org");
	assert_true(suppressed(&e, &none, &g));
	/* A verdict from before migration 4 (no role): its owner's only. */
	add_verdict_row(&e, "aaaaaaaaaaaaaaaa", "grace@example.org", NULL,
			"carol@example.org");
	snprintf(g.fingerprint, sizeof(g.fingerprint), "aaaaaaaaaaaaaaaa");
	assert_false(suppressed(&e, &bob, &g));
	none.series_author = "carol@example.org";
	assert_true(suppressed(&e, &none, &g));

	assert_int_equal(
		e.st->db->ops->exec(e.st->db,
				    "DELETE FROM verdicts WHERE"
				    " reply_msgid LIKE 't-%';"
				    "DELETE FROM findings WHERE"
				    " fingerprint = 'feedfacefeedface'",
				    NULL, 0),
		0);
	rb_maint_result_free(ring);
	rb_maint_free(mi);
	free(cat);
	free(checker);
	free(fp2);
	rb_test_env_close(&e);
}

static void test_dkim(void **state)
{
	struct rb_dkim_result r;
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	char path[512];

	(void)state;
	assert_true(rb_dkim_aligned("example.org", "a@example.org"));
	assert_true(rb_dkim_aligned("example.org", "a@mail.EXAMPLE.org"));
	assert_false(rb_dkim_aligned("example.org", "a@badexample.org"));
	assert_false(rb_dkim_aligned("mail.example.org", "a@example.org"));
	assert_false(rb_dkim_aligned("", "a@example.org"));
	assert_false(rb_dkim_aligned("example.org", "no-at-sign"));

	/* The signed author reply passes; the tampered one fails. */
	snprintf(path, sizeof(path), "%s/reply-author", dir);
	if (rb_read_file(&b, path))
		skip(); /* runs after test_end_to_end only */
	assert_int_equal(
		rb_dkim_verify(&r, b.ptr, b.len, "ada@example.org", keys), 0);
	assert_true(r.pass);
	assert_string_equal(r.domain, "example.org");
	/* Aligned only with its own domain. */
	assert_int_equal(
		rb_dkim_verify(&r, b.ptr, b.len, "x@evil.example", keys), 0);
	assert_false(r.pass);
	assert_non_null(strstr(r.reason, "not the From: domain"));
	rb_buf_reset(&b);
	snprintf(path, sizeof(path), "%s/reply-tampered", dir);
	assert_int_equal(rb_read_file(&b, path), 0);
	assert_int_equal(
		rb_dkim_verify(&r, b.ptr, b.len, "grace@example.org", keys), 0);
	assert_false(r.pass);
	assert_non_null(strstr(r.reason, "body hash"));
	/* Unsigned mail fails with a reason. */
	assert_int_equal(rb_dkim_verify(&r, "From: a@example.org\n\nhi\n", 25,
					"a@example.org", keys),
			 0);
	assert_false(r.pass);
	assert_non_null(strstr(r.reason, "no DKIM signature"));
	rb_buf_release(&b);
}

/* A patch whose subject is markup: the dashboard must show it as text. */
static const char xss_mail[] =
	"From: Eve <eve@example.org>\n"
	"To: demo-list@example.org\n"
	"List-Id: <demo-list.example.org>\n"
	"Subject: [PATCH] ring: <script>alert('x')</script> & \"q\"\n"
	"Date: Tue, 3 Nov 2026 12:00:00 +0000\n"
	"Message-ID: <xss-1@example.org>\n\n"
	"Nothing to see.\n\n"
	"Signed-off-by: Eve <eve@example.org>\n---\n"
	" lib/ring.c | 1 +\n 1 file changed, 1 insertion(+)\n\n"
	"diff --git a/lib/ring.c b/lib/ring.c\n"
	"--- a/lib/ring.c\n+++ b/lib/ring.c\n"
	"@@ -1,3 +1,4 @@\n"
	" // SPDX-License-Identifier: GPL-2.0\n"
	"+/* <img src=x onerror=alert(1)> */\n"
	" #include <stdlib.h>\n"
	" #include \"../include/ring.h\"\n";

/* GET (or @method) http://127.0.0.1:@port@path with curl: body, status. */
static char *fetch(int port, const char *method, const char *path, int *status)
{
	struct rb_buf out = RB_BUF_INIT(1 << 22);
	char cmd[1024], buf[4096], *nl;
	size_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "curl -s -X %s -w '\\n%%{http_code}' "
		 "'http://127.0.0.1:%d%s'",
		 method, port, path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		rb_buf_add(&out, buf, n);
	pclose(f);
	assert_non_null(out.ptr);
	nl = strrchr(out.ptr, '\n');
	assert_non_null(nl);
	*status = atoi(nl + 1);
	*nl = '\0';
	return rb_buf_detach(&out, NULL);
}

static void test_dashboard(void **state)
{
	struct rb_feedback_stats fs = { 0 };
	struct rb_buf page = RB_BUF_INIT(1 << 22);
	struct rb_http *h = NULL;
	const char *ctype;
	char *body, *xss_id, path[512];
	struct rb_test_env e;
	int status, port;

	(void)state;
	if (system("command -v curl >/dev/null"))
		skip();
	rb_test_env_open(&e, dir, db_path, config_more);
	if (!rb_test_q_int(&e, "SELECT COUNT(*) FROM verdicts")) {
		rb_test_env_close(&e);
		skip(); /* runs after test_end_to_end only */
	}
	write_text("xss.eml", xss_mail);
	step(&e, "xss.eml", &fs);
	xss_id = q_text(&e, "SELECT id FROM series WHERE title LIKE"
			    " '%<script>%'");
	assert_non_null(xss_id);

	/* Rendered without a server. */
	assert_int_equal(
		rb_http_render(&page, e.st, "/", NULL, &status, &ctype), 0);
	assert_int_equal(status, 200);
	assert_null(strstr(page.ptr, "<script"));
	assert_non_null(strstr(page.ptr,
			       "ring: &lt;script&gt;alert(&#39;x&#39;)"
			       "&lt;/script&gt; &amp; &quot;q&quot;"));
	assert_non_null(
		strstr(page.ptr, "ring: note that a new ring is empty"));
	assert_non_null(strstr(page.ptr, "applied on demo at "));
	rb_test_env_close(&e);

	/* Served, from its own connection to the store. */
	assert_int_equal(rb_http_start(&h, "127.0.0.1:0", db_path, NULL), 0);
	port = rb_http_port(h);
	assert_true(port > 0);
	body = fetch(port, "GET", "/stats", &status);
	assert_int_equal(status, 200);
	assert_non_null(strstr(body, "id=\"precision-finding\">0.50<"));
	assert_non_null(strstr(body, "<svg id=\"chart-precision\""));
	assert_non_null(strstr(body, "<svg id=\"chart-reviews-per-day\""));
	assert_non_null(strstr(body, "<svg id=\"chart-latency\""));
	free(body);
	body = fetch(port, "GET", "/metrics", &status);
	assert_int_equal(status, 200);
	assert_non_null(
		strstr(body, "\nreviewbot_precision_per_finding 0.5\n"));
	assert_non_null(strstr(body, "reviewbot_precision{subsystem=\"RING "
				     "BUFFER\"} 0.5\n"));
	assert_non_null(strstr(body, "reviewbot_review_latency_seconds_count"));
	free(body);
	/* The series page: the hostile title and file line stay text. */
	snprintf(path, sizeof(path), "/series?id=%s", xss_id);
	body = fetch(port, "GET", path, &status);
	assert_int_equal(status, 200);
	assert_null(strstr(body, "<script"));
	assert_null(strstr(body, "<img"));
	assert_non_null(strstr(body, "&lt;script&gt;"));
	free(body);
	body = fetch(port, "GET", "/series?id=nope", &status);
	assert_int_equal(status, 404);
	free(body);
	body = fetch(port, "POST", "/", &status);
	assert_int_equal(status, 405);
	free(body);
	body = fetch(port, "GET", "/etc/passwd", &status);
	assert_int_equal(status, 404);
	free(body);
	rb_http_stop(h);
	assert_int_equal(rb_http_start(&h, "0.0.0.0:http", db_path, NULL),
			 -RB_ECONFIG);
	assert_int_equal(rb_http_start(&h, "example.org:80", db_path, NULL),
			 -RB_ECONFIG);
	free(xss_id);
	rb_buf_release(&page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_end_to_end),
		cmocka_unit_test(test_similar),
		cmocka_unit_test(test_dkim),
		cmocka_unit_test(test_dashboard),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return ret;
}
