// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_compose.c - reply composition (checked by parsing the output back
 * with libetpan, an independent RFC 5322 / 2047 / 2045 implementation),
 * header injection, and the senders: the Maildir outbox here, and SMTP
 * against a live server when tests/integration/t_smtp_*.sh start one and
 * set RB_SMTP_MODE and RB_SMTP_PORT (skipped otherwise).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cmocka.h>
#include <libetpan/libetpan.h>

#include "mail/addr.h"
#include "mail/compose.h"
#include "mail/sender.h"
#include "mail/sender_maildir.h"
#include "mail/sender_smtp.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/banned.h"

static const char *const to1[] = {
	"\"Lorenzo Stoakes (Oracle)\" <ljs@kernel.org>"
};
static const char *const cc1[] = {
	"Andrew Morton <akpm@linux-foundation.org>",
	"linux-mm@kvack.org",
};
static const char *const refs1[] = {
	"<cover.1700000000.git.ljs@kernel.org>",
	"patch-4.ljs@kernel.org",
};

static void base_reply(struct rb_reply *r)
{
	memset(r, 0, sizeof(*r));
	r->from = "reviewbot <reviewbot@example.org>";
	r->to = to1;
	r->n_to = 1;
	r->cc = cc1;
	r->n_cc = 2;
	r->subject = "[PATCH v2 4/9] mm/huge_memory: handle buggy PMD entry "
		     "in zap_huge_pmd()";
	r->in_reply_to = "<patch-4.ljs@kernel.org>";
	r->references = refs1;
	r->n_references = 2;
	r->date = 1700000000;
	r->policy = RB_MODE_ADVISORY;
	r->series_id = "v2-zap-huge-pmd";
	r->body = "Advisory review of v2 4/9.\n\n> +\treturn true;\n\n"
		  "[F1] (medium) Is that right?\n\nFrom here on, a line "
		  "starting with From is fine.\nFrom the top.\n.\n";
}

/* Every line ends in CRLF, no bare CR or LF; header lines <= 998. */
static void assert_crlf(const char *m, size_t len)
{
	size_t i, col = 0;
	bool in_head = true;

	for (i = 0; i < len; i++) {
		if (m[i] == '\r') {
			assert_true(i + 1 < len && m[i + 1] == '\n');
			if (in_head && col == 0)
				in_head = false;
			i++;
			col = 0;
			continue;
		}
		assert_true(m[i] != '\n');
		col++;
		assert_true(col <= 998);
	}
	assert_true(len >= 2 && m[len - 2] == '\r' && m[len - 1] == '\n');
}

/* The header block, parsed by libetpan. */
static struct mailimf_fields *parse_fields(const char *m, size_t len)
{
	struct mailimf_fields *f = NULL;
	size_t idx = 0;

	assert_int_equal(mailimf_fields_parse(m, len, &idx, &f),
			 MAILIMF_NO_ERROR);
	return f;
}

static char *decode_words(const char *raw)
{
	char *out = NULL;
	size_t idx = 0;

	assert_int_equal(mailmime_encoded_phrase_parse("utf-8", raw,
						       strlen(raw), &idx,
						       "utf-8", &out),
			 MAILIMF_NO_ERROR);
	return out;
}

/* The decoded Subject, and a count of fields named @name. */
static char *field_subject(struct mailimf_fields *f)
{
	clistiter *it;

	for (it = clist_begin(f->fld_list); it; it = clist_next(it)) {
		struct mailimf_field *fld = clist_content(it);

		if (fld->fld_type == MAILIMF_FIELD_SUBJECT)
			return decode_words(
				fld->fld_data.fld_subject->sbj_value);
	}
	fail_msg("no Subject");
	return NULL;
}

static int count_fields(struct mailimf_fields *f, int type, const char *name)
{
	clistiter *it;
	int n = 0;

	for (it = clist_begin(f->fld_list); it; it = clist_next(it)) {
		struct mailimf_field *fld = clist_content(it);

		if (fld->fld_type == type &&
		    type != MAILIMF_FIELD_OPTIONAL_FIELD)
			n++;
		else if (fld->fld_type == MAILIMF_FIELD_OPTIONAL_FIELD &&
			 name &&
			 !strcasecmp(fld->fld_data.fld_optional_field->fld_name,
				     name))
			n++;
	}
	return n;
}

static const char *optional_value(struct mailimf_fields *f, const char *name)
{
	clistiter *it;

	for (it = clist_begin(f->fld_list); it; it = clist_next(it)) {
		struct mailimf_field *fld = clist_content(it);

		if (fld->fld_type == MAILIMF_FIELD_OPTIONAL_FIELD &&
		    !strcasecmp(fld->fld_data.fld_optional_field->fld_name,
				name))
			return fld->fld_data.fld_optional_field->fld_value;
	}
	return NULL;
}

