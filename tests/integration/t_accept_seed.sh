#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_seed.sh - the real linux-mm seed series (../shared/seeds: v2 of
# 9, part 8 never sent, no Message-IDs or threading headers) through
# "reviewbot run" on linux 6.1 with the default "incomplete:
# review-prefix" (issue 18): after the wait the series is taken up to its
# first gap, parts 1 to 7, and the one mail, to the author (the section
# opts into author notices), names part 8 as missing. The series is based on 2026 mm trees, so on 6.1 it does
# not apply; the mail says where it stopped, on which tree and commit.
. "$(dirname "$0")/lib.sh"
set -e
d=$RB_TEST_DIR
rb_need_shared seeds
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
[ -d "$tree/.git" ] ||
	rb_skip "no kernel tree at $tree (scripts/setup-linux-tree.sh, or RB_LINUX_TREE)"
for f in "$RB_SHARED"/seeds/00[1-9]*; do
	echo "From seed Thu Jan  1 00:00:00 1970"
	cat "$f"
	echo
done >"$d/in.mbox"
[ "$(grep -c '^Subject: \[PATCH v2 [0-9]/9\]' "$d/in.mbox")" = 9 ] ||
	rb_fail "the seeds are not the 9 mails of v2 (cover, 1-7, 9)"
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    path: $d/in.mbox
trees:
  - name: linux-6.1
    path: $tree
outbox:
  maildir: $d/outbox
policy:
  default:
    mode: "off"
  subsystems:
    MEMORY MANAGEMENT:
      mode: advisory
      report_apply_failures: author
EOC
# The wait (series.incomplete_wait_minutes, 60) runs from when the
# series was first seen incomplete: a pass now, and one past the wait.
export RB_NOW=1774000000
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run.log" ||
	rb_fail "reviewbot run: $(tail -n 5 "$d/run.log")"
n=$(ls "$d/outbox/new" 2>/dev/null | wc -l)
[ "$n" = 0 ] || rb_fail "a mail before the wait"
export RB_NOW=$((RB_NOW + 3700))
"$RB_BIN" run -c "$d/config.yaml" --once 2>>"$d/run.log" ||
	rb_fail "reviewbot run: $(tail -n 5 "$d/run.log")"
n=$(ls "$d/outbox/new" 2>/dev/null | wc -l)
[ "$n" = 1 ] || rb_fail "want one mail, got $n: $(grep -v level=info "$d/run.log" | tail -n 5)"
python3 - "$d"/outbox/new/* <<'PY' || exit 1
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"),
                                   policy=email.policy.default)
body = " ".join(m.get_body(("plain",)).get_content().split())
want = ["Patch 8/9 did not reach the list; only patches 1 to 7 of 9 were looked at",
        "linux-6.1 at ", "patch 1/9"]
bad = [w for w in want if w not in body]
if bad or m["To"] != '"Lorenzo Stoakes (Oracle)" <ljs@kernel.org>' or m["Cc"]:
    print("missing %s; To %s, Cc %s:\n%s" % (bad, m["To"], m["Cc"], body))
    sys.exit(1)
print("one mail to the author: parts 1-7 tried, 8 named missing")
PY
echo "1 passed, 0 failed"
