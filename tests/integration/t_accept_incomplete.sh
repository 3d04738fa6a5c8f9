#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_incomplete.sh - acceptance 5: the series the daemon cannot
# review get one note each, to the author only. Under a policy that says
# so (incomplete: notify; the default, review-prefix, reviews the patches
# before the gap instead), the demo series without its patch 2 gets
# exactly one "incomplete" mail, once the wait
# (series.incomplete_wait_minutes: 1, from when the series was first
# seen) is over, and nothing before. A series based on a tree reviewbot
# does not have (its base-commit and index blobs unknown, its context
# changed) gets exactly one apply-failure mail naming the tree, patch,
# file and hunk where it stopped, to its author alone: not to the
# maintainers, not to the list.
#
# The wait is real (RB_NOW would stop the daemon's clock, so the wait
# would never end): about 70 s. poll_seconds is 300, the default: with no
# more mail to wake it, the daemon must wake when the note is due, and
# the note must go out within 20 s of that (it went out up to 300 s late
# before 91943a3).
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_demo
acc_helpers
acc_servers
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
      incomplete: notify
      report_apply_failures: author' 'series:
  incomplete_wait_minutes: 1'

# A series on a tree reviewbot does not have: ring_pop() is ring_take()
# there. By Katherine Johnson, so that "the author" is not the author of
# the demo tree's commits.
(
	set -e
	git clone -q "$d/demo/tree" "$d/other"
	cd "$d/other"
	export GIT_AUTHOR_NAME="Katherine Johnson" GIT_AUTHOR_EMAIL=kj@example.org
	export GIT_COMMITTER_NAME="Katherine Johnson" GIT_COMMITTER_EMAIL=kj@example.org
	export GIT_AUTHOR_DATE=2026-11-04T08:00:00Z GIT_COMMITTER_DATE=2026-11-04T08:00:00Z
	sed -i 's/ring_pop/ring_take/' lib/ring.c include/ring.h
	git commit -q -a -m "ring: rename ring_pop() to ring_take()"
	sed -i 's/^\tif (r->head == r->tail)$/\tif (!r->size || r->head == r->tail)/' lib/ring.c
	git commit -q -a -s -m "ring: ring_take() from a ring of size zero" \
		-m "A ring of size zero has no slots to read."
	sed -i 's/^\t\*v = r->slots\[r->tail % r->size\];$/\t*v = r->slots[r->tail++ % r->size];/' lib/ring.c
	sed -i '/^\tr->tail++;$/d' lib/ring.c
	git commit -q -a -s -m "ring: ring_take() in one statement" \
		-m "Advance the tail where the slot is read."
	git format-patch -q --cover-letter --thread=shallow --base=HEAD~2 \
		-o "$d/other-patches" HEAD~2..HEAD
	sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/ring: ring_take() fixes/' \
		-e 's/\*\*\* BLURB HERE \*\*\*/Two fixes to ring_take()./' \
		"$d/other-patches/0000-cover-letter.patch"
	for f in "$d"/other-patches/*.patch; do
		sed -e '0,/^Subject:/s//To: demo-list@example.org\nList-Id: <demo-list.example.org>\nSubject:/' "$f"
	done >"$d/other.mbox"
) || rb_fail "could not make the series on another tree"
# The demo series without its patch 2.
$PY - "$d/demo/series.mbox" "$d/partial.mbox" <<'PY'
import re, sys
parts = re.split(r"(?m)^(?=From [0-9a-f]{40} )", open(sys.argv[1]).read())
parts = [p for p in parts if p and "Subject: [PATCH 2/3]" not in p]
assert len(parts) == 3, len(parts)
open(sys.argv[2], "w").write("".join(parts))
PY

acc_start
acc_feed "$d/partial.mbox" partial
acc_feed "$d/other.mbox" ""
acc_settle

acc_check "$d/other.mbox" "$d/partial.mbox" <<'PY' || exit 1
import time
cover = acc.msgid(sys.argv[1], 0)
ms = acc.mails()
acc.check(len(ms) == 1, "want one mail (the apply failure), got:\n" +
          acc.show(ms))
m = ms[0]
acc.check(m["subject"] == "Re: [PATCH 0/2] ring: ring_take() fixes" and
          m["in_reply_to"] == cover and m["references"] == [cover],
          "the apply failure does not answer the cover: %s, In-Reply-To %s,"
          " References %s" % (m["subject"], m["in_reply_to"],
                              m["references"]))
acc.check(m["rcpt"] == ["kj@example.org"] and m["cc"] == "" and
          m["to"] == "Katherine Johnson <kj@example.org>",
          "the apply failure must go to the author only: envelope %s, To %r,"
          " Cc %r" % (m["rcpt"], m["to"], m["cc"]))
b = m["body"]
f = acc.flat(b)
acc.check(f.startswith("Hello,\n\nreviewbot could not apply this series to"
                       " any of the trees it tries for RING BUFFER, so it"
                       " has not reviewed it."),
          "the apply failure says:\n" + b)
acc.check(re.search(r'^demo at [0-9a-f]{12} \(committed \d+ [a-z]+ ago\):'
                    r' patch 1/2 \("ring: ring_take\(\)'
                    r' from a ring of size zero"\), lib/ring\.c, hunk 1: ',
                    f, re.M),
          "the apply failure does not say where it stopped:\n" + b)
acc.check(b.endswith("-- \nreviewbot, advisory for RING BUFFER: this note is"
                     " not sent to the list.\n"), "footer:\n" + b)
r = acc.q("SELECT state FROM series WHERE id = ?", cover.strip("<>"))
acc.check(r == [("apply_failed",)], "the series' state: %s" % r)
# The partial series: waiting, and no note before its minute is over.
pc = acc.tagged(acc.msgid(sys.argv[2], 0), "partial").strip("<>")
seen = acc.q1("SELECT first_seen FROM series WHERE id = ?", pc)
acc.check(seen, "the partial series is not in the store")
due = acc.q1("SELECT not_before FROM jobs WHERE kind = 'incomplete' AND"
             " key = ?", pc)
# Due 60 s after the pass that first saw it began: first_seen is read a
# moment later in that pass (under load, a second or two).
acc.check(due and 55 <= due - seen <= 60, "the incomplete job is due at %s,"
          " not 60 s after %s" % (due, seen))
PY
echo "ok 1: one apply-failure mail, to the author only"

# The note on the incomplete series, when it is due: nothing else wakes
# the daemon.
acc_check "$d/partial.mbox" <<'PY' || exit 1
import time
pc = acc.tagged(acc.msgid(sys.argv[1], 0), "partial")
due = acc.q1("SELECT not_before FROM jobs WHERE kind = 'incomplete'")
while not [m for m in acc.mails() if m["in_reply_to"] == pc]:
    acc.check(time.time() < due + 20, "the incomplete note was due at %d"
              " and had not gone 20 s later: the daemon sleeps until mail"
              " or poll_seconds (300) wakes it" % due)
    time.sleep(0.2)
PY
acc_settle
acc_check "$d/partial.mbox" <<'PY' || exit 1
pc = acc.tagged(acc.msgid(sys.argv[1], 0), "partial")
ms = [m for m in acc.mails() if m["in_reply_to"] == pc]
acc.check(len(ms) == 1, "want one incomplete mail, got %d" % len(ms))
m = ms[0]
acc.check(m["subject"] == "Re: [PATCH 0/3] ring: small fixes and helpers"
          and m["references"] == [pc], "the note does not answer the"
          " cover: %s, References %s" % (m["subject"], m["references"]))
acc.check(m["rcpt"] == ["ada@example.org"] and m["cc"] == "",
          "the incomplete note goes to %s (Cc %r), not the author alone" %
          (m["rcpt"], m["cc"]))
b = m["body"]
acc.check(re.match(r"Hello,\n\n2 of the 3 patches of this series arrived,"
                   r" but patch 2/3 did not reach the list within 1 minutes?\."
                   r" reviewbot reviews a series only once it is complete",
                   acc.flat(b)), "the incomplete note says:\n" + b)
acc.check(b.endswith("-- \nreviewbot, advisory for RING BUFFER: this note is"
                     " not sent to the list.\n"),
          "footer:\n" + b)
seen = acc.q1("SELECT first_seen FROM series WHERE id = ?", pc.strip("<>"))
due = acc.q1("SELECT not_before FROM jobs WHERE kind = 'incomplete'")
sent = acc.q1("SELECT sent_at FROM outbox WHERE message_id = ?",
              m["message_id"])
acc.check(sent >= due and sent - seen >= 55, "the note went %d s after the"
          " series was first seen, before the wait of 60 s (due %+d s)" %
          (sent - seen, due - seen))
r = acc.q("SELECT state FROM series WHERE id = ?", pc.strip("<>"))
acc.check(r == [("incomplete",)], "the series' state: %s" % r)
acc.check(len(acc.mails()) == 2, "mails:\n" + acc.show(acc.mails()))
PY
echo "ok 2: one incomplete mail, when the wait is over, to the author only"
acc_stop
echo PASS
