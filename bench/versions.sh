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
# Issue 37: the lines a person's reply on v(n) commented on (quoting them,
# writing under them), and which v(n+1) kept with their neighbours.
tq() { q "SELECT $1 FROM thread_quotes t JOIN series s ON s.id = t.series_id WHERE $2"; }
v12="t.prev_version = 1 AND s.version = 2"
q12=$(tq "COUNT(*)" "$v12")
s12=$(tq "COUNT(DISTINCT t.series_id)" "$v12")
u12=$(tq "COUNT(*)" "$v12 AND t.state = 'unchanged'")
us12=$(tq "COUNT(DISTINCT t.series_id)" "$v12 AND t.state = 'unchanged'")
qall=$(tq "COUNT(*)" "1 = 1")
sall_q=$(tq "COUNT(DISTINCT t.series_id)" "1 = 1")
uall=$(tq "COUNT(*)" "t.state = 'unchanged'")
ball=$(tq "COUNT(*)" "t.source = 'bot'")
# The hand labels (bench/versions-threads-labels.tsv), against this run.
labels=$top/bench/versions-threads-labels.tsv
label_md=$(python3 - c.db "$labels" <<'PY'
import collections, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
listed = {(r[0], r[1]): r for r in db.execute(
    "SELECT t.reply_msgid, t.n, s.title, t.file, t.line FROM thread_quotes"
    " t JOIN series s ON s.id = t.series_id WHERE t.prev_version = 1 AND"
    " s.version = 2 AND t.state = 'unchanged'")}
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])
        if l.strip() and not l.startswith("#")]
kept = [r for r in rows if (r[0], int(r[1])) in listed]
n = collections.Counter(r[2] for r in kept)
real = n["real"]
print("%d labelled, %d of them listed by this run; **%d real unanswered"
      " comments (%.0f%%)**, %d settled in the thread, %d addressed by a"
      " change elsewhere, %d not a request on this line." %
      (len(rows), len(kept), real, 100.0 * real / max(len(kept), 1),
       n["settled"], n["elsewhere"], n["not-a-request"]))
print()
print("| # | series (v1 part) | line | label | why |")
print("| --- | --- | --- | --- | --- |")
for i, r in enumerate(rows, 1):
    k = (r[0], int(r[1]))
    if k in listed:
        t = listed[k]
        print("| %d | %s | %s:%d | %s | %s |" % (i, t[2][:48], t[3], t[4],
                                                r[2], r[3]))
    else:
        print("| %d | (not listed by this run) | | %s | %s |" % (i, r[2], r[3]))
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
	echo
	echo "## Versions: v(n)'s review, answered or not (issue 37)"
	echo
	echo "From the same run: the lines a person's reply on v(n) commented on"
	echo "(quoted as \"> +...\" with their own words under them; the author's"
	echo "and bots' replies left out, and on v(n) only replies dated before"
	echo "v(n+1)), found in v(n)'s part and looked for in v(n+1)'s with the line"
	echo "before and the two after it, byte for byte (table thread_quotes)."
	echo
	echo "| what | v1 to v2 | every later version |"
	echo "| --- | --- | --- |"
	echo "| later versions whose v(n) got replies commenting on code | $s12 | $sall_q |"
	echo "| lines commented on | $q12 | $qall |"
	echo "| **of them unchanged in v(n+1): listed in its review** | **$u12** (in $us12 series) | **$uall** |"
	echo "| of the lines, from a bot (never listed as a reviewer's) | | $ball |"
	echo
	echo "### Hand-labelled sample (v1 to v2)"
	echo
	echo "Each listed line of a seeded random sample of the v1-to-v2 ones,"
	echo "labelled by reading the whole thread (the reviewer's mail, every"
	echo "answer to it and the reviewer's follow-ups, v2's notes and cover"
	echo "letter) strictly, as an mm maintainer reading v2 would ask: does this"
	echo "line show a comment nobody dealt with? **real**: the comment asks"
	echo "for a change or raises a problem on this code, v2 leaves it, and the"
	echo "thread did not settle it (a fix promised and not made counts as"
	echo "real); **settled**: the thread settled it without a change (a"
	echo "question answered, an explanation the reviewer accepted, a"
	echo "suggestion withdrawn, deferred to a follow-up, disputed by another"
	echo "reviewer with nothing left asked of the author); **elsewhere**: v2"
	echo "addressed it by a change outside the compared lines (a helper, a"
	echo "comment, a field added further up, another function); **not a"
	echo "request**: a remark for another patch, an optional idea, a question"
	echo "to someone else. Labels: \`bench/versions-threads-labels.tsv\`, keyed"
	echo "by the reply's Message-ID and the comment's place in it."
	echo
	echo "$label_md"
} >"$out"
