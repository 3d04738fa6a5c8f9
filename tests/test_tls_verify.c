// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tls_verify.c - the OpenSSL check of a server's certificate chain
 * and host name. A test CA, an intermediate CA and server certificates
 * (good, for the wrong host, self-signed) are made with the openssl tool
 * in a temporary directory when the test starts; nothing is stored.
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
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "mail/source_net.h"
#include "mail/tls_verify.h"
#include "util/err.h"
#include "util/banned.h"

static char dir[64];

/*
 * ca: the test root. inter: an intermediate under it. good: leaf for
 * 127.0.0.1 and localhost by ca. wrong: leaf for wrong.example.org by ca.
 * self: self-signed leaf for 127.0.0.1. deep: leaf for localhost by inter.
 */
static const char gen[] =
	"set -e; cd \"$1\"; "
	"k='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'; "
	"openssl req -x509 $k -keyout ca.key -out ca.pem -days 2 "
	" -subj /CN=rb-test-ca -addext basicConstraints=critical,CA:TRUE "
	" -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null; "
	"printf 'basicConstraints=critical,CA:TRUE\\n"
	"keyUsage=critical,keyCertSign,cRLSign\\n' >ca.ext; "
	"openssl req $k -keyout inter.key -out inter.csr -subj /CN=rb-inter "
	" 2>/dev/null; "
	"openssl x509 -req -in inter.csr -CA ca.pem -CAkey ca.key "
	" -CAcreateserial -days 2 -extfile ca.ext -out inter.pem 2>/dev/null; "
	"leaf() { printf 'subjectAltName=%s\\nextendedKeyUsage=serverAuth\\n' "
	"  \"$3\" >$1.ext; "
	" openssl req $k -keyout $1.key -out $1.csr -subj /CN=$1 2>/dev/null; "
	" openssl x509 -req -in $1.csr -CA $2.pem -CAkey $2.key "
	"  -CAcreateserial -days 2 -extfile $1.ext -out $1.pem 2>/dev/null; }; "
	"leaf good ca IP:127.0.0.1,DNS:localhost; "
	"leaf wrong ca DNS:wrong.example.org; "
	"leaf deep inter DNS:localhost; "
	"openssl req -x509 $k -keyout self.key -out self.pem -days 2 "
	" -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 "
	" 2>/dev/null";

