#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_eval_inject_paths.sh - "reviewbot eval --inject" reverses fixes
# and applies buggy patches taken from list mail onto a configured tree:
# whoever posted them chose their paths. A fix that "deleted" ../escape
# (its reverse would create it), one that adds to .git/config, and a
# buggy patch that creates .git/hooks/post-checkout give no case: the
# apply refuses the paths (review/apply/apply.h), nothing is written outside or
# into the tree (the apply works in memory), and the run reports why.
. "$(dirname "$0")/../integration/lib.sh"
rb_need git
d=$RB_TEST_DIR
mkdir -p "$d/tree/drivers" "$d/box"
printf 'int foo;\n' >"$d/tree/drivers/foo.c"
git -C "$d/tree" init -q
git -C "$d/tree" -c user.name=t -c user.email=t@example.org add -A
git -C "$d/tree" -c user.name=t -c user.email=t@example.org commit -q -m t
python3 - "$d/set.json" <<'PY'
import json, sys
def pair(i, fix, bug):
    return {"id": i,
            "buggy": {"subject": "[PATCH] x: y", "commit_msg": "y\n",
                      "patch": bug},
            "fix": {"message_id": "fix-%d@example.org" % i,
                    "subject": "[PATCH] x: fix y", "fixes": "abc (\"x: y\")",
                    "patch": fix, "commit_msg": "fix\n"},
            "changed": [{"file": "drivers/foo.c", "lines": [1]}]}
escape = ("diff --git a/../escape b/../escape\ndeleted file mode 100644\n"
          "--- a/../escape\n+++ /dev/null\n@@ -1 +0,0 @@\n-pwned\n")
gitcfg = ("diff --git a/.git/config b/.git/config\n--- a/.git/config\n"
          "+++ b/.git/config\n@@ -1 +1,2 @@\n int foo;\n+[core]\n")
hook = ("diff --git a/.git/hooks/post-checkout b/.git/hooks/post-checkout\n"
        "new file mode 100755\n--- /dev/null\n+++ b/.git/hooks/post-checkout\n"
        "@@ -0,0 +1,2 @@\n+#!/bin/sh\n+touch /tmp/pwned\n")
fixfoo = ("diff --git a/drivers/foo.c b/drivers/foo.c\n--- a/drivers/foo.c\n"
          "+++ b/drivers/foo.c\n@@ -1 +1 @@\n-int bar;\n+int foo;\n")
other = fixfoo.replace("int bar;", "int baz;").replace("int foo;", "int qux;")
json.dump({"source": "hostile", "pairs": [pair(1, escape, fixfoo),
          pair(2, gitcfg, fixfoo), pair(3, other, hook)]},
          open(sys.argv[1], "w"))
PY
objects() { git -C "$d/tree" count-objects -v; }
before=$(objects)
sleep 1.1 # mtimes have a granularity
touch "$d/marker"
cd "$d/box" || rb_fail "cd"
"$RB_BIN" eval --inject --set "$d/set.json" --tree "$d/tree" \
	--cases "$d/cases.json" >"$d/out.md" 2>"$d/err" ||
	rb_fail "eval --inject: $(cat "$d/err")"
grep -q 'Cases with their controls: 0\.' "$d/out.md" ||
	rb_fail "a case was made: $(cat "$d/out.md")"
grep -q '^- 1, not injected: the fix reversed does not apply on tree: .*\.\./escape' \
	"$d/out.md" || rb_fail "pair 1: $(grep '^- 1' "$d/out.md")"
grep -q '^- 2, not injected: .git/config is not in tree' "$d/out.md" ||
	rb_fail "pair 2: $(grep '^- 2' "$d/out.md")"
grep -q '^- 3, not forward: the buggy patch does not apply on tree: .*\.git/hooks/post-checkout' \
	"$d/out.md" || rb_fail "pair 3: $(grep '^- 3' "$d/out.md")"
[ ! -e "$d/escape" ] && [ ! -e "$d/tree/../escape" ] && [ ! -e /tmp/pwned ] ||
	rb_fail "a file was written outside"
[ -z "$(ls -A "$d/box")" ] || rb_fail "files in the working directory: $(ls -A "$d/box")"
[ ! -e "$d/tree/.git/hooks/post-checkout" ] || rb_fail "a hook was written"
[ "$before" = "$(objects)" ] || rb_fail "the tree's objects changed"
touched=$(find "$d/tree/.git" -newer "$d/marker" | head -3)
[ -z "$touched" ] || rb_fail "files under .git were touched: $touched"
echo "ok: no case, nothing written"
