#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_daemon_e2e.sh - "reviewbot run" end to end: an IMAP source on a real
# Dovecot (IDLE, poll_seconds 300 so only IDLE can wake it), SMTP to the
# aiosmtpd sink. A series delivered by LMTP is reviewed once and the reply
# lands in the sink within seconds; the loop rules (DESIGN.md fact 6) hold:
# copies of the series from another list, from a known bot, from the bot
# itself or marked Auto-Submitted are stored but never answered; SIGHUP
# reloads; SIGTERM stops it promptly with exit 0.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
d=$RB_TEST_DIR
rb_need sqlite3
rb_need dovecot
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || rb_skip "no aiosmtpd"
chmod 0755 "$d"
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null

# feed.py PORT MBOX TAG [HEADER=VALUE...]: delivers every message of MBOX
# by LMTP, with TAG added to each Message-ID (and In-Reply-To and
# References) and the given headers replaced.
cat >"$d/feed.py" <<'PY'
import re, smtplib, sys
port, mbox, tag = int(sys.argv[1]), sys.argv[2], sys.argv[3]
subst = dict(a.split("=", 1) for a in sys.argv[4:])
msgs, cur = [], None
for line in open(mbox, "rb"):
    if line.startswith(b"From ") and (cur is None or cur[-1] == b"\n"):
        if cur is not None:
            msgs.append(b"".join(cur))
        cur = []
        continue
    cur.append(re.sub(rb"^>(>*From )", rb"\1", line))
msgs.append(b"".join(cur))
lm = smtplib.LMTP("127.0.0.1", port)
for m in msgs:
    head, _, body = m.partition(b"\n\n")
    if tag:
        head = re.sub(rb"<([^>@]+)@", lambda x: b"<" + x.group(1) + b"." +
                      tag.encode() + b"@", head)
    for k, v in subst.items():
        pat = re.compile(rb"^" + re.escape(k.encode()) + rb":.*$",
                         re.M | re.I)
        if pat.search(head):
            head = pat.sub((k + ": " + v).encode(), head)
        else:
            head += ("\n" + k + ": " + v).encode()
    lm.sendmail("list@example.org", ["bot"], head + b"\n\n" + body)
lm.quit()
PY

rb_start_dovecot
mkdir -p "$d/sink/tmp" "$d/sink/new" "$d/sink/cur"
rb_start_aiosmtpd "$d/sink"
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
    poll_seconds: 300
smtp:
  url: smtp://127.0.0.1:$RB_SMTP_PORT
  from: reviewbot <reviewbot@example.org>
  starttls: "off"
list_ids: [demo-list.example.org]
known_bots: [lkp@intel.com]
trees:
  - name: demo
    path: $d/demo/tree
    fetch_minutes: 0
outbox:
  maildir: $d/outbox
admins: [admin@example.org]
policy:
  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
"$RB_BIN" check-config -c "$d/config.yaml" >/dev/null 2>"$d/cc.log" ||
	rb_fail "config: $(cat "$d/cc.log")"
rb_start daemon "$RB_BIN" run -c "$d/config.yaml"
pid=$(cat "$d/daemon.pid")
q() { sqlite3 "$d/rb.db" "$1" 2>/dev/null; }
# wait_for SECONDS SQL WANT
wait_for() {
	local i=0 got
	while [ $i -lt $(($1 * 20)) ]; do
		got=$(q "$2")
		[ "$got" = "$3" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	echo "waited $1 s for '$2' = $3, got '$got'" >&2
	return 1
}
sinkn() { ls "$d/sink/new" | wc -l; }
# Logged in and idling before mail comes.
for i in $(seq 100); do
	grep -qs 'event=imap.login' "$d/daemon.log" && break
	sleep 0.05
done
sleep 0.3

t0=$(date +%s.%N)
/usr/bin/python3 "$d/feed.py" "$RB_LMTP_PORT" "$d/demo/series.mbox" "" ||
	rb_fail "LMTP"
for i in $(seq 400); do
	[ "$(sinkn)" -ge 1 ] && break
	sleep 0.05
done
t1=$(date +%s.%N)
[ "$(sinkn)" -eq 1 ] ||
	rb_fail "no reply in the sink after 20 s: $(tail -20 "$d/daemon.log")"
echo "reply in the sink $(echo "$t1 - $t0" | bc) s after the LMTP delivery"
grep -q '^X-RcptTo:.*grace@example.org' "$d/sink/new"/* ||
	rb_fail "the reply does not go to the maintainer"

# The loop rules: each copy is a new series (new Message-IDs).
/usr/bin/python3 "$d/feed.py" "$RB_LMTP_PORT" "$d/demo/series.mbox" other \
	"List-Id=<other-list.example.org>"
/usr/bin/python3 "$d/feed.py" "$RB_LMTP_PORT" "$d/demo/series.mbox" bot \
	"From=kernel test robot <lkp@intel.com>"
/usr/bin/python3 "$d/feed.py" "$RB_LMTP_PORT" "$d/demo/series.mbox" self \
	"From=reviewbot <reviewbot@example.org>"
/usr/bin/python3 "$d/feed.py" "$RB_LMTP_PORT" "$d/demo/series.mbox" auto \
	"Auto-Submitted=auto-generated"
wait_for 20 "SELECT count(*) FROM messages WHERE kind='ignored'" 16 ||
	rb_fail "the loop rules did not mark 16 mails ignored: $(q "SELECT kind, reason FROM messages")"
for r in 'List-Id not on the allow-list' 'a known bot' 'our own mail (From)' \
	'Auto-Submitted mail'; do
	n=$(q "SELECT count(*) FROM messages WHERE reason='$r'")
	[ "$n" = 4 ] || rb_fail "'$r': $n mails, not 4"
done
# Our own reply, had it come back through the list, is ignored too.
f=$(ls "$d/sink/new" | head -1)
/usr/bin/python3 - "$RB_LMTP_PORT" "$d/sink/new/$f" <<'PY'
import smtplib, sys
raw = open(sys.argv[2], "rb").read()
raw = b"List-Id: <demo-list.example.org>\n" + raw
lm = smtplib.LMTP("127.0.0.1", int(sys.argv[1]))
lm.sendmail("list@example.org", ["bot"], raw)
lm.quit()
PY
wait_for 20 "SELECT count(*) FROM messages WHERE kind='ignored'" 17 ||
	rb_fail "our own reply was not ignored"
sleep 1
[ "$(sinkn)" -eq 1 ] || rb_fail "a loop rule failed: $(sinkn) mails in the sink"
n=$(q "SELECT count(*) FROM reviews")
[ "$n" -le 1 ] || rb_fail "$n reviews, not 1"

kill -HUP "$pid"
for i in $(seq 100); do
	grep -q 'event=run.reload' "$d/daemon.log" && break
	sleep 0.05
done
grep -q 'event=run.reload' "$d/daemon.log" || rb_fail "SIGHUP did not reload"
t0=$(date +%s%N)
kill -TERM "$pid"
for i in $(seq 200); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
kill -0 "$pid" 2>/dev/null && rb_fail "SIGTERM did not stop the daemon in 10 s"
wait "$pid"
rc=$?
[ $rc -eq 0 ] || rb_fail "the daemon exited $rc after SIGTERM"
echo "stopped in $((($(date +%s%N) - t0) / 1000000)) ms"
echo PASS
