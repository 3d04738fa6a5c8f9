#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_spoof.sh - acceptance 4: replies that only pretend to judge
# change nothing. RING BUFFER's policy asks for DKIM (require_dkim: true;
# keys from RB_DKIM_KEYS, made here). To the daemon's review of 3/3 come,
# by IMAP: a reply From: the maintainer that nobody signed; one From: the
# maintainer signed by another domain; one by an outsider with a valid
# signature of his own domain; one from a random address sent to the bot
# directly; and the maintainer's signed reply whose verdict was changed
# after signing. Each is refused with its reason, no verdict is stored as
# authorised, the stats count none, and v2 still raises both findings.
# Then the maintainer's real, signed reply is accepted: the refusals were
# about who sent them.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_dkim example.org evil.example
acc_ring "      require_dkim: true" model
mbox=$d/demo/series.mbox

acc_feed "$mbox" ""
acc_settle
acc_check "$mbox" <<'PY' || exit 1
m = acc.review_to(acc.msgid(sys.argv[1], 3))
acc.check("[F2]" in m["body"], "the review of 3/3 has no F2:\n" + m["body"])
grace = "Grace Hopper <grace@example.org>"
fp = {"F1": "F1: false positive", "F2": "F2: fp"}
acc.write_reply(acc.D + "/nosig.eml", m, grace, fp, "<spoof-1@evil.example>")
acc.write_reply(acc.D + "/evilsig.raw", m, grace, fp, "<spoof-2@evil.example>")
acc.write_reply(acc.D + "/outsider.raw", m, "Mallory <mallory@evil.example>",
                fp, "<spoof-3@evil.example>")
acc.write_reply(acc.D + "/random.eml", m, "someone@random.example", fp,
                "<spoof-4@random.example>", list_id=False)
acc.write_reply(acc.D + "/tampered.raw", m, grace, {"F1": "F1: valid"},
                "<spoof-5@example.org>")
acc.write_reply(acc.D + "/grace.raw", m, grace, {"F1": "F1: false positive"},
                "<grace-1@example.org>")
PY
acc_sign "$d/evilsig.raw" "$d/evilsig.eml" evil.example
acc_sign "$d/outsider.raw" "$d/outsider.eml" evil.example
acc_sign "$d/tampered.raw" "$d/tampered.eml" example.org
sed -i 's/^F1: valid$/F1: false positive/' "$d/tampered.eml"
acc_sign "$d/grace.raw" "$d/grace.eml" example.org
for f in nosig evilsig outsider random tampered; do
	acc_feed "$d/$f.eml" ""
done
acc_settle

acc_check <<'PY' || exit 1
r = dict(acc.q("SELECT message_id, state || ': ' || COALESCE(reason, '')"
               " FROM feedback"))
want = {"spoof-1@evil.example": "requires DKIM",
        "spoof-2@evil.example": "requires DKIM",
        "spoof-3@evil.example": "is neither an author",
        "spoof-4@random.example": "is neither an author",
        "spoof-5@example.org": "requires DKIM"}
for k, why in want.items():
    acc.check(k in r and r[k].startswith("refused: ") and why in r[k],
              "reply <%s>: want refused (%s), got %r" % (k, why, r.get(k)))
n = acc.q1("SELECT COUNT(*) FROM verdicts WHERE authorised = 1")
acc.check(n == 0, "a spoofed reply was taken as a verdict: %s" %
          acc.q("SELECT reply_msgid, fid, verdict, judge FROM verdicts"
                " WHERE authorised = 1"))
j = acc.stats()
acc.check(j["findings"]["judged"] == 0, "stats count a spoofed verdict: %s"
          % j["findings"])
PY
echo "ok 1: 5 spoofed replies refused, each with its reason; nothing judged"

acc_v2 "$d/v2.mbox"
acc_feed "$d/v2.mbox" v2
acc_settle
acc_check "$d/v2.mbox" <<'PY' || exit 1
b = acc.review_to(acc.tagged(acc.msgid(sys.argv[1], 3), "v2"))["body"]
acc.check("[F1] (medium) Would a comment say that ring_free() does not free"
          in b and "[F2] (medium) ring_free() leaves size" in b,
          "v2 3/3 lost a finding to a spoofed verdict:\n" + b)
n = acc.q1("SELECT COUNT(*) FROM findings WHERE state = 'suppressed'")
acc.check(n == 0, "%d findings suppressed" % n)
PY
echo "ok 2: v2 raises both findings again"

acc_feed "$d/grace.eml" ""
acc_settle
acc_check <<'PY' || exit 1
r = acc.q("SELECT reply_msgid, fid, verdict, judge FROM verdicts WHERE"
          " authorised = 1")
acc.check(r == [("grace-1@example.org", "F1", "false_positive",
                 "grace@example.org")],
          "the maintainer's signed reply was not taken: %s; feedback: %s" %
          (r, acc.q("SELECT state, reason FROM feedback WHERE message_id ="
                    " 'grace-1@example.org'")))
PY
echo "ok 3: the maintainer's signed verdict counts"
acc_stop
echo PASS
