#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_verdict.sh - acceptance 2: the author answers the daemon's
# review of 3/3 on the list ("F1: false positive" under the finding it
# judges, the review quoted in full, its footer's sample verdicts too).
# The running daemon ("reviewbot run", the reply comes by IMAP like the
# series) stores the verdict as the author's, for F1 alone; "reviewbot
# stats --json" counts it (precision 0 of 1, by checker and subsystem);
# the dashboard ("reviewbot serve") shows it on the series' page.
. "$(dirname "$0")/accept_lib.sh"
acc_dkim example.org
acc_ring "" model
mbox=$d/demo/series.mbox

acc_feed "$mbox" ""
acc_settle
acc_check "$mbox" <<'PY' || exit 1
m = acc.review_to(acc.msgid(sys.argv[1], 3))
acc.check("[F1] (medium) Would a comment say that ring_free() does not free"
          in m["body"] and "[F2] (medium) ring_free() leaves size"
          in m["body"], "the review of 3/3 lacks its two findings:\n" +
          m["body"])
acc.write_reply(acc.D + "/author.raw", m, "Ada Lovelace <ada@example.org>",
                {"F1": "F1: false positive, ring.h says the caller owns r."},
                "<author-reply-1@example.org>")
PY
# Verdicts need DKIM by default (issue 33): Ada's provider signs.
acc_sign "$d/author.raw" "$d/author.eml" example.org
acc_feed "$d/author.eml" ""
acc_settle

acc_check "$mbox" <<'PY' || exit 1
cover, p3 = acc.msgid(sys.argv[1], 0), acc.msgid(sys.argv[1], 3)
review = acc.review_to(p3)["message_id"]
fp = acc.q1("SELECT fingerprint FROM findings WHERE review_msgid = ? AND"
            " fid = 'F1'", review)
acc.check(fp, "no F1 in the store for the review %s" % review)
r = acc.q("SELECT reply_msgid, review_msgid, fid, fingerprint, verdict,"
          " judge, authorised FROM verdicts")
# The store keeps a received Message-ID bare, ours with its brackets.
want = [("author-reply-1@example.org", review, "F1", fp, "false_positive",
         "ada@example.org", 1)]
acc.check(r == want, "verdicts: %s, not %s; feedback: %s" %
          (r, want, acc.q("SELECT * FROM feedback")))
r = acc.q("SELECT state, judge, verdicts FROM feedback")
acc.check(r == [("judged", "ada@example.org", 1)], "feedback: %s" % r)

j = acc.stats()
acc.check(j["findings"]["judged"] == 1 and j["findings"]["valid"] == 0 and
          j["findings"]["precision"] == 0, "stats findings: %s" %
          j["findings"])
sub = j["by_subsystem"].get("RING BUFFER", {})
acc.check(sub.get("judged") == 1 and sub.get("precision") == 0,
          "stats by_subsystem: %s" % j["by_subsystem"])
acc.check(j["by_checker"].get("model", {}).get("judged") == 1,
          "stats by_checker: %s" % j["by_checker"])
acc.check(j["reviews"]["judged"] == 1 and j["reviews"]["precise"] == 0,
          "stats reviews: %s" % j["reviews"])
PY
echo "ok 1: the author's verdict is stored and counted by reviewbot stats"

acc_serve
acc_check "$mbox" <<'PY' || exit 1
import urllib.parse
cover = acc.msgid(sys.argv[1], 0).strip("<>")
html = acc.page("/series?id=" + urllib.parse.quote(cover))
rows = acc.table(html, "verdicts")
acc.check(len(rows) == 1 and rows[0][:4] ==
          ["F1", "false_positive", "ada@example.org", "yes"],
          "the dashboard's verdicts of the series: %s" % rows)
# Columns: Fn, checker/category, severity, where, text, state, outcome.
f = [r for r in acc.table(html, "findings") if r[0] == "F1" and
     r[1].startswith("model")]
acc.check(f and "does not free r itself" in f[0][4] and
          f[0][-1] == "judged false positive",
          "the dashboard's findings lack the judged F1: %s" %
          acc.table(html, "findings"))
m = acc.page("/metrics")
acc.check(re.search(r"^reviewbot_findings_judged(\{[^}]*\})? 1$", m, re.M),
          "/metrics: no reviewbot_findings_judged 1:\n" +
          "\n".join(l for l in m.splitlines() if "judged" in l))
PY
echo "ok 2: the dashboard shows the verdict"
acc_stop
echo PASS
