#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 36: the blocking ledger finds a series in a tree by the patch-id
# of a new commit, and a patch-id is anyone's to post. Mallory copies
# 1/3 of Ada's series (the same diff, her own clean commit message) as a
# patch of her own, after Ada posted it: when the tree gains 1/3, her
# copy must not stand for Ada's series, or the notice naming Ada's open
# blocking F1 (on 2/3) would never reach the maintainers.
#  1. Ada's series, RING BUFFER blocking: F1 on 2/3 is open;
#  2. Ada's v2, 1/3 unchanged, F1 on 2/3 still; then Mallory's copy of
#     1/3, the newest patch of its patch-id, reviewed (nothing open);
#  3. the tree gains 1/3: Ada's v2 is seen there (v1 not: v2 stands for
#     it) and RING BUFFER's M: gets one notice; Mallory's copy is seen
#     too, clear.
# Driven through "reviewbot run --once" with a file source; the tree is
# a local one (no fetch), scanned each pass.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
sed -i 's/      mode: advisory/      mode: blocking/' "$d/config.yaml"
sed -i '/require_dkim: true/d' "$d/config.yaml"
grep -q 'mode: blocking' "$d/config.yaml" || rb_fail "no blocking policy"
q()
{
	python3 -c 'import sqlite3,sys; print("\n".join("|".join(str(c) for c in r) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$d/rb.db" "$1"
}

# 1. Ada's series.
sec_append "$d/demo/series.mbox"
sec_run run1.log
ada=$(q "SELECT series_id FROM patches WHERE idx = 2 AND message_id LIKE '1491f9b3%'")
[ -n "$ada" ] || rb_fail "1: Ada's series is not stored: $(q "SELECT id || ' ' || state FROM series")"
[ "$(q "SELECT COUNT(*) FROM findings f JOIN reviews r ON r.message_id = f.review_msgid WHERE f.series_id = '$ada' AND f.category = 'signed-off-by' AND r.policy = 'blocking'")" = 1 ] ||
	rb_fail "1: no blocking F1 on 2/3: $(tail -5 "$d/run1.log")"
[ -z "$(q "SELECT * FROM sightings")" ] || rb_fail "1: a sighting before the tree moved"

# 2. Ada's v2: 1/3 unchanged (the same patch-id again), 2/3 still
# without its Signed-off-by. v2 stands for v1: one of them is seen.
sed -e 's/^Subject: \[PATCH \([0-3]\/3\]\)/Subject: [PATCH v2 \1/' \
	-e 's/^Date: .*/Date: Thu, 5 Nov 2026 09:00:00 +0000/' \
	-e 's/^\(Message-Id\|In-Reply-To\|References\): <\(.*\)>$/\1: <v2.\2>/I' \
	-e 's/^+\tif (!size)$/+\tif (size == 0)/' \
	"$d/demo/series.mbox" >"$d/v2.mbox"
[ "$(grep -c '^Subject: \[PATCH v2 [0-3]/3\]' "$d/v2.mbox")" = 4 ] &&
	[ "$(grep -ci '^Message-Id: <v2\.' "$d/v2.mbox")" = 4 ] ||
	rb_fail "2: no v2 of the series"
sec_append "$d/v2.mbox"
export RB_NOW=$((RB_NOW + 3600))
sec_run run2.log
ada2=$(q "SELECT series_id FROM series_versions WHERE previous_id = '$ada'")
[ -n "$ada2" ] || rb_fail "2: v2 is not linked to v1: $(q "SELECT id || ' v' || version || ' ' || state FROM series")"

# 2b. Mallory's copy of 1/3, after v2 (the newest patch of its patch-id):
# the same diff under her name and her words.
python3 - "$d/demo/series.mbox" "$d/mallory.eml" <<'PY'
import re, sys
parts = re.split(r"(?m)^(?=From [0-9a-f]{40} )", open(sys.argv[1]).read())
p = [p for p in parts if "Subject: [PATCH 1/3]" in p][0]
head, body = p.split("\n\n", 1)
head = head.split("\n", 1)[1]  # the mbox From_ line
out = []
for l in head.split("\n"):
    if l.lower().startswith("message-id:"):
        l = "Message-Id: <mallory-copy@example.net>"
    elif l.startswith("From: "):
        l = "From: Mallory <mallory@example.net>"
    elif l.startswith("Subject: "):
        l = "Subject: [PATCH] ring: count the entries of a ring"
    elif l.lower().startswith(("in-reply-to:", "references:")):
        continue
    out.append(l)
msg, diff = body.split("\n---\n", 1)
body = ("Mallory would like to count them too.\n\n"
        "Signed-off-by: Mallory <mallory@example.net>\n---\n" + diff)
open(sys.argv[2], "w").write("\n".join(out) + "\n\n" + body)
PY
sec_append "$d/mallory.eml"
export RB_NOW=$((RB_NOW + 3600)) # an hour after Ada's: the newer one
sec_run run2b.log
mal=$(q "SELECT series_id FROM patches WHERE message_id = 'mallory-copy@example.net'")
[ -n "$mal" ] || rb_fail "2b: Mallory's copy is not stored: $(tail -5 "$d/run2b.log")"
[ "$(q "SELECT patch_id FROM messages WHERE message_id = 'mallory-copy@example.net'")" = \
  "$(q "SELECT m.patch_id FROM messages m JOIN patches p ON p.message_id = m.message_id WHERE p.series_id = '$ada' AND p.idx = 1")" ] ||
	rb_fail "2b: the copy's patch-id is not 1/3's"

# 3. The tree gains 1/3 (a maintainer took it).
python3 - "$d/demo/series.mbox" "$d/take.mbox" <<'PY'
import re, sys
parts = re.split(r"(?m)^(?=From [0-9a-f]{40} )", open(sys.argv[1]).read())
open(sys.argv[2], "w").write([p for p in parts if "Subject: [PATCH 1/3]" in p][0])
PY
(
	cd "$d/demo/tree"
	export GIT_COMMITTER_NAME="Grace Hopper" GIT_COMMITTER_EMAIL=grace@example.org
	git am -q "$d/take.mbox"
) >"$d/am.log" 2>&1 || rb_fail "3: git am: $(cat "$d/am.log")"
export RB_NOW=$((RB_NOW + 3600))
sec_run run3.log
[ "$(q "SELECT state FROM sightings WHERE series_id = '$ada2' AND tree = 'demo'")" = mailed ] ||
	rb_fail "3: Mallory's copy stands for Ada's series in the tree: $(q "SELECT series_id || ' ' || state FROM sightings")"
[ -z "$(q "SELECT state FROM sightings WHERE series_id = '$ada'")" ] ||
	rb_fail "3: v1 is seen beside v2: $(q "SELECT series_id || ' ' || state FROM sightings")"
[ "$(q "SELECT state FROM sightings WHERE series_id = '$mal'")" = clear ] ||
	rb_fail "3: Mallory's copy: $(q "SELECT series_id || ' ' || state FROM sightings")"
[ "$(q "SELECT o.rcpts FROM outbox o JOIN reviews r ON r.message_id = o.message_id WHERE r.kind = 'ledger'")" = grace@example.org ] ||
	rb_fail "3: the notice: $(q "SELECT r.series_id || ' ' || o.rcpts FROM outbox o JOIN reviews r ON r.message_id = o.message_id WHERE r.kind = 'ledger'")"
echo "1 passed, 0 failed"
