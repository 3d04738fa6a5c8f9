#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_check_external.sh - "reviewbot check --external CMD": the command gets
# the series as an mbox and a checkout of the applied tree, and its
# JSON-lines findings are printed with the others. A bad line, a failure
# and a timeout are reported as problems; the run still succeeds (exit 0).
set -eu
: "${RB_BIN:?}"
command -v git >/dev/null || { echo "SKIP: git not installed (scripts/install-deps.sh build)"; exit 77; }

T=$(mktemp -d /tmp/rb-t-external-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

git init -q "$T/repo"
cd "$T/repo"
git config user.name "Jane Doe"
git config user.email "jane.doe@example.org"
printf 'int frob;\n' > frob.c
git add frob.c
git commit -q -m "frob: add frob"
BASE=$(git rev-parse HEAD)
printf 'int frob;\nint frob_applied_marker;\n' > frob.c
git commit -q -am "frob: add a marker" \
	-m "Signed-off-by: Jane Doe <jane.doe@example.org>"
git format-patch -q -1 --stdout > "$T/p.eml"
git reset -q --hard "$BASE"

# The checker: looks at both of its arguments, then reports.
cat > "$T/ext.sh" <<'EOF'
#!/bin/sh
mbox=$1 tree=$2
grep -q '^Subject: \[PATCH\] frob: add a marker' "$mbox" || exit 3
grep -q frob_applied_marker "$tree/frob.c" || exit 4
echo '{"severity":"medium","category":"frob-style","file":"frob.c","line":2,"code":"+int frob_applied_marker;","message":"Is this marker needed?","patch":1}'
echo 'this is not json'
echo '{"message":"Only a message."}'
EOF
chmod +x "$T/ext.sh"

out=$("$RB_BIN" check --tree "$T/repo" --base "$BASE" --checkers external \
	--external "$T/ext.sh" --json "$T/p.eml") || fail "exit $?"
echo "$out"
[ "$(echo "$out" | grep -c .)" = 3 ] || fail "want 3 lines"
echo "$out" | grep -q '"checker":"external","version":null,"severity":"medium","category":"frob-style","file":"frob.c","line":2' ||
	fail "the finding is not as printed"
echo "$out" | grep -q '"category":"checker-problem".*bad line 2' ||
	fail "the bad line is not reported"
echo "$out" | grep -q '"severity":"low","category":"external".*Only a message' ||
	fail "defaults not applied"

# A failing command and a hanging one: problems, not failures.
out=$("$RB_BIN" check --tree "$T/repo" --base "$BASE" --checkers external \
	--external "exit 9; :" --json "$T/p.eml") || fail "exit $? on failure"
echo "$out" | grep -q '"category":"checker-problem".*exit 9' ||
	fail "a failing command is not reported: $out"
s=$(date +%s)
out=$("$RB_BIN" check --tree "$T/repo" --base "$BASE" --checkers \
	commit-msg,external --timeout 2 --external "sleep 60; :" --json \
	"$T/p.eml") || fail "exit $? on timeout"
e=$(date +%s)
echo "$out"
echo "$out" | grep -q '"category":"checker-problem".*did not finish' ||
	fail "a timeout is not reported"
[ $((e - s)) -lt 20 ] || fail "the timeout took $((e - s)) s"

# Only what the series adds: the command runs on the base too, and a
# finding of a file that the base's run has is not reported.
cat > "$T/lines.sh" <<'EOF2'
#!/bin/sh
grep -n int "$2/frob.c" | sed 's/^\([0-9]*\):.*/frob.c:\1: warning: a line with int/'
EOF2
chmod +x "$T/lines.sh"
out=$("$RB_BIN" check --tree "$T/repo" --base "$BASE" --checkers external \
	--external "$T/lines.sh" --json "$T/p.eml") || fail "exit $? on delta"
[ "$(echo "$out" | grep -c '"category":"external"')" = 1 ] ||
	fail "want the one new line, got: $out"
echo "$out" | grep -q '"file":"frob.c","line":2,.*a line with int' ||
	fail "the new line is not line 2: $out"

# The series' budget: two slow checkers one after the other (parallel 1);
# the first stops at the budget, the second does not start.
s=$(date +%s)
out=$("$RB_BIN" check --tree "$T/repo" --base "$BASE" --checkers \
	external,commit-msg --parallel 1 --timeout 60 --budget 2 \
	--external "sleep 60; :" --json "$T/p.eml") || fail "exit $? on budget"
e=$(date +%s)
echo "$out" | grep -q '"category":"checker-problem".*did not finish' ||
	fail "the budget does not stop the running checker: $out"
echo "$out" | grep -q '"checker":"commit-msg".*"category":"checker-problem".*budget' ||
	fail "a checker after the budget ran: $out"
[ $((e - s)) -lt 20 ] || fail "the budget took $((e - s)) s"
echo "ok"
