#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/workers.sh - review throughput with 1, 2 and 4 workers
# ("reviewbot run --role worker") sharing one PostgreSQL 15 store, side by
# side in one run, against the ideal (linear) scaling.
#
# Each review asks the model about every patch: the scripted model server
# (tests/model_server.py, OpenAI wire format, on loopback) answers each
# finder call after a fixed latency of 2 s, with no findings, so a series
# of 3 patches waits 6 s on the model. The rest of each job (apply with
# libgit2, the commit-message checker, MAINTAINERS, the prompt, rendering,
# the store) is real.
#
# For each worker count: a fresh database, one "run --role ingest --once"
# stores and assembles S copies of the demo series (scripts/demo.sh, each
# copy with its own Message-IDs), then W workers start at once and the
# clock runs until every review job is done.
#
# usage: bench/workers.sh [RESULTS.md]   (S=series, default 16; LAT=2,
# the model's seconds per call)
# Uses $RB_BIN, else the Release build in build-bench/ (no sanitizers),
# built first (bench/lib.sh).
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need python3 psql
[ -x /usr/lib/postgresql/15/bin/initdb ] ||
	bench_die "needs PostgreSQL 15 (scripts/install-deps.sh test)"
out=$(bench_out "${1:-/dev/stdout}") || exit 1
S=${S:-16}
LAT=${LAT:-2}
export RB_SRC=$src RB_SHARED=${RB_SHARED:-$src/../shared}
RB_BIN=$(bench_reviewbot "${RB_BIN:-}") || exit 1
# A directory of our own: a sweep of /tmp/rb-test.* by someone else's
# cleanup must not take the database away in the middle of a run.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-workers.XXXXXX")
chmod 0755 "$TMPDIR"
export TMPDIR
. "$src/tests/integration/lib.sh"
trap 'rb_cleanup; rmdir "$TMPDIR"' EXIT
set +u
d=$RB_TEST_DIR
chmod 0755 "$d"

bash "$src/scripts/demo.sh" --make-only "$d/demo" >/dev/null
mport=$(rb_free_port)
cat >"$d/script.json" <<EOJ
{"steps": [
 {"kind": "finder", "repeat": true, "delay": $LAT,
  "answer_json": {"findings": []}},
 {"kind": "verifier", "repeat": true, "delay": $LAT, "verdict": "confirmed",
  "evidence": "auto"}
]}
EOJ
rb_start model /usr/bin/python3 "$src/tests/model_server.py" \
	--port "$mport" --script "$d/script.json" --log "$d/model.log"
rb_wait_port "$mport"
export RB_BENCH_KEY=bench-key
/usr/bin/python3 - "$d/demo/series.mbox" "$d/in" "$S" <<'PY'
import os, sys
from mbox_feed import split, tagged
mbox, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for sub in ("tmp", "new", "cur"):
    os.makedirs(os.path.join(out, sub), exist_ok=True)
msgs = split(mbox)
for c in range(n):
    for j, m in enumerate(msgs):
        with open(os.path.join(out, "new", "%05d.%d.eml" % (c, j)), "wb") as f:
            f.write(tagged(m, "b%d" % c))
PY

rb_start_pg
export PGUSER=reviewbot
psql_() { psql -h 127.0.0.1 -p "$RB_PG_PORT" -U reviewbot -d "$1" -qtAc "$2"; }

results=()
for W in 1 2 4; do
	db=bench$W
	psql_ postgres "CREATE DATABASE $db" >/dev/null
	cat >"$d/c$W.yaml" <<EOC
store:
  url: postgresql://127.0.0.1:$RB_PG_PORT/$db
sources:
  - type: maildir
    name: lists
    path: $d/in
list_ids: [demo-list.example.org]
trees:
  - name: demo
    path: $d/demo/tree
    fetch_minutes: 0
model:
  provider: openai
  url: http://127.0.0.1:$mport/v1/chat/completions
  name: scripted
  api_key_env: RB_BENCH_KEY
  timeout_seconds: 30
outbox:
  maildir: $d/outbox$W
policy:
  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
	"$RB_BIN" run -c "$d/c$W.yaml" --role ingest --once --name ingest \
		2>"$d/ingest$W.log"
	n=$(psql_ "$db" "SELECT count(*) FROM jobs WHERE kind = 'review'")
	[ "$n" = "$S" ] || { echo "ingest made $n jobs, not $S" >&2; exit 1; }
	t0=$(date +%s.%N)
	pids=""
	for i in $(seq "$W"); do
		"$RB_BIN" run -c "$d/c$W.yaml" --role worker --name "w$i" \
			2>"$d/w$W-$i.log" &
		pids="$pids $!"
		RB_PIDS="$RB_PIDS $!"
	done
	deadline=$(($(date +%s) + S * ${LAT%.*} * 8 + 120))
	until [ "$(psql_ "$db" "SELECT count(*) FROM jobs WHERE kind = 'review' AND state = 'done'")" = "$S" ]; do
		[ "$(date +%s)" -lt $deadline ] || {
			echo "workers=$W: not done in time" >&2
			exit 1
		}
		sleep 0.05
	done
	t1=$(date +%s.%N)
	for p in $pids; do kill -TERM "$p"; done
	for p in $pids; do wait "$p" || true; done
	per=$(psql_ "$db" "SELECT string_agg(name || '=' || done, ' ' ORDER BY name) FROM workers WHERE role = 'worker'")
	calls=$(grep -c . "$d/model.log" || true)
	secs=$(echo "$t1 - $t0" | bc)
	results+=("$W|$secs|$per")
	echo "workers=$W series=$S seconds=$secs ($per; model calls so far $calls)" >&2
done

base=$(echo "${results[0]}" | cut -d'|' -f2)
{
	echo "## Workers on PostgreSQL: review throughput (bench/workers.sh)"
	echo
	echo "$S series (copies of the demo series, 3 patches each), the" \
		"scripted model server answering each call after $LAT s" \
		"($(grep -c . "$d/model.log") calls in all), PostgreSQL 15 on" \
		"loopback, reviewbot built without sanitizers, $(nproc) CPUs;" \
		"$(date -u +%F)."
	echo
	echo "| workers | seconds | series/min | speed-up | ideal | jobs per worker |"
	echo "| --- | --- | --- | --- | --- | --- |"
	for r in "${results[@]}"; do
		IFS='|' read -r w secs per <<<"$r"
		printf '| %s | %.1f | %.1f | %.2fx | %dx | %s |\n' "$w" "$secs" \
			"$(echo "$S * 60 / $secs" | bc -l)" \
			"$(echo "$base / $secs" | bc -l)" "$w" "$per"
	done
	echo
	echo "Repeat: \`bench/workers.sh\` (S=series, LAT=the model's seconds per call)."
} >>"$out"
