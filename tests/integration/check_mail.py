#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""check_mail.py MAILDIR SENT - checks what the aiosmtpd sink received
against the Message-IDs the driver (test_compose, test_smtp_live) sent,
one a line in SENT: each arrived exactly once, nothing else arrived, and
each has the envelope, threading headers, recipients and subject that
test_compose's base reply asks for, parsed by Python's email package (an
independent RFC 5322 / 2047 implementation)."""
import email
import email.policy
import os
import sys

maildir, sent = sys.argv[1], sys.argv[2]
want = [line.strip() for line in open(sent) if line.strip()]
errors = []
seen = {}
for sub in ("new", "cur"):
    d = os.path.join(maildir, sub)
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        with open(os.path.join(d, name), "rb") as f:
            msg = email.message_from_binary_file(f, policy=email.policy.default)
        mid = str(msg["Message-ID"]).strip()
        seen[mid] = seen.get(mid, 0) + 1

        def check(what, got, exp):
            if got != exp:
                errors.append("%s: %s is %r, want %r" % (mid, what, got, exp))

        check("X-MailFrom", str(msg["X-MailFrom"]), "reviewbot@example.org")
        check("X-RcptTo", sorted(str(msg["X-RcptTo"]).replace(" ", "").split(",")),
              sorted(["ljs@kernel.org", "akpm@linux-foundation.org",
                      "linux-mm@kvack.org"]))
        check("In-Reply-To", str(msg["In-Reply-To"]), "<patch-4.ljs@kernel.org>")
        check("References", " ".join(str(msg["References"]).split()),
              "<cover.1700000000.git.ljs@kernel.org> <patch-4.ljs@kernel.org>")
        check("Subject", str(msg["Subject"]),
              "Re: [PATCH v2 4/9] mm: f\u00fcr J\u00f6rg Bcc: evil@example.org")
        check("Bcc", msg.get_all("Bcc"), None)
        check("Auto-Submitted", str(msg["Auto-Submitted"]), "auto-replied")
        check("X-Reviewbot-Policy", str(msg["X-Reviewbot-Policy"]), "advisory")
        check("X-Reviewbot-Series", str(msg["X-Reviewbot-Series"]),
              "v2-zap-huge-pmd")
        to = msg["To"].addresses
        check("To", [(a.display_name, a.addr_spec) for a in to],
              [("Lorenzo Stoakes (Oracle)", "ljs@kernel.org")])
        cc = msg["Cc"].addresses
        check("Cc", [a.addr_spec for a in cc],
              ["akpm@linux-foundation.org", "linux-mm@kvack.org"])
        check("Content-Type", msg.get_content_type(), "text/plain")
        check("charset", msg.get_content_charset(), "utf-8")
        body = msg.get_content()
        if "[F1] (medium) Is that right?" not in body:
            errors.append("%s: body lacks the finding" % mid)
        if "\nFrom the top.\n.\n" not in body.replace("\r\n", "\n"):
            errors.append("%s: body lost the 'From ' or '.' line" % mid)
for mid in want:
    if seen.get(mid, 0) != 1:
        errors.append("%s arrived %d times, want once" % (mid, seen.get(mid, 0)))
for mid in seen:
    if mid not in want:
        errors.append("%s arrived but was not sent" % mid)
for e in errors:
    print("check_mail: " + e, file=sys.stderr)
print("check_mail: %d messages, %d errors" % (len(seen), len(errors)))
sys.exit(1 if errors else 0)
