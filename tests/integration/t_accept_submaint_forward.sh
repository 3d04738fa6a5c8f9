#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_submaint_forward.sh - issue 36, a sub-maintainer decides what
# of a shadow review reaches the author, on the running daemon
# ("reviewbot run", Dovecot in, the SMTP sink out). RING BUFFER is in
# shadow mode with shadow_to: maintainers; the model raises F1 and F2 on
# 3/3 (ring_free()), the commit-message checker F1 on 2/3.
#  1. the shadow reviews reach RING BUFFER's M: and R: (grace, alan) and
#     nobody else, and the model's review says it was written with a
#     language model, naming it;
#  2. Grace's signed "F2: send" gives exactly one mail to the author and
#     the list, a reply in the patch's thread, holding F2 only, marked as
#     forwarded by her;
#  3. the same reply sent again (a new Message-ID): nothing new;
#  4. the same "F1: send" from a forged sender (Grace's From:, unsigned):
#     nothing, the request recorded as refused;
#  5. "pause" then "F1: send" from Grace: the forward waits in the
#     outbox; "resume": it goes;
#  6. "retry": a series that applied nowhere (its notice to the admins)
#     is reviewed again at once after the tree gained its base.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_dkim example.org
acc_demo
acc_helpers
acc_model_script "$(acc_model_ring_free)"
acc_servers model
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: shadow
      shadow_to: maintainers
      report_apply_failures: admins'
acc_start
mbox=$d/demo/series.mbox

acc_feed "$mbox" ""
acc_settle
acc_check "$mbox" <<'PY' || exit 1
ids = [acc.msgid(sys.argv[1], i) for i in range(4)]
ms = [m for m in acc.mails() if m["in_reply_to"] in ids]
acc.check(len(ms) == 2, "want the reviews of 2/3 and 3/3, got:\n" + acc.show(ms))
for m in ms:
    acc.check(m["rcpt"] == ["alan@example.org", "grace@example.org"],
              "a shadow review goes to %s, not RING BUFFER's M: and R: "
              "alone" % m["rcpt"])
    acc.check(m["policy"] == "shadow", "policy %s" % m["policy"])
    acc.check("only its maintainers get this" in acc.flat(m["body"]),
              "the footer does not say who gets it:\n" + m["body"])
m = acc.review_to(ids[3])
b = acc.flat(m["body"])
acc.check("F1 and F2 were written with a language model (scripted), not "
          "by a person." in b, "no language-model line in the review of "
          "3/3:\n" + m["body"])
acc.check('Reply "F1: send" to send a finding to the author and the list.'
          in b, "no send hint:\n" + m["body"])
m2 = acc.review_to(ids[2])
acc.check("language model" not in m2["body"],
          "the checker's review of 2/3 claims a model:\n" + m2["body"])
acc.write_reply(acc.D + "/grace.raw", m, "Grace Hopper <grace@example.org>",
                {"F2": "F2: send"}, "<grace-send-1@example.org>",
                list_id=False)
acc.write_reply(acc.D + "/grace2.raw", m, "Grace Hopper <grace@example.org>",
                {"F2": "F2: send"}, "<grace-send-2@example.org>",
                list_id=False)
acc.write_reply(acc.D + "/forged.eml", m, "Grace Hopper <grace@example.org>",
                {"F1": "F1: send"}, "<forged-send@example.org>",
                list_id=False)
open(acc.D + "/n_mails", "w").write(str(len(acc.mails())))
PY
echo "ok 1: the shadow reviews reach the section's M: and R: and nobody else"

acc_sign "$d/grace.raw" "$d/grace.eml" example.org
acc_feed "$d/grace.eml" ""
acc_settle
acc_check "$mbox" <<'PY' || exit 1
ids = [acc.msgid(sys.argv[1], i) for i in range(4)]
before = int(open(acc.D + "/n_mails").read())
ms = acc.mails()[before:]
acc.check(len(ms) == 1, "want exactly one forward, got:\n" + acc.show(ms))
f = ms[0]
acc.check(f["rcpt"] == ["ada@example.org", "demo-list@example.org",
                        "grace@example.org"],
          "the forward goes to %s" % f["rcpt"])
