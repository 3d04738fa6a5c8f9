#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_nntp_tls.sh - the NNTP source over nntps:// against a real
# public-inbox-nntpd with a certificate from a test CA made by openssl
# now: with that CA as ca_file the article is fetched; with another CA
# the certificate is refused, the refusal logged, and nothing stored.
# The source opens the TLS stream itself (so that the greeting is read
# through its end-of-stream guard), and this is the test of that path.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
d=$RB_TEST_DIR
rb_need sqlite3
rb_need openssl
rb_need public-inbox-nntpd
rb_need public-inbox-init
rb_need public-inbox-mda
export PI_CONFIG=$d/pi/config
(
	set -e
	mkdir -p "$d/pki"
	cd "$d/pki"
	k='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'
	for ca in ca other; do
		openssl req -x509 $k -keyout $ca.key -out $ca.pem -days 2 \
			-subj /CN=rb-test-$ca \
			-addext basicConstraints=critical,CA:TRUE \
			-addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
	done
	printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >leaf.ext
	openssl req $k -keyout leaf.key -out leaf.csr -subj /CN=127.0.0.1 2>/dev/null
	openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
		-days 2 -extfile leaf.ext -out leaf.pem 2>/dev/null
) || rb_fail "openssl could not make the test certificates"

mkdir -p "$d/pi"
public-inbox-init -V2 -L basic t "$d/pi/t" http://example.org/t \
	t@example.org || rb_fail "public-inbox-init"
git config -f "$PI_CONFIG" publicinbox.t.newsgroup test.tls
git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
printf '%s\n' 'From: A <a@example.org>' 'To: t@example.org' \
	'Subject: over TLS' 'Message-ID: <tls-1@example.org>' \
	'Date: Thu, 03 Dec 2026 10:00:00 +0000' '' 'body' |
	ORIGINAL_RECIPIENT=t@example.org public-inbox-mda --no-precheck ||
	rb_fail "public-inbox-mda"
PORT=$(rb_free_port)
rb_start nntpd public-inbox-nntpd \
	-l "nntps://127.0.0.1:$PORT?cert=$d/pki/leaf.pem,key=$d/pki/leaf.key"
rb_wait_port "$PORT"

# pass NAME CA: one --once pass with a fresh store; prints the count.
pass() {
	cat >"$d/$1.yaml" <<EOC
store:
  path: $d/$1.db
sources:
  - type: nntp
    name: tls
    url: nntps://127.0.0.1:$PORT
    groups: [test.tls]
    start: all
    ca_file: $2
$(rb_cfg_quiet)
EOC
	"$RB_BIN" run -c "$d/$1.yaml" --once >"$d/$1.run" 2>&1 ||
		rb_fail "$1: exit $?: $(tail -3 "$d/$1.run")"
	sqlite3 "$d/$1.db" "SELECT count(*) FROM messages
		WHERE message_id = 'tls-1@example.org'"
}
[ "$(pass good "$d/pki/ca.pem")" = 1 ] ||
	rb_fail "the article was not fetched over nntps: $(tail -3 "$d/good.run")"
[ "$(pass other "$d/pki/other.pem")" = 0 ] ||
	rb_fail "a certificate from another CA was accepted"
grep -q 'event=nntp.tls_refused' "$d/other.run" ||
	rb_fail "the refusal was not logged: $(tail -3 "$d/other.run")"
echo PASS
