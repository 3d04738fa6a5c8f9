#!/bin/bash
# t_ingest_kill.sh - a source that commits each message by itself (an
# mbox here, a Maildir alike) killed between a message's row and its
# asm_pending row (RB_FAULT=store.pend:N): the two are one transaction,
# so the next run stores the message again and assembles it. Before,
# the row was committed alone and no assembly ever saw it: its series
# stayed incomplete (t_workers_pg, an ingest leader SIGKILLed on
# PostgreSQL). For each of the series' four messages, the run after the
# kill reviews the series as an uninterrupted run does.
. "$(dirname "$0")/integration/lib.sh"
d=$RB_TEST_DIR
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
n=$(grep -c '^From ' "$d/demo/series.mbox")
[ "$n" -ge 2 ] || rb_fail "the demo series has $n messages"
for k in $(seq "$n"); do
	rm -rf "$d/rb.db"* "$d/outbox"
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
policy:
  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
	RB_FAULT=store.pend:$k "$RB_BIN" run -c "$d/config.yaml" --once \
		>"$d/kill$k.out" 2>"$d/kill$k.log"
	rc=$?
	[ $rc -eq 137 ] || grep -q 'RB_FAULT: killed after store.pend' "$d/kill$k.log" ||
		rb_fail "message $k: not killed at store.pend (exit $rc): $(tail -3 "$d/kill$k.log")"
	"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run$k.out" 2>"$d/run$k.log" ||
		rb_fail "message $k: the run after the kill failed: $(tail -3 "$d/run$k.log")"
	stored=$(sqlite3 "$d/rb.db" "SELECT count(*) FROM messages")
	[ "$stored" = "$n" ] || rb_fail "message $k: $stored messages stored, not $n"
	grep -q '^  series: 1 reviewed$' "$d/run$k.out" ||
		rb_fail "message $k: the series was not reviewed after the kill: $(cat "$d/run$k.out")"
	state=$(sqlite3 "$d/rb.db" "SELECT state FROM series")
	[ "$state" = reviewed ] || rb_fail "message $k: series state '$state'"
	echo "killed inside message $k's transaction: the next run stored it and reviewed the series"
done
echo PASS
