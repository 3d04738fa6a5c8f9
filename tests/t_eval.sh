#!/bin/bash
# t_eval.sh - "reviewbot eval" end to end on tests/data/eval: the set
# built from archive.mbox by the command itself, then scored with the
# "command" provider and a scripted answer (tests/data/eval/model.sh, not
# a model): one finding on a line the fix changed (a hit), one on another
# file (a miss); recall, precision per category, the JSON report, the
# per-pair context line, and the usage errors. The corpus-derived set is
# t_eval_corpus.sh.
set -u
: "${RB_BIN:?}" "${RB_SRC:?}"
data=$RB_SRC/tests/data/eval
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-eval.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
die() {
	echo "FAIL: $*"
	fail=1
}

"$RB_BIN" eval --build-set --from "$data/archive.mbox" --out "$tmp/set.json" \
	>"$tmp/build.out" 2>"$tmp/build.err" || die "build-set: $(cat "$tmp/build.err")"
grep -q '1 pairs, 3 excluded' "$tmp/build.out" ||
	die "build-set: $(cat "$tmp/build.out")"
grep -q 'excluded   1: the fix is a stable backport' "$tmp/build.out" ||
	die "build-set does not list the reasons"

cat >"$tmp/config.yaml" <<YAML
model:
  provider: command
  command: sh $data/model.sh
  cost_per_mtok_in: 1
  cost_per_mtok_out: 2
YAML
"$RB_BIN" eval --set "$tmp/set.json" -c "$tmp/config.yaml" \
	--json "$tmp/report.json" --label "scripted, not a model" \
	>"$tmp/out.md" 2>"$tmp/err" || die "eval: exit $?: $(cat "$tmp/err")"
grep -q '^## reviewbot eval: archive.mbox, 1 pairs - scripted, not a model' \
	"$tmp/out.md" || die "no title: $(head -n 3 "$tmp/out.md")"
grep -q '| 1 | \[PATCH v2 1/2\] foo: add foo_get | diff alone: no tree configured | 2 | 1 | drivers/foo.c:line 19 |' \
	"$tmp/out.md" || die "pair row: $(grep '^| 1 ' "$tmp/out.md")"
grep -q '^| leak | 1 | 1 | 1.00 |$' "$tmp/out.md" || die "leak precision"
grep -q '^| api-misuse | 1 | 0 | 0.00 |$' "$tmp/out.md" ||
	die "api-misuse precision"
python3 - "$tmp/report.json" <<'PY' || die "JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
assert s["pairs"] == 1 and s["hit_pairs"] == 1 and s["recall"] == 1.0, s
assert s["findings"] == 2 and s["hits"] == 1 and s["precision"] == 0.5, s
assert s["words"] > 0 and s["confirmed"] == 2, s
assert r["categories"]["leak"]["precision"] == 1.0, r["categories"]
assert r["categories"]["api-misuse"]["hits"] == 0, r["categories"]
assert len(r["prompt_version"]) == 12, r["prompt_version"]
assert r["label"] == "scripted, not a model"
row = r["pairs"][0]
assert row["context"] == "diff alone: no tree configured", row
hits = [f for f in row["findings"] if f["hit"]]
assert len(hits) == 1 and hits[0]["where"] == "line 19", row
PY

# A model that finds nothing: recall 0, and nothing to divide by.
echo '{"findings": []}' >"$tmp/none.json"
cat >"$tmp/none.yaml" <<YAML
model:
  provider: command
  command: cat $tmp/none.json
YAML
"$RB_BIN" eval --set "$tmp/set.json" -c "$tmp/none.yaml" >"$tmp/none.md" \
	2>"$tmp/err" || die "eval, no findings: $(cat "$tmp/err")"
grep -q '| 1 | 0 | 0.00 | 0 | 0 | 0.00 |' "$tmp/none.md" ||
	die "no findings: $(grep -A2 '^| model' "$tmp/none.md")"

# Usage: no model, no set, both modes.
printf 'model:\n  provider: none\n' >"$tmp/off.yaml"
"$RB_BIN" eval --set "$tmp/set.json" -c "$tmp/off.yaml" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'model stage is off' "$tmp/err" || die "no model"
"$RB_BIN" eval >/dev/null 2>&1
[ $? = 2 ] || die "no arguments"
"$RB_BIN" eval --set x --build-set >/dev/null 2>&1
[ $? = 2 ] || die "both modes"
"$RB_BIN" eval --set "$tmp/missing.json" -c "$tmp/config.yaml" \
	>/dev/null 2>"$tmp/err"
[ $? = 2 ] || die "a missing set"
exit $fail
