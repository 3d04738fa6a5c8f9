#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_imap_cut_literal.sh - an IMAP server that announces a message of
# 5,000 bytes, sends 100 and closes the connection (a hostile server, or
# one that dies in the middle of a FETCH). libetpan takes the end of the
# stream inside a literal as "nothing yet" and read it again for ever:
# the fetching thread spun at 100% CPU and the daemon never logged the
# failure nor retried. The pass must fail, say so, and end.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
d=$RB_TEST_DIR
rb_need python3
rb_need sqlite3
rb_start imap_cut /usr/bin/python3 "$here/imap_cut.py" "$d/port"
for i in $(seq 100); do [ -s "$d/port" ] && break; sleep 0.05; done
port=$(cat "$d/port")
printf 'pass\n' >"$d/pass"
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: imap
    name: hostile
    url: imap://127.0.0.1:$port
    user: bot
    password_file: $d/pass
    starttls: "off"
outbox:
  maildir: $d/outbox
policy:
  default:
    mode: "off"
EOC
t0=$(date +%s)
timeout -k 5 60 "$RB_BIN" run -c "$d/config.yaml" --once >"$d/run.log" 2>&1
rc=$?
t1=$(date +%s)
[ "$rc" -ne 124 ] ||
	rb_fail "the pass did not end within 60 s: $(tail -3 "$d/run.log")"
[ $((t1 - t0)) -lt 30 ] ||
	rb_fail "the pass took $((t1 - t0)) s"
grep -q 'event=source.poll_failed' "$d/run.log" ||
	rb_fail "the failure was not logged: $(tail -5 "$d/run.log")"
n=$(sqlite3 "$d/rb.db" "SELECT count(*) FROM messages WHERE message_id = 'cut@x'")
[ "$n" = 0 ] || rb_fail "a cut message was stored"
echo PASS
