#!/bin/bash
# reviewbot run over a configured mbox source: one pass (--once) stores,
# reviews and writes the reply to the Maildir outbox, and ends with a
# summary on stdout (issue 34: series seen, reviewed, waiting and why,
# held and until when, mails by kind); a second pass finds nothing new
# and sends nothing twice; a config error exits 2; a List-Id allow-list
# that drops every message says so in the log, with the List-Id met.
. "$(dirname "$0")/integration/lib.sh"
set -e
d=$RB_TEST_DIR
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
export RB_NOW=1793700000
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    path: $d/demo/series.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox
admins: [admin@example.org]
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
      embargo_minutes: 60
EOC
"$RB_BIN" check-config -c "$d/config.yaml"
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run1.out" 2>"$d/run1.log" || rb_fail "run failed: $(cat "$d/run1.log")"
# Held by the embargo: nothing sent yet, and the summary says until when.
for want in '^reviewbot run --once: done in [0-9]+ s$' \
	'^  messages: 4 stored, 0 already stored, 0 malformed, 0 ignored' \
	'^  series: 1 reviewed$' \
	'^  waiting: none$' \
	'^  not sent yet: 1 held \(embargo\), until 2026-11-03 1[01]:[0-9]{2} UTC$' \
	'^  mails: 1 reviews held$'; do
	grep -Eq "$want" "$d/run1.out" ||
		rb_fail "the summary lacks /$want/: $(cat "$d/run1.out")"
done
n=$(ls "$d/outbox/new" 2>/dev/null | wc -l)
[ "$n" -eq 0 ] || rb_fail "the embargo did not hold the review ($n mails)"
export RB_NOW=$((RB_NOW + 3 * 3600))
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run1b.out" 2>"$d/run1b.log" || rb_fail "run failed: $(cat "$d/run1b.log")"
grep -q '^  mails: 1 reviews sent$' "$d/run1b.out" ||
	rb_fail "the summary after the embargo: $(cat "$d/run1b.out")"
n=$(ls "$d/outbox/new" | wc -l)
[ "$n" -eq 1 ] || rb_fail "expected 1 reply, got $n: $(cat "$d/run1.log")"
grep -q 'event=run.start' "$d/run1.log" || rb_fail "no structured log line"
tr -d '\r' <"$d/outbox/new"/* | grep -q '^X-Reviewbot-Policy: advisory' ||
	rb_fail "the reply is not advisory"
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run2.log"
n=$(ls "$d/outbox/new" | wc -l)
[ "$n" -eq 1 ] || rb_fail "the second pass sent again ($n mails)"
# On a terminal (script(1) gives it one), the ingest and the jobs say
# how far they are, on a status line; in a file they say nothing.
if command -v script >/dev/null; then
	sed "s|^  path: $d/rb.db$|  path: $d/tty.db|" "$d/config.yaml" >"$d/tty.yaml"
	script -qec "'$RB_BIN' run --once -c '$d/tty.yaml'" /dev/null >"$d/tty.out" 2>&1 ||
		rb_fail "run on a terminal: $(tail -c 500 "$d/tty.out")"
	grep -aq 'reviewbot: ingest: 4 messages stored in [0-9]* s' "$d/tty.out" ||
		rb_fail "no ingest progress on a terminal: $(tail -c 500 "$d/tty.out")"
	grep -aq 'reviewbot: jobs: 1 run: 1 reviewed' "$d/tty.out" ||
		rb_fail "no job progress on a terminal: $(tail -c 500 "$d/tty.out")"
	grep -q 'reviewbot: ingest:' "$d/run1.log" "$d/run1.out" &&
		rb_fail "progress where stderr is not a terminal"
else
	echo "SKIP: the status line on a terminal: no script(1)"
fi

# The same store is owned by one process at a time.
sed -i 's/mode: advisory/mdoe: advisory/' "$d/config.yaml"
set +e
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run3.log"
rc=$?
set -e
[ $rc -eq 2 ] || rb_fail "a bad config must exit 2, got $rc"
grep -q 'mdoe' "$d/run3.log" || rb_fail "the error does not name the key"

# An allow-list that matches no mail: every message dropped, and said.
sed -i 's/mdoe: advisory/mode: advisory/' "$d/config.yaml"
sed -i "s|^  path: $d/rb.db$|  path: $d/drop.db|" "$d/config.yaml"
printf 'list_ids: [linux-mm.kvack.org]\n' >>"$d/config.yaml"
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run4.out" 2>"$d/run4.log" || rb_fail "run failed: $(cat "$d/run4.log")"
[ "$(grep -c 'event=ingest.dropped' "$d/run4.log")" = 1 ] ||
	rb_fail "not one ingest.dropped line: $(grep dropped "$d/run4.log")"
grep -q 'event=ingest.dropped count=4 why="List-Id not in list_ids: 4 (List-Ids seen: demo-list.example.org x4)"' "$d/run4.log" ||
	rb_fail "the drop line does not say why: $(grep dropped "$d/run4.log")"
grep -q '^  messages: 4 stored, 0 already stored, 0 malformed, 4 ignored' "$d/run4.out" ||
	rb_fail "the summary does not count the dropped: $(cat "$d/run4.out")"
echo "1 passed, 0 failed"
