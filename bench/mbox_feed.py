# SPDX-License-Identifier: GPL-2.0-only
"""mbox_feed.py - what the bench scripts do with an mbox: split it into
messages (mboxrd: the "From " line dropped, ">From " unescaped) and give a
message a tag in every Message-ID, In-Reply-To and References (and, for
curves.sh, in the subject), so that the same mail can be fed again as new
mail. Imported by the Python the bench scripts run (PYTHONPATH=bench)."""
import re

_FROM = re.compile(rb"^>(>*From )")
_ID = re.compile(rb"<([^>@]+)@")


def split(path):
    """The messages of the mbox at @path, as bytes."""
    msgs, cur = [], None
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b"From ") and (cur is None or
                                              cur[-1] == b"\n"):
                if cur is not None:
                    msgs.append(b"".join(cur))
                cur = []
                continue
            cur.append(_FROM.sub(rb"\1", line))
    if cur is not None:
        msgs.append(b"".join(cur))
    return msgs


def tagged(msg, tag, subject=False):
    """@msg with ".TAG" added before the "@" of every <id> in its header
    (and " TAG" after its Subject when @subject)."""
    if isinstance(tag, str):
        tag = tag.encode()
    head, _, body = msg.partition(b"\n\n")
    head = _ID.sub(lambda x: b"<" + x.group(1) + b"." + tag + b"@", head)
    if subject:
        head = re.sub(rb"^(Subject: .*)$", lambda x: x.group(1) + b" " + tag,
                      head, count=1, flags=re.M)
    return head + b"\n\n" + body