static void test_basic(void **state)
{
	static const char want[] =
		"From: reviewbot <reviewbot@example.org>\r\n"
		"To: \"Lorenzo Stoakes (Oracle)\" <ljs@kernel.org>\r\n"
		"Cc: Andrew Morton <akpm@linux-foundation.org>, linux-mm@kvack.org\r\n"
		"Subject: Re: [PATCH v2 4/9] mm/huge_memory: handle buggy PMD entry in\r\n"
		" zap_huge_pmd()\r\n"
		"Date: Tue, 14 Nov 2023 22:13:20 +0000\r\n"
		"Message-ID: <rb-";
	static const char tail[] =
		"@example.org>\r\n"
		"In-Reply-To: <patch-4.ljs@kernel.org>\r\n"
		"References: <cover.1700000000.git.ljs@kernel.org> <patch-4.ljs@kernel.org>\r\n"
		"MIME-Version: 1.0\r\n"
		"Content-Type: text/plain; charset=utf-8\r\n"
		"Content-Transfer-Encoding: 8bit\r\n"
		"Auto-Submitted: auto-replied\r\n"
		"X-Reviewbot-Policy: advisory\r\n"
		"X-Reviewbot-Series: v2-zap-huge-pmd\r\n"
		"\r\n"
		"Advisory review of v2 4/9.\r\n\r\n> +\treturn true;\r\n\r\n"
		"[F1] (medium) Is that right?\r\n\r\nFrom here on, a line "
		"starting with From is fine.\r\nFrom the top.\r\n.\r\n";
	struct rb_buf a = RB_BUF_INIT(1 << 20), b = RB_BUF_INIT(1 << 20);
	struct rb_reply r;
	char *id = NULL, *id2 = NULL, *p;
	size_t i;

	base_reply(&r);
	assert_int_equal(rb_compose(&a, &id, &r), 0);
	assert_crlf(a.ptr, a.len);
	assert_memory_equal(a.ptr, want, sizeof(want) - 1);
	p = a.ptr + sizeof(want) - 1;
	for (i = 0; i < 64; i++)
		assert_non_null(strchr("0123456789abcdef", p[i]));
	assert_string_equal(p + 64, tail);
	assert_int_equal(strlen(id), 4 + 64 + 13);
	assert_memory_equal(id, "<rb-", 4);
	assert_memory_equal(id + 4, p, 64);
	assert_string_equal(id + 68, "@example.org>");

	/* The resend rule: same input, same bytes, same Message-ID. */
	assert_int_equal(rb_compose(&b, &id2, &r), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.ptr, b.ptr, a.len);
	assert_string_equal(id, id2);
	free(id2);

	/* A different body gives a different Message-ID. */
	r.body = "Another body.\n";
	rb_buf_reset(&b);
	assert_int_equal(rb_compose(&b, &id2, &r), 0);
	assert_string_not_equal(id, id2);
	free(id2);
	/* The date is not part of the id (it is stored, not derived). */
	base_reply(&r);
	r.date = 1700000001;
	rb_buf_reset(&b);
	assert_int_equal(rb_compose(&b, &id2, &r), 0);
	assert_string_equal(id, id2);
	assert_non_null(
		strstr(b.ptr, "Date: Tue, 14 Nov 2023 22:13:21 +0000\r\n"));
	free(id2);
	free(id);

	/* Appends: a buffer that holds something keeps it. */
	rb_buf_reset(&b);
	rb_buf_puts(&b, "X");
	assert_int_equal(rb_compose(&b, NULL, &r), 0);
	assert_int_equal(b.ptr[0], 'X');
	rb_buf_release(&a);
	rb_buf_release(&b);
}

static char *compose_subject(const char *subject, struct rb_buf *out)
{
	struct mailimf_fields *f;
	struct rb_reply r;
	char *s;

	base_reply(&r);
	r.subject = subject;
	rb_buf_reset(out);
	if (rb_compose(out, NULL, &r))
		fail_msg("compose: %s", rb_errmsg());
	assert_crlf(out->ptr, out->len);
	f = parse_fields(out->ptr, out->len);
	s = field_subject(f);
	/* Exactly one of each header we write, and nothing injected. */
	assert_int_equal(count_fields(f, MAILIMF_FIELD_SUBJECT, NULL), 1);
	assert_int_equal(count_fields(f, MAILIMF_FIELD_BCC, NULL), 0);
	assert_int_equal(count_fields(f, MAILIMF_FIELD_TO, NULL), 1);
	assert_int_equal(count_fields(f, MAILIMF_FIELD_CC, NULL), 1);
	assert_int_equal(
		count_fields(f, MAILIMF_FIELD_OPTIONAL_FIELD, "X-Evil"), 0);
	assert_int_equal(count_fields(f, MAILIMF_FIELD_OPTIONAL_FIELD,
				      "Auto-Submitted"),
			 1);
	mailimf_fields_free(f);
	return s;
}

