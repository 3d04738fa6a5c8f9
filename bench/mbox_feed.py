# SPDX-License-Identifier: GPL-2.0-only
"""mbox_feed.py - the one mbox feeder of the bench scripts: split an mbox
(also .xz) into messages, either as stored (raw: each with its "From "
line, escaping kept, to write an mbox again) or as mail (split: mboxrd,
the "From " line dropped, ">From " unescaped); write its first N messages
(head) or one file per message (files); and give a message a tag in its
ids, so that the same mail can be fed again as new mail (tagged, for
SMTP/IMAP feeds; renamed, for an mbox copy under other ids and List-Id).

A "From " line starts a message at the top of the mbox or after a blank
line (mboxrd escapes every other one as ">From ").

Imported by the Python the bench scripts run (PYTHONPATH=bench, set by
bench/lib.sh), or run from the shell:
    python3 -m mbox_feed head N MBOX OUT   first N messages of MBOX to OUT
                                           (prints the last Message-ID)
    python3 -m mbox_feed files MBOX DIR    one file per message, DIR/api-%05d
                                           (prints how many)"""
import lzma
import re
import sys

_FROM = re.compile(rb"^>(>*From )")
_ID = re.compile(rb"<([^>@]+)@")
_IDS = re.compile(rb"^(message-id|in-reply-to|references):", re.I)
_LIST_ID = re.compile(rb"^list-id:", re.I)
_MSGID = re.compile(rb"^message-id:\s*<([^>]+)>", re.I)


def _open(path):
    return lzma.open(path) if str(path).endswith(".xz") else open(path, "rb")


def _messages(path):
    """Each message of the mbox at @path as a list of its lines, the
    "From " line first, as stored."""
    cur = None
    with _open(path) as f:
        for line in f:
            if line.startswith(b"From ") and (cur is None or
                                              cur[-1] in (b"\n", b"\r\n")):
                if cur is not None:
                    yield cur
                cur = [line]
            elif cur is not None:
                cur.append(line)
    if cur is not None:
        yield cur


def raw(path):
    """The messages of the mbox at @path as stored, each with its "From "
    line: b"".join() of any of them is an mbox again."""
    return [b"".join(m) for m in _messages(path)]


def split(path):
    """The messages of the mbox at @path, as bytes."""
    return [b"".join(_FROM.sub(rb"\1", l) for l in m[1:])
            for m in _messages(path)]


def head(path, n, out):
    """Writes the first @n messages of @path, as stored, to the file @out;
    returns the last one's Message-ID (bytes, no angle brackets) or None."""
    last = None
    with open(out, "wb") as o:
        for k, m in enumerate(_messages(path)):
            if k >= n:
                break
            for line in m[1:]:
                if line in (b"\n", b"\r\n"):
                    break
                x = _MSGID.match(line)
                if x:
                    last = x.group(1)
            o.write(b"".join(m))
    return last


def files(path, d, prefix="api-"):
    """Writes each message of @path (as split gives it) to the file
    @d/@prefix%05d, numbered from 1; returns how many."""
    k = 0
    for k, m in enumerate(split(path), 1):
        with open("%s/%s%05d" % (d, prefix, k), "wb") as o:
            o.write(m)
    return k


def tagged(msg, tag, subject=False):
    """@msg with ".TAG" added before the "@" of every <id> in its header
    (and " TAG" after its Subject when @subject)."""
    if isinstance(tag, str):
        tag = tag.encode()
    head_, _, body = msg.partition(b"\n\n")
    head_ = _ID.sub(lambda x: b"<" + x.group(1) + b"." + tag + b"@", head_)
    if subject:
        head_ = re.sub(rb"^(Subject: .*)$", lambda x: x.group(1) + b" " + tag,
                       head_, count=1, flags=re.M)
    return head_ + b"\n\n" + body


def renamed(msg, tag, list_id=None):
    """@msg (as raw gives it) with ".TAG" added before the "@" of every id
    in its Message-ID, In-Reply-To and References (folded or not), and,
    with @list_id, its List-Id replaced by <@list_id>."""
    if isinstance(tag, str):
        tag = tag.encode()
    if isinstance(list_id, str):
        list_id = list_id.encode()
    head_, sep, body = msg.partition(b"\n\n")
    fields = re.split(rb"\n(?![ \t])", head_)
    for i, f in enumerate(fields):
        if _IDS.match(f):
            fields[i] = re.sub(rb"<([^<>@\s]+)@",
                               lambda x: b"<" + x.group(1) + b"." + tag + b"@",
                               f)
        elif list_id and _LIST_ID.match(f):
            fields[i] = b"List-Id: <" + list_id + b">"
    return b"\n".join(fields) + sep + body


def main(argv):
    if len(argv) == 5 and argv[1] == "head":
        last = head(argv[3], int(argv[2]), argv[4])
        print(last.decode("utf-8", "replace") if last else "")
        return 0
    if len(argv) == 4 and argv[1] == "files":
        print(files(argv[2], argv[3]))
        return 0
    sys.stderr.write("usage: mbox_feed.py head N MBOX OUT | "
                     "files MBOX DIR\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
