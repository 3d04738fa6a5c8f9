#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_v2.sh - acceptance 3: after the author marked F1 of the review
# of 3/3 a false positive (a reply by IMAP, as in t_accept_verdict.sh),
# v2 of the series arrives and the running daemon does not raise that
# finding again: the review of v2 3/3 shows only the other model finding,
# which nobody judged (now numbered F1), and v2 2/3 still gets its
# missing Signed-off-by; the store keeps the judged one as suppressed.
. "$(dirname "$0")/accept_lib.sh"
acc_dkim example.org
acc_ring "" model
mbox=$d/demo/series.mbox

acc_feed "$mbox" ""
acc_settle
acc_check "$mbox" <<'PY' || exit 1
m = acc.review_to(acc.msgid(sys.argv[1], 3))
acc.check("[F1] (medium) Would a comment say that ring_free() does not free"
          in m["body"], "F1 of the review of 3/3 is not the one this test"
          " judges:\n" + m["body"])
acc.write_reply(acc.D + "/author.raw", m, "Ada Lovelace <ada@example.org>",
                {"F1": "F1: false positive"}, "<author-reply-1@example.org>")
PY
# Verdicts need DKIM by default (issue 33): Ada's provider signs.
acc_sign "$d/author.raw" "$d/author.eml" example.org
acc_feed "$d/author.eml" ""
acc_settle
acc_check <<'PY' || exit 1
r = acc.q("SELECT fid, verdict, authorised FROM verdicts")
acc.check(r == [("F1", "false_positive", 1)],
          "the author's verdict was not stored: %s; feedback: %s" %
          (r, acc.q("SELECT state, reason FROM feedback")))
PY

acc_v2 "$d/v2.mbox"
acc_feed "$d/v2.mbox" v2
acc_settle
acc_check "$d/v2.mbox" <<'PY' || exit 1
ids = [acc.tagged(acc.msgid(sys.argv[1], i), "v2") for i in range(4)]
ms = [m for m in acc.mails() if "[PATCH v2 " in m["subject"]]
acc.check(sorted(m["subject"] for m in ms) ==
          ["Re: [PATCH v2 2/3] ring: refuse a ring of size zero",
           "Re: [PATCH v2 3/3] ring: add ring_free()"],
          "v2: want reviews of 2/3 and 3/3, got:\n" + acc.show(ms))
m3 = acc.review_to(ids[3])
b = m3["body"]
acc.check("does not free r itself" not in b,
          "v2 raises the finding judged a false positive again:\n" + b)
acc.check("[F1] (medium) ring_free() leaves size, head and tail as they"
          in b and "[F2]" not in b and "\n1 finding.\n" in b,
          "v2 3/3: want the unjudged finding alone, as F1:\n" + b)
acc.check(m3["references"] == [ids[0], ids[3]], "v2 3/3 References: %s"
          % m3["references"])
b2 = acc.review_to(ids[2])["body"]
acc.check("[F1] (high) There is no Signed-off-by: line" in b2,
          "v2 2/3 lost its unjudged finding:\n" + b2)
r = acc.q("SELECT f.checker, f.category, f.state, f.fid FROM findings f JOIN"
          " series s ON s.id = f.series_id WHERE s.version = 2 AND"
          " f.checker = 'model' ORDER BY f.line")
acc.check(r == [("model", "api-misuse", "suppressed", None),
                ("model", "logic", "raised", "F1")],
          "v2's model findings in the store: %s" % r)
j = acc.stats()
acc.check(j["finding_states"].get("suppressed") == 1,
          "stats finding_states: %s" % j["finding_states"])
PY
echo "ok: v2 does not raise the finding judged false; the unjudged ones stay"
acc_stop
echo PASS
