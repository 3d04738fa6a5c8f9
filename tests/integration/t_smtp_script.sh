#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_smtp_script.sh - the SMTP sender against a scripted server on
# 127.0.0.1 (tests/integration/smtp_script.py), comparing the client's
# exact transcript (curl's model):
#  - 451 to the end of DATA, then 250: EAGAIN, then one delivered copy,
#    byte-identical to the composed message;
#  - 550 to a RCPT: EFAIL with the server's text, nothing delivered;
#  - STARTTLS required but not offered: ECONFIG before MAIL FROM;
#  - a server that never answers: EAGAIN after the timeout;
#  - nothing listening: EAGAIN;
#  - AUTH PLAIN accepted; AUTH refused (535): ECONFIG, and neither the
#    reason nor anything else of ours shows the password.
# The driver is test_compose's test_smtp_live (RB_SMTP_MODE).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
drv=${RB_BUILD:?}/tests/test_compose
[ -x "$drv" ] || rb_skip "no $drv"

# run_scenario NAME MODE [SCENARIO]: starts the scripted server (with
# SCENARIO, default NAME), runs the driver in MODE.
run_scenario()
{
	local name=$1 mode=$2 scenario=${3:-$1}
	RB_SMTP_PORT=$(rb_free_port)
	mkdir -p "$RB_TEST_DIR/$name"
	rb_start "srv-$name" /usr/bin/python3 "$here/smtp_script.py" \
		"$RB_SMTP_PORT" "$scenario" "$RB_TEST_DIR/$name/transcript" \
		"$RB_TEST_DIR/$name/mail"
	rb_wait_port "$RB_SMTP_PORT" || rb_fail "$name: server did not start"
	# rb_wait_port's probe is a connection too: start the transcript anew.
	sleep 0.1
	: >"$RB_TEST_DIR/$name/transcript"
	RB_SMTP_MODE=$mode RB_SMTP_PORT=$RB_SMTP_PORT \
		RB_SMTP_OUT=$RB_TEST_DIR/$name/sent "$drv" \
		>"$RB_TEST_DIR/$name/driver.log" 2>&1 ||
		{ cat "$RB_TEST_DIR/$name/driver.log"; rb_fail "$name: driver"; }
	rb_stop "srv-$name"
}

# expect NAME: compares the transcript with $RB_TEST_DIR/NAME/expected.
expect()
{
	if ! diff -u "$RB_TEST_DIR/$1/expected" "$RB_TEST_DIR/$1/transcript"
	then
		rb_fail "$1: transcript differs"
	fi
}

# The part of a transaction up to DATA, the same in each scenario; the
# SIZE (RFC 1870) the client declares is the composed message's length.
envelope()
{
	cat <<EOF
-- connect
S: 220
C: EHLO example.org
S: 250
C: MAIL FROM:<reviewbot@example.org> SIZE=$1
S: 250
C: RCPT TO:<ljs@kernel.org>
S: 250
C: RCPT TO:<akpm@linux-foundation.org>
S: 250
C: RCPT TO:<linux-mm@kvack.org>
EOF
}

# 451 then 250.
run_scenario retry retry
size=$(stat -c %s "$RB_TEST_DIR/retry/sent.eml")
{
	envelope "$size"
	cat <<EOF
S: 250
C: DATA
S: 354
S: 451
C: QUIT
S: 221
EOF
	envelope "$size"
	cat <<EOF
S: 250
C: DATA
S: 354
S: 250
C: QUIT
S: 221
EOF
} >"$RB_TEST_DIR/retry/expected"
expect retry
n=$(ls "$RB_TEST_DIR/retry/mail/new" | wc -l)
[ "$n" = 1 ] || rb_fail "retry: $n copies delivered, want 1"
cmp "$RB_TEST_DIR/retry/sent.eml" "$RB_TEST_DIR/retry/mail/new/1.eml" ||
	rb_fail "retry: delivered bytes differ from the composed message"
grep -q "^X: " "$RB_TEST_DIR/retry/transcript" && rb_fail "retry: protocol error"

# 550 to one RCPT: the whole transaction stops, nothing is delivered.
run_scenario reject reject
{
	envelope "$size"
	cat <<EOF
S: 550
C: QUIT
S: 221
EOF
} >"$RB_TEST_DIR/reject/expected"
expect reject
[ -z "$(ls "$RB_TEST_DIR/reject/mail/new")" ] || rb_fail "reject: delivered"

# STARTTLS required: the client stops after EHLO.
run_scenario notls notls
grep -q '^C: MAIL' "$RB_TEST_DIR/notls/transcript" &&
	rb_fail "notls: MAIL FROM sent without TLS"
grep -q '^C: EHLO' "$RB_TEST_DIR/notls/transcript" ||
	rb_fail "notls: no EHLO"

# A server that accepts and never answers.
run_scenario stall stall

# AUTH PLAIN (RFC 4954), right and wrong password.
RB_SMTP_USER=bot RB_SMTP_PASSWORD=botpass run_scenario auth auth
grep -q '^C: AUTH PLAIN' "$RB_TEST_DIR/auth/transcript" || rb_fail "auth: no AUTH"
[ "$(ls "$RB_TEST_DIR/auth/mail/new" | wc -l)" = 1 ] || rb_fail "auth: not delivered"
RB_SMTP_USER=bot RB_SMTP_PASSWORD=wrong-secret run_scenario authbad authbad auth
grep -q '^C: MAIL' "$RB_TEST_DIR/authbad/transcript" &&
	rb_fail "authbad: MAIL FROM after a refused AUTH"
grep -q 'wrong-secret' "$RB_TEST_DIR/authbad/driver.log" &&
	rb_fail "authbad: the password shows in the output"

# Nothing listening at all.
port=$(rb_free_port)
RB_SMTP_MODE=down RB_SMTP_PORT=$port "$drv" >"$RB_TEST_DIR/down.log" 2>&1 ||
	{ cat "$RB_TEST_DIR/down.log"; rb_fail "down: driver"; }
echo "PASS"
