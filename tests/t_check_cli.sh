#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_check_cli.sh - "reviewbot check" end to end: usage errors, a checker
# that cannot run (no checkpatch.pl in the base) reported as a problem
# with exit 0, a series that does not apply (exit 1), and, when the linux
# 6.1 tree is there, a real corpus patch applied and checked with the
# default checkers, every line a JSON finding.
set -eu
: "${RB_BIN:?}"
T=$(mktemp -d /tmp/rb-t-check-cli-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$RB_BIN" check --help | grep -q -- "--checkers LIST" || fail "--help"
set +e
"$RB_BIN" check >/dev/null 2>&1; rc=$?
set -e
[ $rc = 2 ] || fail "no arguments: exit $rc, want 2"

git init -q "$T/repo"
cd "$T/repo"
git config user.name "Jane Doe"
git config user.email "jane.doe@example.org"
printf 'int frob;\n' > frob.c
git add frob.c
git commit -q -m "frob: add frob"
BASE=$(git rev-parse HEAD)
printf 'int frob;\nint frob2;\n' > frob.c
git commit -q -am "frob: add frob2" \
	-m "Signed-off-by: Jane Doe <jane.doe@example.org>"
git format-patch -q -1 --stdout > "$T/p.eml"
git reset -q --hard "$BASE"

set +e
"$RB_BIN" check --tree "$T/repo" --checkers bogus "$T/p.eml" 2>"$T/err"
rc=$?
set -e
[ $rc = 2 ] || fail "unknown checker: exit $rc, want 2"
grep -q "unknown checker 'bogus'" "$T/err" || fail "no reason given"

# No scripts/checkpatch.pl in the tools (HEAD): a problem, not a failure.
out=$("$RB_BIN" check --tree "$T/repo" --base "$BASE" --json "$T/p.eml") ||
	fail "exit $? without checkpatch.pl"
echo "$out"
echo "$out" | grep -q '"checker":"checkpatch".*"category":"checker-problem".*checkpatch.pl is not in' ||
	fail "the missing checkpatch.pl is not reported"

# A patch that does not apply: exit 1 and the reason.
printf 'int other;\n' > frob.c
git commit -q -am "frob: rewrite"
set +e
"$RB_BIN" check --tree "$T/repo" --json "$T/p.eml" 2>"$T/err"; rc=$?
set -e
[ $rc = 1 ] || fail "patch that does not apply: exit $rc, want 1"
grep -q "does not apply" "$T/err" || fail "no apply failure reason"

# The rest needs the kernel tree and a corpus mail: a partial skip, named.
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
[ -d "$tree/.git" ] || {
	echo "SKIP: the linux 6.1 part: no git tree at $tree: run scripts/setup-linux-tree.sh (or set RB_LINUX_TREE)"
	exit 0
}
p=${RB_SHARED:-}/corpus/apply-6.1/0f25d5fe8566da8bf5e33686602ad025a252d020.eml
[ -f "$p" ] || {
	echo "SKIP: the linux 6.1 part: needs shared/corpus/apply-6.1, not found (RB_SHARED=${RB_SHARED:-unset}): set RB_SHARED=/path/to/shared"
	exit 0
}
out=$("$RB_BIN" check --tree "$tree" --json "$p") || fail "linux: exit $?"
echo "$out"
echo "$out" | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    f = json.loads(line)
    assert set(f) == {"checker", "version", "severity", "category", "file",
                      "line", "code", "message", "patch", "fingerprint"}, f
    assert f["checker"] in ("commit-msg", "checkpatch"), f
    n += 1
# checkpatch: "added, moved or deleted file(s)" for this patch.
assert n >= 1
' || fail "linux: bad JSON findings"
echo "$out" | grep -q '"category":"FILE_PATH_CHANGES"' ||
	fail "linux: checkpatch finding missing"
echo "ok"