static void check_subject(const char *in, const char *want)
{
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	char *s = compose_subject(in, &b);

	assert_string_equal(s, want);
	free(s);
	rb_buf_release(&b);
}

static void test_subject(void **state)
{
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	struct rb_reply r;
	char big[600];
	char *s;
	size_t i;

	check_subject("[PATCH] mm: fix", "Re: [PATCH] mm: fix");
	/* "Re:" is not doubled. */
	check_subject("Re: [PATCH] mm: fix", "Re: [PATCH] mm: fix");
	check_subject("RE: [PATCH] mm: fix", "Re: [PATCH] mm: fix");
	/* Non-ASCII: RFC 2047 again, decoded back to the same text. */
	check_subject("[PATCH] mm: f\xc3\xbcr J\xc3\xb6rg",
		      "Re: [PATCH] mm: f\xc3\xbcr J\xc3\xb6rg");
	check_subject(
		"[PATCH] \xe5\x86\x85\xe5\xad\x98\xe7\xae\xa1\xe7\x90\x86",
		"Re: [PATCH] \xe5\x86\x85\xe5\xad\x98\xe7\xae\xa1\xe7\x90\x86");
	/* A decoded subject with CR/LF (it was encoded as =0D=0A): the
	 * line breaks become spaces, no header is injected. */
	check_subject("[PATCH] x\r\nBcc: victim@example.org\r\nX-Evil: 1",
		      "Re: [PATCH] x Bcc: victim@example.org X-Evil: 1");
	check_subject("[PATCH] x\nX-Evil: 1", "Re: [PATCH] x X-Evil: 1");
	check_subject("[PATCH] x\rX-Evil: 1", "Re: [PATCH] x X-Evil: 1");
	check_subject("\xc3\xa4\r\n\r\nX-Evil: 1", "Re: \xc3\xa4 X-Evil: 1");
	/* Something that looks like an encoded word stays literal. */
	check_subject("[PATCH] =?utf-8?q?X-Evil?=",
		      "Re: [PATCH] =?utf-8?q?X-Evil?=");
	check_subject("", "Re:");
	check_subject("\xc3\xa4 b \xc3\xa4 \xc3\xa4 =?c?= d",
		      "Re: \xc3\xa4 b \xc3\xa4 \xc3\xa4 =?c?= d");
	/* Only the words that need it are encoded. */
	s = compose_subject("[PATCH] mm: f\xc3\xbcr J\xc3\xb6rg", &b);
	free(s);
	assert_non_null(strstr(b.ptr, "\r\nSubject: Re: [PATCH] mm: "
				      "=?utf-8?q?f=C3=BCr_J=C3=B6rg?=\r\n"));

	/* A long subject folds at spaces: lines <= 78, same text back. */
	for (i = 0; i < 30; i++)
		memcpy(big + i * 10, "word-word ", 10);
	big[299] = '\0';
	s = compose_subject(big, &b);
	assert_memory_equal(s, "Re: word-word word-word", 23);
	assert_int_equal(strlen(s), 4 + 299);
	free(s);
	{
		const char *p = strstr(b.ptr, "Subject:"), *e;

		for (;;) {
			e = strstr(p, "\r\n");
			assert_true(e - p <= 78);
			if (e[2] != ' ')
				break;
			p = e + 2;
		}
	}
	/* A non-ASCII word longer than a line: encoded words of <= 75. */
	for (i = 0; i < 298; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	big[298] = '\0';
	s = compose_subject(big, &b);
	assert_string_equal(s + 4, big);
	free(s);

	/* Other control characters and bad UTF-8 are refused. */
	base_reply(&r);
	r.subject = "[PATCH] a\x1b[31m";
	rb_buf_reset(&b);
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	assert_int_equal(b.len, 0);
	r.subject = "[PATCH] \xff";
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	rb_buf_release(&b);
}

static void test_addresses(void **state)
{
	static const char *const to[] = {
		"J\xc3\xb6rg R\xc3\xb6\144el <joro@8bytes.org>",
		"\"Doe, John\" <jd@example.org>",
		/* Wire form (rb_addr_format()'s output): not encoded twice. */
		"=?utf-8?q?Jo=C3=ABl?= <joel@example.org>",
	};
	static const char *const evil[] = {
		"Evil <a@b.org>\r\nBcc: victim@example.org",
	};
	static const char *const evil2[] = { "a@b.org\r\n.\r\nRSET" };
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	struct mailimf_fields *f;
	struct rb_reply r;
	clistiter *it;
	char **rcpts = NULL, *from = NULL;
	const char **many;
	size_t n = 0, i;
	int seen = 0;

	base_reply(&r);
	r.to = to;
	r.n_to = 3;
	assert_int_equal(rb_compose(&b, NULL, &r), 0);
	f = parse_fields(b.ptr, b.len);
	for (it = clist_begin(f->fld_list); it; it = clist_next(it)) {
		struct mailimf_field *fld = clist_content(it);
		struct mailimf_address_list *al;
		clistiter *j;

		if (fld->fld_type != MAILIMF_FIELD_TO)
			continue;
		al = fld->fld_data.fld_to->to_addr_list;
		for (j = clist_begin(al->ad_list); j; j = clist_next(j)) {
			struct mailimf_address *ad = clist_content(j);
			struct mailimf_mailbox *mb;
			char *name;

			assert_int_equal(ad->ad_type, MAILIMF_ADDRESS_MAILBOX);
			mb = ad->ad_data.ad_mailbox;
			name = decode_words(mb->mb_display_name);
			if (seen == 0) {
				assert_string_equal(name,
						    "J\xc3\xb6rg R\xc3\xb6"
						    "del");
				assert_string_equal(mb->mb_addr_spec,
						    "joro@8bytes.org");
			} else if (seen == 1) {
				assert_string_equal(name, "Doe, John");
				assert_string_equal(mb->mb_addr_spec,
						    "jd@example.org");
			} else {
				assert_string_equal(name, "Jo\xc3\xabl");
				assert_string_equal(mb->mb_addr_spec,
						    "joel@example.org");
			}
			free(name);
			seen++;
		}
	}
	assert_int_equal(seen, 3);
	mailimf_fields_free(f);

	/* The envelope: bare addresses, duplicates removed. */
	assert_int_equal(rb_compose_envelope(&from, &rcpts, &n, &r), 0);
	assert_string_equal(from, "reviewbot@example.org");
	assert_int_equal(n, 5);
	assert_string_equal(rcpts[0], "joro@8bytes.org");
	assert_string_equal(rcpts[2], "joel@example.org");
	assert_string_equal(rcpts[4], "linux-mm@kvack.org");
	free(from);
	rb_addr_list_free(rcpts, n);

	/* Addresses with CR/LF are refused, the buffer stays as it was. */
	rb_buf_reset(&b);
	r.to = evil;
	r.n_to = 1;
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	assert_int_equal(b.len, 0);
	assert_int_equal(rb_compose_envelope(&from, &rcpts, &n, &r),
			 -RB_EINVAL);
	r.to = evil2;
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	r.to = to;
	r.from = "reviewbot <bot@example.org>\nBcc: x@y.org";
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	r.from = "reviewbot <reviewbot@example.org>";
	r.n_to = 0;
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);

	/* 1,000 recipients: refused, never truncated silently here. */
	many = calloc(1000, sizeof(*many));
	assert_non_null(many);
	for (i = 0; i < 1000; i++)
		many[i] = "dev@example.org";
	r.to = many;
	r.n_to = 1;
	r.cc = many;
	r.n_cc = 999;
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_ETOOBIG);
	assert_int_equal(rb_compose_envelope(&from, &rcpts, &n, &r),
			 -RB_ETOOBIG);
	r.n_cc = RB_ADDR_LIST_MAX - 1;
	assert_int_equal(rb_compose(&b, NULL, &r), 0);
	free(many);
	rb_buf_release(&b);
}

