#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/burst.sh - issue 38: how long the authors of a burst wait for
# their reviews. N one-patch series (default 20), each by its own author,
# each Cc'ing the subsystem's maintainer (as every mm series Cc's Andrew
# Morton), arrive at once by LMTP at a Dovecot that "reviewbot run"
# (role all, SQLite) follows in IMAP IDLE; the scripted model server
# (tests/model_server.py) answers every request after DELAY seconds
# (default 3); replies go to an SMTP sink (aiosmtpd). The clock starts
# when the burst's delivery starts; each reply's time is when the sink
# wrote it. Default rate limits; the model's limit is model.concurrency
# (CONC, default 8: a provider that takes 8 requests at once).
#
# usage:
#   bench/burst.sh [-o REPORT.md] BEFORE AFTER
#       the same burst for two reviewbot binaries (e.g. main and this
#       branch), one after the other, with the load average beside each
#   bench/burst.sh --curve [-o TSV] BIN
#       first and last reply against burst size (SIZES, default
#       "5 10 20 30") and model delay (DELAYS, default "1 3")
# Environment: N, DELAY, CONC, PARALLEL (review.parallel_series; unset:
# the default), RB_SRC.
set -u
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
curve=false
out=/dev/stdout
while [ $# -gt 0 ]; do
	case $1 in
	--curve) curve=true; shift ;;
	-o) out=$(bench_out "$2") || exit 1; shift 2 ;;
	*) break ;;
	esac
done
bench_need dovecot git
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || bench_die "needs python3-aiosmtpd"
N=${N:-20}
DELAY=${DELAY:-3}
CONC=${CONC:-8}
load() { cut -d' ' -f1 /proc/loadavg; }

w=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-burst.XXXXXX")
chmod 0755 "$w" # Dovecot's auth reads the passwd file below
TMPDIR=$w
. "$src/tests/integration/lib.sh"
d=$RB_TEST_DIR
# measure() runs in a subshell (its output is read): the servers it
# starts are listed in $d/measure.pids, for this trap, as well as
# stopped by it.
trap 'kill $(cat "$d/measure.pids" 2>/dev/null) 2>/dev/null; rb_cleanup; rm -rf "$w"' EXIT
bash "$src/scripts/demo.sh" --make-only "$d/demo" >/dev/null ||
	bench_die "scripts/demo.sh failed"
chmod 0755 "$d"
rb_start_dovecot
printf 'botpass\n' >"$d/pass"
export RB_TEST_KEY=test-key

# mkburst N FILE: N one-patch series to lib/ring.c, Dev i each.
mkburst()
{
	(
		cd "$d/demo/tree" || exit 1
		for i in $(seq 1 "$1"); do
			echo "/* note $i */" >>lib/ring.c
			GIT_AUTHOR_NAME="Dev $i" GIT_AUTHOR_EMAIL="dev$i@example.net" \
				GIT_COMMITTER_NAME="Dev $i" \
				GIT_COMMITTER_EMAIL="dev$i@example.net" \
				git commit -q -s -a -m "ring: note $i"
			git format-patch -q -1 --stdout HEAD |
				sed -e "0,/^Subject:/s//Message-ID: <burst-$RANDOM-$i@example.net>\nTo: demo-list@example.org\nCc: Grace Hopper <grace@example.org>\nList-Id: <demo-list.example.org>\nSubject:/"
			git reset -q --hard HEAD~1
		done
	) >"$2"
}

