#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_series.sh - acceptance 1: the daemon ("reviewbot run") reads a
# 3-patch series from Dovecot (IMAP IDLE, delivered by LMTP) and sends,
# through SMTP, one review per patch that has findings (the policy's
# send_when_empty is false by default, so the clean patch 1/3 and the
# cover get none), each In-Reply-To its patch with References to the
# cover and the patch, to the author (To) and to the MAINTAINERS people
# and list (Cc), as the sink's envelope recipients show. Then, with the
# policy changed to send_when_empty: true and recipients: [author], a
# resent copy of the series gets one review for every patch, to the
# author alone.
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
      mode: advisory'
acc_start

acc_feed "$d/demo/series.mbox" ""
acc_settle

acc_check "$d/demo/series.mbox" <<'PY' || exit 1
mbox = sys.argv[1]
cover, p1, p2, p3 = (acc.msgid(mbox, i) for i in range(4))
ms = sorted(acc.mails(), key=lambda m: m["subject"])
acc.check([m["subject"] for m in ms] ==
          ["Re: [PATCH 2/3] ring: refuse a ring of size zero",
           "Re: [PATCH 3/3] ring: add ring_free()"],
          "want one review for 2/3 and one for 3/3 (1/3 and the cover"
          " have no findings and send_when_empty is false), got:\n" +
          acc.show(ms))
want_rcpt = ["ada@example.org", "alan@example.org",
             "demo-list@example.org", "grace@example.org"]
for m, pid in zip(ms, (p2, p3)):
    s = m["subject"]
    acc.check(m["in_reply_to"] == pid, "%s: In-Reply-To %s, not %s" %
              (s, m["in_reply_to"], pid))
    acc.check(m["references"] == [cover, pid], "%s: References %s, not"
              " the cover and the patch" % (s, m["references"]))
    acc.check(m["to"] == "Ada Lovelace <ada@example.org>",
              "%s: To: %s" % (s, m["to"]))
    acc.check(m["cc"] == "Grace Hopper <grace@example.org>, Alan Turing"
              " <alan@example.org>, demo-list@example.org",
              "%s: Cc: %s" % (s, m["cc"]))
    acc.check(m["rcpt"] == want_rcpt, "%s: envelope recipients %s, not"
              " %s" % (s, m["rcpt"], want_rcpt))
    acc.check(m["from"] == "reviewbot <reviewbot@example.org>",
              "%s: From: %s" % (s, m["from"]))
    acc.check(m["auto"] == "auto-replied" and m["policy"] == "advisory",
              "%s: Auto-Submitted %r, X-Reviewbot-Policy %r" %
              (s, m["auto"], m["policy"]))

foot = """-- 
reviewbot, advisory for RING BUFFER: no action is required.
Reply "F1: false positive", "F1: valid" or "F1: fixed" to judge a
finding; verdicts from the author and the maintainers tune what
reviewbot reports.
"""
want2 = """Advisory review of 2/3, applied on demo at 9740d103e69b.
The base is the series' base-commit. Checks: commit message.
Model review (scripted): 0 findings kept of 0 proposed; locking and api
left out: nothing for them to look at.
1 finding.

[F1] (high) There is no Signed-off-by: line. Could you add one (see
"Developer's Certificate of Origin" in submitting-patches.rst)?

""" + foot
acc.check(ms[0]["body"] == want2, "the review of 2/3 says:\n%s\nnot:\n%s"
          % (ms[0]["body"], want2))
want3 = """Advisory review of 3/3, applied on demo at 9740d103e69b.
The base is the series' base-commit. Checks: commit message.
Model review (scripted): 2 findings kept of 2 proposed; locking and api
left out: nothing for them to look at.
2 findings.

> diff --git a/lib/ring.c b/lib/ring.c
> +void ring_free(struct ring *r)
> +{
> +	free(r->slots);
> +	r->slots = NULL;
> +}

[F1] (medium) Would a comment say that ring_free() does not free r
itself, unlike the kfree() helpers?

Trigger: A caller that embeds the ring frees the slots, then reads
r->head.

[F2] (medium) ring_free() leaves size, head and tail as they were.
Should it also set size to 0, or is pushing to a freed ring a caller
bug?

Trigger: ring_push() after ring_free(): head - tail is not size, so it
stores through r->slots, now NULL.

F1 and F2 were written with a language model (scripted), not by a
person.

""" + foot
acc.check(ms[1]["body"] == want3, "the review of 3/3 says:\n%s\nnot:\n%s"
          % (ms[1]["body"], want3))
r = acc.q("SELECT kind, patch_idx, findings FROM reviews ORDER BY patch_idx")
acc.check(r == [("review", 2, 1), ("review", 3, 2)], "reviews: %s" % r)
r = acc.q("SELECT state FROM outbox")
acc.check(r == [("sent",), ("sent",)], "outbox: %s" % r)
PY
echo "ok 1: 2 reviews for the 3 patches, threaded, to the author and RING BUFFER's people"

# send_when_empty: true and recipients: [author], then a resent copy of
# the series (new Message-IDs): a review for every patch, none for the
# cover, each to the author only (no maintainers and no list, so no
# reply-all either).
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
      send_when_empty: true
      recipients: [author]'
acc_reload
acc_feed "$d/demo/series.mbox" resend
acc_settle

acc_check "$d/demo/series.mbox" <<'PY' || exit 1
ms = sorted((m for m in acc.mails() if m["in_reply_to"].endswith(
    ".resend@example.org>")), key=lambda m: m["subject"])
subs = [m["subject"] for m in ms]
acc.check(subs == ["Re: [PATCH 1/3] ring: add ring_count()",
                   "Re: [PATCH 2/3] ring: refuse a ring of size zero",
                   "Re: [PATCH 3/3] ring: add ring_free()"],
          "send_when_empty: want a review of each of the 3 patches, got:\n"
          + acc.show(ms))
for m in ms:
    acc.check(m["rcpt"] == ["ada@example.org"] and m["cc"] == "" and
              m["to"] == "Ada Lovelace <ada@example.org>",
              "recipients: [author]: %s went to %s (To %r, Cc %r)" %
              (m["subject"], m["rcpt"], m["to"], m["cc"]))
want1 = """Advisory review of 1/3, applied on demo at 9740d103e69b.
The base is the series' base-commit. Checks: commit message.
Model review (scripted): 0 findings kept of 0 proposed; locking and api
left out: nothing for them to look at.
No findings.

-- 
reviewbot, advisory for RING BUFFER: no action is required.
"""
acc.check(ms[0]["body"] == want1, "the empty review of 1/3 says:\n%s\n"
          "not:\n%s" % (ms[0]["body"], want1))
acc.check("[F1] (high) There is no Signed-off-by: line" in ms[1]["body"]
          and "[F2] (medium) ring_free() leaves size" in ms[2]["body"],
          "the resent series' reviews lost their findings")
PY
echo "ok 2: send_when_empty gives one review per patch, recipients: [author] only the author"
acc_stop
echo PASS
