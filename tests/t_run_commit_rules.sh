#!/bin/bash
# t_run_commit_rules.sh - the commit-message rules that were simply wrong
# on real mail (bench/labels/findings.tsv), through "reviewbot run":
#  - "Link: [1] https://..." reference lists carry their URL (32 of 32
#    link-tag findings on the linux-api archive were such lines);
#  - "Signed-off-by: Name <addr" with the '>' lost is the author's
#    sign-off (7 false author-signoff findings, the lockdown series);
#  - a 3-patch series whose first patch replies to a cover letter the list
#    did not get has a cover (17 of 30 series-cover findings were so).
# The series is the demo's, edited so; its patch 2/3 keeps its missing
# sign-off, which is still found.
. "$(dirname "$0")/integration/lib.sh"
set -e
d=$RB_TEST_DIR
rb_need sqlite3
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
export RB_NOW=1793700000
# Patch 1/3: a reference list, and the sign-off without its '>'.
# No cover letter on the list: the patches reply to one sent elsewhere.
awk '
	/^From [0-9a-f]+ / { n++ }
	n == 1 { next }
	n == 2 && /^Signed-off-by: Ada Lovelace <ada@example.org>$/ {
		print "Link: [1] https://lore.kernel.org/r/20261101-ring@example.org"
		print "Link: [2] https://bugzilla.kernel.org/show_bug.cgi?id=216000"
		print "Signed-off-by: Ada Lovelace <ada@example.org"
		next
	}
	/^In-Reply-To: / { print "In-Reply-To: <cover-elsewhere@example.org>"; next }
	/^References: / { print "References: <cover-elsewhere@example.org>"; next }
	{ print }
' "$d/demo/series.mbox" >"$d/series.mbox"
grep -q '^Link: \[1\] https://' "$d/series.mbox" || rb_fail "the edit did not apply"
[ "$(grep -c '^In-Reply-To: <cover-elsewhere' "$d/series.mbox")" -eq 3 ] ||
	rb_fail "the patches do not all reply to the missing cover"
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    path: $d/series.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox
admins: [admin@example.org]
series:
  incomplete_wait_minutes: 0
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run.log" ||
	rb_fail "run failed: $(tail -5 "$d/run.log")"
state=$(sqlite3 "$d/rb.db" "SELECT state FROM series")
[ "$state" = reviewed ] || rb_fail "the series was not reviewed: $state"
cats=$(sqlite3 "$d/rb.db" "SELECT patch_idx || ':' || category FROM findings
	WHERE checker = 'commit-msg' ORDER BY patch_idx, category" | tr '\n' ' ')
case " $cats" in
*link-tag*) rb_fail "a reference list was flagged: $cats" ;;
esac
case " $cats" in
*author-signoff* | *" 1:signed-off-by "*)
	rb_fail "the author's sign-off without '>' was missed: $cats" ;;
esac
case " $cats" in
*series-cover*) rb_fail "a series threaded under a cover was told it has none: $cats" ;;
esac
case " $cats" in
*" 2:signed-off-by "*) ;;
*) rb_fail "patch 2/3 lacks its sign-off and no finding says so: $cats" ;;
esac
echo "1 passed, 0 failed"
