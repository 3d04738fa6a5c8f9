#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 19 (injection defences): Trojan Source (CVE-2021-42574). A patch
# line holds BiDi controls that make a comment read as code, so a
# reviewer and the model would see one thing and the compiler another.
# Through "reviewbot run": the review says so as a finding of its own
# (hidden-unicode, at its file and line) and shows the characters
# escaped ("<U+202E>"); no byte of them is in the mail the bot sends.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
sec_patch v1 hidden-unicode@example.org
python3 - "$d/v1.eml" <<'PY'
import sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
old = "+\tr->tail = 0; /* empty */"
assert old in s, "the demo patch changed"
# Reads as a comment ending the line; compiles as "if (admin)".
s = s.replace(old, "+\tr->tail = 0; /*\u202e } \u2066if (admin)\u2069 \u2066 */")
s = s.replace("Content-Type: text/plain; charset=\"us-ascii\"",
              "Content-Type: text/plain; charset=UTF-8")
if "Content-Type:" not in s.split("\n\n", 1)[0]:
    head, body = s.split("\n\n", 1)
    s = head + "\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8" \
        "\nContent-Transfer-Encoding: 8bit\n\n" + body
open(p, "w", encoding="utf-8").write(s)
PY
sec_append "$d/v1.eml"
sec_run run1.log
n=$(q "SELECT count(*) FROM findings WHERE category = 'hidden-unicode'
	AND file = 'lib/ring.c' AND state = 'raised'")
[ "$n" = 1 ] || rb_fail "no hidden-unicode finding on lib/ring.c: $(q "SELECT group_concat(category) FROM findings")"
mail=$(ls "$d"/outbox/new/* 2>/dev/null | head -n 1)
[ -n "$mail" ] || rb_fail "no review was sent: $(tail -n 5 "$d/run1.log")"
python3 - "$mail" <<'PY' || rb_fail "the review passes the hidden characters on"
import email, email.policy, sys
raw = open(sys.argv[1], "rb").read()
m = email.message_from_bytes(raw, policy=email.policy.default)
body = m.get_body(("plain",)).get_content()
bad = [c for c in "\u202e\u2066\u2069" if c in body or c.encode() in raw]
if bad or "<U+202E>" not in body:
    print("hidden characters %r; escaped form present: %s" %
          (bad, "<U+202E>" in body))
    sys.exit(1)
PY
echo "1 passed, 0 failed"
