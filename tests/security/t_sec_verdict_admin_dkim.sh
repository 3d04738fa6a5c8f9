#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17, attack 3: with require_dkim: false, anyone can claim an
# admin's From:.
#
# An admin's verdict reaches every series, so it must carry a passing
# DKIM signature aligned with its From:, whatever require_dkim says.
# Mallory writes "From: root@example.net" (an admin) without a signature
# and marks the missing Signed-off-by finding false on Ada's review: her
# reply must be refused, and Carol's later patch must still get that
# finding. The positive control, in the same run: the real admin's
# DKIM-signed reply marks the Fixes: finding false on Bob's review; it is
# taken as an admin's, and Carol's patch (another subsystem, another
# author) no longer gets that one. Driven through "reviewbot run --once".
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/verdict_lib.sh"
set -e
rb_need opendkim-genkey
rb_need openssl
d=$RB_TEST_DIR
export RB_NOW=1793780000
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
: >"$d/in.mbox"
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    path: $d/in.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox
admins: [root@example.net]
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
      require_dkim: false
    THE REST:
      mode: advisory
      require_dkim: false
EOC

# The admin's domain key, published in a DKIM_QUERY_FILE.
mkdir -p "$d/k"
opendkim-genkey -D "$d/k" -d example.net -s rbtest
python3 - "$d/k/rbtest.txt" >"$d/keys" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
print("rbtest._domainkey.example.net " + "".join(re.findall(r'"([^"]*)"', t)))
PY
export RB_DKIM_KEYS=$d/keys

# sign IN OUT: a DKIM-Signature by example.net (rsa-sha256, relaxed/simple).
sign()
{
	python3 - "$1" "$2" "$d/k/rbtest.private" <<'PY'
import base64, hashlib, re, subprocess, sys, time
src, dst, key = sys.argv[1:4]
dom = "example.net"
raw = open(src, "rb").read().replace(b"\r\n", b"\n")
head, body = raw.split(b"\n\n", 1)
body = body.replace(b"\n", b"\r\n").rstrip(b"\r\n") + b"\r\n"
bh = base64.b64encode(hashlib.sha256(body).digest()).decode()
fields = re.split(rb"\n(?![ \t])", head)
names = ["from", "to", "subject", "date", "message-id", "in-reply-to", "references"]
def relaxed(f):
    n, v = f.split(b":", 1)
    v = re.sub(rb"[ \t]+", b" ", v.replace(b"\n", b"")).strip()
    return n.strip().lower() + b":" + v
signed = []
for n in names:
    for f in fields:
        if f.split(b":", 1)[0].strip().lower() == n.encode():
            signed.append(relaxed(f) + b"\r\n")
            break
sig = ("v=1; a=rsa-sha256; c=relaxed/simple; d=%s; s=rbtest; t=%d;"
       " h=%s; bh=%s; b=" % (dom, int(time.time()), ":".join(names), bh))
data = b"".join(signed) + relaxed(b"DKIM-Signature: " + sig.encode())
b = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=data,
                   check=True, capture_output=True).stdout
out = b"DKIM-Signature: " + sig.encode() + base64.b64encode(b) + b"\n" + raw
open(dst, "wb").write(out)
PY
}

fixes='Fixes: 1234abc (ring)'
one_patch Bob bob@example.com 2026-11-04T08:00:00Z lib/ring.c \
	"ring: a note from Bob" 1 "$d/bob.eml" "$fixes"
one_patch Carol carol@example.com 2026-11-05T08:00:00Z Makefile \
	"make: a note from Carol" 0 "$d/carol.eml" "$fixes"

# 1. Ada's series (2/3 lacks a Signed-off-by) and Bob's patch (a Fixes:
# tag in the wrong form).
feed "$d/demo/series.mbox" "$d/bob.eml"
[ "$(sob_state ada@example.org)" = raised ] ||
	rb_fail "Ada's 2/3 was not found to lack a Signed-off-by"
[ "$(cat_state bob@example.com fixes-format)" = raised ] ||
	rb_fail "Bob's Fixes: tag was not questioned: $(q "SELECT category, state FROM findings")"

# 2. Mallory as the admin, unsigned; the real admin, signed.
set -- $(sob_review ada@example.org)
reply forged 'Root <root@example.net>' "$1" "$2: false positive\n"
set -- $(sob_review bob@example.com fixes-format)
reply admin 'Root <root@example.net>' "$1" "$2: false positive\n"
sign "$d/admin" "$d/admin.eml"
feed "$d/forged" "$d/admin.eml"
[ "$(q "SELECT authorised FROM verdicts WHERE reply_msgid = 'admin@example.org'")" = 1 ] ||
	rb_fail "positive control: the admin's signed verdict was refused: $(q "SELECT reply_msgid, authorised, reason FROM verdicts")"

# 3. Carol's patch: the admin's verdict reaches it, Mallory's does not.
feed "$d/carol.eml"
[ "$(cat_state carol@example.com fixes-format)" = suppressed ] ||
	rb_fail "positive control: the admin's verdict does not reach Carol's patch: $(cat_state carol@example.com fixes-format)"
[ "$(sob_state carol@example.com)" = raised ] ||
	rb_fail "a From: claiming the admin silenced the check in Carol's patch: $(sob_state carol@example.com)"
n=$(q "SELECT COUNT(*) FROM verdicts WHERE reply_msgid = 'forged@example.org' AND authorised = 0 AND reason LIKE '%DKIM%'")
[ "$n" = 1 ] || rb_fail "the forged admin's verdict was not refused for DKIM: $(q "SELECT reply_msgid, authorised, reason FROM verdicts")"
[ "$(q "SELECT role FROM verdicts WHERE reply_msgid = 'admin@example.org'")" = admin ] ||
	rb_fail "the admin's verdict does not keep its role"
echo "1 passed, 0 failed"
