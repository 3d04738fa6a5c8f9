#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_corrupt_hunk.sh - issue 18: a hunk whose header counts cannot
# match its body ("@@ -4294967295,4294967295 +18446744073709551615,
# 2147483648 @@" then one line) is refused as git apply refuses it
# ("corrupt patch at line N"), never applied as a change of nothing and
# reviewed. Driven through "reviewbot run --once": the apply-failure
# notice names the corrupt patch and no review is sent.
. "$(dirname "$0")/../integration/lib.sh"
set -e
rb_need git
d=$RB_TEST_DIR
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
tree=$d/demo/tree
export RB_NOW=1793700000 RB_BUILD_CACHE=$d/build-cache
cat >"$d/corrupt.mbox" <<'EOM'
From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
Message-Id: <corrupt-hunk-1@example.org>
From: Ada Lovelace <ada@example.org>
To: ring@example.org
Date: Tue, 3 Nov 2026 09:00:00 +0000
Subject: [PATCH] ring: count slots

Callers open-code head - tail.

Signed-off-by: Ada Lovelace <ada@example.org>
---
 include/ring.h | 1 +
 1 file changed, 1 insertion(+)

diff --git a/include/ring.h b/include/ring.h
index 2849763..9de7579 100644
--- a/include/ring.h
+++ b/include/ring.h
@@ -4294967295,4294967295 +18446744073709551615,2147483648 @@
+unsigned int ring_count(const struct ring *r);
-- 
2.43.0

EOM
# git itself refuses the mail: the behaviour to match.
sed -n '/^diff --git/,$p' "$d/corrupt.mbox" >"$d/corrupt.diff"
if git -C "$tree" apply --check "$d/corrupt.diff" 2>"$d/git.err"; then
	rb_fail "git apply accepted the corrupt hunk"
fi
grep -q "corrupt patch" "$d/git.err" || rb_fail "git said: $(cat "$d/git.err")"

cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    path: $d/corrupt.mbox
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
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run.log" ||
	rb_fail "run failed: $(tail -5 "$d/run.log")"
"$RB_BIN" apply --tree "$tree" "$d/corrupt.mbox" >"$d/apply.out" 2>&1 &&
	rb_fail "reviewbot apply accepted the corrupt hunk: $(cat "$d/apply.out")"
grep -q "corrupt patch at line" "$d/apply.out" ||
	rb_fail "apply did not say corrupt patch: $(cat "$d/apply.out")"
sent=$(cat "$d"/outbox/new/* 2>/dev/null || true)
echo "$sent" | grep -q "corrupt patch at line" ||
	rb_fail "no failure notice naming the corrupt patch: $sent"
echo "$sent" | grep -qi "^Subject: Re: \[PATCH\] ring: count slots" ||
	rb_fail "the notice does not answer the patch"
! echo "$sent" | grep -q "^\[F[0-9]" || rb_fail "a corrupt patch was reviewed"
echo "ok: the corrupt hunk is refused like git apply"
