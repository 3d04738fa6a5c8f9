#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_smtp_sink.sh - a composed reply sent by the SMTP sender (libcurl) to
# the aiosmtpd sink on 127.0.0.1 arrives once, with the threading
# headers, the recipients (the envelope is in X-MailFrom / X-RcptTo), the
# subject decoded back, and no injected header.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
drv=${RB_BUILD:?}/tests/test_compose
[ -x "$drv" ] || rb_skip "no $drv"
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || rb_skip "no aiosmtpd"

# Python's mailbox.Maildir does not create tmp/new/cur in a directory
# that exists, and rb_start_aiosmtpd creates it: create them here.
mkdir -p "$RB_TEST_DIR/sink/tmp" "$RB_TEST_DIR/sink/new" "$RB_TEST_DIR/sink/cur"
rb_start_aiosmtpd "$RB_TEST_DIR/sink"
RB_SMTP_MODE=sink RB_SMTP_PORT=$RB_SMTP_PORT RB_SMTP_OUT=$RB_TEST_DIR/sent \
	"$drv" >"$RB_TEST_DIR/driver.log" 2>&1 ||
	{ cat "$RB_TEST_DIR/driver.log"; rb_fail "driver"; }

# The sink writes the Maildir when the transaction ends; allow a moment.
for i in $(seq 100); do
	[ -n "$(ls "$RB_TEST_DIR/sink/new" 2>/dev/null)" ] && break
	sleep 0.05
done
/usr/bin/python3 "$here/check_mail.py" "$RB_TEST_DIR/sink" \
	"$RB_TEST_DIR/sent" || rb_fail "the delivered mail is not right"
echo "PASS"
