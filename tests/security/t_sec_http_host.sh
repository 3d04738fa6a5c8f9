#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17: the dashboard answers only for the Host names it serves.
#
# DNS rebinding: a page on rebind.evil.example, whose name the attacker
# then points at 127.0.0.1, makes the victim's browser fetch the dashboard
# (every reviewed mail, verdict and address) under the attacker's origin.
# Such a request carries "Host: rebind.evil.example". "reviewbot serve"
# must answer it with 421 (or 400), and still answer 127.0.0.1, localhost
# and [::1] with or without the port.
. "$(dirname "$0")/../integration/lib.sh"
set -e
rb_need curl
d=$RB_TEST_DIR
export RB_NOW=1793700000
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    path: $d/demo/series.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run.log" 2>&1 ||
	rb_fail "run: $(tail -5 "$d/run.log")"

rb_start serve "$RB_BIN" serve -c "$d/config.yaml" --listen 127.0.0.1:0
url=
for _ in $(seq 400); do
	url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$RB_TEST_DIR/serve.log" || true)
	[ -n "$url" ] && break
	sleep 0.025
done
[ -n "$url" ] || rb_fail "serve did not start: $(cat "$RB_TEST_DIR/serve.log")"
port=${url#http://127.0.0.1:}
port=${port%/}

# status HOST [PATH]: the status of GET PATH with that Host: header.
status()
{
	curl -s -o "$d/body" -w '%{http_code}' -H "Host: $1" \
		"http://127.0.0.1:$port${2:-/}"
}

# The positive control: the names it serves.
for h in "127.0.0.1:$port" 127.0.0.1 "localhost:$port" LOCALHOST \
	"[::1]:$port" "[::1]"; do
	s=$(status "$h")
	[ "$s" = 200 ] || rb_fail "Host: $h got $s, expected 200"
done
grep -q 'ring' "$d/body" || rb_fail "the dashboard does not show the series"

# The rebinding attacker's names, with and without the port.
for h in "rebind.evil.example:$port" rebind.evil.example \
	"127.0.0.1.evil.example:$port" "localhost.evil.example" \
	"127.0.0.1:$port@evil.example" "[::1].evil.example"; do
	for p in / /stats /metrics "/series?id=x"; do
		s=$(status "$h" "$p")
		case $s in
		421 | 400) ;;
		*) rb_fail "Host: $h $p got $s, expected 421 or 400" ;;
		esac
	done
done
grep -q 'ring' "$d/body" && rb_fail "a refused request still got the page"
echo "1 passed, 0 failed"
