// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_dkim.c - rb_dkim_verify() on mail signed here (keys made by
 * opendkim-genkey, served from a key file; the signer is
 * tests/security/mail_dkim_sign.py): what a pass vouches for is the one
 * From: field, signed, with the whole body, aligned with d= (issue 17).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mail/dkim.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

static char dir[] = "/tmp/rb-test-dkim.XXXXXX";
static char keys[256];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int setup(void **state)
{
	(void)state;
	if (!getenv("RB_SRC") ||
	    system("command -v opendkim-genkey >/dev/null && "
		   "command -v openssl >/dev/null")) {
		fprintf(stderr, "SKIP: needs RB_SRC, opendkim-tools and "
				"openssl\n");
		return 0;
	}
	if (!mkdtemp(dir))
		return -1;
	snprintf(keys, sizeof(keys), "%s/keys", dir);
	return sh("set -e; cd %s; for d in example.org evil.example; do"
		  " mkdir -p k-$d; opendkim-genkey -D k-$d -d $d -s rbtest;"
		  " python3 -c 'import re,sys; t=open(sys.argv[1]).read();"
		  " print(\"rbtest._domainkey.\"+sys.argv[2]+\" \"+"
		  "\"\".join(re.findall(r\"\\\"([^\\\"]*)\\\"\", t)))'"
		  " k-$d/rbtest.txt $d >>keys; done",
		  dir) ?
		       -1 :
		       0;
}

static int teardown(void **state)
{
	(void)state;
	if (keys[0] && !getenv("RB_KEEP"))
		sh("rm -rf %s", dir);
	return 0;
}

/*
 * Writes @mail (a header block, an empty line, a body) to a file, signs
 * it with @domain's key and mail_dkim_sign.py @args, and verifies the
 * result (with @tail appended after signing) for @from.
 */
static void verify(struct rb_dkim_result *r, const char *mail,
		   const char *domain, const char *args, const char *tail,
		   const char *from)
{
	char in[512], out[512];
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	FILE *f;

	if (!keys[0])
		skip();
	snprintf(in, sizeof(in), "%s/in.eml", dir);
	snprintf(out, sizeof(out), "%s/out.eml", dir);
	f = fopen(in, "w");
	assert_non_null(f);
	fputs(mail, f);
	fclose(f);
	assert_int_equal(sh("python3 %s/tests/security/mail_dkim_sign.py "
			    "%s %s %s %s/k-%s/rbtest.private %s",
			    getenv("RB_SRC"), in, out, domain, dir, domain,
			    args),
			 0);
	assert_int_equal(rb_read_file(&b, out), 0);
	if (tail)
		assert_int_equal(rb_buf_puts(&b, tail), 0);
	assert_int_equal(rb_dkim_verify(r, b.ptr, b.len, from, keys), 0);
	rb_buf_release(&b);
}

#define REPLY(from)                                         \
	"From: " from "\n"                                  \
	"To: reviewbot <reviewbot@localhost>\n"             \
	"Subject: Re: [PATCH] ring\n"                       \
	"Date: Thu, 5 Nov 2026 10:00:00 +0000\n"            \
	"Message-ID: <r1@example.org>\n"                    \
	"In-Reply-To: <rb-1@localhost>\n"                   \
	"References: <p1@example.org> <rb-1@localhost>\n\n" \
	"F1: false positive\n"

static void test_pass(void **state)
{
	struct rb_dkim_result r;

	(void)state;
	verify(&r, REPLY("Grace Hopper <grace@example.org>"), "example.org", "",
	       NULL, "grace@example.org");
	assert_true(r.pass);
	assert_true(r.from_ok);
	assert_true(r.thread_signed);
	assert_string_equal(r.domain, "example.org");
	assert_string_equal(r.reason, "");
	/* a parent domain signs for a subdomain (relaxed alignment) */
	verify(&r, REPLY("g@mail.example.org"), "example.org", "", NULL,
	       "G@Mail.Example.org");
	assert_true(r.pass);
	/* but not another domain */
	verify(&r, REPLY("grace@example.org"), "evil.example", "", NULL,
	       "grace@example.org");
	assert_false(r.pass);
	assert_non_null(strstr(r.reason, "not the From: domain"));
	/* a signature that leaves the threading out passes, and says so */
	verify(&r, REPLY("grace@example.org"), "example.org",
	       "--headers from:to:subject:date:message-id", NULL,
	       "grace@example.org");
	assert_true(r.pass);
	assert_false(r.thread_signed);
}

static void test_one_from(void **state)
{
	struct rb_dkim_result r;

	(void)state;
	/* Mallory's signed reply with Grace's From: prepended */
	verify(&r, REPLY("mallory@example.org"), "example.org", "", NULL,
	       "grace@example.org");
	assert_false(r.pass);
	assert_false(r.from_ok);
	assert_non_null(strstr(r.reason, "not the sender grace@example.org"));
	verify(&r,
	       "From: Grace <grace@example.org>\n" REPLY("mallory@example.org"),
	       "example.org", "", NULL, "grace@example.org");
	assert_false(r.pass);
	assert_non_null(strstr(r.reason, "2 From: header fields"));
	/* one field, two mailboxes */
	verify(&r,
	       REPLY("Grace <grace@example.org>, Mallory "
		     "<mallory@example.org>"),
	       "example.org", "", NULL, "grace@example.org");
	assert_false(r.pass);
	assert_non_null(strstr(r.reason, "2 mailboxes"));
	/* no From: at all */
	verify(&r, "To: a@example.org\nSubject: x\n\nF1: fp\n", "example.org",
	       "", NULL, "grace@example.org");
	assert_false(r.pass);
	assert_non_null(strstr(r.reason, "0 From: header fields"));
}

static void test_body_and_headers(void **state)
{
	struct rb_dkim_result r;
	char raw[] = "From: grace@example.org\nSubject: a\0b\n\nhi\n";

	(void)state;
	/* l=: text after the signed length is unsigned */
	verify(&r, REPLY("grace@example.org"), "example.org", "--body-length",
	       "F2: false positive\n", "grace@example.org");
	assert_false(r.pass);
	assert_non_null(strstr(r.reason, "(l=)"));
	/* a changed body */
	verify(&r, REPLY("grace@example.org"), "example.org", "",
	       "F2: false positive\n", "grace@example.org");
	assert_false(r.pass);
	assert_non_null(strstr(r.reason, "body hash"));
	/* libopendkim 2.11 reads past a header field with a NUL byte */
	if (!keys[0])
		skip();
	assert_int_equal(rb_dkim_verify(&r, raw, sizeof(raw) - 1,
					"grace@example.org", keys),
			 0);
	assert_false(r.pass);
	assert_non_null(strstr(r.reason, "NUL byte"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass),
		cmocka_unit_test(test_one_from),
		cmocka_unit_test(test_body_and_headers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
