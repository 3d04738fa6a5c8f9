#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17: CR/LF in an author name cannot break a review. Eve's From:
# is an RFC 2047 word that decodes to "Eve\r\nBcc: victim@...\r\n
# Reviewed-by: Eve", and so is a Cc: name and the in-body From: of her
# patch. The name went into the commit signature of the in-memory apply,
# which libgit2 then could not read back, and the review failed: nobody
# got one. Now the review goes out once, to the usual people, with no
# header or recipient the name spelled and no line of its own.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
name='=?utf-8?q?Eve=0D=0ABcc=3A_victim=40evil=2Eexample=0D=0AReviewed-by=3A_Eve?='
sec_patch v1 crlf-name@example.org "$name <eve@example.org>"
python3 - "$d/v1.eml" <<'PY'
import sys
p = sys.argv[1]
head, body = open(p).read().split("\n\n", 1)
head = head.replace("To: demo-list@example.org",
                    "To: demo-list@example.org\nCc: =?utf-8?q?Alan=0D=0ATo=3A_"
                    "victim2=40evil=2Eexample?= <alan@example.org>")
# the in-body From: (git am's author), and a sign-off by someone else, so
# that the author-signoff finding quotes the name
body = ("From: =?utf-8?q?Eve=0D=0ACc=3A_victim3=40evil=2Eexample?= "
        "<eve@example.org>\n\n" + body)
body = body.replace("Fixes: 1234abc (ring)",
                    "Signed-off-by: Someone Else <someone@example.org>")
open(p, "w").write(head + "\n\n" + body)
PY
sec_append "$d/v1.eml"
sec_run run1.log
grep -q 'review.failed' "$d/run1.log" &&
	rb_fail "the review failed: $(grep review.failed "$d/run1.log")"
n=$(ls "$d/outbox/new" 2>/dev/null | wc -l)
[ "$n" = 1 ] || rb_fail "expected 1 review, got $n: $(grep -v level=info "$d/run1.log")"
mail=$(ls "$d"/outbox/new/*)
tr -d '\r' <"$mail" >"$d/reply.txt"
sed '/^$/q' "$d/reply.txt" >"$d/reply.head"
grep -qi '^Bcc:' "$d/reply.head" && rb_fail "a Bcc: header: $(cat "$d/reply.head")"
[ "$(grep -ci '^To:' "$d/reply.head")" = 1 ] || rb_fail "To: twice: $(cat "$d/reply.head")"
[ "$(grep -ci '^Cc:' "$d/reply.head")" -le 1 ] || rb_fail "Cc: twice: $(cat "$d/reply.head")"
grep -q 'victim' "$d/reply.head" && ! grep -q '"[^"]*victim[^"]*"' "$d/reply.head" &&
	rb_fail "victim outside a quoted name: $(cat "$d/reply.head")"
grep -qi '^Reviewed-by:' "$d/reply.txt" && rb_fail "a Reviewed-by: line"
rcpts=$(q "SELECT replace(rcpts, char(10), ' ') FROM outbox")
case $rcpts in
*victim*) rb_fail "a victim is a recipient: $rcpts" ;;
*eve@example.org*) ;;
*) rb_fail "Eve is not a recipient: $rcpts" ;;
esac
# Every header line is a field or a continuation: nothing was cut.
awk '/^$/ { exit } !/^[A-Za-z0-9-]+: / && !/^[ \t]/ { bad = 1; print } END { exit bad }' \
	"$d/reply.head" || rb_fail "a broken header line in the reply"
[ "$(q "SELECT COUNT(*) FROM findings WHERE category = 'author-signoff'")" -le 1 ] || true
echo "1 passed, 0 failed"
