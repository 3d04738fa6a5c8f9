#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/checks.sh - the checkers against their real peers, side by side:
#
#  1. checkpatch parity and batching: the 112 patches of
#     ../shared/corpus/apply-6.1 through "reviewbot check --checkers
#     checkpatch" (one batched checkpatch.pl process, the script taken from
#     the base commit) against one direct scripts/checkpatch.pl run per
#     patch in the tree, same options. Findings must be equal: patch, type,
#     file, line and message. Also reported: a direct run in tree mode
#     (no --no-tree), as a developer would type it.
#  2. build check (unless CHECKS_BUILD=0): a real corpus patch touching a
#     .c file, unaltered and with an unused local variable added, on the
#     linux 6.1 tree; the first (cold) base build and the incremental
#     builds are timed. Exactly one new warning, at the right line, is
#     expected from the altered patch and none from the unaltered one.
#
# usage: bench/checks.sh [REVIEWBOT]   (default build-bench/bot/reviewbot,
# built first: bench/lib.sh)
# CHECKS_PARITY=0 skips part 1, CHECKS_BUILD=0 part 2.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
bench_need git perl python3
bin=$(bench_reviewbot "${1:-}") || exit 1
shared=$(bench_shared "${RB_SHARED:-$here/../shared}" corpus/apply-6.1) ||
	exit 1
corpus=$shared/corpus/apply-6.1
tree=$("$here/scripts/setup-linux-tree.sh") ||
	bench_die "no kernel tree (scripts/setup-linux-tree.sh failed)"
work=$(mktemp -d /tmp/rb-bench-checks-XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
opts="--no-tree --show-types --emacs --quiet --no-summary --color=never"
ms() { date +%s%3N; }

if [ "${CHECKS_PARITY:-1}" != 0 ]; then
echo "== checkpatch: 112 patches, linux $(git -C "$tree" log -1 --format=%s)"
ls "$corpus"/*.eml > "$work/list"
n=$(wc -l < "$work/list")

t0=$(ms)
i=0
while read -r f; do
	i=$((i + 1))
	(cd "$tree" && perl scripts/checkpatch.pl $opts "$f") |
		sed "s|^$f:|#$i:|" >> "$work/direct.txt" || true
done < "$work/list"
t1=$(ms)
i=0
while read -r f; do
	i=$((i + 1))
	(cd "$tree" && perl scripts/checkpatch.pl --show-types --emacs \
		--quiet --no-summary --color=never "$f" 2>/dev/null) |
		sed "s|^$f:|#$i:|" >> "$work/direct-tree.txt" || true
done < "$work/list"
t2=$(ms)
"$bin" check --tree "$tree" --no-apply --checkers checkpatch --json \
	$(cat "$work/list") > "$work/ours.json"
t3=$(ms)

python3 - "$work" <<'EOF'
import json, re, sys
work = sys.argv[1]
def direct(name):
    out, cur = [], None
    for line in open(f"{work}/{name}", errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"^#(\d+):\d+: (ERROR|WARNING|CHECK):([A-Z0-9_]+): (.*)$", line)
        if m:
            cur = [int(m.group(1)), m.group(3), "-", 0, m.group(4)]
            out.append(cur)
            continue
        m = re.match(r"^#\d+: FILE: (.*):(\d+):$", line)
        if m and cur and cur[2] == "-":
            cur[2], cur[3] = m.group(1), int(m.group(2))
    return sorted(tuple(x) for x in out)
ours = sorted((f["patch"], f["category"], f["file"] or "-", f["line"],
               f["message"].split("\n")[0])
              for f in map(json.loads, open(f"{work}/ours.json")))
d, t = direct("direct.txt"), direct("direct-tree.txt")
print(f"findings: batched {len(ours)}, direct {len(d)}, direct tree-mode {len(t)}")
if ours == d:
    print("parity with direct --no-tree runs: EQUAL (patch, type, file, line, message)")
else:
    print("parity: DIFFERENT")
    for x in sorted(set(ours) - set(d)): print("  only batched:", x)
    for x in sorted(set(d) - set(ours)): print("  only direct:", x)
extra = sorted(set(t) - set(d))
print(f"tree mode adds {len(extra)} and drops {len(set(d) - set(t))}:",
      ", ".join(sorted(set(x[1] for x in extra))) or "-")
if ours != d:
    sys.exit(1)
EOF
echo "time: direct per patch $(( (t1 - t0) ))ms, direct tree-mode $(( (t2 - t1) ))ms, batched reviewbot $(( (t3 - t2) ))ms for $n patches"

fi

[ "${CHECKS_BUILD:-1}" = 0 ] && exit 0

echo "== build: sandboxed make O=... W=1, linux 6.1 defconfig"
# A patch touching a .c file: the first corpus patch the bench can use.
p=$corpus/0f25d5fe8566da8bf5e33686602ad025a252d020.eml # [PATCH v2] proc: add byteorder file
cfile=$(grep -m1 '^+++ b/.*\.c$' "$p" | sed 's|^+++ b/||')
echo "patch: $(grep -m1 '^Subject:' "$p")  file: $cfile"
# Altered: an unused local after the first "{" line of a function body
# among the added lines ("+{" then a declaration).
python3 - "$p" "$work/altered.eml" <<'EOF'
import sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n")
out, done, in_c, hunk_i = [], False, False, None
for i, l in enumerate(lines):
    if l.startswith("+++ b/"):
        in_c = l.endswith(".c")
    if l.startswith("@@") and in_c and not done:
        hunk_i = len(out)
    out.append(l)
    if not done and in_c and l == "+{":
        out.append("+\tint rb_bench_unused;")
        done = True
        # one more added line in this hunk's header
        h = out[hunk_i]
        import re
        m = re.match(r"^@@ -(\d+(?:,\d+)?) \+(\d+),(\d+) @@(.*)$", h)
        out[hunk_i] = f"@@ -{m.group(1)} +{m.group(2)},{int(m.group(3)) + 1} @@{m.group(4)}"
assert done, "no '+{' line in a .c hunk"
open(dst, "w").write("\n".join(out))
EOF
export RB_BUILD_CACHE=$work/cache
run() { # NAME FILE
	local s e
	s=$(ms)
	"$bin" check --tree "$tree" --checkers build --json --timeout 1800 \
		--build-option TRANSPARENT_HUGEPAGE "$2" > "$work/$1.json"
	e=$(ms)
	echo "$1: $(( (e - s) ))ms, $(grep -c . "$work/$1.json" || true) finding(s)"
	cat "$work/$1.json"
}
run cold-unaltered "$p"
run warm-unaltered "$p"
run warm-altered "$work/altered.eml"
[ "$(grep -c . "$work/cold-unaltered.json" || true)" = 0 ] || { echo "FAIL: unaltered patch has findings"; exit 1; }
[ "$(grep -c . "$work/warm-altered.json")" = 1 ] || { echo "FAIL: want exactly one finding"; exit 1; }
grep -q "rb_bench_unused" "$work/warm-altered.json" || { echo "FAIL: wrong warning"; exit 1; }
echo "build acceptance: OK"
