#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_imap_watch.sh - one IMAP source with two mailboxes against a real
# Dovecot, the daemon ("reviewbot run") waiting in IDLE on the first:
#  - mail delivered to the second mailbox wakes it (STATUS of the others
#    while IDLE waits; RB_IMAP_WATCH_MS lowers the 30 s to 300 ms), long
#    before the next periodic pass (poll_seconds 3600);
#  - a message expunged from the first mailbox before any pass fetched it
#    does not wake the daemon again and again: the pass counts every UID
#    below the UIDNEXT it saw as seen (before, the wait found UIDNEXT past
#    the last message delivered and returned at once, a pass with nothing
#    to do after another, for as long as the mailbox stayed so).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
d=$RB_TEST_DIR
rb_need sqlite3
rb_need doveadm
chmod 0755 "$d"
# Deliveries to bot+Archive land in the mailbox Archive.
rb_start_dovecot detail

# send FIRST COUNT [MAILBOX]: COUNT small list mails by LMTP.
send() {
	/usr/bin/python3 - "$RB_LMTP_PORT" "$@" <<'PY' || rb_fail "LMTP delivery"
import smtplib, sys
port, first, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rcpt = "bot" if len(sys.argv) < 5 else "bot+" + sys.argv[4]
lm = smtplib.LMTP("127.0.0.1", port)
for i in range(first, first + count):
    m = ("From: Ada <ada@example.org>\r\nTo: list@example.org\r\n"
         "Subject: note %d\r\nMessage-ID: <note.%d@example.org>\r\n"
         "Date: Mon, 7 Dec 2026 08:00:00 +0000\r\n\r\nbody %d\r\n"
         % (i, i, i))
    lm.sendmail("ada@example.org", [rcpt], m)
lm.quit()
PY
}
send 1 3
send 4 2 Archive
# The last message of INBOX goes before the daemon has read it.
doveadm -c "$RB_DOVECOT_CONF" expunge -u bot mailbox INBOX uid 3 ||
	rb_fail "doveadm expunge"

printf 'botpass\n' >"$d/imap-pass"
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: imap
    name: lists
    url: imap://127.0.0.1:$RB_IMAP_PORT
    user: bot
    password_file: $d/imap-pass
    mailboxes: [INBOX, Archive]
    starttls: "off"
    poll_seconds: 3600
$(rb_cfg_quiet)
EOC
"$RB_BIN" check-config -c "$d/config.yaml" >/dev/null 2>"$d/cc.log" ||
	rb_fail "config: $(cat "$d/cc.log")"
q() { sqlite3 "$d/rb.db" "$1" 2>/dev/null; }
# wait_stored N: until N messages are stored (at most 120 s).
wait_stored() {
	local i got=
	for i in $(seq 1200); do
		got=$(q "SELECT count(*) FROM messages")
		[ "$got" = "$1" ] && return 0
		sleep 0.1
	done
	rb_fail "waited 120 s for $1 stored messages, got '$got': $(tail -5 "$d/run.log")"
}
RB_IMAP_WATCH_MS=300 rb_start run "$RB_BIN" run -c "$d/config.yaml"
wait_stored 4
# The daemon waits now (poll_seconds 3600); mail to the second mailbox.
send 6 1 Archive
wait_stored 5
[ "$(q "SELECT count(*) FROM messages WHERE message_id = 'note.6@example.org'")" = 1 ] ||
	rb_fail "the message to Archive is not stored"
woken=$(grep -c 'event=imap.woken' "$d/run.log")
grep -q 'event=imap.woken .*mailbox=Archive' "$d/run.log" ||
	rb_fail "no wake-up by Archive: $(grep imap "$d/run.log")"
[ "$woken" = 1 ] ||
	rb_fail "woken $woken times, not once (Archive): $(grep 'event=imap.woken' "$d/run.log" | head -5)"
echo "mail to the second mailbox stored by the daemon in IDLE on the first (woken once)"
echo PASS
