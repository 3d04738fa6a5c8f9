#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_submaint_ledger.sh - issue 36, blocking with a ledger, on the
# running daemon ("reviewbot run", Dovecot in, the SMTP sink out).
# RING BUFFER is blocking on two trees the daemon fetches from a local
# bare "upstream" repository, mm-unstable and mm-stable. The demo
# series' 2/3 has no Signed-off-by: F1, a blocking finding.
#  1. upstream's mm-unstable gains 1/3 of the series (a maintainer took
#     it): after the daemon's fetch, RING BUFFER's M: (grace) gets one
#     short mail naming the open F1 of 2/3, and nobody else;
#  2. mm-unstable gains 2/3 too: no second mail (once per series and
#     tree);
#  3. the author answers F1 (a reply quoting [F1] with her words under
#     it); upstream's mm-stable gains the series: no mail, the finding
#     is answered;
#  4. the dashboard shows the ledger: F1 answered, the series seen in
#     both trees, one notice.
# The fetches are made due by setting the clone's stamps back and
# reloading the config (SIGHUP), as after fetch_minutes.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_dkim example.org
acc_demo
acc_helpers
acc_servers
git clone -q --bare "$d/demo/tree" "$d/upstream.git"
for b in mm-unstable mm-stable; do
	git -C "$d/upstream.git" branch -q "$b" master
done
git clone -q --bare "$d/upstream.git" "$d/tree.git"
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: blocking'
$PY - "$d/config.yaml" "$d" <<'PY'
import sys
p, d = sys.argv[1:3]
s = open(p).read()
old = "    fetch_minutes: 0\n"
assert old in s
s = s.replace(old, old + "".join(
    "  - name: %s\n    path: %s/tree.git\n    url: %s/upstream.git\n"
    "    branch: %s\n    fetch_minutes: 1\n" % (b, d, d, b)
    for b in ("mm-unstable", "mm-stable")), 1)
s = s.replace("      mode: blocking\n", "      mode: blocking\n"
              "      bases: [mm-unstable, mm-stable]\n", 1)
open(p, "w").write(s)
PY
"$RB_BIN" check-config -c "$d/config.yaml" >"$d/check-config.log" 2>&1 ||
	rb_fail "config: $(cat "$d/check-config.log")"

# A maintainer's clone of upstream that takes the series' patches.
git clone -q "$d/upstream.git" "$d/work"
take() # BRANCH FIRST LAST: git am patches FIRST..LAST, push to BRANCH
{
	$PY - "$d/demo/series.mbox" "$d/take.mbox" "$2" "$3" <<'PY'
import re, sys
src, dst, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
parts = re.split(r"(?m)^(?=From [0-9a-f]{40} )", open(src).read())
keep = [p for p in parts if re.search(r"(?m)^Subject: \[PATCH (\d)/3\]", p)
        and first <= int(re.search(r"(?m)^Subject: \[PATCH (\d)/3\]", p).group(1)) <= last]
open(dst, "w").write("".join(keep))
PY
	(
		cd "$d/work"
		export GIT_COMMITTER_NAME="Grace Hopper" GIT_COMMITTER_EMAIL=grace@example.org
		git checkout -q "$1" 2>/dev/null || git checkout -q -b "$1" "origin/$1"
		git am -q "$d/take.mbox"
		git push -q origin "HEAD:$1"
	) >>"$d/work.log" 2>&1 || rb_fail "take $*: $(tail -5 "$d/work.log")"
}
# fetch BRANCH: the clone's fetch of BRANCH is due (its stamps set 10
# minutes back), the daemon reloads and fetches; waits for its scan.
fetch()
{
	local n t=$(($(date +%s) - 600))
	n=$(grep -c "event=ledger\.scan tree=$1 " "$d/daemon.log" || true)
	touch -d "@$t" "$d/tree.git/reviewbot-fetched-$1" "$d/tree.git/reviewbot-tried-$1"
	acc_reload
	local i=0
	while [ "$(grep -c "event=ledger\.scan tree=$1 " "$d/daemon.log" || true)" -le "$n" ]; do
		i=$((i + 1))
		[ $i -gt $((ACC_TIMEOUT * 20)) ] &&
			rb_fail "no scan of $1 after the fetch: $(tail -8 "$d/daemon.log")"
		sleep 0.05
	done
	acc_settle
}

acc_start
acc_wait_log 'event=tree\.fetched tree=mm-stable'
acc_feed "$d/demo/series.mbox" ""
acc_settle
acc_check "$d/demo/series.mbox" <<'PY' || exit 1
m = acc.review_to(acc.msgid(sys.argv[1], 2))
acc.check(m["policy"] == "blocking" and "[F1] (high) There is no "
          "Signed-off-by" in acc.flat(m["body"]),
          "want the blocking review of 2/3 with F1:\n" + m["body"])