acc.check(f["to"] == "Ada Lovelace <ada@example.org>", "To: %s" % f["to"])
acc.check(f["in_reply_to"] == ids[3] and f["references"][-1] == ids[3],
          "not a reply in 3/3's thread: %s %s" % (f["in_reply_to"],
                                                f["references"]))
b = acc.flat(f["body"])
acc.check("[F2] (medium) ring_free() leaves size" in b and "[F1]" not in b,
          "the forward does not hold F2 alone:\n" + f["body"])
acc.check(b.startswith("Grace Hopper <grace@example.org>, a maintainer of "
                       "RING BUFFER, read reviewbot's review of 3/3"),
          "not marked as forwarded by Grace:\n" + f["body"])
acc.check("forwarded by Grace Hopper <grace@example.org>" in b, f["body"])
acc.check("F2 was written with a language model (scripted)" in b,
          "no language-model line in the forward:\n" + f["body"])
acc.check("\n> " in f["body"], "the forward quotes no code:\n" + f["body"])
r = acc.q("SELECT fid, by_addr FROM forwards")
acc.check(r == [("F2", "grace@example.org")], "forwards: %s" % r)
r = acc.q("SELECT kind, state FROM outbox o JOIN reviews r ON"
          " r.message_id = o.message_id WHERE r.kind = 'forward'")
acc.check(r == [("forward", "sent")], "the forward in the outbox: %s" % r)
r = acc.q("SELECT state FROM feedback WHERE message_id ="
          " 'grace-send-1@example.org'")
acc.check(r == [("curated",)], "feedback: %s" % r)
PY
echo "ok 2: Grace's \"F2: send\" gives one mail to the author and the list, F2 only"

acc_sign "$d/grace2.raw" "$d/grace2.eml" example.org
acc_feed "$d/grace2.eml" ""
acc_feed "$d/forged.eml" ""
acc_settle
acc_check <<'PY' || exit 1
before = int(open(acc.D + "/n_mails").read())
ms = acc.mails()[before:]
acc.check(len(ms) == 1, "a send again or a forged one mailed:\n" +
          acc.show(ms))
r = acc.q("SELECT verb, authorised, detail FROM requests WHERE"
          " reply_msgid = 'grace-send-2@example.org'")
acc.check(len(r) == 1 and r[0][1] == 1 and "forwarded before" in r[0][2],
          "the second send: %s" % r)
r = acc.q("SELECT verb, authorised, detail FROM requests WHERE"
          " reply_msgid = 'forged-send@example.org'")
acc.check(len(r) == 1 and r[0][1] == 0 and "DKIM" in r[0][2],
          "the forged send: %s" % r)
acc.check(acc.q1("SELECT COUNT(*) FROM forwards") == 1,
          "forwards: %s" % acc.q("SELECT * FROM forwards"))
PY
echo "ok 3: sent again, nothing new; forged, nothing"

# 5. pause, then send: the forward waits; resume: it goes.
acc_check "$mbox" <<'PY' || exit 1
m = [m for m in acc.mails() if m["in_reply_to"] == acc.msgid(sys.argv[1], 3)
     and m["policy"] == "shadow"][0]
acc.write_reply(acc.D + "/pause.raw", m, "Grace Hopper <grace@example.org>",
                {"F1": "pause\n\nF1: send"}, "<grace-pause@example.org>",
                list_id=False)
acc.write_reply(acc.D + "/resume.raw", m, "Grace Hopper <grace@example.org>",
                {}, "<grace-resume@example.org>", list_id=False)
s = open(acc.D + "/resume.raw").read().replace("Thanks,", "resume\n\nThanks,")
open(acc.D + "/resume.raw", "w").write(s)
PY
acc_sign "$d/pause.raw" "$d/pause.eml" example.org
acc_feed "$d/pause.eml" ""
acc_settle
acc_check <<'PY' || exit 1
before = int(open(acc.D + "/n_mails").read())
acc.check(len(acc.mails()) == before + 1, "mail while paused:\n" +
          acc.show(acc.mails()[before + 1:]))
r = acc.q("SELECT o.state FROM outbox o JOIN reviews r ON r.message_id ="
          " o.message_id WHERE r.kind = 'forward' ORDER BY r.patch_idx")
