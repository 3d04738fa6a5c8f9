#!/bin/bash
# t_eval_inject_linux.sh - the cases "reviewbot eval --inject" makes on
# the real trees (docs/EVAL.md), from the 8 linux-api pairs kept in
# bench/eval-replay/set.json: on linux 6.1, pairs 4, 7, 11, 14 and 22
# inject, pair 3 with the context cut to one line, and pair 18 applies
# forward (7 cases, each with its control); on linux 6.12, pair 24
# injects as well. Uses the trees that are set up (RB_LINUX_TREE, and
# RB_LINUX_TREE_6_12 or ~/.cache/reviewbot/linux-6.12); the 6.12 part is
# skipped, with its reason, when that tree is not.
set -u
: "${RB_BIN:?}" "${RB_SRC:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/need.sh"
rb_need_linux_tree
t612=${RB_LINUX_TREE_6_12:-$HOME/.cache/reviewbot/linux-6.12}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-eval-linux.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
die() {
	echo "FAIL: $*"
	fail=1
}
ln -s "$(realpath -e -- "$RB_LINUX_TREE")" "$tmp/linux-6.1"
trees=(--tree "$tmp/linux-6.1")
if [ -d "$t612/.git" ]; then
	ln -s "$(realpath -e -- "$t612")" "$tmp/linux-6.12"
	trees+=(--tree "$tmp/linux-6.12")
else
	echo "SKIP: the linux 6.12 part: no git tree at $t612: run scripts/setup-linux-tree.sh 6.12 (or set RB_LINUX_TREE_6_12)"
fi
"$RB_BIN" eval --inject --set "$RB_SRC/bench/eval-replay/set.json" \
	"${trees[@]}" --cases "$tmp/cases.json" >"$tmp/out.md" 2>"$tmp/err" ||
	die "eval --inject: $(tail -n 5 "$tmp/err")"
grep '^Cases with their controls' "$tmp/out.md"
python3 - "$tmp/cases.json" "${#trees[@]}" <<'PY' || die "the cases: $(grep -A12 '^| pair | buggy' "$tmp/out.md")"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
got = [(c["pair"], c["case"], c["tree"], c["fuzz"]) for c in cases]
want = [(3, "injected", "linux-6.1", 1), (4, "injected", "linux-6.1", -1),
        (7, "injected", "linux-6.1", -1), (11, "injected", "linux-6.1", -1),
        (14, "injected", "linux-6.1", -1), (18, "forward", "linux-6.1", -1),
        (22, "injected", "linux-6.1", -1)]
if int(sys.argv[2]) > 2:
    want.append((24, "injected", "linux-6.12", -1))
assert got == want, got
for c in cases:
    assert c["patch"] and c["control"], c["pair"]
    assert any(ch["lines"] for ch in c["changed"]), c["pair"]
# Pair 14, the mm one: the mpol_put() the fix added, gone again.
c = next(c for c in cases if c["pair"] == 14)
assert "-\t\t\tmpol_put(new);\n" in c["patch"], c["patch"]
assert "+\t\t\tmpol_put(new);\n" in c["control"], c["control"]
assert c["mm"] and c["changed"][0]["functions"] == ["set_mempolicy_home_node"], c
PY
exit $fail
