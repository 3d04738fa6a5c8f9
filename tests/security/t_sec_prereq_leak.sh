#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: what another poster's prerequisites can read of the store.
#
# Ada's patch is stored (its review went to her and the list). Mallory
# posts a patch whose prerequisites name Ada's mail by Message-ID and by
# patch-id. The review of Mallory's patch said: Applied first:
# prerequisite series "<Ada's title>" - a title from the store, in a
# public mail to someone else; Ada's series could as well have been one
# the bot only holds (shadow, or sent to the bot alone). Now the review
# names only what Mallory wrote (the Message-ID, the patch-id). Ada's own
# prerequisites still show her titles (t_sec_prereq_chain.sh).
#
# An unmatched prerequisite-patch-id: parsed the 500 newest stored
# patches again, for every series that named one. Patch-ids are now
# computed as each mail is parsed and looked up by index: the walk
# parses none (event=prereq.scan parsed=0).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
sed -i 's/^    mode: off$/    mode: advisory\n    send_when_empty: true/' \
	"$d/config.yaml"

# one NAME FROM TITLE "TRAILER LINES": a one-patch mail adding lib/NAME.c.
one()
{
	printf '%s\n' "$4" >"$d/pre.txt"
	python3 - "$d/$1.eml" "$1" "$2" "$3" "$d/pre.txt" <<'PY'
import sys
dst, name, frm, title, pre = sys.argv[1:6]
pre = open(pre).read().rstrip("\n")
open(dst, "w").write("""From: %s
To: demo-list@example.org
Date: Tue, 3 Nov 2026 12:00:00 +0000
Message-ID: <%s@example.org>
Subject: [PATCH] %s

Add %s.c.

Signed-off-by: %s
---
 lib/%s.c | 1 +
 1 file changed, 1 insertion(+)
 create mode 100644 lib/%s.c

diff --git a/lib/%s.c b/lib/%s.c
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/lib/%s.c
@@ -0,0 +1 @@
+/* %s */

%s
-- 
2.39.5
""" % (frm, name, title, name, frm, name, name, name, name, name, name, pre))
PY
}

one secret 'Ada Lovelace <ada@example.org>' \
	'lib: add secret.c for the unannounced flaw' ""
pid=$(git -C "$d/demo/tree" patch-id --stable <"$d/secret.eml" | cut -d' ' -f1)
[ ${#pid} = 40 ] || rb_fail "no patch-id for Ada's patch"
sec_append "$d/secret.eml"
sec_run r1.log
[ "$(q "SELECT patch_id FROM messages WHERE message_id = 'secret@example.org'")" = "$pid" ] ||
	rb_fail "the patch-id was not stored as the mail was parsed: '$(q "SELECT patch_id FROM messages WHERE message_id = 'secret@example.org'")', git says $pid"

one mallory 'Mallory <mallory@evil.example>' 'lib: add mallory.c' \
	"prerequisite-message-id: <secret@example.org>"
one mallory2 'Mallory <mallory@evil.example>' 'lib: add mallory2.c' \
	"prerequisite-patch-id: $pid
prerequisite-patch-id: 0123456789abcdef0123456789abcdef01234567"
sec_append "$d/mallory.eml" "$d/mallory2.eml"
sec_run r2.log

python3 - "$d/rb.db" "$pid" <<'PY' || rb_fail "the reviews of Mallory's patches"
import email, email.policy, re, sqlite3, sys
db, pid = sys.argv[1:3]
by = {}
for (raw,) in sqlite3.connect(db).execute("SELECT bytes FROM outbox"):
    m = email.message_from_bytes(bytes(raw), policy=email.policy.compat32)
    body = m.get_payload(decode=True).decode().replace("\r\n", "\n")
    by[m["In-Reply-To"].strip("<>").split("@")[0]] = re.sub(r"\s+", " ", body)
for name in ("mallory", "mallory2"):
    b = by.get(name)
    if b is None:
        sys.exit("no review of %s (have %s)" % (name, sorted(by)))
    if "unannounced" in b or "secret.c" in b:
        sys.exit("the review of %s shows Ada's title:\n%s" % (name, b))
if "prerequisite series <secret@example.org> (1 patch)" not in by["mallory"]:
    sys.exit("the review of mallory does not name the series by its id:\n"
             + by["mallory"])
if "prerequisite patch " + pid not in by["mallory2"]:
    sys.exit("the review of mallory2 does not name the patch by its"
             " patch-id:\n" + by["mallory2"])
if "prerequisite-patch-id 0123456789abcdef0123456789abcdef01234567 is" \
        " not stored" not in by["mallory2"]:
    sys.exit("the unmatched patch-id is not named:\n" + by["mallory2"])
PY
grep -q 'event=prereq.scan.* parsed=0' "$d/r2.log" ||
	rb_fail "the unmatched patch-id made the walk parse stored patches: $(grep prereq "$d/r2.log")"
echo "1 passed, 0 failed"