static int setup(void **state)
{
	char cmd[256];
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rb-tls.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/gen.sh", dir);
	f = fopen(cmd, "w");
	if (!f)
		return -1;
	fputs(gen, f);
	if (fclose(f))
		return -1;
	snprintf(cmd, sizeof(cmd), "sh %s/gen.sh %s", dir, dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

struct chain {
	unsigned char *der[4];
	size_t len[4];
	size_t n;
};

static void add(struct chain *c, const char *name)
{
	char path[128];
	unsigned char *p = NULL;
	FILE *f;
	X509 *x;
	int len;

	snprintf(path, sizeof(path), "%s/%s.pem", dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	assert_non_null(x);
	len = i2d_X509(x, &p);
	assert_true(len > 0);
	X509_free(x);
	c->der[c->n] = p;
	c->len[c->n] = (size_t)len;
	c->n++;
}

static void release(struct chain *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		OPENSSL_free(c->der[i]);
	c->n = 0;
}

static int check(const char *host, bool with_ca, const char *a, const char *b)
{
	struct chain c = { 0 };
	char ca[128];
	int ret;

	snprintf(ca, sizeof(ca), "%s/ca.pem", dir);
	add(&c, a);
	if (b)
		add(&c, b);
	ret = rb_tls_verify_chain((const unsigned char *const *)c.der, c.len,
				  c.n, host, with_ca ? ca : NULL);
	release(&c);
	return ret;
}

static void test_good(void **state)
{
	(void)state;
	assert_int_equal(check("127.0.0.1", true, "good", NULL), 0);
	assert_int_equal(check("localhost", true, "good", NULL), 0);
	assert_int_equal(check("LOCALHOST", true, "good", NULL), 0);
	/* An intermediate sent by the server is used, never trusted. */
	assert_int_equal(check("localhost", true, "deep", "inter"), 0);
}

static void test_wrong_host(void **state)
{
	(void)state;
	assert_int_equal(check("127.0.0.2", true, "good", NULL), -RB_ECONFIG);
	assert_non_null(strstr(rb_errmsg(), "mismatch"));
	assert_int_equal(check("other.example.org", true, "good", NULL),
			 -RB_ECONFIG);
	assert_int_equal(check("127.0.0.1", true, "wrong", NULL), -RB_ECONFIG);
	assert_non_null(strstr(rb_errmsg(), "127.0.0.1"));
	/* The CN is not a name when there is a subjectAltName. */
	assert_int_equal(check("good", true, "good", NULL), -RB_ECONFIG);
}

static void test_untrusted(void **state)
{
	(void)state;
	assert_int_equal(check("127.0.0.1", true, "self", NULL), -RB_ECONFIG);
	assert_non_null(strstr(rb_errmsg(), "self-signed"));
	/* Without the test CA, the system store does not know it. */
	assert_int_equal(check("127.0.0.1", false, "good", NULL), -RB_ECONFIG);
	/* The intermediate is missing from the chain. */
	assert_int_equal(check("localhost", true, "deep", NULL), -RB_ECONFIG);
	/* A leaf cannot act as a CA. */
	assert_int_equal(check("localhost", true, "deep", "good"), -RB_ECONFIG);
}

static void test_bad_input(void **state)
{
	static const unsigned char junk[] = { 0x30, 0x82, 0x01, 0x00, 0x02 };
	const unsigned char *der[1] = { junk };
	size_t len[1] = { sizeof(junk) };
	struct chain c = { 0 };

	(void)state;
	assert_int_equal(rb_tls_verify_chain(der, len, 1, "127.0.0.1", NULL),
			 -RB_EINVAL);
	assert_int_equal(rb_tls_verify_chain(NULL, NULL, 0, "127.0.0.1", NULL),
			 -RB_EINVAL);
	add(&c, "good");
	assert_int_equal(
		rb_tls_verify_chain((const unsigned char *const *)c.der, c.len,
				    1, "", NULL),
		-RB_EINVAL);
	/* Trailing bytes after the certificate. */
	c.len[0]--;
	assert_int_equal(
		rb_tls_verify_chain((const unsigned char *const *)c.der, c.len,
				    1, "127.0.0.1", NULL),
		-RB_EINVAL);
	c.len[0]++;
	assert_int_equal(
		rb_tls_verify_chain((const unsigned char *const *)c.der, c.len,
				    1, "127.0.0.1", "/nonexistent/ca.pem"),
		-RB_ECONFIG);
	assert_non_null(strstr(rb_errmsg(), "/nonexistent/ca.pem"));
	release(&c);
}

static void test_url(void **state)
{
	struct rb_net_url u = { 0 };

	(void)state;
	assert_int_equal(rb_net_url_parse(&u, "imaps://mail.example.org",
					  "imap", 143, "imaps", 993),
			 0);
	assert_string_equal(u.host, "mail.example.org");
	assert_int_equal(u.port, 993);
	assert_true(u.tls);
	rb_net_url_release(&u);
	assert_int_equal(rb_net_url_parse(&u, "imap://[::1]:10143/", "imap",
					  143, "imaps", 993),
			 0);
	assert_string_equal(u.host, "::1");
	assert_int_equal(u.port, 10143);
	assert_false(u.tls);
	rb_net_url_release(&u);
	assert_int_equal(rb_net_url_parse(&u, "imap://bot:pw@host", "imap", 143,
					  "imaps", 993),
			 -RB_ECONFIG);
	assert_int_equal(rb_net_url_parse(&u, "pop3://host", "imap", 143,
					  "imaps", 993),
			 -RB_ECONFIG);
	assert_int_equal(rb_net_url_parse(&u, "imap://host:99999", "imap", 143,
					  "imaps", 993),
			 -RB_ECONFIG);
	assert_int_equal(rb_net_url_parse(&u, "imap://host/INBOX", "imap", 143,
					  "imaps", 993),
			 -RB_ECONFIG);
	assert_int_equal(rb_net_url_parse(&u, "nntp://:119", "nntp", 119,
					  "nntps", 563),
			 -RB_ECONFIG);
	assert_true(rb_net_is_loopback("127.0.0.1"));
	assert_true(rb_net_is_loopback("127.1.2.3"));
	assert_true(rb_net_is_loopback("::1"));
	assert_true(rb_net_is_loopback("localhost"));
	assert_false(rb_net_is_loopback("128.0.0.1"));
	assert_false(rb_net_is_loopback("lore.kernel.org"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_wrong_host),
		cmocka_unit_test(test_untrusted),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_url),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
