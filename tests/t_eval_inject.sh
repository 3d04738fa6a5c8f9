#!/bin/bash
# t_eval_inject.sh - "reviewbot eval --inject" end to end on two small git
# trees made here and the set built from tests/data/eval/archive.mbox:
# the tree that has the fix gets an injected case (the fix reversed) and
# the tree without foo_get() a forward one (the buggy patch), each with
# its control; --cases writes them; --recall measures the context with no
# model; the scripted "command" provider (tests/data/eval/model.sh, not a
# model) reviews cases and controls: the strict scorer's hit on the case,
# a false positive on the control; --record then --replay gives the same
# bytes with no model; --checkers runs commit-msg over both. The linux
# trees are t_eval_replay.sh's.
set -u
: "${RB_BIN:?}" "${RB_SRC:?}"
data=$RB_SRC/tests/data/eval
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-eval-inject.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
die() {
	echo "FAIL: $*"
	fail=1
}

# tree DIR: a git repository of the files written under DIR.
tree() {
	git -C "$1" init -q &&
		git -C "$1" -c user.name=t -c user.email=t@example.org add -A &&
		git -C "$1" -c user.name=t -c user.email=t@example.org \
			commit -q -m tree
}
mkdir -p "$tmp/fixed/drivers" "$tmp/fixed/include" "$tmp/base/drivers" \
	"$tmp/base/include"
cat >"$tmp/fixed/drivers/foo.c" <<'C'
/* foo driver */
#include <linux/slab.h>
#include "foo.h"

#define FOO_SIZE 64

static int foo_init(void)
{
	foo_setup();
	return 0;
}