static void test_threading(void **state)
{
	static const char *const bad_refs[] = { "<a b@c>" };
	static const char *const no_irt[] = { "<root@x>" };
	const char **long_refs;
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	struct rb_reply r;
	char tmp[64][32];
	size_t i;

	base_reply(&r);
	r.references = no_irt;
	r.n_references = 1;
	assert_int_equal(rb_compose(&b, NULL, &r), 0);
	assert_non_null(strstr(b.ptr, "References: <root@x>"
				      " <patch-4.ljs@kernel.org>\r\n"));
	r.in_reply_to = "<evil@x>\r\nBcc: y@z.org";
	rb_buf_reset(&b);
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	/* A bad id in References is dropped, the reply still made. */
	base_reply(&r);
	r.references = bad_refs;
	r.n_references = 1;
	rb_buf_reset(&b);
	assert_int_equal(rb_compose(&b, NULL, &r), 0);
	assert_null(strstr(b.ptr, "a b@c"));
	assert_non_null(strstr(b.ptr, "References: <patch-4.ljs@kernel.org>"));

	/* A long chain is folded, every line <= 78. */
	long_refs = calloc(64, sizeof(*long_refs));
	assert_non_null(long_refs);
	for (i = 0; i < 64; i++) {
		snprintf(tmp[i], sizeof(tmp[i]), "<msg%zu@example.org>", i);
		long_refs[i] = tmp[i];
	}
	base_reply(&r);
	r.references = long_refs;
	r.n_references = 64;
	rb_buf_reset(&b);
	assert_int_equal(rb_compose(&b, NULL, &r), 0);
	{
		const char *p = strstr(b.ptr, "References:"), *e;
		int lines = 0;

		for (;;) {
			e = strstr(p, "\r\n");
			assert_true(e - p <= 78);
			lines++;
			if (e[2] != ' ')
				break;
			p = e + 2;
		}
		assert_true(lines > 10);
	}
	assert_non_null(strstr(b.ptr, "<msg0@example.org>"));
	assert_non_null(strstr(b.ptr, "<msg63@example.org>"));
	free(long_refs);
	rb_buf_release(&b);
}

