#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_imap_restart.sh - Dovecot killed (SIGKILL, master and children) in the
# middle of a fetch by the daemon, then started again: the daemon logs
# the failure, reconnects with backoff and goes on where the store says;
# afterwards every message is stored exactly once and the last UID is the
# mailbox's highest.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
d=$RB_TEST_DIR
rb_need_shared corpus/linux-api.mbox.xz
rb_need sqlite3
rb_need doveadm
chmod 0755 "$d"

# Enough messages that many are still to be fetched when the first are
# stored: batches of 256 to a UID FETCH, two fetched ahead while one is
# stored, and a commit (what the test sees) every 1,024 messages; with
# 1,800 the rest was often in before the kill.
N=3000
rb_start_dovecot
/usr/bin/python3 "$here/lmtp_corpus.py" "$RB_LMTP_PORT" 1000 $N >/dev/null ||
	rb_fail "LMTP delivery"
want=$(doveadm -c "$RB_DOVECOT_CONF" fetch -u bot hdr.message-id mailbox INBOX |
	sed -n 's/^hdr.message-id: *//p' | tr 'A-Z' 'a-z' | sort -u | wc -l)
printf 'botpass\n' >"$d/pass"
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: imap
    name: lists
    url: imap://127.0.0.1:$RB_IMAP_PORT
    user: bot
    password_file: $d/pass
    starttls: "off"
    poll_seconds: 10
$(rb_cfg_quiet)
EOC
q() { sqlite3 "$d/rb.db" "$1" 2>/dev/null; }
rb_start daemon "$RB_BIN" run -c "$d/config.yaml"
# Kill Dovecot once the daemon has stored some but not all.
for i in $(seq 600); do
	n=$(q "SELECT count(*) FROM messages")
	[ "${n:-0}" -ge 20 ] && break
	sleep 0.01
done
dpid=$(cat "$d/dovecot.pid")
kill -KILL $dpid $(pgrep -P "$dpid") 2>/dev/null
at=$(q "SELECT count(*) FROM messages")
[ "$at" -lt "$want" ] || rb_fail "the fetch ended before the kill ($at)"
echo "Dovecot killed after $at of $want messages"
sleep 1.5
rb_start dovecot dovecot -F -c "$RB_DOVECOT_CONF"
rb_wait_port "$RB_IMAP_PORT"
for i in $(seq 2400); do
	[ "$(q "SELECT last FROM source_state WHERE mailbox='INBOX'")" = $N ] &&
		break
	sleep 0.05
done
[ "$(q "SELECT last FROM source_state WHERE mailbox='INBOX'")" = $N ] ||
	rb_fail "the daemon did not catch up: $(tail -5 "$d/daemon.log")"
n=$(q "SELECT count(*) FROM messages")
bad=$(grep -c 'event=msg.malformed' "$d/daemon.log")
[ "$n" -eq "$want" ] ||
	rb_fail "stored $n messages, the mailbox has $want Message-IDs ($bad malformed)"
grep -q 'event=source.poll_failed' "$d/daemon.log" ||
	rb_fail "the failure was not logged"
[ "$(grep -c 'event=imap.login' "$d/daemon.log")" -ge 2 ] ||
	rb_fail "no reconnection"
rb_stop daemon
echo PASS