acc.check(r == [("sent",), ("paused",)], "forwards in the outbox: %s" % r)
PY
acc_sign "$d/resume.raw" "$d/resume.eml" example.org
acc_feed "$d/resume.eml" ""
acc_settle
acc_check "$mbox" <<'PY' || exit 1
before = int(open(acc.D + "/n_mails").read())
ms = acc.mails()[before + 1:]
acc.check(len(ms) == 1 and "[F1] (medium) Would a comment say" in
          acc.flat(ms[0]["body"]) and "[F2]" not in ms[0]["body"],
          "after resume, want the forward of F1:\n" + acc.show(ms))
r = acc.q("SELECT verb, authorised FROM requests WHERE reply_msgid IN"
          " ('grace-pause@example.org', 'grace-resume@example.org')"
          " ORDER BY created_at, verb")
acc.check(sorted(r) == [("pause", 1), ("resume", 1), ("send", 1)],
          "requests: %s" % r)
open(acc.D + "/n_mails", "w").write(str(len(acc.mails())))
PY
echo "ok 4: pause holds the series' mail, resume lets it go"

# 6. retry: a patch on top of a commit the tree lacks applies nowhere
# (the notice goes to the admins); the tree gains it; the admin's
# "retry" reviews it at once.
git clone -q "$d/demo/tree" "$d/work"
(
	cd "$d/work"
	export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.org
	export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.org
	printf '\nvoid ring_reset(struct ring *r)\n{\n\tr->tail = r->head;\n}\n' >>lib/ring.c
	git commit -q -a -m "ring: add ring_reset()"
	sed -i 's/^\tr->tail = r->head;$/\tr->tail = r->head; \/* all dropped *\//' lib/ring.c
	git commit -q -a -m "ring: say what ring_reset() drops" -m "Say it where it happens."
	git format-patch -q -1 --stdout HEAD >"$d/reset.patch"
) || rb_fail "scratch clone"
$PY - "$d/reset.patch" "$d/reset.eml" <<'PY'
import sys
s = open(sys.argv[1]).read().split("\n", 1)[1]
s = s.replace("Subject:", "To: demo-list@example.org\nList-Id:"
              " <demo-list.example.org>\nMessage-Id: <reset@example.org>"
              "\nSubject:", 1)
open(sys.argv[2], "w").write(s)
PY
acc_feed "$d/reset.eml" ""
acc_settle
acc_check <<'PY' || exit 1
m = acc.review_to("<reset@example.org>")
acc.check(m["rcpt"] == ["admin@example.org"] and "could not apply" in
          acc.flat(m["body"]), "want the admins' notice:\n" + acc.show([m]))
acc.write_reply(acc.D + "/retry.raw", m, "Admin <admin@example.org>", {},
                "<admin-retry@example.org>", list_id=False)
s = open(acc.D + "/retry.raw").read().replace("Thanks,", "retry\n\nThanks,")
open(acc.D + "/retry.raw", "w").write(s)
PY
git -C "$d/demo/tree" pull -q --ff-only "$d/work" master >/dev/null 2>&1 ||
	rb_fail "the tree did not gain the base"
git -C "$d/demo/tree" reset -q --hard HEAD~1
acc_sign "$d/retry.raw" "$d/retry.eml" example.org
acc_feed "$d/retry.eml" ""
acc_settle
acc_check <<'PY' || exit 1
ms = [m for m in acc.mails() if m["in_reply_to"] == "<reset@example.org>"]
acc.check(len(ms) == 2 and "Shadow review of the patch" in ms[1]["body"]
          and ms[1]["rcpt"] == ["alan@example.org", "grace@example.org"],
          "after retry, want the shadow review:\n" + acc.show(ms))
r = acc.q("SELECT verb, authorised, role FROM requests WHERE reply_msgid ="
          " 'admin-retry@example.org'")
acc.check(r == [("retry", 1, "admin")], "requests: %s" % r)
r = acc.q("SELECT state FROM series WHERE id = 'reset@example.org'")
acc.check(r == [("reviewed",)], "series: %s" % r)
PY
echo "ok 5: retry reviews a series again at once"
acc_stop
echo PASS