# measure BIN N DELAY: prints "first median last sent n maxflight load0
# load1" (seconds from the start of the delivery).
measure()
{
	local bin=$1 n=$2 delay=$3 port run=$d/run.$RANDOM
	mkdir -p "$run"
	rm -rf "$d/mail"/*
	mkburst "$n" "$run/burst.mbox"
	printf '{"steps": [{"kind": "finder", "repeat": true, "delay": %s,
 "answer_json": {"findings": []}},
 {"kind": "verifier", "repeat": true, "delay": %s, "verdict": "confirmed",
 "evidence": "auto"}]}\n' "$delay" "$delay" >"$run/model.json"
	port=$(rb_free_port)
	rb_start "model.$n.$delay" /usr/bin/python3 "$src/tests/model_server.py" \
		--port "$port" --script "$run/model.json" --log "$run/model.log"
	cat "$d/model.$n.$delay.pid" >>"$d/measure.pids"
	rb_wait_port "$port" || bench_die "the model server did not start"
	RB_SMTP_PORT=
	rb_start_aiosmtpd "$run/sink"
	cat "$d/aiosmtpd.pid" >>"$d/measure.pids"
	cat >"$run/config.yaml" <<EOC
store:
  path: $run/rb.db
sources:
  - type: imap
    name: lists
    url: imap://127.0.0.1:$RB_IMAP_PORT
    user: bot
    password_file: $d/pass
    starttls: "off"
smtp:
  url: smtp://127.0.0.1:$RB_SMTP_PORT
  from: reviewbot <reviewbot@example.org>
  starttls: "off"
list_ids: [demo-list.example.org]
trees:
  - name: demo
    path: $d/demo/tree
    fetch_minutes: 0
admins: [admin@example.org]
model:
  provider: openai
  url: http://127.0.0.1:$port/v1/chat/completions
  name: scripted
  api_key_env: RB_TEST_KEY
  timeout_seconds: 60
  concurrency: $CONC
${PARALLEL:+review:
  parallel_series: $PARALLEL}
policy:
  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
      send_when_empty: true
EOC
	"$bin" check-config -c "$run/config.yaml" >"$run/check.log" 2>&1 ||
		bench_die "the config does not check: $(cat "$run/check.log")"
	rb_start "daemon.$n.$delay" "$bin" run -c "$run/config.yaml"
	cat "$d/daemon.$n.$delay.pid" >>"$d/measure.pids"
	local i=0
	until grep -q 'event=imap\.login' "$d/daemon.$n.$delay.log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 2400 ] && bench_die "the daemon did not log in: $(tail -n 5 "$d/daemon.$n.$delay.log")"
		sleep 0.05
	done
	# Until it idles in IDLE (its first pass over an empty mailbox).
	i=0
	until grep -q 'event=imap\.idle\|event=run\.idle' "$d/daemon.$n.$delay.log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && break
		sleep 0.05
	done
	/usr/bin/python3 - "$RB_LMTP_PORT" "$run/burst.mbox" "$run/sink/new" "$n" \
		"$run/model.log" "$(load)" <<'PY'
import json, mailbox, os, smtplib, statistics, sys, time
port, mbox, new, n, mlog, load0 = sys.argv[1:7]
n = int(n)
msgs = [m.as_bytes() for m in mailbox.mbox(mbox)]
t0 = time.time()
lm = smtplib.LMTP("127.0.0.1", int(port))
for m in msgs:
    lm.sendmail("list@example.org", ["bot"], m)
lm.quit()
times = {}
while len(times) < n and time.time() < t0 + 1200:
    for f in os.listdir(new):
        if f not in times:
            times[f] = os.stat(os.path.join(new, f)).st_mtime - t0
    time.sleep(0.01)
v = sorted(times.values())
flight = 0
for l in open(mlog):
    flight = max(flight, len(json.loads(l).get("in_flight", [])) + 1)
load1 = open("/proc/loadavg").read().split()[0]
if not v:
    print("- - - 0 %d %d %s %s" % (n, flight, load0, load1))
else:
    print("%.1f %.1f %.1f %d %d %d %s %s" % (v[0], statistics.median(v),
          v[-1], len(v), n, flight, load0, load1))
PY
	rb_stop "daemon.$n.$delay"
	rb_stop "model.$n.$delay"
	rb_stop aiosmtpd
}

if $curve; then
	[ $# = 1 ] || bench_die "usage: bench/burst.sh --curve [-o TSV] BIN"
	bin=$(bench_bin "$1") || exit 1
	{
		echo "# note: bench/burst.sh --curve, $(date -u +%Y-%m-%d), $("$bin" --version | head -n 1); scripted model, concurrency $CONC, review.parallel_series ${PARALLEL:-default}"
		echo "# series	delay s	first s	median s	last s	sent	load"
		for delay in ${DELAYS:-1 3}; do
			for n in ${SIZES:-5 10 20 30}; do
				read -r first med last sent _ _ l0 l1 < <(measure "$bin" "$n" "$delay")
				[ -n "${l1:-}" ] || bench_die "$n series, $delay s: no figure"
				echo "burst: $n series, $delay s model: first $first s, last $last s, $sent sent (load $l0-$l1)" >&2
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$delay" "$first" "$med" "$last" "$sent" "$l1"
			done
		done
	} >"$out"
	exit 0
fi

[ $# = 2 ] || bench_die "usage: bench/burst.sh [-o REPORT] BEFORE AFTER"
before=$(bench_bin "$1") || exit 1
after=$(bench_bin "$2") || exit 1
rows=""
for which in before after; do
	bin=$before
	[ $which = after ] && bin=$after
	read -r first med last sent n flight l0 l1 < <(measure "$bin" "$N" "$DELAY")
	[ -n "${l1:-}" ] || bench_die "$which: no figure (see the messages above)"
	echo "burst: $which: first $first s, median $med s, last $last s, $sent of $n sent, $flight requests in flight at most (load $l0 to $l1)" >&2
	rows="$rows| $which: $("$bin" --version | head -n 1) | $first | $med | $last | $sent of $n | $flight | $l0 to $l1 |
"
done
{
	echo "| build | first reply s | median s | last s | sent | model requests in flight, at most | load average |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	printf '%s' "$rows"
} >"$out"
