#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_modes.sh - acceptance 6: the policy's modes, on the running
# daemon. RING BUFFER's mode is changed in the config (SIGHUP reloads it)
# and a copy of the demo series (new Message-IDs) is delivered by IMAP
# for each: "off" sends nothing (the series is recorded as skipped);
# "shadow" sends the review to the admins alone; "advisory" to the author,
# the maintainers and the list, saying no action is required; "blocking"
# to the same people with the default blocking text, or with the
# subsystem's own blocking_text. Each mail is compared whole.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_demo
acc_helpers
acc_servers
ring() # MODE [POLICY-LINE]
{
	acc_config "  default:
    mode: \"off\"
  subsystems:
    RING BUFFER:
      mode: $1${2:+
      $2}"
}
ring "off"
acc_start

# check TAG MODE FOOTER RCPT...: the mails in reply to the copy of the
# series delivered with TAG.
check()
{
	acc_check "$d/demo/series.mbox" "$@" <<'PY' || exit 1
mbox, tag, mode, footer = sys.argv[1:5]
rcpt = sorted(sys.argv[5:])
ids = [acc.tagged(acc.msgid(mbox, i), tag) for i in range(4)]
ms = [m for m in acc.mails() if m["in_reply_to"] in ids]
state = acc.q("SELECT state, detail FROM series WHERE id = ?",
              ids[0].strip("<>"))
if mode == "off":
    acc.check(not ms, "off: mails were sent:\n" + acc.show(ms))
    acc.check(state == [("skipped", "policy: off for RING BUFFER")],
              "off: the series is %s" % state)
    acc.check(acc.q1("SELECT COUNT(*) FROM outbox WHERE series_id = ?",
                     ids[0].strip("<>")) == 0, "off: the outbox holds mail")
    sys.exit(0)
acc.check(len(ms) == 1 and ms[0]["in_reply_to"] == ids[2],
          "%s: want one review, of 2/3, got:\n%s" % (mode, acc.show(ms)))
m = ms[0]
acc.check(m["rcpt"] == rcpt, "%s: the envelope goes to %s, not %s" %
          (mode, m["rcpt"], rcpt))
acc.check(m["policy"] == mode, "%s: X-Reviewbot-Policy: %s" %
          (mode, m["policy"]))
want = """%s review of 2/3, applied on demo at 9740d103e69b.
The base is the series' base-commit. Checks: commit message.
1 finding.

[F1] (high) There is no Signed-off-by: line. Could you add one (see
"Developer's Certificate of Origin" in submitting-patches.rst)?

-- 
%s
Reply "F1: false positive", "F1: valid" or "F1: fixed" to judge a
finding; verdicts from the author and the maintainers tune what
reviewbot reports.
""" % (mode.capitalize(), footer)
acc.check(acc.flat(m["body"]) == acc.flat(want), "%s: the review says:\n%s\n"
          "not:\n%s" % (mode, m["body"], want))
acc.check(max(len(l) for l in m["body"].splitlines()) <= 72,
          "%s: a line over 72 columns:\n%s" % (mode, m["body"]))
PY
}
people=(ada@example.org grace@example.org alan@example.org demo-list@example.org)

acc_feed "$d/demo/series.mbox" off
acc_settle
check off off ""
echo "ok 1: off sends nothing"

ring shadow
acc_reload
acc_feed "$d/demo/series.mbox" shadow
acc_settle
check shadow shadow \
	"reviewbot, shadow for RING BUFFER: only the admins get this." \
	admin@example.org
acc_check <<'PY' || exit 1
m = [m for m in acc.mails() if m["policy"] == "shadow"][0]
acc.check(m["to"] == "admin@example.org" and m["cc"] == "",
          "shadow: To %r, Cc %r" % (m["to"], m["cc"]))
PY
echo "ok 2: shadow sends to the admins only"

ring advisory
acc_reload
acc_feed "$d/demo/series.mbox" advisory
acc_settle
check advisory advisory \
	"reviewbot, advisory for RING BUFFER: no action is required." "${people[@]}"
echo "ok 3: advisory, with its footer"

ring blocking
acc_reload
acc_feed "$d/demo/series.mbox" blocking
acc_settle
check blocking blocking \
	"reviewbot, blocking for RING BUFFER: please answer each finding before the series is merged." \
	"${people[@]}"
echo "ok 4: blocking, with the default blocking text"

ring blocking 'blocking_text: "Each finding needs an answer before Grace applies the series."'
acc_reload
acc_feed "$d/demo/series.mbox" blocking2
acc_settle
check blocking2 blocking \
	"reviewbot, blocking for RING BUFFER: Each finding needs an answer before Grace applies the series." \
	"${people[@]}"
echo "ok 5: blocking, with the subsystem's blocking_text"
acc_stop
echo PASS