static void test_body(void **state)
{
	static const char *const refused[] = {
		"Looks good.\n\nReviewed-by: reviewbot <reviewbot@example.org>\n",
		"Acked-by: x <x@y.org>",
		"fine\n  tested-by : someone\n",
		"a\x1b[31mred\n",
		"bare\rCR\n",
		"\xc3(\n",
	};
	static const char *const fine[] = {
		"> Reviewed-by: Someone <s@example.org>\n",
		"Reviewed by a human, not a trailer.\n",
		"crlf\r\nline\r\n",
		"form\ffeed\tand tab\n",
		"no newline at the end",
	};
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	struct mailimf_fields *f;
	struct rb_reply r;
	char *body, *dec = NULL;
	size_t i, idx, dlen = 0;
	const char *p;

	base_reply(&r);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		r.body = refused[i];
		rb_buf_reset(&b);
		if (rb_compose(&b, NULL, &r) != -RB_EINVAL)
			fail_msg("should be refused: %s", refused[i]);
		assert_int_equal(b.len, 0);
	}
	for (i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		r.body = fine[i];
		rb_buf_reset(&b);
		if (rb_compose(&b, NULL, &r))
			fail_msg("%s: %s", fine[i], rb_errmsg());
		assert_crlf(b.ptr, b.len);
	}
	assert_non_null(strstr(b.ptr, "\r\n\r\nno newline at the end\r\n"));

	/* A line over 998 bytes: quoted-printable, decoded back exactly. */
	body = malloc(3000);
	assert_non_null(body);
	memcpy(body, "short line\n", 11);
	for (i = 11; i < 2500; i++)
		body[i] = "abc=d \xc3\xa9"[i % 8];
	body[2499] = 'x';
	memcpy(body + 2500, "\ntrailing space \nend\n", 22);
	assert_true(rb_utf8_valid(body, strlen(body)));
	r.body = body;
	rb_buf_reset(&b);
	assert_int_equal(rb_compose(&b, NULL, &r), 0);
	assert_crlf(b.ptr, b.len);
	f = parse_fields(b.ptr, b.len);
	assert_string_equal(optional_value(f, "Content-Transfer-Encoding"),
			    "quoted-printable");
	mailimf_fields_free(f);
	p = strstr(b.ptr, "\r\n\r\n") + 4;
	for (;;) {
		const char *e = strstr(p, "\r\n");

		if (!e)
			break;
		assert_true(e - p <= 76);
		p = e + 2;
	}
	p = strstr(b.ptr, "\r\n\r\n") + 4;
	idx = 0;
	assert_int_equal(mailmime_quoted_printable_body_parse(
				 p, strlen(p), &idx, &dec, &dlen, 0),
			 MAILIMF_NO_ERROR);
	{
		struct rb_buf want = RB_BUF_INIT(1 << 20);

		for (i = 0; body[i]; i++) {
			if (body[i] == '\n')
				rb_buf_putc(&want, '\r');
			rb_buf_putc(&want, body[i]);
		}
		assert_int_equal(dlen, want.len);
		assert_memory_equal(dec, want.ptr, dlen);
		rb_buf_release(&want);
	}
	mailmime_decoded_part_free(dec);
	free(body);
	rb_buf_release(&b);
}

