#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/dashboard.sh - the dashboard on the whole linux-api archive
# (issue 23: the front page under 200 ms with 50 series a page):
#
#  1. the 30,571 messages through the pipeline as bench/corpus.sh runs it
#     ("reviewbot review", no tree, every subsystem advisory), received
#     at T with the outbox held by its kill switch, then sent 90 minutes
#     later ("reviewbot run --once"), so that /stats has a latency from
#     receipt to show although every Date: is years older;
#  2. "reviewbot serve" on a free loopback port; each request below
#     made RB_BENCH_ROUNDS times (default 30) from one Python process
#     (no process start in the figure): median, p95 and max wall ms.
#
# The correctness of the same answers is tests/integration/
# t_dashboard_corpus.sh's (RB_SLOW=1 for the whole archive).
#
# usage: bench/dashboard.sh [RESULTS.md]  (default bench/RESULTS-dashboard.md)
# RB_BIN: the reviewbot to measure (default build-bench/bot/reviewbot,
# built first: bench/lib.sh).
# RB_BENCH_SCALE=N (default 1): after step 1, the store's series with
# their patches, reviews, findings and sent mails copied until there are
# N times as many (issue 38: the last page at 100 times the archive's
# series), each copy's keys suffixed "~k".
# RB_BIN_BASE: a second reviewbot (the main branch's, say) served on the
# same store and measured before RB_BIN (which may migrate the store),
# reported beside it, with the load average beside each figure.
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need xz python3
shared=$(bench_shared "${RB_SHARED:-$(cd "$src/.." && pwd)/shared}" \
	corpus/linux-api.mbox.xz) || exit 1
