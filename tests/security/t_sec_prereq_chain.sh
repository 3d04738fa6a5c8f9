#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 18: prerequisites come from mail, so a poster can make them loop
# or grow (bot/stages/prereq.h). In one pass of the daemon:
#  A. X names Y as its prerequisite and Y names X; Z names itself: each
#     is reviewed once, the other applied first where it is not on the
#     walk already, and the review says "a cycle";
#  B. a chain c1 -> c2 -> ... -> c12: c1's review applies at most
#     RB_PREREQ_DEPTH (3) series first and says the rest were too many;
#  C. one mail with 5000 prerequisite-message-id and 5000
#     prerequisite-patch-id lines is reviewed, reading 64 of them.
# Every series is reviewed; the pass ends (a timeout kills a loop).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
sed -i 's/^    mode: off$/    mode: advisory\n    send_when_empty: true/' \
	"$d/config.yaml"

# one NAME "TRAILER LINES": a one-patch series <NAME@example.org> that
# adds lib/NAME.c, with the prerequisite lines after its diff.
one()
{
	printf '%s\n' "$2" >"$d/pre.txt"
	python3 - "$d/$1.eml" "$1" "$d/pre.txt" <<'PY'
import sys
dst, name, pre = sys.argv[1:4]
pre = open(pre).read().rstrip("\n")
open(dst, "w").write("""From: Ada Lovelace <ada@example.org>
To: demo-list@example.org
Date: Tue, 3 Nov 2026 12:00:00 +0000
Message-ID: <%s@example.org>
Subject: [PATCH] lib: add %s.c

Add %s.c.

Signed-off-by: Ada Lovelace <ada@example.org>
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
""" % ((name,) * 9 + (pre,)))
PY
	sec_append "$d/$1.eml"
}

one x "prerequisite-message-id: <y@example.org>"
one y "prerequisite-message-id: <x@example.org>"
one z "prerequisite-message-id: <z@example.org>"
for i in $(seq 1 12); do
	one "c$i" "prerequisite-message-id: <c$((i + 1))@example.org>"
done
python3 -c '
import hashlib
for i in range(5000):
    print("prerequisite-message-id: <h%d@example.org>" % i)
    print("prerequisite-patch-id: " + hashlib.sha1(b"%d" % i).hexdigest())' \
	>"$d/huge.txt"
one huge "$(cat "$d/huge.txt")"

start=$(date +%s)
timeout 120 "$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run.log" ||
	rb_fail "reviewbot run --once failed or looped: $(tail -n 20 "$d/run.log")"
echo "one pass over 16 series: $(($(date +%s) - start)) s"

[ "$(q "SELECT COUNT(*) FROM series WHERE state = 'reviewed'")" = 16 ] ||
	rb_fail "not every series was reviewed: $(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT id, state, detail FROM series").fetchall())' "$d/rb.db")"

# From the store's outbox: the per-recipient rate limit holds some.
python3 - "$d/rb.db" <<'PY' || rb_fail "the reviews do not say what the prerequisites were"
import email, email.policy, re, sqlite3, sys
by = {}
for (raw,) in sqlite3.connect(sys.argv[1]).execute("SELECT bytes FROM outbox"):
    m = email.message_from_bytes(bytes(raw), policy=email.policy.compat32)
    body = m.get_payload(decode=True).decode().replace("\r\n", "\n")
    irt = m["In-Reply-To"].strip("<>").split("@")[0]
    by[irt] = re.sub(r"\s+", " ", body)
def want(name, *parts):
    b = by.get(name)
    if b is None:
        sys.exit("no review of %s (have %s)" % (name, sorted(by)))
    for p in parts:
        if p not in b:
            sys.exit("review of %s lacks %r:\n%s" % (name, p, b))
want("x", 'Applied first: prerequisite series "lib: add y.c" (1 patch).',
     "prerequisite-message-id <x@example.org> leads back to a series that"
     " needs it (a cycle; not applied again)")
want("y", 'Applied first: prerequisite series "lib: add x.c" (1 patch).')
want("z", "prerequisite-message-id <z@example.org> leads back to a series"
     " that needs it (a cycle")
want("c1", 'Applied first: prerequisite series "lib: add c4.c" (1 patch);'
     ' prerequisite series "lib: add c3.c" (1 patch); prerequisite series'
     ' "lib: add c2.c" (1 patch).',
     "prerequisite-message-id <c5@example.org>: too many prerequisites"
     " (not applied)")
want("c12", "prerequisite-message-id <c13@example.org> is not stored")
want("huge", "more than 64 prerequisites (the rest ignored)",
     "prerequisite-message-id <h0@example.org> is not stored")
PY
echo PASS