acc.check(acc.q("SELECT series_id FROM sightings") == [],
          "a sighting before any tree moved: %s" % acc.q("SELECT * FROM sightings"))
open(acc.D + "/n_mails", "w").write(str(len(acc.mails())))
PY
echo "ok 0: the blocking review of 2/3 raises F1"

take mm-unstable 1 1
fetch mm-unstable
acc_check "$d/demo/series.mbox" <<'PY' || exit 1
before = int(open(acc.D + "/n_mails").read())
ms = acc.mails()[before:]
acc.check(len(ms) == 1, "want one ledger mail, got:\n" + acc.show(ms))
m = ms[0]
acc.check(m["rcpt"] == ["grace@example.org"],
          "the ledger mail goes to %s, not RING BUFFER's M:" % m["rcpt"])
b = acc.flat(m["body"])
acc.check('"ring: small fixes and helpers" by Ada Lovelace <ada@example.org>'
          ' is in mm-unstable' in b and "(1 of its 3 patches so far)" in b,
          "the ledger mail does not say where the series is:\n" + m["body"])
acc.check("one blocking finding has no answer yet" in b and
          "[F1] of 2/3 (high): There is no Signed-off-by: line." in b,
          "the ledger mail does not name F1 of 2/3:\n" + m["body"])
acc.check(m["in_reply_to"] == acc.msgid(sys.argv[1], 0),
          "not in the series' thread: %s" % m["in_reply_to"])
acc.check(len(m["body"].splitlines()) < 20, "not short:\n" + m["body"])
r = acc.q("SELECT tree, parts, state, open_findings FROM sightings")
acc.check(r == [("mm-unstable", 1, "mailed", 1)], "sightings: %s" % r)
open(acc.D + "/n_mails", "w").write(str(len(acc.mails())))
PY
echo "ok 1: mm-unstable gains the series: one ledger mail naming F1, to the section's M:"

take mm-unstable 2 2
fetch mm-unstable
acc_check <<'PY' || exit 1
before = int(open(acc.D + "/n_mails").read())
acc.check(len(acc.mails()) == before, "a second ledger mail:\n" +
          acc.show(acc.mails()[before:]))
acc.check(acc.q1("SELECT COUNT(*) FROM sightings") == 1,
          "sightings: %s" % acc.q("SELECT * FROM sightings"))
PY
echo "ok 2: more of the series in mm-unstable: no second mail"

acc_check "$d/demo/series.mbox" <<'PY' || exit 1
m = acc.review_to(acc.msgid(sys.argv[1], 2))
acc.write_reply(acc.D + "/ada.raw", m, "Ada Lovelace <ada@example.org>",
                {"F1": "Right, I forgot it; v2 will have it."},
                "<ada-answer@example.org>")
PY
acc_sign "$d/ada.raw" "$d/ada.eml" example.org
acc_feed "$d/ada.eml" ""
acc_settle
acc_check <<'PY' || exit 1
r = acc.q("SELECT fid, by_addr FROM answers")
acc.check(r == [("F1", "ada@example.org")], "answers: %s" % r)
PY
take mm-stable 1 3
fetch mm-stable
acc_check <<'PY' || exit 1
before = int(open(acc.D + "/n_mails").read())
acc.check(len(acc.mails()) == before, "a ledger mail for an answered "
          "finding:\n" + acc.show(acc.mails()[before:]))
r = acc.q("SELECT tree, parts, state, open_findings FROM sightings"
          " ORDER BY tree")
acc.check(r == [("mm-stable", 3, "clear", 0),
                ("mm-unstable", 1, "mailed", 1)], "sightings: %s" % r)
PY
echo "ok 3: answered, the series in mm-stable gives no mail"

acc_serve
acc_check "$d/demo/series.mbox" <<'PY' || exit 1
import json, urllib.parse
cover = acc.msgid(sys.argv[1], 0).strip("<>")
html = acc.page("/series?id=" + urllib.parse.quote(cover))
rows = acc.table(html, "ledger")
acc.check(len(rows) == 1 and rows[0][0] == "F1" and rows[0][-1] == "answered",
          "the dashboard's ledger: %s" % rows)
rows = acc.table(html, "sightings")
acc.check([r[:2] for r in rows] == [["mm-unstable", "mailed"],
                                    ["mm-stable", "clear"]],
          "the dashboard's sightings: %s" % rows)
j = json.loads(acc.page("/series?id=" + urllib.parse.quote(cover) +
                        "&format=json"))
acc.check([(f["fid"], f["state"]) for f in j["ledger"]] == [("F1", "answered")],
          "ledger JSON: %s" % j.get("ledger"))
PY
echo "ok 4: the dashboard shows the ledger"
acc_stop
echo PASS
