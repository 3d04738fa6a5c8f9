#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/feedback.sh - the dashboard's cost on a store filled from the real
# linux-api corpus, side by side with `reviewbot stats --json`, which
# computes the same figures in a fresh process (the peer an operator would
# script against otherwise):
#
#  1. `reviewbot review` (embedded defaults, no tree) over the first
#     RB_BENCH_MESSAGES messages of the corpus: series, review mails,
#     findings; the feedback stage looks at every reply on the way;
#  2. `reviewbot serve` on a free loopback port; each page (/, /stats,
#     /metrics, one /series page) fetched RB_BENCH_ROUNDS times with curl;
#     `reviewbot stats --json` run as many times; mean and max wall time.
#
# usage: bench/feedback.sh [RESULTS.md]   (default bench/RESULTS-feedback.md)
# RB_BIN: a reviewbot with the serve command and the feedback stage wired
# in (default build-bench/bot/reviewbot, built first: bench/lib.sh).
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need xz curl python3
shared=$(bench_shared "${RB_SHARED:-$(cd "$src/.." && pwd)/shared}" \
	corpus/linux-api.mbox.xz) || exit 1
out=$(bench_out "${1:-$src/bench/RESULTS-feedback.md}") || exit 1
n_msgs=${RB_BENCH_MESSAGES:-3000}
rounds=${RB_BENCH_ROUNDS:-20}
bin=$(bench_reviewbot "${RB_BIN:-}") || exit 1
"$bin" serve --help >/dev/null 2>&1 || {
	echo "bench/feedback.sh: $bin has no serve command" >&2
	exit 1
}
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-feedback.XXXXXX")
pid=
cleanup()
{
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

python3 -m mbox_feed head "$n_msgs" "$shared/corpus/linux-api.mbox.xz" \
	corpus.mbox >/dev/null
t0=$(date +%s.%N)
RB_NOW=1793700000 "$bin" review --store rb.db --outbox outbox corpus.mbox \
	>/dev/null 2>review.log || true
t1=$(date +%s.%N)
q() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' rb.db "$1"; }
n_series=$(q "SELECT COUNT(*) FROM series")
n_reviews=$(q "SELECT COUNT(*) FROM reviews")
n_findings=$(q "SELECT COUNT(*) FROM findings")
n_replies=$(q "SELECT COUNT(*) FROM feedback")
sid=$(q "SELECT series_id FROM reviews ORDER BY findings DESC LIMIT 1")
sid_q=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$sid")

"$bin" serve --store rb.db --listen 127.0.0.1:0 2>serve.log &
pid=$!
for i in $(seq 200); do
	url=$(grep -o 'http://127.0.0.1:[0-9]*/' serve.log || true)
	[ -n "$url" ] && break
	sleep 0.05
done
[ -n "$url" ] || { cat serve.log >&2; exit 1; }

# time_it LABEL CMD...: mean and max wall ms over $rounds runs, bytes.
time_it()
{
	local label=$1
	shift
	python3 - "$rounds" "$label" "$@" <<'PY' >>times.txt
import subprocess, sys, time
rounds, label, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
ts, size = [], 0
for _ in range(rounds):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, check=True)
    ts.append((time.perf_counter() - t) * 1000)
    size = len(r.stdout)
print("| %s | %.1f | %.1f | %d |" % (label, sum(ts) / len(ts), max(ts), size))
PY
}
: >times.txt
time_it "dashboard GET /" curl -sf "$url"
time_it "dashboard GET /series?id=..." curl -sf "${url}series?id=$sid_q"
time_it "dashboard GET /stats" curl -sf "${url}stats"
time_it "dashboard GET /metrics" curl -sf "${url}metrics"
time_it "reviewbot stats --json (peer)" "$bin" stats --store rb.db --json
time_it "curl alone, GET /nope (404)" curl -s "${url}nope"

{
	echo "## feedback: the dashboard beside \`reviewbot stats --json\`"
	echo
	echo "Measured $(date -u +%Y-%m-%d) by \`bench/feedback.sh\` on $(nproc)" \
		"shared cores; $rounds rounds each, wall time including curl's or" \
		"the CLI's process start."
	echo
	echo "Store: the first $n_msgs messages of linux-api.mbox.xz through"
	echo "\`reviewbot review\` (embedded defaults, no tree) in" \
		"$(python3 -c "print('%.1f' % ($t1 - $t0))") s: $n_series series," \
		"$n_reviews mails, $n_findings findings, $n_replies replies looked" \
		"at by the feedback stage."
	echo
	echo "| request | mean ms | max ms | bytes |"
	echo "| --- | ---: | ---: | ---: |"
	cat times.txt
} >"$out"
cat "$out"
