#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_incremental.sh - issue 38: a pass assembles only what its new
# mail touches (bot/stages/assemble.c), and mail that arrives over many
# passes gives the same series and the same replies as the same mail in
# one pass. "reviewbot run" reads Dovecot and sends through the SMTP
# sink. World "one": the demo series, a reply to its 2/3 and its v2 are
# in the mailbox when the daemon starts (one pass). World "many": the
# same mail again (new ids, another address of the author, so that the
# worlds never link to each other), over five passes: the cover and 1/3;
# then 3/3; then 2/3 (complete: reviewed); the late reply; v2. Both
# worlds must store the same series (versions, parts, previous version,
# completeness) and send the same reviews (subject, threading,
# recipients, body).
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_demo
acc_helpers
acc_servers
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory'
mbox=$d/demo/series.mbox
acc_v2 "$d/v2.mbox"
# The reply to 2/3 (its ids tagged with the world's tag, as the series').
$PY - "$mbox" "$d/reply.eml" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
ids = re.findall(rb"^Message-ID:\s*<([^>]+)>", data, re.M | re.I)
open(sys.argv[2], "wb").write(
    b"From: Bob Roe <bob@example.org>\n"
    b"To: demo-list@example.org\n"
    b"List-Id: <demo-list.example.org>\n"
    b"Subject: Re: [PATCH 2/3] ring: refuse a ring of size zero\n"
    b"Date: Thu, 5 Nov 2026 08:00:00 +0000\n"
    b"Message-ID: <reply-1@example.org>\n"
    b"In-Reply-To: <" + ids[2] + b">\n"
    b"References: <" + ids[0] + b"> <" + ids[2] + b">\n\n"
    b"Is a size of zero ever asked for?\n")
PY
# Split the series: the cover and 1/3, 2/3, 3/3 as files of their own.
$PY - "$mbox" "$d" <<'PY'
import sys
data = open(sys.argv[1], "rb").read().split(b"\nFrom ")
parts = [data[0]] + [b"From " + p for p in data[1:]]
# Each ends with the blank line an mbox puts before the next From_.
parts = [p.rstrip(b"\n") + b"\n\n" for p in parts]
open(sys.argv[2] + "/part-a.mbox", "wb").write(parts[0] + parts[1])
open(sys.argv[2] + "/part-2.mbox", "wb").write(parts[2])
open(sys.argv[2] + "/part-3.mbox", "wb").write(parts[3])
PY
[ "$(grep -c '^Subject: \[PATCH' "$d/part-a.mbox")" = 2 ] &&
	[ "$(grep -c '^From ' "$d/part-a.mbox")" = 2 ] ||
	rb_fail "the split of the series went wrong"

# World "one": everything in the mailbox before the daemon starts.
acc_feed "$mbox" one
acc_feed "$d/reply.eml" one
acc_feed "$d/v2.mbox" onev2
acc_start
ACC_IDLE0=0 # fed before the daemon (and its log) existed
acc_settle

# World "many": the same mail over five passes.
ada2='From=Ada Lovelace <ada.two@example.org>'
passes0=$(grep -c 'event=run.idle' "$d/daemon.log" || true)
acc_feed "$d/part-a.mbox" many "$ada2"
acc_settle
acc_feed "$d/part-3.mbox" many "$ada2"
acc_settle
acc_feed "$d/part-2.mbox" many "$ada2"
acc_settle
acc_feed "$d/reply.eml" many
acc_settle
acc_feed "$d/v2.mbox" manyv2 "$ada2"
acc_settle
passes=$(($(grep -c 'event=run.idle' "$d/daemon.log") - passes0))
[ "$passes" -ge 5 ] || rb_fail "world many took $passes passes, not 5"

acc_check <<'PY' || exit 1
import re

def norm(s, world):
    s = s or ""
    s = s.replace("." + world + "v2@", "@").replace("." + world + "@", "@")
    return s.replace("ada.two@example.org", "ada@example.org")

def series(world):
    rows = acc.q("SELECT id, version, total, cover, title, author,"
                 " previous, complete, change_key IS NULL,"
                 " title_key IS NULL FROM series WHERE id LIKE ?"
                 " OR id LIKE ?", "%." + world + "@%",
                 "%." + world + "v2@%")
    return sorted(tuple(norm(v, world) if isinstance(v, str) else v
                        for v in r) for r in rows)

def parts(world):
    rows = acc.q("SELECT series_id, idx, message_id FROM patches WHERE"
                 " series_id LIKE ? OR series_id LIKE ?", "%." + world +
                 "@%", "%." + world + "v2@%")
    return sorted((norm(a, world), i, norm(b, world)) for a, i, b in rows)

def mails(world):
    out = []
    for m in acc.mails():
        if not re.search(r"\." + world + r"(v2)?@", m["in_reply_to"]):
            continue
        out.append((m["subject"], norm(m["in_reply_to"], world),
                    tuple(norm(r, world) for r in m["references"]),
                    norm(m["to"], world), m["cc"],
                    tuple(norm(r, world) for r in m["rcpt"]),
                    norm(m["body"], world)))
    return sorted(out)

s1, s2 = series("one"), series("many")
acc.check(len(s1) == 2 and all(r[7] for r in s1),
          "world one: want v1 and v2, complete: %s" % s1)
acc.check(s1 == s2, "the series differ:\none pass:\n%s\nfive passes:\n%s"
          % ("\n".join(map(str, s1)), "\n".join(map(str, s2))))
acc.check(parts("one") == parts("many"), "the parts differ:\n%s\n%s" %
          (parts("one"), parts("many")))
m1, m2 = mails("one"), mails("many")
acc.check(len(m1) >= 2, "world one sent %d reviews: %s" % (len(m1), m1))
acc.check(m1 == m2, "the reviews differ:\none pass:\n%s\nfive passes:\n%s"
          % ("\n".join(map(str, m1)), "\n".join(map(str, m2))))
v = acc.q("SELECT s.version, v.how FROM series_versions v JOIN series s"
          " ON s.id = v.series_id WHERE s.id LIKE '%.manyv2@%'")
acc.check(len(v) == 1, "v2 of world many has no previous version: %s" % v)
r = acc.q("SELECT COUNT(*) FROM messages WHERE arrival IS NULL")
acc.check(r == [(0,)], "messages no assembly saw: %s" % r)
PY
echo "ok 1: five passes give the series and reviews of one pass"
acc_stop
echo PASS