static void test_headers(void **state)
{
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	struct rb_reply r;

	base_reply(&r);
	r.extra_headers =
		"X-Reviewbot-Version: 0.1\nList-Unsubscribe: <mailto:x@y.org>\n";
	assert_int_equal(rb_compose(&b, NULL, &r), 0);
	assert_non_null(strstr(b.ptr,
			       "X-Reviewbot-Series: v2-zap-huge-pmd\r\n"
			       "X-Reviewbot-Version: 0.1\r\n"
			       "List-Unsubscribe: <mailto:x@y.org>\r\n\r\n"));
	r.extra_headers = "From: someone@else.org\n";
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	r.extra_headers = "X-A: 1\r\n\r\nX-B: body-split";
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	r.extra_headers = "X-A: \x01";
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	r.extra_headers = "no colon";
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	r.extra_headers = NULL;

	r.policy = RB_MODE_OFF; /* no mail carries it */
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	r.policy = RB_MODE_BLOCKING;
	r.series_id = "v2\r\nBcc: x@y.org";
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	r.series_id = "s1";
	r.date = -5;
	assert_int_equal(rb_compose(&b, NULL, &r), -RB_EINVAL);
	r.date = 0;
	rb_buf_reset(&b);
	assert_int_equal(rb_compose(&b, NULL, &r), 0);
	assert_non_null(
		strstr(b.ptr, "Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n"));
	assert_non_null(strstr(b.ptr, "X-Reviewbot-Policy: blocking\r\n"));
	/* The Message-ID's domain is the From address's. */
	r.from = "\"Review Bot\" <bot@[127.0.0.1]>";
	rb_buf_reset(&b);
	assert_int_equal(rb_compose(&b, NULL, &r), 0);
	assert_non_null(strstr(b.ptr, "@[127.0.0.1]>\r\nIn-Reply-To"));
	/* The output cap is honoured. */
	{
		struct rb_buf small = RB_BUF_INIT(100);

		assert_int_equal(rb_compose(&small, NULL, &r), -RB_ETOOBIG);
		assert_int_equal(small.len, 0);
		rb_buf_release(&small);
	}
	rb_buf_release(&b);
}

static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void test_maildir(void **state)
{
	char dir[] = "/tmp/rb-test-maildir.XXXXXX";
	const char *rcpt[] = { "ljs@kernel.org", "linux-mm@kvack.org" };
	const char *bad[] = { "ljs@kernel.org\r\nDATA" };
	struct rb_buf msg = RB_BUF_INIT(1 << 20), got = RB_BUF_INIT(1 << 20);
	struct rb_buf path = RB_BUF_INIT(4096);
	struct rb_sender *s = NULL;
	struct rb_reply r;
	struct dirent *e;
	DIR *d;

	rb_log_set_quiet(1);
	assert_non_null(mkdtemp(dir));
	rb_buf_printf(&path, "%s/outbox", dir);
	assert_int_equal(rb_sender_maildir_new(&s, path.ptr), 0);
	base_reply(&r);
	assert_int_equal(rb_compose(&msg, NULL, &r), 0);
	assert_int_equal(rb_sender_send(s, "reviewbot@example.org", rcpt, 2,
					msg.ptr, msg.len),
			 0);
	assert_int_equal(rb_sender_send(s, "reviewbot@example.org", bad, 1,
					msg.ptr, msg.len),
			 -RB_EINVAL);
	assert_int_equal(rb_sender_send(s, "bot@example.org>\r\n", rcpt, 1,
					msg.ptr, msg.len),
			 -RB_EINVAL);
	assert_int_equal(s->ops->send(s, "reviewbot@example.org", bad, 1,
				      msg.ptr, msg.len),
			 -RB_EINVAL);
	assert_int_equal(rb_sender_send(s, "reviewbot@example.org", rcpt, 0,
					msg.ptr, msg.len),
			 -RB_EINVAL);
	assert_string_equal(s->ops->name, "maildir");

	rb_buf_reset(&path);
	rb_buf_printf(&path, "%s/outbox/new", dir);
	assert_int_equal(count_files(path.ptr), 1);
	d = opendir(path.ptr);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			break;
	assert_non_null(e);
	rb_buf_printf(&path, "/%s", e->d_name);
	closedir(d);
	assert_int_equal(rb_read_file(&got, path.ptr), 0);
	assert_int_equal(got.len, msg.len);
	assert_memory_equal(got.ptr, msg.ptr, msg.len);
	unlink(path.ptr);

	rb_buf_reset(&path);
	rb_buf_printf(&path, "%s/outbox/tmp", dir);
	assert_int_equal(count_files(path.ptr), 0);
	rmdir(path.ptr);
	rb_buf_reset(&path);
	rb_buf_printf(&path, "%s/outbox/new", dir);
	rmdir(path.ptr);
	rb_buf_reset(&path);
	rb_buf_printf(&path, "%s/outbox/cur", dir);
	rmdir(path.ptr);
	rb_buf_reset(&path);
	rb_buf_printf(&path, "%s/outbox", dir);
	rmdir(path.ptr);
	rmdir(dir);
	rb_sender_free(s);
	rb_sender_free(NULL);
	rb_buf_release(&msg);
	rb_buf_release(&got);
	rb_buf_release(&path);
}

