#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_imap_phantom.sh - an IMAP server that announces mail it never
# gives (imap_phantom.py: UIDNEXT one higher at every EXAMINE and
# STATUS, one message in all). The daemon's wait ends early when the
# first mailbox's UIDNEXT is past what the last pass saw; a wait that
# ended so and was followed by a pass that found nothing does not end
# early again: the daemon goes into IDLE after at most three passes (the
# one that stores the message, the one a pass that did work is followed
# by at once, and the one after the early wake). (An
# unbounded loop of EXAMINE and UID FETCH otherwise, the same one that
# a message expunged before it was fetched caused with Dovecot:
# integration/t_imap_watch.sh.)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
d=$RB_TEST_DIR
rb_need python3
rb_need sqlite3
printf 'pass\n' >"$d/pass"
: >"$d/cmds"
rb_start phantom /usr/bin/python3 "$here/imap_phantom.py" "$d/port" "$d/cmds"
for i in $(seq 100); do [ -s "$d/port" ] && break; sleep 0.05; done
[ -s "$d/port" ] || rb_fail "the phantom server did not start"
for mbs in "[INBOX]" "[INBOX, Other]"; do
	: >"$d/cmds"
	cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: imap
    name: phantom
    url: imap://127.0.0.1:$(cat "$d/port")
    user: bot
    password_file: $d/pass
    mailboxes: $mbs
    starttls: "off"
    poll_seconds: 3600
$(rb_cfg_quiet)
EOC
	rm -f "$d/rb.db"*
	RB_IMAP_WATCH_MS=200 rb_start run "$RB_BIN" run -c "$d/config.yaml"
	for i in $(seq 600); do
		grep -q '^IDLE$' "$d/cmds" && break
		sleep 0.1
	done
	grep -q '^IDLE$' "$d/cmds" ||
		rb_fail "$mbs: no IDLE in 60 s: $(grep -c '^EXAMINE$' "$d/cmds") EXAMINEs: $(tail -3 "$d/run.log")"
	before=$(sed -n '1,/^IDLE$/p' "$d/cmds" | grep -c '^EXAMINE$')
	# Three passes of one EXAMINE a mailbox, two waits' EXAMINEs.
	max=$((3 * $(echo "$mbs" | tr ',' '\n' | wc -l) + 2))
	[ "$before" -le "$max" ] ||
		rb_fail "$mbs: $before EXAMINEs before the first IDLE (at most $max)"
	[ "$(sqlite3 "$d/rb.db" "SELECT count(*) FROM messages")" -ge 1 ] ||
		rb_fail "$mbs: the one message was not stored"
	kill -TERM "$(cat "$d/run.pid")"
	wait "$(cat "$d/run.pid")" 2>/dev/null
	echo "$mbs: IDLE after $before EXAMINEs; the phantom UIDNEXT woke the wait once"
done
echo PASS
