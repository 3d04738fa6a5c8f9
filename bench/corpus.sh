#!/bin/bash
# corpus.sh [REVIEWBOT] - the whole linux-api corpus (30,571 messages)
# through "reviewbot review" on the embedded defaults (SQLite, Maildir
# outbox, no tree, no model): the time to store every message, the time
# for the rest of the pipeline, and the peak RSS, beside git mailsplit
# splitting the same mbox into files.
# REVIEWBOT may be relative; without it the Release build in build-bench/
# is used, built first (bench/lib.sh). The corpus is read from ../shared,
# or RB_SHARED.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_need xz git /usr/bin/time
bin=$(bench_reviewbot "${1:-}") || exit 1
shared=$(bench_shared "${RB_SHARED:-$top/../shared}" corpus/linux-api.mbox.xz) ||
	exit 1
corpus=$shared/corpus/linux-api.mbox.xz
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
xz -dc "$corpus" >"$w/corpus.mbox"
cd "$w"
# Exit 1 is normal here (some corpus mail is malformed and recorded as
# such); no timing line is not.
/usr/bin/time -f '%e %M' -o time.txt "$bin" review --store c.db \
	--outbox ob corpus.mbox >out.txt 2>err.txt || true
grep -q 'stored in [0-9.]* s' out.txt ||
	bench_die "reviewbot review gave no timing line: $(tail -n 5 err.txt)"
read -r wall rss < <(tail -n 1 time.txt)
mkdir split
/usr/bin/time -f '%e %M' -o split.txt git mailsplit --mboxrd -osplit \
	corpus.mbox >/dev/null
read -r swall srss <split.txt
echo "| what | wall s | peak RSS MB |"
echo "| --- | ---: | ---: |"
grep -o 'stored in [0-9.]* s' out.txt | sed 's/stored in \(.*\) s/| reviewbot review: store every message | \1 | |/'
grep -o 'sent in [0-9.]* s' out.txt | sed 's/sent in \(.*\) s/| reviewbot review: parse, assemble, review, send | \1 | |/'
echo "| reviewbot review: all | $wall | $((rss / 1024)) |"
echo "| git mailsplit --mboxrd (split only) | $swall | $((srss / 1024)) |"
grep 'new messages' out.txt || true