static void test_smtp_config(void **state)
{
	struct rb_smtp_opts o = RB_SMTP_OPTS_INIT;
	struct rb_sender *s = NULL;

	o.url = "smtp://mail.example.org:587";
	o.starttls = RB_STARTTLS_OFF;
	assert_int_equal(rb_sender_smtp_new(&s, &o), -RB_ECONFIG);
	assert_null(s);
	o.url = "smtp://127.0.0.2:2525";
	assert_int_equal(rb_sender_smtp_new(&s, &o), 0);
	assert_string_equal(s->ops->name, "smtp");
	rb_sender_free(s);
	o.url = "smtp://localhost";
	assert_int_equal(rb_sender_smtp_new(&s, &o), 0);
	rb_sender_free(s);
	o.url = "smtp://[::1]:25";
	assert_int_equal(rb_sender_smtp_new(&s, &o), 0);
	rb_sender_free(s);
	o.url = "smtp://127.evil.example.org";
	assert_int_equal(rb_sender_smtp_new(&s, &o), -RB_ECONFIG);
	o.starttls = RB_STARTTLS_REQUIRED;
	o.url = "smtps://mail.example.org";
	assert_int_equal(rb_sender_smtp_new(&s, &o), 0);
	rb_sender_free(s);
	o.url = "http://mail.example.org";
	assert_int_equal(rb_sender_smtp_new(&s, &o), -RB_ECONFIG);
	o.url = "smtp://user:pw@mail.example.org";
	assert_int_equal(rb_sender_smtp_new(&s, &o), -RB_ECONFIG);
	o.url = "smtp://mail.example.org/path";
	assert_int_equal(rb_sender_smtp_new(&s, &o), -RB_ECONFIG);
	o.url = NULL;
	assert_int_equal(rb_sender_smtp_new(&s, &o), -RB_ECONFIG);
}

/*
 * Live SMTP, driven by tests/integration/t_smtp_*.sh: RB_SMTP_MODE names
 * what to do against 127.0.0.1:RB_SMTP_PORT, RB_SMTP_OUT is a file that
 * receives the Message-IDs sent, one a line.
 */
static struct rb_sender *live_sender(enum rb_starttls tls, long timeout_ms)
{
	struct rb_smtp_opts o = RB_SMTP_OPTS_INIT;
	struct rb_buf url = RB_BUF_INIT(256);
	struct rb_sender *s = NULL;

	/* RB_SMTP_URL (smtps://...), RB_SMTP_CA, RB_SMTP_USER and
	 * RB_SMTP_PASSWORD override the defaults. */
	if (getenv("RB_SMTP_URL"))
		rb_buf_puts(&url, getenv("RB_SMTP_URL"));
	else
		rb_buf_printf(&url, "smtp://127.0.0.1:%s",
			      getenv("RB_SMTP_PORT"));
	o.url = url.ptr;
	o.starttls = tls;
	o.timeout_ms = timeout_ms;
	o.ca_file = getenv("RB_SMTP_CA");
	o.user = getenv("RB_SMTP_USER");
	o.password = getenv("RB_SMTP_PASSWORD");
	if (rb_sender_smtp_new(&s, &o))
		fail_msg("smtp_new: %s", rb_errmsg());
	rb_buf_release(&url);
	return s;
}

static int live_send(struct rb_sender *s, const struct rb_reply *r,
		     struct rb_buf *msg, char **id)
{
	char *from = NULL, **rcpts = NULL;
	size_t n = 0;
	int ret;

	rb_buf_reset(msg);
	assert_int_equal(rb_compose(msg, id, r), 0);
	assert_int_equal(rb_compose_envelope(&from, &rcpts, &n, r), 0);
	ret = rb_sender_send(s, from, (const char *const *)rcpts, n, msg->ptr,
			     msg->len);
	free(from);
	rb_addr_list_free(rcpts, n);
	return ret;
}

/* Appends the Message-ID to RB_SMTP_OUT, and the bytes to RB_SMTP_OUT.eml. */
static void record_sent(const char *id, const struct rb_buf *msg)
{
	const char *path = getenv("RB_SMTP_OUT");
	struct rb_buf eml = RB_BUF_INIT(4096);
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	assert_non_null(f);
	fprintf(f, "%s\n", id);
	fclose(f);
	rb_buf_printf(&eml, "%s.eml", path);
	assert_int_equal(
		rb_write_file_atomic(eml.ptr, msg->ptr, msg->len, 0600), 0);
	rb_buf_release(&eml);
}

