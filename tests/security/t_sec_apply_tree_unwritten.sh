#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_apply_tree_unwritten.sh - issue 17: a configured tree is never
# written by a review, on any path: "reviewbot run --once", "review",
# "check" (every checker) and "apply". Reviews used to write each applied
# series' blobs, trees and commits into the tree's object store, where a
# later mail could name them as its base (see t_sec_checkpatch_base_commit).
# "git count-objects -v" stays the same and no file under .git/objects is
# even touched (libgit2 "freshens" the mtime of objects it rewrites). Only
# "reviewbot apply --write-tree", asked for on the command line, writes.
. "$(dirname "$0")/../integration/lib.sh"
set -e
rb_need git
d=$RB_TEST_DIR
chmod 755 "$d"
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
tree=$d/demo/tree
export RB_NOW=1793700000 RB_BUILD_CACHE=$d/build-cache
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    path: $d/demo/series.mbox
trees:
  - name: demo
    path: $tree
outbox:
  maildir: $d/outbox
admins: [admin@example.org]
policy:
  default:
    mode: advisory
EOC
objects() { git -C "$tree" count-objects -v; }
before=$(objects)
sleep 1.1 # mtimes have a granularity
touch "$d/marker"

"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run.log" ||
	rb_fail "run failed: $(tail -5 "$d/run.log")"
ls "$d/outbox/new" | grep -q . || rb_fail "run sent no review"
"$RB_BIN" review --tree "$tree" --store "$d/review.db" --outbox "$d/outbox2" \
	"$d/demo/series.mbox" >/dev/null 2>&1 || [ $? = 1 ] ||
	rb_fail "review failed"
"$RB_BIN" check --tree "$tree" --base HEAD~0 --checkers commit-msg,build \
	--json "$d/demo/series.mbox" >/dev/null 2>&1 ||
	rb_fail "check failed"
patches=$(ls "$d"/demo/patches/000[1-9]-*.patch)
"$RB_BIN" apply --tree "$tree" $patches >/dev/null || rb_fail "apply failed"
"$RB_BIN" apply --tree "$tree" --check --write-tree $patches >/dev/null ||
	rb_fail "apply --check failed"

after=$(objects)
[ "$before" = "$after" ] || rb_fail "the tree's objects changed: $before / $after"
touched=$(find "$tree/.git/objects" -newer "$d/marker" | head -3)
[ -z "$touched" ] || rb_fail "files under .git/objects were touched: $touched"

# The one exception, on request: apply --write-tree writes the series.
tree_id=$("$RB_BIN" apply --tree "$tree" --write-tree $patches | tail -n 1)
git -C "$tree" cat-file -e "$tree_id" ||
	rb_fail "apply --write-tree did not write $tree_id"
echo "1 passed, 0 failed"
