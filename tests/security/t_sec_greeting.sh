#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_greeting.sh - IMAP and NNTP servers that misbehave before the
# session starts: one sends its greeting as an endless line, one closes
# the connection at once. The cap on what a source receives did not
# cover the greeting and the login: the daemon grew by 180 MB a second
# and never saw SIGTERM. An NNTP connect that failed before the greeting
# made the error message read libetpan's unset nntp_response (ASan:
# SEGV). Each pass must fail, say why, and end.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
d=$RB_TEST_DIR
rb_need python3
printf 'pass\n' >"$d/pass"

# pass PROTO MODE GREETING: one --once pass against such a server.
pass() {
	local proto=$1 mode=$2 name=$1-$2 port src t0 rc
	rb_start "$name" /usr/bin/python3 "$here/greet_hostile.py" \
		"$d/$name.port" "$mode" "$3"
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
    groups: [g]"
	fi
	cat >"$d/$name.yaml" <<EOC
store:
  path: $d/$name.db
sources:
$src
outbox:
  maildir: $d/outbox
policy:
  default:
    mode: "off"
EOC
	t0=$(date +%s)
	timeout -k 5 60 "$RB_BIN" run -c "$d/$name.yaml" --once \
		>"$d/$name.run" 2>&1
	rc=$?
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
		rb_fail "$name: the pass did not end within 60 s"
	[ "$rc" -eq 0 ] || rb_fail "$name: exit $rc: $(tail -3 "$d/$name.run")"
	[ $(($(date +%s) - t0)) -lt 30 ] || rb_fail "$name: the pass was slow"
	grep -q "event=source.poll_failed.*$proto 127.0.0.1:$port: connect failed" \
		"$d/$name.run" ||
		rb_fail "$name: the failure was not logged: $(tail -3 "$d/$name.run")"
	rb_stop "$name"
}
pass imap flood "* OK "
pass imap close ""
pass nntp flood "200 "
pass nntp close ""
echo PASS
