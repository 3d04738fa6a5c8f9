#!/bin/bash
# reviewbot run over a configured mbox source: one pass (--once) stores,
# reviews and writes the reply to the Maildir outbox; a second pass finds
# nothing new and sends nothing twice; a config error exits 2.
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
EOC
"$RB_BIN" check-config -c "$d/config.yaml"
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run1.log" || rb_fail "run failed: $(cat "$d/run1.log")"
n=$(ls "$d/outbox/new" | wc -l)
[ "$n" -eq 1 ] || rb_fail "expected 1 reply, got $n: $(cat "$d/run1.log")"
grep -q 'event=run.start' "$d/run1.log" || rb_fail "no structured log line"
tr -d '\r' <"$d/outbox/new"/* | grep -q '^X-Reviewbot-Policy: advisory' ||
	rb_fail "the reply is not advisory"
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run2.log"
n=$(ls "$d/outbox/new" | wc -l)
[ "$n" -eq 1 ] || rb_fail "the second pass sent again ($n mails)"
# The same store is owned by one process at a time.
sed -i 's/mode: advisory/mdoe: advisory/' "$d/config.yaml"
set +e
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run3.log"
rc=$?
set -e
[ $rc -eq 2 ] || rb_fail "a bad config must exit 2, got $rc"
grep -q 'mdoe' "$d/run3.log" || rb_fail "the error does not name the key"
echo "1 passed, 0 failed"
