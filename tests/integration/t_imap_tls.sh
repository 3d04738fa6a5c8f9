#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_imap_tls.sh - the IMAP source over TLS against a real Dovecot, with a
# test CA made by openssl now: a valid certificate is accepted over imaps
# and over STARTTLS; a certificate for the wrong host, a self-signed one
# and one from a CA that is not trusted are refused before any password
# is sent; tls_verify: false accepts the self-signed one.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
d=$RB_TEST_DIR
rb_need sqlite3
rb_need openssl
rb_need dovecot
chmod 0755 "$d"
mkdir -p "$d/pki"
(
	set -e
	cd "$d/pki"
	k='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'
	openssl req -x509 $k -keyout ca.key -out ca.pem -days 2 \
		-subj /CN=rb-test-ca -addext basicConstraints=critical,CA:TRUE \
		-addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
	leaf() {
		printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$2" >"$1.ext"
		openssl req $k -keyout "$1.key" -out "$1.csr" -subj "/CN=$1" 2>/dev/null
		openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key \
			-CAcreateserial -days 2 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
	}
	leaf good IP:127.0.0.1,DNS:localhost
	leaf wrong DNS:wrong.example.org
	openssl req -x509 $k -keyout self.key -out self.pem -days 2 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
) || rb_fail "openssl could not make the test certificates"

use_cert() {
	mkdir -p "$d/dovecot"
	cp "$d/pki/$1.pem" "$d/dovecot/cert.pem"
	cp "$d/pki/$1.key" "$d/dovecot/key.pem"
}

lmtp() {
	/usr/bin/python3 - "$RB_LMTP_PORT" "$1" <<'PY'
import smtplib, sys
lm = smtplib.LMTP("127.0.0.1", int(sys.argv[1]))
m = ("From: A <a@example.org>\r\nTo: bot@example.org\r\n"
     "Subject: tls %s\r\nMessage-ID: <tls-%s@example.org>\r\n"
     "Date: Thu, 03 Dec 2026 10:00:00 +0000\r\n\r\nbody\r\n") % (
     sys.argv[2], sys.argv[2])
lm.sendmail("a@example.org", ["bot"], m)
lm.quit()
PY
}

printf 'botpass\n' >"$d/pass"
# run NAME URL [EXTRA-YAML]: one pass with a fresh store; prints the count.
run() {
	cat >"$d/$1.yaml" <<EOC
store:
  path: $d/$1.db
sources:
  - type: imap
    name: tls
    url: $2
    user: bot
    password_file: $d/pass
${3:-}
$(rb_cfg_quiet)
EOC
	"$RB_BIN" run -c "$d/$1.yaml" --once >"$d/$1.out" 2>"$d/$1.log" ||
		rb_fail "$1: run failed: $(cat "$d/$1.log")"
	sqlite3 "$d/$1.db" "SELECT count(*) FROM messages"
}
restart() {
	rb_stop dovecot
	use_cert "$1"
	rb_start dovecot dovecot -F -c "$RB_DOVECOT_CONF"
	rb_wait_port "$RB_IMAPS_PORT"
}

use_cert good
rb_start_dovecot tls
rb_wait_port "$RB_IMAPS_PORT"
lmtp 1
lmtp 2
ca="    ca_file: $d/pki/ca.pem"

n=$(run imaps "imaps://127.0.0.1:$RB_IMAPS_PORT" "$ca")
[ "$n" = 2 ] || rb_fail "imaps with a valid certificate: $n stored: $(cat "$d/imaps.log")"
n=$(run starttls "imap://127.0.0.1:$RB_IMAP_PORT" "$ca")
[ "$n" = 2 ] || rb_fail "STARTTLS with a valid certificate: $n stored: $(cat "$d/starttls.log")"
n=$(run byname "imaps://localhost:$RB_IMAPS_PORT" "$ca")
[ "$n" = 2 ] || rb_fail "imaps by DNS name: $n stored: $(cat "$d/byname.log")"
n=$(run noca "imaps://127.0.0.1:$RB_IMAPS_PORT")
[ "$n" = 0 ] || rb_fail "a certificate from an unknown CA was accepted"
grep -q 'unable to get local issuer' "$d/noca.log" ||
	rb_fail "no reason given: $(cat "$d/noca.log")"

restart wrong
n=$(run wrong "imaps://127.0.0.1:$RB_IMAPS_PORT" "$ca")
[ "$n" = 0 ] || rb_fail "a certificate for the wrong host was accepted"
grep -q 'mismatch' "$d/wrong.log" || rb_fail "no reason: $(cat "$d/wrong.log")"
n=$(run wrong2 "imap://127.0.0.1:$RB_IMAP_PORT" "$ca")
[ "$n" = 0 ] || rb_fail "STARTTLS: a certificate for the wrong host was accepted"

restart self
n=$(run self "imaps://127.0.0.1:$RB_IMAPS_PORT" "$ca")
[ "$n" = 0 ] || rb_fail "a self-signed certificate was accepted"
grep -q 'self-signed' "$d/self.log" || rb_fail "no reason: $(cat "$d/self.log")"
# No password went to the refused servers.
# No password went to the refused servers: three logins, all above.
n=$(grep -c 'Login: user=<bot>' "$d/dovecot/dovecot.log")
[ "$n" = 3 ] || rb_fail "$n logins, not 3: a refused server got a password"
n=$(run insecure "imaps://127.0.0.1:$RB_IMAPS_PORT" "    tls_verify: false")
[ "$n" = 2 ] || rb_fail "tls_verify: false: $n stored: $(cat "$d/insecure.log")"
echo PASS
