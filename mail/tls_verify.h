/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tls_verify.h - checks the certificate chain a TLS server sent, and the
 * host name, with OpenSSL (RFC 5280 path validation, RFC 6125 names).
 * Debian's libetpan 1.9.4 (GnuTLS) does not verify anything (DESIGN.md
 * fact 1), so IMAP and NNTP sources call this after the handshake and
 * before they send a password. libcurl (SMTP, public-inbox over HTTPS)
 * checks the same itself once asked to, with the same CA file.
 */
#ifndef RB_MAIL_TLS_VERIFY_H
#define RB_MAIL_TLS_VERIFY_H

#include <stddef.h>

#include <curl/curl.h>

struct _mailstream;

/*
 * Verifies @n DER certificates, the server's own first and the rest as
 * sent (untrusted intermediates), against the system trust store plus
 * @ca_file (PEM, may be NULL), for a TLS server named @host (a DNS name,
 * or an IPv4/IPv6 literal matched against the IP addresses of the
 * subjectAltName). Returns 0 when the chain and the name are good,
 * -RB_ECONFIG when they are not (the reason names the certificate and
 * OpenSSL's verdict), -RB_EINVAL for an empty or unreadable chain.
 */
int rb_tls_verify_chain(const unsigned char *const *der, const size_t *len,
			size_t n, const char *host, const char *ca_file);

/* The same, for the chain of a libetpan TLS stream (borrowed). */
int rb_tls_verify_stream(struct _mailstream *s, const char *host,
			 const char *ca_file);

/*
 * Asks libcurl to verify the chain and the host name of @c's server,
 * against the system trust store plus @ca_file (PEM, may be NULL).
 * Returns libcurl's code for an option it refused, else CURLE_OK.
 */
CURLcode rb_tls_verify_curl(CURL *c, const char *ca_file);

#endif
