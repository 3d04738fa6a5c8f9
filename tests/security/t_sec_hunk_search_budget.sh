#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: hunk placement without a deadline. git apply's search for a
# hunk walks outward from the line its header names, so its cost is
# hunks x file length, and a series chooses both: patch 1 creates a file
# of 6 million lines from 30 KB of mail (a git binary literal), patch 2
# has 3,000 hunks whose headers say line 2 while their text is at the end.
# That 125 KB series took 52 s of one core on main (28-43 s in the issue).
# Now the apply reads at most limits.max_file_lines of a file (2 million
# by default), and its time budget (limits.apply_seconds, counted in
# work units so that the answer does not depend on the machine's load)
# holds inside the search: a file just under the line cap fails at the
# budget, naming the hunk. Each author is told which limit the series
# hit, and the demo series sent with them is reviewed.
#
# No timing is asserted: the budget is work, so the same hunk is named
# on a busy machine as on an idle one.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
sed -i 's/^    mode: off$/    mode: advisory/' "$d/config.yaml"
# A small budget keeps the test quick in a sanitizer build; the default
# (4) is the same check, later.
cat >>"$d/config.yaml" <<EOC
limits:
  apply_seconds: 0.1
EOC
gen="$RB_SRC/tests/security/hostile_patch.py"
python3 "$gen" hunk-search "$d/big" 6000000 3000 big
python3 "$gen" hunk-search "$d/near" 1990000 3000 near
size=$(cat "$d/big"/*.eml | wc -c)
[ "$size" -lt 140000 ] || rb_fail "the 6M-line series is $size bytes"
cp "$d/demo/series.mbox" "$d/in.mbox"
sec_append "$d/big"/*.eml "$d/near"/*.eml

rss=$(python3 - "$RB_BIN" "$d/config.yaml" "$d/run1.log" <<'PY'
import resource, subprocess, sys
with open(sys.argv[3], "w") as log:
    r = subprocess.run([sys.argv[1], "run", "-c", sys.argv[2], "--once"],
                       stdout=log, stderr=log)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024,
      r.returncode)
PY
)
echo "two series of $size bytes; peak RSS of the pass: ${rss% *} MB (exit ${rss#* })"
[ "${rss#* }" = 0 ] || rb_fail "run --once failed: $(tail -n 20 "$d/run1.log")"

reason() { q "SELECT reason FROM attempts WHERE series_id = '$1' AND base_commit NOT LIKE '0000000%'"; }
for s in big-0@evil.example near-0@evil.example; do
	[ "$(q "SELECT state FROM series WHERE id = '$s'")" = apply_failed ] ||
		rb_fail "$s: $(q "SELECT state || ': ' || COALESCE(detail, '') FROM series WHERE id = '$s'")"
done
why=$(reason big-0@evil.example)
[ "$why" = "lib/big.txt has more than 2000000 lines: too big to patch" ] ||
	rb_fail "the 6M-line file: $why"
why=$(reason near-0@evil.example)
case $why in
"the series exceeds the review's time budget (50000001 work units, about 0.1 s of one core) while placing hunk #"*" of lib/big.txt") ;;
*) rb_fail "the 2M-line file: $why" ;;
esac
hunk=$(q "SELECT failed_hunk FROM attempts WHERE series_id = 'near-0@evil.example' AND base_commit NOT LIKE '0000000%'")
# 0.1 s is 50 million units, about two a line of the 2M-line file: the
# budget runs out in the search for hunk 13, long before hunk 3,000.
[ "$hunk" -ge 1 ] && [ "$hunk" -lt 100 ] || rb_fail "failed at hunk $hunk"
python3 - "$d/outbox/new" <<'PY' || exit 1
import email, email.policy, os, sys
got = {}
for f in os.listdir(sys.argv[1]):
    m = email.message_from_binary_file(open(os.path.join(sys.argv[1], f), "rb"),
                                       policy=email.policy.default)
    got.setdefault(m["In-Reply-To"], []).append(
        " ".join(m.get_body(("plain",)).get_content().split()))
want = {"<big-0@evil.example>": "more than 2000000 lines: too big to patch",
        "<near-0@evil.example>": "the series exceeds the review's time budget"}
for k, w in want.items():
    if len(got.get(k, [])) != 1 or w not in got[k][0]:
        sys.exit("%s: want one notice saying %r, got %s" % (k, w, got.get(k)))
    if "has not reviewed this series" not in got[k][0]:
        sys.exit("%s: not a plain too-big notice: %s" % (k, got[k][0]))
if len(got) < 3:
    sys.exit("the demo series sent with them was not reviewed: %s" % list(got))
print("each hostile series got one notice naming its limit; the demo "
      "series was reviewed")
PY
# The 12 MB file, its 2 million lines and the rest of the pass, with the
# sanitizers' shadow: bounded, and far from what an hour of search takes.
[ "${rss% *}" -lt 1000 ] || rb_fail "the pass peaked at ${rss% *} MB"
echo "1 passed, 0 failed"
