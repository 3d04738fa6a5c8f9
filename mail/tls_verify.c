// SPDX-License-Identifier: GPL-2.0-only
/*
 * tls_verify.c - certificate chain and host name checks with OpenSSL
 * (RFC 5280 path validation; RFC 6125 host names, which OpenSSL's
 * X509_VERIFY_PARAM_set1_host implements: subjectAltName first, no
 * partial wildcards).
 *
 * The TLS handshake (GnuTLS, inside libetpan) proved that the server holds
 * the key of the first certificate; this file checks that a trusted CA
 * vouches for that key and that the certificate names the host we dialled.
 * libcurl does the same itself; rb_tls_verify_curl() turns it on.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libetpan/libetpan.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "mail/tls_verify.h"
#include "util/err.h"
#include "util/banned.h"

static bool is_ip_literal(const char *host)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, host, buf) == 1 ||
	       inet_pton(AF_INET6, host, buf) == 1;
}

static void subject_of(X509 *x, char *out, size_t size)
{
	X509_NAME *name = x ? X509_get_subject_name(x) : NULL;

	out[0] = '\0';
	if (name)
		X509_NAME_oneline(name, out, (int)size);
	if (!out[0])
		snprintf(out, size, "(no subject)");
}

int rb_tls_verify_chain(const unsigned char *const *der, const size_t *len,
			size_t n, const char *host, const char *ca_file)
{
	X509_STORE *store = NULL;
	X509_STORE_CTX *ctx = NULL;
	STACK_OF(X509) *untrusted = NULL;
	X509_VERIFY_PARAM *param;
	X509 *leaf = NULL;
	char subject[256];
	size_t i;
	int ret = 0, ok;

	if (!n || !der || !len)
		return rb_err(RB_EINVAL, "TLS server %s sent no certificate",
			      host ? host : "?");
	if (!host || !*host)
		return rb_err(RB_EINVAL, "no host name to check the "
					 "certificate against");
	untrusted = sk_X509_new_null();
	store = X509_STORE_new();
	ctx = X509_STORE_CTX_new();
	if (!untrusted || !store || !ctx) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const unsigned char *p = der[i];
		X509 *x;

		if (len[i] > 1 << 20) {
			ret = rb_err(RB_EINVAL,
				     "TLS server %s: certificate %zu is "
				     "%zu bytes long",
				     host, i, len[i]);
			goto out;
		}
		x = d2i_X509(NULL, &p, (long)len[i]);
		if (!x || p != der[i] + len[i]) {
			X509_free(x);
			ret = rb_err(RB_EINVAL,
				     "TLS server %s: certificate %zu of the "
				     "chain is not valid DER",
				     host, i);
			goto out;
		}
		if (!i) {
			leaf = x;
		} else if (!sk_X509_push(untrusted, x)) {
			X509_free(x);
			ret = rb_err(RB_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (X509_STORE_set_default_paths(store) != 1) {
		ret = rb_err(RB_ECONFIG, "cannot load the system trust store");
		goto out;
	}
	if (ca_file && *ca_file &&
	    X509_STORE_load_locations(store, ca_file, NULL) != 1) {
		ret = rb_err(RB_ECONFIG,
			     "ca_file %s: no PEM certificate could be read",
			     ca_file);
		goto out;
	}
	if (X509_STORE_CTX_init(ctx, store, leaf, untrusted) != 1) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER);
	param = X509_STORE_CTX_get0_param(ctx);
	X509_VERIFY_PARAM_set_hostflags(param,
					X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
	if (is_ip_literal(host))
		ok = X509_VERIFY_PARAM_set1_ip_asc(param, host);
	else
		ok = X509_VERIFY_PARAM_set1_host(param, host, 0);
	if (ok != 1) {
		ret = rb_err(RB_EINVAL, "cannot check the name %s", host);
		goto out;
	}
	ok = X509_verify_cert(ctx);
	if (ok != 1) {
		int e = X509_STORE_CTX_get_error(ctx);
		X509 *bad = X509_STORE_CTX_get_current_cert(ctx);

		subject_of(bad ? bad : leaf, subject, sizeof(subject));
		ret = rb_err(RB_ECONFIG,
			     "TLS server %s: certificate %s refused: %s "
			     "(set tls_verify: false only for a test server)",
			     host, subject, X509_verify_cert_error_string(e));
	}
out:
	ERR_clear_error();
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	X509_free(leaf);
	sk_X509_pop_free(untrusted, X509_free);
	return ret;
}

int rb_tls_verify_stream(struct _mailstream *s, const char *host,
			 const char *ca_file)
{
	carray *chain = s ? mailstream_get_certificate_chain(s) : NULL;
	const unsigned char **der = NULL;
	size_t *len = NULL, n, i;
	int ret;

	if (!chain)
		return rb_err(RB_ECONFIG,
			      "TLS server %s: no certificate chain to check",
			      host ? host : "?");
	n = carray_count(chain);
	der = calloc(n + 1, sizeof(*der));
	len = calloc(n + 1, sizeof(*len));
	if (!der || !len) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		MMAPString *str = carray_get(chain, (unsigned int)i);

		der[i] = (const unsigned char *)str->str;
		len[i] = str->len;
	}
	ret = rb_tls_verify_chain(der, len, n, host, ca_file);
out:
	free(der);
	free(len);
	mailstream_certificate_chain_free(chain);
	return ret;
}

CURLcode rb_tls_verify_curl(CURL *c, const char *ca_file)
{
	CURLcode rc;

	rc = curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	if (!rc)
		rc = curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (!rc && ca_file)
		rc = curl_easy_setopt(c, CURLOPT_CAINFO, ca_file);
	return rc;
}
