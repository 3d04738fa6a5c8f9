#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_fresh_tree.sh - issue 18, fresh trees before "does not apply".
# The daemon ("reviewbot run") reviews on a bare clone of a local bare
# "upstream" repository (trees[].url, branch, fetch_minutes: 1), which it
# fetches itself. A series needs a commit that upstream gained after the
# clone's last fetch:
#  1. the clone was last fetched 10 minutes ago (older than its
#     fetch_minutes): the review stage fetches it before any failure
#     notice, tries again, and the series gets a review, no notice;
#  2. the clone was fetched seconds ago, and upstream gains the needed
#     commit just after (a series posted minutes before mm-unstable is
#     updated): no notice; the job waits one fetch cycle
#     (review.apply_retry_minutes, default one fetch cycle), the daemon
#     wakes for it, fetches and reviews the series. Another series that
#     applies nowhere gets its notice only then, naming for each tree
#     the commit tried, how old it was and when the tree was fetched.
# Step 2 waits for real: about 65 s.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_demo
acc_helpers
acc_servers
git clone -q --bare "$d/demo/tree" "$d/upstream.git"
git clone -q --bare "$d/upstream.git" "$d/tree.git"
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
      send_when_empty: true
      report_apply_failures: author'
$PY - "$d/config.yaml" "$d" <<'PY'
import sys
p, d = sys.argv[1:3]
s = open(p).read()
old = "    path: %s/demo/tree\n    fetch_minutes: 0\n" % d
assert old in s
s = s.replace(old, "    path: %s/tree.git\n    url: %s/upstream.git\n"
              "    branch: master\n    fetch_minutes: 1\n" % (d, d))
open(p, "w").write(s)
PY
"$RB_BIN" check-config -c "$d/config.yaml" >"$d/check-config.log" 2>&1 ||
	rb_fail "config: $(cat "$d/check-config.log")"

# Upstream's new commits and the series on top of them, made in a
# scratch clone: commit NAME adds ring_NAME(); series NAME changes it.
git clone -q "$d/upstream.git" "$d/work"
work()
{
	(
		cd "$d/work"
		export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.org
		export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.org
		export GIT_AUTHOR_DATE=2026-11-04T09:00:00Z GIT_COMMITTER_DATE=2026-11-04T09:00:00Z
		"$@"
	) >>"$d/work.log" 2>&1 || rb_fail "scratch clone: $(tail -5 "$d/work.log")"
}
upstream_commit()
{
	printf '\nvoid ring_%s(struct ring *r)\n{\n\tr->tail = r->head;\n}\n' "$1" >>lib/ring.c
	git commit -q -a -m "ring: add ring_$1()"
}
series_on_top()
{
	$PY - lib/ring.c "$1" <<'PY'
import sys
p, n = sys.argv[1:3]
s = open(p).read()
old = "void ring_%s(struct ring *r)\n{\n" % n
s = s.replace(old, old + "\t/* everything queued is dropped */\n", 1)
open(p, "w").write(s)
PY
	git commit -q -a -s -m "ring: say what ring_$1() drops" -m "Say it where it happens."
	git format-patch -q -1 --stdout --base=HEAD~1 HEAD >"$d/$1.patch"
	$PY - "$d/$1.patch" "$d/$1.eml" "<$1@example.org>" <<'PY'
import sys
src, dst, mid = sys.argv[1:4]
s = open(src).read().split("\n", 1)[1]
s = s.replace("Subject:", "To: demo-list@example.org\nList-Id:"
              " <demo-list.example.org>\nMessage-Id: %s\nSubject:" % mid, 1)
open(dst, "w").write(s)
PY
}

acc_start
acc_wait_log 'event=tree\.fetched tree=demo'

# 1. upstream gained ring_reset(); the clone's last fetch is 10 minutes old.
work upstream_commit reset
work series_on_top reset
work git push -q origin HEAD:master
[ -f "$d/tree.git/reviewbot-fetched-master" ] ||
	rb_fail "no fetch stamp in the clone after the daemon's first fetch"
# Both stamps: the last fetch, and the last try (a try is stamped before
# it starts, so that a remote that fails is asked once an interval).
touch -d "@$(($(date +%s) - 600))" "$d/tree.git/reviewbot-fetched-master" \
	"$d/tree.git/reviewbot-tried-master"