int foo_get(struct foo *f)
{
	char *buf = kmalloc(FOO_SIZE, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	if (foo_read(f, buf) < 0) {
		kfree(buf);
		return -EIO;
	}
	kfree(buf);
	return 0;
}

static void foo_exit(void)
{
	foo_cleanup();
}

int foo_user(struct foo *f)
{
	return foo_get(f);
}
C
printf 'struct foo;\nint foo_init(void);\nint foo_get(struct foo *f);\nvoid foo_exit(void);\n' \
	>"$tmp/fixed/include/foo.h"
cat >"$tmp/base/drivers/foo.c" <<'C'
/* foo driver */
#include <linux/slab.h>
#include "foo.h"

#define FOO_SIZE 64

int foo_x;

static int foo_init(void)
{
	return 0;
}

static void foo_exit(void)
{
	foo_cleanup();
}
C
printf 'struct foo;\nint foo_init(void);\nvoid foo_exit(void);\n' \
	>"$tmp/base/include/foo.h"
tree "$tmp/fixed" && tree "$tmp/base" || { echo "FAIL: git"; exit 1; }

"$RB_BIN" eval --build-set --from "$data/archive.mbox" --out "$tmp/set.json" \
	>/dev/null 2>"$tmp/err" || die "build-set: $(cat "$tmp/err")"

# The cases and the context, no model.
"$RB_BIN" eval --inject --recall --set "$tmp/set.json" --tree "$tmp/fixed" \
	--tree "$tmp/base" --cases "$tmp/cases.json" --json "$tmp/recall.json" \
	>"$tmp/recall.md" 2>"$tmp/err" ||
	die "eval --inject --recall: $(cat "$tmp/err")"
grep -q 'Cases with their controls: 2. On fixed: 1 injected, 0 forward. On base: 0 injected, 1 forward.' \
	"$tmp/recall.md" || die "cases: $(grep -A3 '^| pair |' "$tmp/recall.md")"
grep -q '^| 1 | foo: add foo_get | foo: free the buffer when foo_read() fails |  | injected | fixed | - | drivers/foo.c:19,20,21 | foo_get() |$' \
	"$tmp/recall.md" || die "the injected case's row: $(cat "$tmp/recall.md")"
grep -q '^| 1 | injected | fixed | 3/3 | 1/1 | 8/8 | no | 3/3 | 1 | 2 | ' \
	"$tmp/recall.md" || die "recall: $(grep -A4 '^Context recall' "$tmp/recall.md")"
python3 - "$tmp/cases.json" <<'PY' || die "--cases"
import json, sys
c = json.load(open(sys.argv[1]))["cases"]
assert [x["case"] for x in c] == ["injected", "forward"], c
inj, fwd = c
assert "-\t\tkfree(buf);\n" in inj["patch"], inj["patch"]
assert "+\t\tkfree(buf);\n" in inj["control"], inj["control"]
assert inj["commit_msg"].startswith("Add a getter"), inj["commit_msg"]
assert "returns without freeing" in inj["control_msg"], inj["control_msg"]
assert "+int foo_get(struct foo *f)\n" in fwd["patch"], fwd["patch"]
assert inj["changed"] == [{"file": "drivers/foo.c", "lines": [19, 20, 21],
                           "functions": ["foo_get"]}], inj["changed"]
PY

# The scripted model on cases and controls, recorded, then replayed.
cat >"$tmp/config.yaml" <<YAML
model:
  provider: command
  command: sh $data/model.sh
  name: scripted
  focuses: [correctness]
YAML
"$RB_BIN" eval --inject --set "$tmp/set.json" --tree "$tmp/fixed" \
	--tree "$tmp/base" -c "$tmp/config.yaml" --labels "$data/labelled.json" \
	--record "$tmp/rec" --json "$tmp/model.json" --label "scripted" \
	>"$tmp/model.md" 2>"$tmp/err" || die "eval --inject: $(cat "$tmp/err")"
grep -q '^| 1 | injected | 1 | 1 | 1 | drivers/foo.c:line 19 | 1 | ' \
	"$tmp/model.md" || die "the case's row: $(cat "$tmp/model.md")"
grep -q '^| scripted | [0-9a-f]* | all | 2 | 2 | 1.00 | 3 | 2 | 0.67 | 2 | 2 | 2 | 1.00 | ' \
	"$tmp/model.md" || die "summary: $(grep -A4 '^| model |' "$tmp/model.md")"
grep -q '^- model leak: 2$' "$tmp/model.md" ||
	die "false positives by category: $(cat "$tmp/model.md")"
python3 - "$tmp/model.json" <<'PY' || die "the JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["model"]["summary"]["all"]
assert s["cases"] == 2 and s["cases_with_a_hit"] == 2, s
assert s["controls"] == 2 and s["false_positives"] == 2, s
assert r["model"]["summary"]["mm"]["cases"] == 0, r["model"]["summary"]
row = r["model"]["rows"][0]
assert row["findings"][0]["hit"] and row["findings"][0]["function"] == "foo_get", row
assert not row["control_findings"][0]["hit"], row
PY
[ -n "$(ls "$tmp/rec" 2>/dev/null)" ] || die "nothing recorded"
"$RB_BIN" eval --inject --set "$tmp/set.json" --tree "$tmp/fixed" \
	--tree "$tmp/base" -c "$tmp/config.yaml" --labels "$data/labelled.json" \
	--replay "$tmp/rec" --json "$tmp/replay.json" --label "scripted" \
	>"$tmp/replay.md" 2>"$tmp/err" || die "--replay: $(cat "$tmp/err")"
cmp -s "$tmp/model.md" "$tmp/replay.md" && cmp -s "$tmp/model.json" "$tmp/replay.json" ||
	die "the replay differs: $(diff "$tmp/model.md" "$tmp/replay.md" | head)"

# The checkers over the same cases and controls (no checkpatch.pl here).
"$RB_BIN" eval --inject --checkers --set "$tmp/set.json" --tree "$tmp/fixed" \
	--tree "$tmp/base" --labels "$data/labelled.json" \
	>"$tmp/check.md" 2>"$tmp/err" || die "--checkers: $(cat "$tmp/err")"
grep -q '^| commit-msg | [0-9a-f]* | all | 2 | 0 | 0.00 | ' \
	"$tmp/check.md" || die "checkers: $(sed -n '/The checkers/,$p' "$tmp/check.md")"

# Usage: --recall without --inject, --build without --checkers.
"$RB_BIN" eval --recall --set "$tmp/set.json" >/dev/null 2>&1
[ $? = 2 ] || die "--recall without --inject"
"$RB_BIN" eval --inject --build --set "$tmp/set.json" >/dev/null 2>&1
[ $? = 2 ] || die "--build without --checkers"
exit $fail
