#!/bin/bash
# t_run_incomplete.sh - the wait for the missing parts of a series, with
# mail whose Date is a month old (a delayed list, an archive): "reviewbot
# run --once" over an mbox source that grows between runs.
#  - a series seen without its last patch gets no mail at once: the
#    "incomplete" job waits series.incomplete_wait_minutes (60) from when
#    it was first seen;
#  - once the last patch arrives the series is reviewed, the pending
#    "incomplete" job is cancelled, and nothing more is sent after the wait;
#  - a series that stays incomplete gets its one "incomplete" mail after
#    the wait, not before.
. "$(dirname "$0")/integration/lib.sh"
set -e
d=$RB_TEST_DIR
rb_need sqlite3
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
# Four messages: the cover letter and patches 1/3 to 3/3, dated 2 and 3
# November 2026; "now" is a month later.
awk -v d="$d" '/^From / { n++ } { print > (d "/part" n) }' "$d/demo/series.mbox"
[ -f "$d/part4" ] || rb_fail "the demo series has no fourth message"
t0=$((1793700000 + 30 * 86400))
conf() { # NAME
	cat >"$d/$1.yaml" <<EOC
store:
  path: $d/$1.db
sources:
  - type: mbox
    path: $d/$1.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/$1-outbox
admins: [admin@example.org]
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
}
run() { # NAME NOW
	RB_NOW=$2 "$RB_BIN" run -c "$d/$1.yaml" --once 2>>"$d/$1.log" ||
		rb_fail "run $1 at $2: $(tail -3 "$d/$1.log")"
}
mails() { ls "$d/$1-outbox/new" 2>/dev/null | wc -l; }
job() { sqlite3 "$d/$1.db" "SELECT state || ' ' || not_before FROM jobs WHERE kind = 'incomplete'"; }

# The missing part arrives within the wait.
conf late
cat "$d/part1" "$d/part2" "$d/part3" >"$d/late.mbox"
run late $t0
[ "$(mails late)" = 0 ] || rb_fail "a mail before the wait ran out"
[ "$(job late)" = "ready $((t0 + 3600))" ] ||
	rb_fail "incomplete job: '$(job late)', want ready at t0 + 3600"
cat "$d/part4" >>"$d/late.mbox"
run late $((t0 + 600))
[ "$(mails late)" = 1 ] || rb_fail "the complete series: $(mails late) mails"
[ "$(job late | cut -d' ' -f1)" = done ] ||
	rb_fail "the incomplete job was not cancelled: $(job late)"
run late $((t0 + 7200))
[ "$(mails late)" = 1 ] || rb_fail "a mail after the series was complete"
grep -q "did not reach" "$d/late-outbox/new"/* &&
	rb_fail "the mail sent is the incomplete one"

# The missing part never arrives.
conf never
cat "$d/part1" "$d/part2" "$d/part3" >"$d/never.mbox"
run never $t0
run never $((t0 + 3599))
[ "$(mails never)" = 0 ] || rb_fail "a mail before the wait ran out"
run never $((t0 + 3600))
[ "$(mails never)" = 1 ] || rb_fail "after the wait: $(mails never) mails"
grep -q "did not reach" "$d/never-outbox/new"/* ||
	rb_fail "the mail is not the incomplete one"
run never $((t0 + 7200))
[ "$(mails never)" = 1 ] || rb_fail "the incomplete mail was sent twice"
echo PASS
