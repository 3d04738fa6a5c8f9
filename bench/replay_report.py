#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""replay_report.py - the figures of bench/list-replay.sh, from a store.

figures(db_path, tree) returns an ordered dict of name -> value for one
replay's store; the acceptance of issue 34 is in it:
  - mails about series none of whose patches is for the tree (every
    path outside the tree's top level, the patches decoded as the bot
    reads them);
  - mails for people (not the admins' own) that miss the poster: the
    From: of the mail replied to, or the in-body author of a B4 Relay
    mail;
  - recipients no mail can reach (localhost, *.invalid, no dot...);
  - author apply-failure notices (kind "apply-failure"; the replay's
    config opts no section in);
and the share of the mails for people that reach the list.

Used by bench/list-replay.sh; `replay_report.py DB TREE` prints them.
"""
import collections
import email
import email.policy
import email.utils
import re
import sqlite3
import subprocess
import sys

ADMINS = {"admin@example.org"}
LIST = "linux-api@vger.kernel.org"


def text_of(raw):
    """The text/plain body of a raw mail, decoded (QP, base64)."""
    m = email.message_from_bytes(raw)
    parts = m.walk() if m.is_multipart() else [m]
    out = []
    for p in parts:
        if p.get_content_maintype() != "text":
            continue
        b = p.get_payload(decode=True)
        if b:
            out.append(b.decode("utf-8", "replace"))
    return m, "\n".join(out)


def paths(body):
    ps = set()
    for m in re.finditer(r"(?m)^diff --git a/(\S+) b/(\S+)", body):
        ps.update(m.groups())
    for m in re.finditer(r"(?m)^\+\+\+ b/(\S+)", body):
        ps.add(m.group(1))
    return ps


def undeliverable(a):
    a = a.lower()
    dom = a.rsplit("@", 1)[1] if "@" in a else ""
    return (not dom or "." not in dom or dom == "localhost" or dom[0] == "["
            or dom.endswith((".localhost", ".invalid", ".local")))


def poster(raw_msg, body):
    frm = email.utils.parseaddr(str(raw_msg.get("From", "")))[1].lower()
    local, _, dom = frm.partition("@")
    if dom == "kernel.org" and (local == "devnull" or
                                local.startswith("devnull+")):
        m = re.match(r"\s*From:\s*(.*)", body)
        if m:
            return email.utils.parseaddr(m.group(1))[1].lower()
    return frm


def figures(db_path, tree):
    db = sqlite3.connect(db_path)
    q = lambda s, *a: db.execute(s, a).fetchall()
    top = set(subprocess.check_output(
        ["git", "-C", tree, "ls-tree", "--name-only", "HEAD"],
        text=True).split())
    raws = {}

    def raw_of(mid):
        if mid not in raws:
            r = q("SELECT raw FROM messages WHERE message_id = ?", mid)
            b = r[0][0] if r else None
            if isinstance(b, str):
                b = b.encode()
            raws[mid] = text_of(b) if b else (None, "")
        return raws[mid]

    def foreign(series_id):
        """Every patch of the series writes a path outside the tree."""
        n = bad = 0
        for (mid,) in q("SELECT message_id FROM patches WHERE"
                        " series_id = ? AND idx > 0", series_id):
            ps = paths(raw_of(mid)[1])
            if not ps:
                continue
            n += 1
            bad += any(p.split("/")[0] not in top for p in ps)
        return n and n == bad

    f = collections.OrderedDict()
    series = q("SELECT COUNT(*) FROM series")[0][0]
    f["series"] = series
    for st, n in q("SELECT state, COUNT(*) FROM series GROUP BY state"
                   " ORDER BY state"):
        f["series " + st] = n
    f["of them not for the tree (said nothing)"] = q(
        "SELECT COUNT(*) FROM series WHERE detail LIKE"
        " 'not for these trees%'")[0][0]
    rows = q("SELECT o.message_id, o.series_id, o.rcpts, r.kind, o.bytes"
             " FROM outbox o JOIN reviews r ON r.message_id = o.message_id")
    kinds = collections.Counter(r[3] for r in rows)
    for k in ("review", "summary", "incomplete", "apply-failure",
              "apply-failure-admin"):
        f["%s mails" % k] = kinds.get(k, 0)
    f["mails"] = len(rows)
    people = to_list = nonk = miss = 0
    undel = set()
    for mid, sid, rcpts, kind, b in rows:
        rc = [x.strip().lower() for x in rcpts.split("\n") if x.strip()]
        undel.update(a for a in rc if undeliverable(a))
        if set(rc) <= ADMINS:
            continue
        people += 1
        to_list += LIST in rc
        if foreign(sid):
            nonk += 1
        if isinstance(b, str):
            b = b.encode()
        irt = (email.message_from_bytes(b).get("In-Reply-To") or "")
        irt = irt.strip().strip("<>")
        pm, body = raw_of(irt)
        if pm is not None and poster(pm, body) not in rc:
            miss += 1
    f["mails for people (not the admins' own)"] = people
    f["of them to a series of another project"] = nonk
    f["of them missing the poster"] = miss
    f["addresses no mail can reach"] = len(undel)
    f["author apply-failure notices (no section opted in)"] = kinds.get(
        "apply-failure", 0)
    f["mails for people that reach the list"] = "%d of %d (%.0f%%)" % (
        to_list, people, 100.0 * to_list / people if people else 0)
    rv = q("SELECT COUNT(*), COALESCE(SUM(findings),0), COALESCE(SUM(words),0)"
           " FROM reviews WHERE kind = 'review'")[0]
    f["findings per review mail"] = "%.2f" % (rv[1] / rv[0] if rv[0] else 0)
    f["words of commentary per review mail"] = "%.1f" % (
        rv[2] / rv[0] if rv[0] else 0)
    capped = q("SELECT COALESCE(SUM(capped),0), COALESCE(SUM(capped > 0),0)"
               " FROM reviews")[0]
    f["people trimmed by max_recipients"] = "%d, in %d mails" % capped
    f["cross-author version links"] = q(
        "SELECT COUNT(*) FROM series a JOIN series b ON b.id = a.previous"
        " WHERE lower(a.author) <> lower(b.author)")[0][0]
    f["version links"] = q("SELECT COUNT(*) FROM series"
                           " WHERE previous IS NOT NULL")[0][0]
    lat = q("SELECT MAX(latency) FROM reviews WHERE kind = 'review'")[0][0]
    f["longest seconds to review (stats)"] = lat if lat is not None else "-"
    return f


if __name__ == "__main__":
    for k, v in figures(sys.argv[1], sys.argv[2]).items():
        print("%s: %s" % (k, v))
