#!/bin/bash
# t_eval_corpus.sh - the evaluation set "reviewbot eval --build-set"
# derives from the linux-api corpus (docs/EVAL.md): the counts the doc
# gives, every pair with something to hit, and every exclusion with a
# reason. Skips when ../shared is absent.
set -u
: "${RB_BIN:?}" "${RB_SRC:?}"
corpus=${RB_SHARED:-$RB_SRC/../shared}/corpus/linux-api.mbox.xz
if [ ! -r "$corpus" ]; then
	echo "SKIP: needs shared/corpus/linux-api.mbox.xz (set RB_SHARED)"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-eval-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$RB_BIN" eval --build-set --from "$corpus" --out "$tmp/set.json" \
	>"$tmp/out" 2>"$tmp/err" || {
	echo "FAIL: build-set: $(cat "$tmp/err")"
	exit 1
}
cat "$tmp/out"
python3 - "$tmp/set.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
a, pairs, ex = s["archive"], s["pairs"], s["excluded"]
# The figures of docs/EVAL.md.
assert a["messages"] == 30571, a
assert len(pairs) == 25, len(pairs)
assert len(pairs) + len(ex) == a["fixes_naming_a_subject"], (len(pairs), len(ex), a)
for p in pairs:
    assert p["changed"], p["id"]
    assert any(c["lines"] or c["functions"] for c in p["changed"]), p["id"]
    assert p["buggy"]["patch"] and p["fix"]["patch"], p["id"]
    assert p["buggy"]["message_id"] != p["fix"]["message_id"], p["id"]
for e in ex:
    assert e["reason"], e
PY
