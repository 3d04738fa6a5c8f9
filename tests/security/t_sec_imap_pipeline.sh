#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_imap_pipeline.sh - issue 38: the IMAP source sends the next
# batch's UID FETCH before it reads the answer to the one before
# (pipelined), so a server can answer the pipelined FETCH badly
# (imap_pipeline.py, 600 messages, three batches of 256):
# - flood: the second FETCH answered with untagged FETCH responses for
#   ever, never the tagged one. The bytes a FETCH may bring are capped
#   inside libetpan's loop (the stream logger), the read ahead of the
#   next answer included: the pass must end with the first batch kept
#   (its mark with it), and the next pass (the server behaves from then
#   on) fetch the rest, one at a time up to the batch that overran:
#   all 600 stored once;
# - swap: the second FETCH's answer before the first's: the first batch's
#   answer comes under the wrong tag, which is refused; nothing stored;
# - wrongtag: the first answer under a tag never sent; nothing stored.
# Each pass must end within 60 s and log what failed.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
d=$RB_TEST_DIR
rb_need python3
rb_need sqlite3
printf 'pass\n' >"$d/pass"

# run MODE: one --once pass against imap_pipeline.py MODE; prints the
# messages stored.
run() {
	local name=$1 port rc
	rb_start "$name" /usr/bin/python3 "$here/imap_pipeline.py" \
		"$d/$name.port" "$name"
	for i in $(seq 100); do [ -s "$d/$name.port" ] && break; sleep 0.05; done
	port=$(cat "$d/$name.port")
	cat >"$d/$name.yaml" <<EOC
store:
  path: $d/$name.db
sources:
  - type: imap
    name: hostile
    url: imap://127.0.0.1:$port
    user: bot
    password_file: $d/pass
    starttls: "off"
$(rb_cfg_quiet)
EOC
	timeout -k 5 60 "$RB_BIN" run -c "$d/$name.yaml" --once \
		>"$d/$name.run" 2>&1
	rc=$?
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
		rb_fail "$name: the pass did not end within 60 s: $(tail -3 "$d/$name.run")"
	[ "$rc" -eq 0 ] || rb_fail "$name: exit $rc: $(tail -3 "$d/$name.run")"
	rb_stop "$name"
}

# check MODE WHAT STORED MARK: the failure logged says WHAT; STORED
# messages and the mark MARK kept.
check() {
	local n m
	grep 'event=source.poll_failed' "$d/$1.run" | grep -qF "$2" ||
		rb_fail "$1: the failure was not logged: $(tail -5 "$d/$1.run")"
	n=$(sqlite3 "$d/$1.db" "SELECT count(*) FROM messages")
	[ "$n" = "$3" ] || rb_fail "$1: $n messages stored, not $3"
	m=$(sqlite3 "$d/$1.db" "SELECT coalesce(max(last), 0) FROM source_state")
	[ "$m" = "$4" ] || rb_fail "$1: the mark is $m, not $4"
}

run flood
check flood 'oversized' 600 600
grep -q 'event=imap.synced .*messages=256 ' "$d/flood.run" ||
	rb_fail "flood: the first pass did not keep the first batch"
n=$(sqlite3 "$d/flood.db" "SELECT count(DISTINCT message_id) FROM messages")
[ "$n" = 600 ] || rb_fail "flood: $n distinct Message-IDs"
run swap
check swap 'UID FETCH BODY.PEEK[] failed' 0 0
run wrongtag
check wrongtag 'UID FETCH BODY.PEEK[] failed' 0 0
echo PASS
