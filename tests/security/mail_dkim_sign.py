#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# mail_dkim_sign.py - a small DKIM signer for the security tests (RFC 6376
# 3.4 relaxed/simple canonicalization, 3.7 hashes, rsa-sha256 with the
# openssl command), able to sign the way an attacker's own mail provider
# would, and a few ways a careless one might.
#
# usage: mail_dkim_sign.py IN OUT DOMAIN KEY [--headers a:b:c]
#                          [--body-length] [--selector S]
#   --headers      the h= list (default from:to:subject:date:message-id:
#                  in-reply-to:references); fields absent from the mail
#                  are left out of h=, and instances are taken from the
#                  bottom up, as RFC 6376 5.4.2 says
#   --body-length  adds l= with the length of the body as signed
import argparse
import base64
import hashlib
import re
import subprocess
import time

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("dst")
ap.add_argument("domain")
ap.add_argument("key")
ap.add_argument("--headers", default="from:to:subject:date:message-id:"
                "in-reply-to:references")
ap.add_argument("--body-length", action="store_true")
ap.add_argument("--selector", default="rbtest")
a = ap.parse_args()

raw = open(a.src, "rb").read().replace(b"\r\n", b"\n")
head, body = raw.split(b"\n\n", 1)
# simple body canonicalization: CRLF, no empty lines at the end
body = body.replace(b"\n", b"\r\n").rstrip(b"\r\n") + b"\r\n"
bh = base64.b64encode(hashlib.sha256(body).digest()).decode()
fields = re.split(rb"\n(?![ \t])", head)


def relaxed(f):
    n, v = f.split(b":", 1)
    v = re.sub(rb"[ \t]+", b" ", v.replace(b"\n", b"")).strip()
    return n.strip().lower() + b":" + v


def name(f):
    return f.split(b":", 1)[0].strip().lower().decode("latin1")


used = set()
names, signed = [], []
for n in [x.strip().lower() for x in a.headers.split(":") if x.strip()]:
    for i in range(len(fields) - 1, -1, -1):
        if i not in used and b":" in fields[i] and name(fields[i]) == n:
            used.add(i)
            names.append(n)
            signed.append(relaxed(fields[i]) + b"\r\n")
            break
tags = ("v=1; a=rsa-sha256; c=relaxed/simple; d=%s; s=%s; t=%d; h=%s; "
        % (a.domain, a.selector, int(time.time()), ":".join(names)))
if a.body_length:
    tags += "l=%d; " % len(body)
tags += "bh=%s; b=" % bh
data = b"".join(signed) + relaxed(b"DKIM-Signature: " + tags.encode())
sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", a.key],
                     input=data, check=True, capture_output=True).stdout
open(a.dst, "wb").write(b"DKIM-Signature: " + tags.encode() +
                        base64.b64encode(sig) + b"\n" + raw)
