#!/bin/bash
# Bad input: a truncated mbox, binary junk and an empty file give a clear
# error naming the file and the message number, are recorded in the store,
# and the other messages are still processed.
. "$(dirname "$0")/integration/lib.sh"
set -e
d=$RB_TEST_DIR
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
export RB_NOW=1793700000

# The series, then binary junk as message 5, then a message cut short.
{
	cat "$d/demo/series.mbox"
	printf 'From junk@example.org Mon Nov  2 10:00:00 2026\n'
	head -c 3000 /dev/urandom | tr -d '\n' | tr '\000' 'x'
	printf '\n'
	printf 'From cut@example.org Mon Nov  2 10:00:00 2026\n'
	printf 'From: Cut <cut@example.org>\nSubject: [PATCH] cut'
} >"$d/bad.mbox"
head -c 4096 /dev/urandom >"$d/junk.bin"
: >"$d/empty.eml"

set +e
"$RB_BIN" review --tree "$d/demo/tree" --store "$d/rb.db" \
	--outbox "$d/outbox" "$d/bad.mbox" "$d/junk.bin" "$d/empty.eml" \
	>"$d/out.log" 2>"$d/err.log"
rc=$?
set -e
cat "$d/err.log"
[ $rc -eq 1 ] || rb_fail "expected exit 1 (malformed input reported), got $rc"
grep -q "bad.mbox:5" "$d/err.log" || rb_fail "no error names bad.mbox:5"
grep -q "bad.mbox:6" "$d/err.log" || rb_fail "no error names bad.mbox:6"
grep -q "junk.bin" "$d/err.log" || rb_fail "no error names junk.bin"
grep -q "empty.eml" "$d/err.log" || rb_fail "no error names empty.eml"
bad=$(sqlite3 "$d/rb.db" "SELECT COUNT(*) FROM messages WHERE state = 'malformed'")
[ "$bad" -ge 4 ] || rb_fail "expected >= 4 malformed messages recorded, got $bad"
sqlite3 "$d/rb.db" "SELECT origin, reason FROM messages WHERE state = 'malformed'"
good=$(sqlite3 "$d/rb.db" "SELECT COUNT(*) FROM messages WHERE state = 'parsed'")
[ "$good" -eq 4 ] || rb_fail "expected the 4 good messages parsed, got $good"
n=$(ls "$d/outbox/new" | wc -l)
[ "$n" -ge 1 ] || rb_fail "the good series was not reviewed"
echo "1 passed, 0 failed"
