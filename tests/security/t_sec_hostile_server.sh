#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_hostile_server.sh - IMAP and NNTP servers that misbehave (hostile
# ones, a man in the middle of plain nntp://, or servers that die):
# - a greeting sent as an endless line (greet_hostile.py flood): the cap
#   on what a source receives did not cover the greeting and the login,
#   so the daemon grew by 180 MB a second and never saw SIGTERM;
# - a connection closed at once (greet_hostile.py close): the NNTP
#   error message read libetpan's unset nntp_response (ASan: SEGV), and
#   libetpan dropped the stream without closing it (16 kB a try);
# - a FETCH literal announced at 5,000 bytes, 100 sent, then closed
#   (imap_cut.py): libetpan takes the end of the stream inside a literal
#   as "nothing yet", and the fetching thread spun at 100% CPU for ever;
# - "220" for ARTICLE, part of the article, no closing "." line, then
#   closed (nntp_cut.py): libetpan's multi-line reader takes the end of
#   the stream as an empty line and read on at full CPU, the article
#   growing without bound, SIGTERM never seen;
# - a server that never answers LOGOUT (QUIT) (silent_goodbye.py): the
#   source's 5 s wait for the goodbye was never read by libetpan, and
#   the daemon's exit waited the stream's 60 s.
# - a group whose high-water mark is near 2^63, every article a gap
#   (nntp_gaps.py): the pass read on for ever, one ARTICLE after another;
# Each pass must fail, log what failed, end, and store nothing; the
# passes against the silent server must end within 15 s.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
d=$RB_TEST_DIR
rb_need python3
rb_need sqlite3
printf 'pass\n' >"$d/pass"

# run NAME PROTO SERVER [ARGS...]: one --once pass against the server
# SERVER (a script here, given its port file, then ARGS); sets rc and
# secs, and fails when the pass did not end within 60 s.
run() {
	local name=$1 proto=$2 server=$3 port src t0
	shift 3
	rb_start "$name" /usr/bin/python3 "$here/$server" "$d/$name.port" "$@"
	for i in $(seq 100); do [ -s "$d/$name.port" ] && break; sleep 0.05; done
	port=$(cat "$d/$name.port")
	if [ "$proto" = imap ]; then
		src="  - type: imap
    name: hostile
    url: imap://127.0.0.1:$port
    user: bot
    password_file: $d/pass
    starttls: \"off\""
	else
		src="  - type: nntp
    name: hostile
    url: nntp://127.0.0.1:$port
    groups: [cut.group]
    start: all"
	fi
	cat >"$d/$name.yaml" <<EOC
store:
  path: $d/$name.db
sources:
$src
$(rb_cfg_quiet)
EOC
	t0=$(date +%s)
	timeout -k 5 60 "$RB_BIN" run -c "$d/$name.yaml" --once \
		>"$d/$name.run" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
		rb_fail "$name: the pass did not end within 60 s: $(tail -3 "$d/$name.run")"
	[ "$rc" -eq 0 ] || rb_fail "$name: exit $rc: $(tail -3 "$d/$name.run")"
}

# pass NAME PROTO WHAT SERVER [ARGS...]: run(), and WHAT is what the
# logged failure says.
pass() {
	local name=$1 proto=$2 what=$3 n
	run "$name" "$proto" "${@:4}"
	[ "$secs" -lt 30 ] || rb_fail "$name: the pass was slow"
	grep 'event=source.poll_failed' "$d/$name.run" | grep -qF "$what" ||
		rb_fail "$name: the failure was not logged: $(tail -5 "$d/$name.run")"
	n=$(sqlite3 "$d/$name.db" "SELECT count(*) FROM messages")
	[ "$n" = 0 ] || rb_fail "$name: $n messages stored"
	rb_stop "$name"
}
pass imap-flood imap 'connect failed' greet_hostile.py flood '* OK '
pass imap-close imap 'connect failed' greet_hostile.py close ''
pass nntp-flood nntp 'connect failed' greet_hostile.py flood '200 '
pass nntp-close nntp 'connect failed' greet_hostile.py close ''
pass imap-cut imap 'UID FETCH BODY.PEEK[] failed' imap_cut.py
pass nntp-cut nntp 'ARTICLE failed' nntp_cut.py
# A group that claims a high-water mark near 2^63 and answers 423 to
# every ARTICLE (nntp_gaps.py): the pass reads at most NNTP_PASS_MAX
# (65536) numbers, ends, and keeps its mark for the next pass.
run nntp-gaps nntp nntp_gaps.py
grep -q 'event=nntp.pass_capped' "$d/nntp-gaps.run" ||
	rb_fail "nntp-gaps: the pass was not capped: $(tail -3 "$d/nntp-gaps.run")"
mark=$(sqlite3 "$d/nntp-gaps.db" "SELECT last FROM source_state")
[ "$mark" = 65536 ] || rb_fail "nntp-gaps: the mark is '$mark', not 65536"
rb_stop nntp-gaps
for proto in imap nntp; do
	run "$proto-goodbye" "$proto" silent_goodbye.py "$proto"
	[ "$secs" -lt 15 ] ||
		rb_fail "$proto-goodbye: the exit waited $secs s for the goodbye"
	rb_stop "$proto-goodbye"
done
echo PASS
