#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: a tree's remote that stalls, and series that never apply.
#
# A fetch had no timeout (libgit2 1.5 has none): a remote that accepts
# and then says nothing held the worker for as long as it liked. And a
# failed fetch was never stamped, so every series that did not apply
# fetched again. Here the demo tree's url is a loopback server that
# accepts and never answers (each connection logged), the tree's
# fetch_timeout_seconds is 2, and the list gets Mallory's patch that
# applies nowhere and Bob's that applies. One "reviewbot run --once"
# must end (the test gives it 120 s), log the fetch as timed out, review
# Bob's patch, and connect to the remote once: the review stage's fetch
# before Mallory's apply-failure notice finds the attempt stamped. A
# second pass with another such patch does not connect again.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
PORT=$(rb_free_port)
: >"$d/connections"
# The remote: accepts, reads the request, never answers; each request
# logged (rb_wait_port's probe sends none and is not counted).
rb_start stall python3 -c '
import select, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
held, asked = [], set()
while True:
    r, _, _ = select.select([s] + held, [], [])
    for c in r:
        if c is s:
            held.append(s.accept()[0])
            continue
        data = c.recv(65536)
        if not data:
            held.remove(c)
            c.close()
        elif c not in asked:
            asked.add(c)
            with open(sys.argv[2], "a") as f:
                f.write("request\n")
' "$PORT" "$d/connections"
rb_wait_port "$PORT"
python3 - "$d/config.yaml" "$PORT" <<'PY'
import sys
p, port = sys.argv[1:3]
s = open(p).read()
s = s.replace("    path: %s/demo/tree\n" % p.rsplit("/", 1)[0],
              "    path: %s/demo/tree\n    url: http://127.0.0.1:%s/demo.git\n"
              "    branch: master\n    fetch_minutes: 60\n"
              "    fetch_timeout_seconds: 2\n" % (p.rsplit("/", 1)[0], port))
s += "review:\n  apply_retry_minutes: 0\n"
open(p, "w").write(s)
PY
grep -q fetch_timeout_seconds "$d/config.yaml" || rb_fail "the tree's url was not set"
"$RB_BIN" check-config -c "$d/config.yaml" >/dev/null 2>"$d/cc.log" ||
	rb_fail "config: $(cat "$d/cc.log")"

# nowhere NAME MSGID: a patch to lib/ring.c whose context is nowhere.
nowhere()
{
	cat >"$d/$1.eml" <<EOM
From: Mallory <mallory@evil.example>
To: demo-list@example.org
Date: Tue, 3 Nov 2026 12:00:00 +0000
Message-ID: <$2>
Subject: [PATCH] ring: a change to code that is not there

Signed-off-by: Mallory <mallory@evil.example>
---
 lib/ring.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/lib/ring.c b/lib/ring.c
--- a/lib/ring.c
+++ b/lib/ring.c
@@ -1,3 +1,4 @@
 this line is not in the tree $2
 nor this one
+a new line
 nor this
EOM
}
nowhere m1 m1@evil.example
sec_patch bob bob-1@example.org 'Bob <bob@example.org>'
sec_append "$d/m1.eml" "$d/bob.eml"
timeout 120 "$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run1.log" ||
	rb_fail "run 1 did not end well ($?): $(tail -5 "$d/run1.log")"
grep -q 'event=tree.fetch_failed.*timed out' "$d/run1.log" ||
	rb_fail "no timed-out fetch logged: $(grep -i fetch "$d/run1.log" | tail -5)"
[ "$(q "SELECT COUNT(*) FROM reviews WHERE series_id = 'bob-1@example.org'")" -ge 1 ] ||
	rb_fail "Bob's patch was not reviewed: $(q "SELECT group_concat(id || ' ' || state, '; ') FROM series")"
[ "$(q "SELECT state FROM series WHERE id = 'm1@evil.example'")" != error ] ||
	rb_fail "Mallory's series is in error"
n1=$(wc -l <"$d/connections")
[ "$n1" = 1 ] || rb_fail "run 1 asked the stalled remote $n1 times: $(grep -E 'fetch|refetch' "$d/run1.log")"
nowhere m2 m2@evil.example
sec_append "$d/m2.eml"
timeout 120 "$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run2.log" ||
	rb_fail "run 2 did not end well ($?): $(tail -5 "$d/run2.log")"
n2=$(wc -l <"$d/connections")
[ "$n2" = 1 ] || rb_fail "a failed fetch was tried again within fetch_minutes ($n2 requests)"
[ "$(q "SELECT COUNT(*) FROM series WHERE id = 'm2@evil.example'")" = 1 ] ||
	rb_fail "the second patch was not taken in"
echo "a stalled remote costs one fetch of 2 s per interval"
echo "1 passed, 0 failed"
