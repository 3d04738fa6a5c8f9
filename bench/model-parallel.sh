#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/model-parallel.sh - wall time, calls, tokens and cached tokens of
# the model review of one real 9-patch mm series, by "reviewbot review",
# with the scripted model server answering every call after LAT seconds
# (default 1): the patches and passes one at a time (model.concurrency 1)
# against at once (4), with and without the focus planner, both wire
# formats, and, when BEFORE names one, a reviewbot built before issue 30.
#
# The series is "[PATCH mm-unstable 0/9] mm: add file/shmem support to
# MADV_COLLAPSE" (2022) from the linux-api archive in shared/corpus: four
# mm patches and five selftests. No tree is configured: each patch is
# reviewed on its diff (the prompt's work is real, the apply is not
# timed). The scripted model (bench/model-parallel's script, made here)
# raises one finding on each mm patch, quoting one of its added lines,
# which the verifier confirms, and none elsewhere; the tools are off.
# Figures are "scripted": the pipeline's concurrency and the requests'
# shape, not a model's latency or its cache.
#
# usage: bench/model-parallel.sh [OUT]   (LAT=seconds a call, default 1;
# BEFORE=path/to/old/reviewbot adds its row; REVIEWBOT=path for the new)
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need python3
[ $# -lt 1 ] || bench_out "$1" >/dev/null || exit 1
shared=$(bench_shared "${RB_SHARED:-$src/../shared}" \
	corpus/linux-api.mbox.xz) || exit 1
bin=$(bench_reviewbot "${REVIEWBOT:-}") || exit 1
before=${BEFORE:+$(bench_bin "$BEFORE")}
LAT=${LAT:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-parallel.XXXXXX")
pid=
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# The series, from the archive, as it was sent.
python3 - "$shared/corpus/linux-api.mbox.xz" "$work/series.mbox" <<'PY'
import re, sys
from mbox_feed import raw
out = []
for m in raw(sys.argv[1]):
    h = m.split(b"\n\n", 1)[0].decode("utf-8", "replace")
    s = re.search(r"^Subject: (.*(?:\n[ \t].*)*)", h, re.M)
    sub = re.sub(r"\s+", " ", s.group(1)) if s else ""
    if re.match(r"\[PATCH mm-unstable [0-9]/9\] ", sub):
        out.append(m)
if len(out) != 10:
    sys.exit("the series is not in the archive: %d of 10 mails" % len(out))
open(sys.argv[2], "wb").write(b"".join(out))
PY

# The script: a finding on one added line of each mm patch (its text is
# the step's match), confirmed by the verifier; nothing elsewhere.
python3 - "$work/series.mbox" "$LAT" >"$work/script.json" <<'PY'
import json, re, sys
from mbox_feed import split
lat = float(sys.argv[2])
steps = []
for part in (m.decode("utf-8", "replace") for m in split(sys.argv[1])):
    if not re.search(r"^Subject: \[PATCH mm-unstable [1-9]/9\]", part, re.M):
        continue
    path, new = None, 0
    for line in part.split("\n"):
        m = re.match(r"^\+\+\+ b/(.*)", line)
        if m:
            path = m.group(1)
            continue
        m = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)", line)
        if m:
            new = int(m.group(1))
            continue
        if not path or path.startswith("tools/") or not new:
            continue
        if line.startswith("+") and len(line.strip()) > 24 and \
                text.count(line[1:]) == 1 and '"' not in line:
            steps.append({"kind": "finder", "repeat": True, "delay": lat,
                          "match": line[1:], "answer_json": {"findings": [
                              {"file": path, "side": "new", "line": new,
                               "quoted_code": line[1:].strip(),
                               "category": "logic", "severity": "medium",
                               "confidence": 0.8,
                               "introduced_by_patch": True,
                               "trigger_scenario": "scripted",
                               "question": "Is this right? (scripted)"}]}})
            break
        if not line.startswith("-"):
            new += 1
steps.append({"kind": "finder", "repeat": True, "delay": lat,
              "answer_json": {"findings": []}})
steps.append({"kind": "verifier", "repeat": True, "delay": lat,
              "verdict": "confirmed"})
print(json.dumps({"steps": steps}))
PY

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
/usr/bin/python3 "$src/tests/model_server.py" --port "$port" \
	--script "$work/script.json" --log "$work/requests.log" &
pid=$!
for _ in $(seq 200); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.025
done

# run LABEL BIN FORMAT CONCURRENCY [EXTRA-YAML]: one review of the series
# on a fresh store; prints a table row.
run() {
	local label=$1 b=$2 fmt=$3 conc=$4 extra=${5:-} dir t0 t1 path
	dir=$(mktemp -d "$work/run.XXXXXX")
	path=chat/completions
	[ "$fmt" = anthropic ] && path=messages
	cat >"$dir/config.yaml" <<EOC
store:
  path: $dir/rb.db
outbox:
  maildir: $dir/outbox
model:
  provider: $fmt
  url: http://127.0.0.1:$port/v1/$path
  name: scripted
  timeout_seconds: 60
  concurrency: $conc
  max_findings: 5
  tools:
    enabled: false
$extra
policy:
  default:
    mode: advisory
    send_when_empty: true
EOC
	# A script written again: the server forgets its caches and steps.
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["gen"]=sys.argv[2]; json.dump(d, open(sys.argv[1], "w"))' \
		"$work/script.json" "$dir"
	: >"$work/requests.log"
	t0=$(date +%s.%N)
	RB_LOG=1 "$b" review -c "$dir/config.yaml" "$work/series.mbox" \
		>"$dir/out.log" 2>&1 || [ $? = 1 ] ||
		bench_die "$label: reviewbot review failed: $(tail -5 "$dir/out.log")"
	t1=$(date +%s.%N)
	python3 - "$label" "$t0" "$t1" "$dir/out.log" "$work/requests.log" \
		"$dir/outbox/new" <<'PY'
import os, re, sys
label, t0, t1, out, reqs, box = sys.argv[1:7]
calls = tin = cached = written = 0
for l in open(out, errors="replace"):
    m = re.search(r'event=model\.cost (?:patch=\d+ )?usage="[^"]*?(\d+) calls, .*?'
                  r'(\d+)\+(\d+) tokens(?:, (\d+) cached, (\d+) cache '
                  r'writes)?', l)
    if m:
        calls += int(m.group(1))
        tin += int(m.group(2))
        cached += int(m.group(4) or 0)
        written += int(m.group(5) or 0)
n = sum(1 for _ in open(reqs))
mails = len(os.listdir(box)) if os.path.isdir(box) else 0
print("| %s | %d | {:,} | {:,} | {:,} | %d | %.1f |".format(
    tin, cached, written) % (label, n, mails, float(t1) - float(t0)))
PY
}

{
echo "# model-parallel $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, LAT=$LAT s a call"
echo
echo "| run | calls | tokens in | cached | cache writes | mails | wall s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
if [ -n "$before" ]; then
	run "before issue 30, concurrency 4" "$before" openai 4
fi
run "planner off, concurrency 1" "$bin" openai 1 "  focus_planner: false"
run "planner off, concurrency 4" "$bin" openai 4 "  focus_planner: false"
run "concurrency 1" "$bin" openai 1
run "concurrency 4" "$bin" openai 4
run "concurrency 4, no prompt cache" "$bin" openai 4 "  prompt_cache: false"
run "concurrency 4, Anthropic" "$bin" anthropic 4
run "concurrency 4, Anthropic, no prompt cache" "$bin" anthropic 4 \
	"  prompt_cache: false"
} | tee "$work/report"
[ $# -lt 1 ] || cp "$work/report" "$1"
