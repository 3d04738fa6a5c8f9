#!/bin/bash
# The feedback loop through the command line (issue 10's acceptance, in
# one test): "reviewbot review" reviews a patch with 3 findings; the
# author's DKIM-signed reply marks F2 a false positive and F1 valid;
# "reviewbot stats --json" shows precision 1/2 for the subsystem and the
# words per review; a spoofed From: and a maintainer's reply whose body was
# changed after signing change nothing; v2 of the patch (its comment
# reworded, so it is reviewed again: issue 18) repeats neither judged
# finding, F2 (false) nor F1 (valid), and says the third was raised on
# v1 too.
#
# DKIM: keys made here by opendkim-genkey and served to reviewbot from a
# key file (RB_DKIM_KEYS); replies signed rsa-sha256, relaxed/simple, by
# the small signer below (RFC 6376 3.4 and 3.7, openssl for RSA).
. "$(dirname "$0")/lib.sh"
set -e
rb_need opendkim-genkey
rb_need openssl
d=$RB_TEST_DIR
export RB_NOW=1793780000

# The demo tree and one patch with three commit-message problems.
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
(
	cd "$d/demo/tree"
	export GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org
	export GIT_COMMITTER_NAME='Ada Lovelace' GIT_COMMITTER_EMAIL=ada@example.org
	export GIT_AUTHOR_DATE=2026-11-03T09:00:00Z GIT_COMMITTER_DATE=2026-11-03T09:00:00Z
	sed -i 's/r->tail = 0;/r->tail = 0; \/* empty *\//' lib/ring.c
	printf '%s\n\n%s\n\n%s\n%s\n' 'ring: note that a new ring is empty' \
		'Say so where the indices are reset.' 'Fixes: 1234abc (ring)' \
		'Cc: stable@vger.kernel.org 6.1+' >../msg
	git commit -q -a -F ../msg
	git format-patch -q -1 --stdout HEAD >../v1.patch
	git format-patch -q -1 --stdout -v2 HEAD >../v2.patch
	git reset -q --hard HEAD~1
)
for v in v1 v2; do
	sed -e '0,/^Subject:/s//To: demo-list@example.org\nSubject:/' \
		"$d/demo/$v.patch" >"$d/$v.mbox"
done
sed -i -e 's/^Message-Id: <\(.*\)>/Message-Id: <v2-\1>/' \
	-e 's/^Date: .*/Date: Wed, 4 Nov 2026 07:00:00 +0000/' \
	-e 's|^+\(.*\)/\* empty \*/$|+\1/* it is empty */|' "$d/v2.mbox"
grep -q '/\* it is empty \*/$' "$d/v2.mbox" || rb_fail "v2 did not change"

cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
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
      require_dkim: true
      max_findings: 10
EOC

# Keys for two domains, published in a DKIM_QUERY_FILE.
for dom in example.org evil.example; do
	mkdir -p "$d/k-$dom"
	opendkim-genkey -D "$d/k-$dom" -d "$dom" -s rbtest
	python3 - "$d/k-$dom/rbtest.txt" "$dom" >>"$d/keys" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
print("rbtest._domainkey." + sys.argv[2] + " " + "".join(re.findall(r'"([^"]*)"', t)))
PY
done
export RB_DKIM_KEYS=$d/keys