static void test_smtp_live(void **state)
{
	const char *mode = getenv("RB_SMTP_MODE");
	struct rb_buf msg = RB_BUF_INIT(1 << 20), body = RB_BUF_INIT(1 << 20);
	struct rb_sender *s;
	struct rb_reply r;
	char *id = NULL;
	int ret;

	if (!mode || !getenv("RB_SMTP_PORT")) {
		skip();
		return;
	}
	base_reply(&r);
	r.subject =
		"[PATCH v2 4/9] mm: f\xc3\xbcr J\xc3\xb6rg\r\nBcc: evil@example.org";
	/* RB_SMTP_TAG makes distinct replies (distinct Message-IDs). */
	if (getenv("RB_SMTP_TAG")) {
		rb_buf_printf(&body, "%sTag: %s\n", r.body,
			      getenv("RB_SMTP_TAG"));
		r.body = body.ptr;
	}
	if (!strcmp(mode, "sink") || !strcmp(mode, "postfix")) {
		/* Deliver one reply; the shell test inspects the sink. */
		s = live_sender(RB_STARTTLS_OFF, 20000);
		ret = live_send(s, &r, &msg, &id);
		if (ret)
			fail_msg("send: %s", rb_errmsg());
		record_sent(id, &msg);
	} else if (!strcmp(mode, "down")) {
		/* Nothing listens, or the server is stopped: EAGAIN. */
		s = live_sender(RB_STARTTLS_OFF, 5000);
		ret = live_send(s, &r, &msg, &id);
		assert_int_equal(ret, -RB_EAGAIN);
	} else if (!strcmp(mode, "retry")) {
		/* 451 then 250: EAGAIN, then the same bytes are accepted. */
		struct rb_buf first = RB_BUF_INIT(1 << 20);
		char *id2 = NULL;

		s = live_sender(RB_STARTTLS_OFF, 10000);
		ret = live_send(s, &r, &first, &id);
		if (ret != -RB_EAGAIN || !strstr(rb_errmsg(), "451 4.3.0"))
			fail_msg("want EAGAIN with 451: %d %s", ret,
				 rb_errmsg());
		ret = live_send(s, &r, &msg, &id2);
		if (ret)
			fail_msg("resend: %s", rb_errmsg());
		assert_string_equal(id, id2);
		assert_int_equal(first.len, msg.len);
		assert_memory_equal(first.ptr, msg.ptr, msg.len);
		record_sent(id2, &msg);
		free(id2);
		rb_buf_release(&first);
	} else if (!strcmp(mode, "reject")) {
		/* 550 to a RCPT: a permanent failure with the reply text. */
		s = live_sender(RB_STARTTLS_OFF, 10000);
		ret = live_send(s, &r, &msg, &id);
		assert_int_equal(ret, -RB_EFAIL);
		if (!strstr(rb_errmsg(), "550 5.1.1 no such user"))
			fail_msg("errmsg: %s", rb_errmsg());
	} else if (!strcmp(mode, "notls")) {
		/* STARTTLS required, the server does not offer it. */
		s = live_sender(RB_STARTTLS_REQUIRED, 10000);
		ret = live_send(s, &r, &msg, &id);
		assert_int_equal(ret, -RB_ECONFIG);
	} else if (!strcmp(mode, "tls")) {
		/* STARTTLS (or smtps://) with the certificate verified
		 * against RB_SMTP_CA; the shell test inspects the sink. */
		s = live_sender(RB_STARTTLS_REQUIRED, 20000);
		ret = live_send(s, &r, &msg, &id);
		if (ret)
			fail_msg("send: %s", rb_errmsg());
		record_sent(id, &msg);
	} else if (!strcmp(mode, "tlsbad")) {
		/* A certificate that RB_SMTP_CA does not vouch for. */
		s = live_sender(RB_STARTTLS_REQUIRED, 20000);
		ret = live_send(s, &r, &msg, &id);
		if (ret != -RB_ECONFIG)
			fail_msg("want ECONFIG: %d %s", ret, rb_errmsg());
	} else if (!strcmp(mode, "auth")) {
		/* AUTH on a loopback server (RB_SMTP_USER/PASSWORD). */
		s = live_sender(RB_STARTTLS_OFF, 10000);
		ret = live_send(s, &r, &msg, &id);
		if (ret)
			fail_msg("send: %s", rb_errmsg());
		record_sent(id, &msg);
	} else if (!strcmp(mode, "authbad")) {
		/* Credentials refused: ECONFIG, and the reason never holds
		 * the password. */
		s = live_sender(RB_STARTTLS_OFF, 10000);
		ret = live_send(s, &r, &msg, &id);
		if (ret != -RB_ECONFIG || !strstr(rb_errmsg(), "535"))
			fail_msg("want ECONFIG with 535: %d %s", ret,
				 rb_errmsg());
		assert_null(strstr(rb_errmsg(), getenv("RB_SMTP_PASSWORD")));
	} else if (!strcmp(mode, "stall")) {
		/* The server never answers: a timeout, EAGAIN. */
		s = live_sender(RB_STARTTLS_OFF, 1500);
		ret = live_send(s, &r, &msg, &id);
		assert_int_equal(ret, -RB_EAGAIN);
	} else {
		fail_msg("unknown RB_SMTP_MODE %s", mode);
		return;
	}
	free(id);
	rb_sender_free(s);
	rb_buf_release(&msg);
	rb_buf_release(&body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_subject),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_threading),
		cmocka_unit_test(test_body),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_maildir),
		cmocka_unit_test(test_smtp_config),
		cmocka_unit_test(test_smtp_live),
	};

	rb_log_set_quiet(1);
	if (getenv("RB_SMTP_MODE"))
		cmocka_set_test_filter("test_smtp_live");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
