#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_nntp_cut_article.sh - an NNTP server that answers ARTICLE with
# "220", sends part of the article without the closing "." line and
# closes the connection (a hostile server, or one that dies in the
# middle of a response). libetpan's multi-line reader takes the end of
# the stream as an empty line and reads on for ever: the daemon spun at
# full CPU, the article grew without bound (290 MB in a few seconds),
# and SIGTERM was never seen. The pass must fail, say so, and end.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
d=$RB_TEST_DIR
rb_need python3
rb_need sqlite3
rb_start nntp_cut /usr/bin/python3 "$here/nntp_cut.py" "$d/port"
for i in $(seq 100); do [ -s "$d/port" ] && break; sleep 0.05; done
port=$(cat "$d/port")
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: nntp
    name: hostile
    url: nntp://127.0.0.1:$port
    groups: [cut.group]
    start: all
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
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
	rb_fail "the pass did not end within 60 s: $(tail -3 "$d/run.log")"
[ $((t1 - t0)) -lt 30 ] ||
	rb_fail "the pass took $((t1 - t0)) s"
grep -q 'event=source.poll_failed.*ARTICLE failed' "$d/run.log" ||
	rb_fail "the failure was not logged: $(tail -5 "$d/run.log")"
n=$(sqlite3 "$d/rb.db" "SELECT count(*) FROM messages WHERE message_id = 'cut@x'")
[ "$n" = 0 ] || rb_fail "a cut article was stored"
echo PASS
