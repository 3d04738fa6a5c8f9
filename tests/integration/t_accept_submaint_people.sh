#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_submaint_people.sh - issue 36, who gets mail, on the running
# daemon ("reviewbot run", Dovecot in, the SMTP sink out). RING BUFFER
# is advisory, with a static Cc (ring-log@example.org) and a subject
# prefix: an [RFC PATCH] series is shadow, to the section's M: and R:.
# The commit-message checker raises F1 on 2/3 (no Signed-off-by; not
# for an RFC), the scripted model two findings on 3/3.
# The config's people: Alan (RING BUFFER's R:) wants no mail at all,
# Grace (its M:) reviews in private copies only.
#  1. the demo series: the reviews go to the author, the list and the
#     static Cc; Grace gets a private copy of each, alone; Alan nothing;
#  2. the same series as [RFC PATCH]: the prefix's mode, shadow: the
#     review goes to the section's people who take mail (Grace), nobody
#     else;
#  3. Alan appears in no recipient list of any mail, envelope or header.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_demo
acc_helpers
acc_model_script "$(acc_model_ring_free)"
acc_servers model
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
      shadow_to: maintainers
      cc: [ring-log@example.org]
      prefixes:
        RFC: shadow' 'people:
  alan@example.org: none
  grace@example.org: shadow'
acc_start
mbox=$d/demo/series.mbox

acc_feed "$mbox" ""
acc_settle
acc_check "$mbox" <<'PY' || exit 1
ids = [acc.msgid(sys.argv[1], i) for i in range(4)]
ms = [m for m in acc.mails() if m["in_reply_to"] == ids[2]]
acc.check(len(ms) == 2, "want the review of 2/3 and Grace's copy, got:\n" +
          acc.show(ms))
review = [m for m in ms if m["policy"] == "advisory"]
copy = [m for m in ms if m["policy"] == "shadow"]
acc.check(len(review) == 1 and len(copy) == 1, acc.show(ms))
acc.check(review[0]["rcpt"] == ["ada@example.org", "demo-list@example.org",
                                "ring-log@example.org"],
          "the review goes to %s" % review[0]["rcpt"])
acc.check("ring-log@example.org" in review[0]["cc"],
          "no static Cc: %s" % review[0]["cc"])
acc.check(copy[0]["rcpt"] == ["grace@example.org"] and
          copy[0]["to"] == "Grace Hopper <grace@example.org>" and
          not copy[0]["cc"], "the copy goes to %s (Cc %s)" %
          (copy[0]["rcpt"], copy[0]["cc"]))
acc.check(acc.flat(copy[0]["body"]).startswith("A private copy: you asked "
          "for reviews only this way.") and
          "[F1] (high) There is no Signed-off-by" in acc.flat(copy[0]["body"]),
          "the copy says:\n" + copy[0]["body"])
r = acc.q("SELECT kind, copy_of FROM reviews WHERE message_id = ?",
          copy[0]["message_id"])
acc.check(r == [("review-copy", review[0]["message_id"])],
          "the copy in the store: %s" % r)
open(acc.D + "/n_mails", "w").write(str(len(acc.mails())))
PY
echo "ok 1: advisory: author, list and the static Cc; Grace a private copy; Alan nothing"

sed -e 's/^Subject: \[PATCH \([0-3]\/3\]\)/Subject: [RFC PATCH \1/' "$mbox" >"$d/rfc.mbox"
grep -q '^Subject: \[RFC PATCH 2/3\]' "$d/rfc.mbox" || rb_fail "no RFC series"
acc_feed "$d/rfc.mbox" rfc
acc_settle
acc_check "$d/rfc.mbox" <<'PY' || exit 1
ids = [acc.tagged(acc.msgid(sys.argv[1], i), "rfc") for i in range(4)]
ms = [m for m in acc.mails() if m["in_reply_to"] in ids]
acc.check(len(ms) == 1 and ms[0]["in_reply_to"] == ids[3],
          "want one review of RFC 3/3 (the model's), got:\n" + acc.show(ms))
m = ms[0]
acc.check(m["policy"] == "shadow", "the RFC series is %s, not shadow (the "
          "prefix's mode)" % m["policy"])
acc.check(m["rcpt"] == ["grace@example.org"],
          "the RFC review goes to %s, not the section's people who take "
          "mail" % m["rcpt"])
acc.check("Shadow review of 3/3" in m["body"] and "F1 and F2 were "
          "written with a language model (scripted)" in acc.flat(m["body"]),
          m["body"])
r = acc.q("SELECT state FROM series WHERE id = ?", ids[0].strip("<>"))
acc.check(r == [("reviewed",)], "the RFC series: %s" % r)
PY
echo "ok 2: an [RFC PATCH] series is handled by the prefix's mode"

acc_check <<'PY' || exit 1
ms = acc.mails()
acc.check(ms, "no mail at all")
for m in ms:
    for field in ("rcpt", "to", "cc"):
        v = m[field] if isinstance(m[field], str) else " ".join(m[field])
        acc.check("alan@" not in v.lower(), "Alan in %s of %s: %s" %
                  (field, m["subject"], v))
r = acc.q("SELECT rcpts FROM outbox")
acc.check(r and all("alan@" not in x[0] for x in r), "Alan in the outbox")
PY
echo "ok 3: the person who opted out appears in no recipient list"
acc_stop
echo PASS
