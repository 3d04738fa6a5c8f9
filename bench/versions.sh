#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/versions.sh [REVIEWBOT] [OUT] - how many patch reviews the version
# logic saves (issue 18) on the whole linux-api archive (30,571 mails,
# 2019 to 2026): "reviewbot review" over the corpus on the embedded
# defaults (SQLite, Maildir outbox, no tree, no model), as bench/corpus.sh
# runs it, then from the store:
#   - series linked to a previous version, by how the link was found
#     (assembly: threading or change-id; b4's "Link to vN:"; the same
#     change-id; the same author and title);
#   - parts reviewed in all, and parts not reviewed again because their
#     git patch-id was the same as a reviewed part of the previous
#     version (each one is a model call and a mail saved);
#   - the patch-ids checked against "git patch-id --stable" on a sample.
# Without a tree nothing is applied, so every complete series counts as
# reviewed here; with the linux 6.1 tree most of the archive would not
# apply, and an unreviewed v(n) saves nothing on v(n+1).
# REVIEWBOT may be relative; without it the Release build in build-bench/
# is used (bench/lib.sh). OUT (default bench/RESULTS-versions.md) gets
# the section for bench/RESULTS.md (bench/collect.sh).
# VERSIONS_WORK=DIR keeps the run (the store is DIR/c.db).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_need xz git sqlite3 python3
bin=$(bench_reviewbot "${1:-}") || exit 1
out=$(bench_out "${2:-$top/bench/RESULTS-versions.md}")
shared=$(bench_shared "${RB_SHARED:-$top/../shared}" corpus/linux-api.mbox.xz) ||
	exit 1
if [ -n "${VERSIONS_WORK:-}" ]; then
	w=$VERSIONS_WORK
	mkdir -p "$w"
else
	w=$(mktemp -d)
	trap 'rm -rf "$w"' EXIT
fi
cd "$w"
rm -rf c.db* ob
xz -dc "$shared/corpus/linux-api.mbox.xz" >corpus.mbox
t0=$(date +%s.%N)
"$bin" review --store c.db --outbox ob corpus.mbox >run.txt 2>err.txt || true
t1=$(date +%s.%N)
grep -q 'stored in [0-9.]* s' run.txt ||
	bench_die "reviewbot review gave no timing line: $(tail -n 5 err.txt)"
q() { sqlite3 c.db "$1"; }
series=$(q "SELECT COUNT(*) FROM series")
reviewed=$(q "SELECT COUNT(*) FROM series WHERE state IN ('reviewed', 'incomplete')")
v2plus=$(q "SELECT COUNT(*) FROM series WHERE version > 1")
linked=$(q "SELECT COUNT(*) FROM series_versions")
how=$(q "SELECT how || ' ' || COUNT(*) FROM series_versions GROUP BY how ORDER BY COUNT(*) DESC" |
	paste -sd, | sed 's/,/, /g')
parts=$(q "SELECT COUNT(*) FROM patch_ids")
later=$(q "SELECT COUNT(*) FROM patch_ids p JOIN series_versions v ON v.series_id = p.series_id")
same=$(q "SELECT COUNT(*) FROM patch_ids WHERE unchanged_since IS NOT NULL")
sall=$(q "SELECT COUNT(*) FROM series_versions v WHERE NOT EXISTS (SELECT 1 FROM patch_ids p WHERE p.series_id = v.series_id AND p.unchanged_since IS NULL) AND EXISTS (SELECT 1 FROM patch_ids p WHERE p.series_id = v.series_id)")
fixed=$(q "SELECT COUNT(*) FROM findings WHERE outcome = 'fixed'")
# git patch-id --stable on 200 parts, from the stored raw mail
read -r agree n < <(python3 - c.db <<'PY'
import email, sqlite3, subprocess, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT p.patch_id, m.raw FROM patch_ids p JOIN patches x"
                  " ON x.series_id = p.series_id AND x.idx = p.idx JOIN"
                  " messages m ON m.message_id = x.message_id"
                  " ORDER BY m.message_id LIMIT 200").fetchall()
agree = 0
for pid, raw in rows:
    m = email.message_from_bytes(bytes(raw))
    body = b"".join(x.get_payload(decode=True) or b"" for x in m.walk()
                    if x.get_content_type() == "text/plain")
    r = subprocess.run(["git", "patch-id", "--stable"], input=body,
                       capture_output=True).stdout.split()
    agree += bool(r) and r[0].decode() == pid
print(agree, len(rows))
PY
)
pct() { python3 -c "import sys; a,b=int(sys.argv[1]),int(sys.argv[2]); print('%.1f%%' % (100.0*a/b) if b else '-')" "$1" "$2"; }
secs=$(python3 -c "print('%.1f' % ($t1 - $t0))")
{
	echo "## Versions: patch reviews saved (bench/versions.sh)"
	echo
	echo "\`reviewbot review\` over the 30,571-message linux-api mbox, embedded"
	echo "defaults (no tree, no model), in $secs s; figures from the store."
	echo "Repeat: \`bench/versions.sh\`."
	echo
	echo "| what | count |"
	echo "| --- | --- |"
	echo "| series | $series |"
	echo "| series reviewed (complete, or a prefix) | $reviewed |"
	echo "| series with a version above 1 | $v2plus |"
	echo "| series linked to a previous version | $linked ($how) |"
	echo "| parts reviewed or skipped, with a patch-id | $parts |"
	echo "| of them in a series with a previous version | $later |"
	echo "| **parts not reviewed again (same patch-id as v(n))** | **$same** ($(pct "$same" "$later") of parts of later versions, $(pct "$same" "$parts") of all) |"
	echo "| later versions where no part needed a review | $sall |"
	echo "| findings recorded as fixed in a later version | $fixed |"
	echo "| patch-ids equal to \`git patch-id --stable\` (sample) | $agree of $n |"
} >"$out"