acc_feed "$d/reset.eml" ""
acc_settle
grep -q 'event=review\.refetch series=reset@example\.org tree=demo' "$d/daemon.log" ||
	rb_fail "the review stage did not fetch the stale tree: $(tail -12 "$d/daemon.log")"
acc_check <<'PY' || exit 1
m = acc.review_to("<reset@example.org>")
acc.check("Advisory review of the patch, applied on demo at" in m["body"]
          and "could not apply" not in m["body"],
          "want a review of the patch on the fetched tree, got:\n" +
          acc.show([m]))
r = acc.q("SELECT state FROM series WHERE id = 'reset@example.org'")
acc.check(r == [("reviewed",)], "series state: %s" % r)
PY
echo "ok 1: a stale tree is fetched before any notice; the series is reviewed"

# 2. the clone is fresh; upstream gains ring_drop() just after. Another
# series applies nowhere at all (it is on top of a commit never pushed).
work upstream_commit drop
work series_on_top drop
work git push -q origin HEAD:master
work upstream_commit ghost
work series_on_top ghost
acc_feed "$d/drop.eml" ""
acc_feed "$d/ghost.eml" ""
acc_settle
acc_check <<'PY' || exit 1
ms = [m for m in acc.mails() if m["in_reply_to"] in
      ("<drop@example.org>", "<ghost@example.org>")]
acc.check(not ms, "mail before the retry window ended:\n" + acc.show(ms))
r = acc.q("SELECT id, state FROM series WHERE id IN ('drop@example.org',"
          " 'ghost@example.org') ORDER BY id")
acc.check(r == [("drop@example.org", "apply_waiting"),
                ("ghost@example.org", "apply_waiting")],
          "series states: %s" % r)
r = acc.q("SELECT COUNT(*) FROM jobs WHERE key IN ('drop@example.org',"
          " 'ghost@example.org') AND state = 'ready' AND not_before >"
          " strftime('%s', 'now') + 30")
acc.check(r == [(2,)], "the jobs do not wait a fetch cycle: %s" %
          acc.q("SELECT key, state, not_before, error FROM jobs"))
PY
echo "ok 2: no notice while the tree may still be updated; the jobs wait"

t0=$(date +%s)
until acc_check >/dev/null 2>&1 <<'PY'
ms = [m for m in acc.mails() if m["in_reply_to"] in
      ("<drop@example.org>", "<ghost@example.org>")]
sys.exit(0 if len(ms) == 2 else 1)
PY
do
	[ $(($(date +%s) - t0)) -gt 150 ] &&
		rb_fail "no mails for the waiting series after 150 s: $(tail -12 "$d/daemon.log")"
	kill -0 "$(cat "$d/daemon.pid")" 2>/dev/null || rb_fail "the daemon died"
	sleep 0.5
done
acc_check "$(git --git-dir="$d/tree.git" rev-parse --short=12 master)" <<'PY' || exit 1
head = sys.argv[1]
m = acc.review_to("<drop@example.org>")
acc.check("Advisory review of the patch, applied on demo at" in m["body"]
          and "could not apply" not in m["body"],
          "drop: want a review after the fetch, got:\n" + acc.show([m]))
m = acc.review_to("<ghost@example.org>")
b = acc.flat(m["body"])
acc.check("could not apply this patch" in b, "ghost: want the notice, got:"
          "\n" + m["body"])
acc.check(re.search(r"demo at %s \(committed \d+ (days|hours|minutes|"
                    r"seconds) ago, fetched \d+ (seconds|minutes) ago\):"
                    % head, b) is not None,
          "ghost: the notice does not say which commit of demo was tried,"
          " how old it was and when demo was fetched:\n" + m["body"])
acc.check(m["rcpt"] == ["ada@example.org"], "notice to %s" % m["rcpt"])
r = acc.q("SELECT id, state FROM series WHERE id IN ('drop@example.org',"
          " 'ghost@example.org') ORDER BY id")
acc.check(r == [("drop@example.org", "reviewed"),
                ("ghost@example.org", "apply_failed")], "states: %s" % r)
PY
echo "ok 3: after one fetch cycle, a review where the tree caught up, a notice with ages where not"
acc_stop
echo PASS