# sign IN OUT DOMAIN: a DKIM-Signature (rsa-sha256, relaxed/simple).
sign()
{
	python3 - "$1" "$2" "$3" "$d/k-$3/rbtest.private" <<'PY'
import base64, hashlib, re, subprocess, sys, time
src, dst, dom, key = sys.argv[1:5]
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

"$RB_BIN" review -c "$d/config.yaml" "$d/v1.mbox" 2>"$d/v1.log" ||
	rb_fail "review v1: $(cat "$d/v1.log")"
q() { python3 -c 'import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone(); print(r[0] if r else "")' "$d/rb.db" "$1"; }
n=$(q "SELECT COUNT(*) FROM findings WHERE state = 'raised' AND fid IS NOT NULL")
[ "$n" = 3 ] || rb_fail "v1: expected 3 findings, got $n"
review=$(q "SELECT message_id FROM reviews WHERE kind = 'review'")
# The start of F2's text: the mail wraps the rest.
f2=$(q "SELECT substr(message, 1, 25) FROM findings WHERE fid = 'F2'")

# reply NAME FROM BODY: a reply to our review.
reply()
{
	printf 'From: %s\nTo: reviewbot <reviewbot@localhost>\nSubject: Re: [PATCH] ring: note that a new ring is empty\nDate: Thu, 5 Nov 2026 10:00:00 +0000\nMessage-ID: <%s@example.org>\nIn-Reply-To: %s\nReferences: %s\n\n%b' \
		"$2" "$1" "$review" "$review" "$3" >"$d/$1.raw"
}
reply author 'Ada Lovelace <ada@example.org>' 'Thanks.\n\nF1: valid\nF2: false positive, the id is fine.\n'
sign "$d/author.raw" "$d/author.eml" example.org
reply spoof 'Mallory <mallory@evil.example>' 'F1: false positive\nF3: fp\n'
sign "$d/spoof.raw" "$d/spoof.eml" evil.example
reply tampered 'Grace Hopper <grace@example.org>' 'F1: valid\n'
sign "$d/tampered.raw" "$d/tampered.eml" example.org
sed -i 's/^F1: valid/F1: wrong/' "$d/tampered.eml"

"$RB_BIN" review -c "$d/config.yaml" "$d/author.eml" "$d/spoof.eml" \
	"$d/tampered.eml" 2>"$d/replies.log" ||
	rb_fail "replies: $(cat "$d/replies.log")"
[ "$(q "SELECT COUNT(*) FROM verdicts WHERE authorised = 1")" = 2 ] ||
	rb_fail "expected the author's 2 verdicts: $(cat "$d/replies.log")"
[ "$(q "SELECT COUNT(*) FROM verdicts WHERE authorised = 1 AND judge = 'ada@example.org' AND fid = 'F2' AND verdict = 'false_positive' AND fingerprint IS NOT NULL")" = 1 ] ||
	rb_fail "F2's verdict lacks its judge or fingerprint"
[ "$(q "SELECT COUNT(*) FROM feedback WHERE state = 'refused'")" = 2 ] ||
	rb_fail "the spoofed and the tampered reply were not refused"
q "SELECT reason FROM verdicts WHERE judge = 'grace@example.org'" |
	grep -q 'requires DKIM' || rb_fail "no DKIM reason for the tampered reply"

"$RB_BIN" stats -c "$d/config.yaml" --json >"$d/stats.json"
python3 - "$d/stats.json" <<'PY' || rb_fail "stats: $(cat "$d/stats.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["findings"]["judged"] == 2 and j["findings"]["valid"] == 1, j["findings"]
assert j["by_subsystem"]["RING BUFFER"]["precision"] == 0.5, j["by_subsystem"]
assert j["review_mails"]["words_per_review"] > 10, j["review_mails"]
PY

"$RB_BIN" review -c "$d/config.yaml" "$d/v2.mbox" 2>"$d/v2.log" ||
	rb_fail "review v2: $(cat "$d/v2.log")"
[ "$(q "SELECT COUNT(*) FROM reviews WHERE kind = 'review'")" = 2 ] ||
	rb_fail "v2 was not reviewed: $(cat "$d/v2.log")"
[ "$(q "SELECT COUNT(*) FROM findings f JOIN series s ON s.id = f.series_id WHERE s.version = 2 AND f.state = 'suppressed'")" = 2 ] ||
	rb_fail "v2: F1 and F2, both judged, are not suppressed"
v2=$(grep -l '^Subject: Re: \[PATCH v2\]' "$d"/outbox/new/*) ||
	rb_fail "no v2 review in the outbox"
tr -d '\r' <"$v2" | grep -qF "$f2" && rb_fail "v2 repeats F2: $f2"
grep -q '\[F1\]' "$v2" || rb_fail "v2 should show the unjudged finding"
grep -q '\[F2\]' "$v2" && rb_fail "v2 shows a judged finding again"
tr -d '\r' <"$v2" | tr '\n' ' ' | grep -q "(Raised on v1 too, as F3.)" ||
	rb_fail "v2 does not say F1 was raised on v1 too: $(tr -d '\r' <"$v2")"
echo "1 passed, 0 failed"