out=$(bench_out "${1:-$src/bench/RESULTS-dashboard.md}") || exit 1
rounds=${RB_BENCH_ROUNDS:-30}
scale=${RB_BENCH_SCALE:-1}
bin=$(bench_reviewbot "${RB_BIN:-}") || exit 1
base=
[ -z "${RB_BIN_BASE:-}" ] || base=$(bench_bin "$RB_BIN_BASE") || exit 1
# The store is made by the base when there is one: an older binary
# refuses a store that a newer one has migrated past it.
maker=${base:-$bin}
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-dashboard.XXXXXX")
pid=
pid_base=
cleanup()
{
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	[ -z "$pid_base" ] || kill "$pid_base" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

xz -dc "$shared/corpus/linux-api.mbox.xz" >corpus.mbox
cat >config.yaml <<EOC
store:
  path: $work/rb.db
outbox:
  maildir: $work/outbox
  kill_switch_file: $work/hold
  rate_per_hour: 100000
  rate_per_recipient_hour: 10000
  rate_per_list_hour: 100000
policy:
  default:
    mode: advisory
EOC
received=1793770000
touch hold
t0=$(date +%s.%N)
RB_NOW=$received "$maker" review -c config.yaml corpus.mbox >review.out \
	2>review.log || [ $? = 1 ] || bench_die "review: $(tail -3 review.log)"
t1=$(date +%s.%N)
rm hold
RB_NOW=$((received + 5400)) "$maker" run --once -c config.yaml 2>run.log ||
	bench_die "run: $(tail -3 run.log)"

[ "$scale" -le 1 ] || python3 - rb.db "$scale" <<'PY' ||
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
scale = int(sys.argv[2])
# The text keys each copy suffixes; an INTEGER PRIMARY KEY is renumbered.
keys = {"id", "series_id", "message_id", "review_msgid"}
tables = {"series": "id", "patches": "series_id", "reviews": "series_id",
          "findings": "series_id", "outbox": "series_id"}
for t, sel in tables.items():
    cols = db.execute("PRAGMA table_info(%s)" % t).fetchall()
    rowid = [c[1] for c in cols if c[5]]
    rowid = rowid[0] if len(rowid) == 1 and [c[2] for c in cols
                                              if c[5]][0].upper() == "INTEGER" else None
    names = [c[1] for c in cols if c[1] != rowid]
    for k in range(1, scale):
        expr = ["%s || '~%d'" % (n, k) if n in keys and
                not (t != "series" and n == "id") else n for n in names]
        db.execute("INSERT INTO %s (%s) SELECT %s FROM %s WHERE %s"
                   " NOT LIKE '%%~%%'" % (t, ", ".join(names),
                                         ", ".join(expr), t, sel))
db.commit()
PY
	bench_die "could not scale the store"

# serve BIN LOG: starts BIN serving the store; prints its URL.
serve()
{
	"$1" serve -c config.yaml --listen 127.0.0.1:0 >/dev/null 2>"$2" &
	echo $! >"$2.pid"
	for i in $(seq 200); do
		url=$(grep -o 'http://127.0.0.1:[0-9]*' "$2" || true)
		[ -n "$url" ] && break
		sleep 0.05
	done
	[ -n "$url" ] || bench_die "serve did not start: $(cat "$2")"
	echo "$url"
}
cat >measure.py <<'PY'
import os, sqlite3, statistics, sys, time, urllib.parse, urllib.request
base, store, rounds, secs, version, scale, base_json, version2, spid = \
    sys.argv[1:10]
rounds, scale = int(rounds), int(scale)
db = sqlite3.connect(store)
q = lambda s, *a: db.execute(s, a).fetchall()
n_series = q("SELECT COUNT(*) FROM series")[0][0]
pages = (n_series + 49) // 50
sid = q("SELECT series_id FROM patches GROUP BY series_id"
        " ORDER BY COUNT(*) DESC, series_id LIMIT 1")[0][0]
mid = q("SELECT message_id FROM patches WHERE series_id = ? AND idx = 1",
        sid)[0][0]
section = q("SELECT subsystem FROM series GROUP BY 1 ORDER BY COUNT(*)"
            " DESC LIMIT 1")[0][0] or ""
enc = lambda s: urllib.parse.quote(s, safe="")
reqs = [
    ("/ (front page, 50 series)", "/"),
    ("/?page=%d (the last page)" % pages, "/?page=%d" % pages),
    ("/?q=mount (title search)", "/?q=mount"),
    ("/?q=brauner (author search)", "/?q=brauner"),
    ("/?q=MSGID (a patch's Message-ID)", "/?q=" + enc(mid)),
    ("/?section=...&state=reviewed&findings=1",
     "/?section=%s&state=reviewed&findings=1" % enc(section)),
    ("/series?id=... (the biggest series)", "/series?id=" + enc(sid)),
    ("/stats", "/stats"),
    ("/api/series (JSON of the front page)", "/api/series"),
    ("/api/series?id=... (JSON)", "/api/series?id=" + enc(sid)),
    ("/api/stats", "/api/stats"),
    ("/metrics", "/metrics"),
]
def cpu_s():
    # The server's user + system CPU time (its threads included).
    f = open("/proc/%s/stat" % spid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
def measure(server, path):
    ts, size = [], 0
    c0 = cpu_s()
    for _ in range(rounds):
        t = time.perf_counter()
        with urllib.request.urlopen(server + path, timeout=600) as r:
            body = r.read()
        ts.append((time.perf_counter() - t) * 1000)
        size = len(body)
    ts.sort()
    p95 = ts[max(0, (len(ts) * 95 + 99) // 100 - 1)]
    return (statistics.median(ts), p95, ts[-1], size, os.getloadavg()[0],
            (cpu_s() - c0) * 1000 / rounds)
if os.environ.get("RB_BENCH_JSON"):
    import json
    print(json.dumps([measure(base, path) for label, path in reqs]))
    sys.exit(0)
if base_json:
    import json
    base_rows = json.load(open(base_json))
rows = [(label, measure(base, path), base_rows[i] if base_json else None)
        for i, (label, path) in enumerate(reqs)]
base2 = base_json
front = urllib.request.urlopen(base + "/").read().decode()
stats = urllib.request.urlopen(base + "/stats").read().decode()
import re
med = re.search(r'id="latency-median">([^<]*)<', stats).group(1)
p95s = re.search(r'id="latency-p95">([^<]*)<', stats).group(1)
w = print
if scale > 1:
    w("## dashboard: %d times the linux-api archive's series (issue 38)"
      % scale)
else:
    w("## dashboard: the whole linux-api archive (issue 23)")
w("")
w("Measured %s by `bench/dashboard.sh` with %s on 2 shared cores. Store:"
  " the 30,571 messages through `reviewbot review` (no tree, every"
  " subsystem advisory) in %s s, received at T with the outbox held, sent"
  " at T + 90 min by `reviewbot run --once`%s: %d series, %d mails. Each"
  " request %d times from one Python process (no process start counted);"
  " wall ms; CPU ms: the server's CPU time per request (its threads,"
  " from /proc), what the wall time would be on an idle core; load: the"
  " 1-minute load average after the request's rounds."
  % (time.strftime("%Y-%m-%d", time.gmtime()), version, secs,
     ", then every series copied to %d times as many"
     " (RB_BENCH_SCALE=%d)" % (scale, scale) if scale > 1 else "",
     n_series, q("SELECT COUNT(*) FROM reviews")[0][0], rounds))
w("")
if base2:
    w("Side by side on the same store: **base** is %s (RB_BIN_BASE),"
      " measured first, then stopped; **this** is %s (RB_BIN), measured"
      " after it on the same store (which it may migrate)."
      % (version2, version))
    w("")
    w("| request | base median ms | base p95 ms | base CPU ms | base load |"
      " this median ms | this p95 ms | this max ms | this CPU ms | this"
      " load | bytes |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
      " ---: |")
    for label, r, b in rows:
        w("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |"
          " %.1f | %d |" % (label, b[0], b[1], b[5], b[4], r[0], r[1], r[2],
                            r[5], r[4], r[3]))
else:
    w("| request | median ms | p95 ms | max ms | CPU ms | bytes | load |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label, r, b in rows:
        w("| %s | %.1f | %.1f | %.1f | %.1f | %d | %.1f |"
          % (label, r[0], r[1], r[2], r[5], r[3], r[4]))
w("")
w("The front page shows %d rows (50 a page, %d pages). /stats reads"
  " median %s and p95 %s from receipt to sending, where the mails' Date:"
  " is 2019 to 2026." % (front.count("<tr><td>"), pages, med, p95s))
PY
# measure URL PID [BASE.json]: the requests below on URL, served by
# PID (its CPU time is read from /proc); with BASE.json
# (what a first call printed with RB_BENCH_JSON=1) the report of both.
measure()
{
	python3 measure.py "$1" rb.db "$rounds" "$(python3 -c "print('%.0f' % ($t1 - $t0))")" \
		"$("$bin" --version | head -1)" "$scale" "${3:-}" \
		"${base:+$("$base" --version | head -1)}" "$2"
}
# The base binary first, on the store before this one opens it (this
# one may add indexes that the base would then use too), then stopped.
base_json=
if [ -n "$base" ]; then
	url_base=$(serve "$base" serve-base.log)
	pid_base=$(cat serve-base.log.pid)
	RB_BENCH_JSON=1 measure "$url_base" "$pid_base" >base.json ||
		bench_die "measuring the base failed"
	kill "$pid_base"
	pid_base=
	base_json=$work/base.json
fi
url=$(serve "$bin" serve.log)
pid=$(cat serve.log.pid)

measure "$url" "$pid" "$base_json" >"$out"
cat "$out"
