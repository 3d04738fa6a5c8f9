#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_smtp_tls.sh - the SMTP sender with TLS against the aiosmtpd sink on
# 127.0.0.1, with a certificate made here for IP 127.0.0.1:
#  - smtp:// with STARTTLS required (RFC 3207), the chain verified
#    against smtp.ca_file: the reply arrives;
#  - smtps:// (RFC 8314 implicit TLS): the reply arrives;
#  - a CA that did not sign the server's certificate: ECONFIG, nothing sent.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
drv=${RB_BUILD:?}/tests/test_compose
[ -x "$drv" ] || rb_skip "no $drv"
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || rb_skip "no aiosmtpd"
rb_need openssl

t=$RB_TEST_DIR
for n in server other; do
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$n.test" \
		-addext "subjectAltName=IP:127.0.0.1" -keyout "$t/$n.key" \
		-out "$t/$n.pem" >/dev/null 2>&1 || rb_fail "openssl req"
done
mkdir -p "$t/sink/tmp" "$t/sink/new" "$t/sink/cur"

# STARTTLS, required by the server too (aiosmtpd's default).
port=$(rb_free_port)
rb_start starttls /usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$port" \
	--tlscert "$t/server.pem" --tlskey "$t/server.key" \
	-c aiosmtpd.handlers.Mailbox "$t/sink"
rb_wait_port "$port" || rb_fail "starttls sink did not start"
RB_SMTP_MODE=tls RB_SMTP_PORT=$port RB_SMTP_CA=$t/server.pem \
	RB_SMTP_OUT=$t/sent RB_SMTP_TAG=starttls "$drv" >"$t/d1.log" 2>&1 ||
	{ cat "$t/d1.log"; rb_fail "starttls send"; }
RB_SMTP_MODE=tlsbad RB_SMTP_PORT=$port RB_SMTP_CA=$t/other.pem \
	RB_SMTP_TAG=bad1 "$drv" >"$t/d2.log" 2>&1 ||
	{ cat "$t/d2.log"; rb_fail "starttls with a wrong CA"; }

# Implicit TLS.
port2=$(rb_free_port)
rb_start smtps /usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$port2" \
	--smtpscert "$t/server.pem" --smtpskey "$t/server.key" \
	-c aiosmtpd.handlers.Mailbox "$t/sink"
rb_wait_port "$port2" || rb_fail "smtps sink did not start"
RB_SMTP_MODE=tls RB_SMTP_PORT=$port2 RB_SMTP_URL=smtps://127.0.0.1:$port2 \
	RB_SMTP_CA=$t/server.pem RB_SMTP_OUT=$t/sent RB_SMTP_TAG=smtps \
	"$drv" >"$t/d3.log" 2>&1 || { cat "$t/d3.log"; rb_fail "smtps send"; }
RB_SMTP_MODE=tlsbad RB_SMTP_PORT=$port2 RB_SMTP_URL=smtps://127.0.0.1:$port2 \
	RB_SMTP_CA=$t/other.pem RB_SMTP_TAG=bad2 "$drv" >"$t/d4.log" 2>&1 ||
	{ cat "$t/d4.log"; rb_fail "smtps with a wrong CA"; }

for i in $(seq 100); do
	[ "$(ls "$t/sink/new" | wc -l)" -ge 2 ] && break
	sleep 0.05
done
/usr/bin/python3 "$here/check_mail.py" "$t/sink" "$t/sent" ||
	rb_fail "the delivered mail is not right"
echo "PASS"
