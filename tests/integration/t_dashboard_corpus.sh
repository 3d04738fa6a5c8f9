#!/bin/bash
# The dashboard on the linux-api archive (issue 23's acceptance, for
# correctness; bench/dashboard.sh times it): the archive goes through
# the daemon as a replay ("reviewbot run --once" over an mbox source,
# every subsystem advisory, the linux 6.1 tree when it is set up so that
# series get their MAINTAINERS section), received at T while the outbox
# is held by its kill switch, then sent 90 minutes later (a second
# "reviewbot run --once"):
# the stats must say 1.5 h from receipt although every Date: is years
# older. dashboard_check.py then checks paging, search and filters
# against the store, the series JSON against its page, and the stats.
#
# The whole archive takes about 5 minutes through the sanitizer build,
# too much for CI's budget: by default RB_DASHBOARD_MSGS (2000) messages
# from the 20,001st are replayed (September 2022 to February 2023, the
# months around linux 6.1, so that series apply and get reviewed);
# RB_SLOW=1 replays all 30,571.
. "$(dirname "$0")/lib.sh"
set -e
rb_need_shared corpus/linux-api.mbox.xz
rb_need xz
d=$RB_TEST_DIR
n=${RB_DASHBOARD_MSGS:-2000}
from=20000
[ -n "${RB_SLOW:-}" ] && n=0 && from=0
xz -dc "$RB_SHARED/corpus/linux-api.mbox.xz" | python3 -c '
import sys
n, skip, k = int(sys.argv[1]), int(sys.argv[2]), 0
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    if line.startswith(b"From "):
        k += 1
        if n and k > skip + n:
            break
    if k > skip:
        out.write(line)' "$n" "$from" >"$d/archive.mbox"
tree=
RB_LINUX_TREE=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
if [ -f "$RB_LINUX_TREE/MAINTAINERS" ] && [ -d "$RB_LINUX_TREE/.git" ]; then
	tree="trees: [{name: mainline, path: $RB_LINUX_TREE}]"
else
	echo "note: no linux tree at $RB_LINUX_TREE: sections are the list's"
fi
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    name: linux-api
    path: $d/archive.mbox
list_ids: [linux-api.vger.kernel.org]
# Apply failures go to the admins by default (issue 34): they are most of
# the mails, spread over the archive's days.
admins: [admin@example.org]
outbox:
  maildir: $d/outbox
  kill_switch_file: $d/hold
  rate_per_hour: 100000
  rate_per_recipient_hour: 10000
  rate_per_list_hour: 100000
$tree
policy:
  default:
    mode: advisory
EOC
received=1793770000
touch "$d/hold"
RB_NOW=$received "$RB_BIN" run --once -c "$d/config.yaml" \
	2>"$d/review.log" || rb_fail "run: $(tail -5 "$d/review.log")"
grep -q 'event=send.sent' "$d/review.log" && rb_fail "sent while held"
rm "$d/hold"
RB_NOW=$((received + 5400)) "$RB_BIN" run --once -c "$d/config.yaml" \
	2>"$d/run.log" || rb_fail "run: $(tail -5 "$d/run.log")"
grep -q 'event=send.sent' "$d/run.log" || rb_fail "nothing was sent"

rb_start serve "$RB_BIN" serve -c "$d/config.yaml" --listen 127.0.0.1:0
for i in $(seq 200); do
	url=$(grep -o 'http://127.0.0.1:[0-9]*' "$d/serve.log" || true)
	[ -n "$url" ] && break
	sleep 0.05
done
[ -n "$url" ] || rb_fail "serve did not start: $(cat "$d/serve.log")"
python3 "$RB_SRC/tests/integration/dashboard_check.py" "$url" "$d/rb.db" \
	5400 || rb_fail "the dashboard's answers (above)"
