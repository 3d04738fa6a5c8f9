#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 36: "F1: send" publishes a shadow review's finding to the author
# and the list, so who may ask for it is the home section's people alone,
# signed, and nothing in the request chooses a recipient.
#
# RING BUFFER (lib/ring.c) is in shadow mode with shadow_to: maintainers;
# a second section, RING HEADER (include/ring.h, M: Hank), is advisory.
# Bob's patch changes both files, mostly lib/ring.c: RING BUFFER is home.
#  1. Mallory writes "F1: send" From: Grace (RING BUFFER's M:), unsigned:
#     refused (the policy requires DKIM), nothing queued;
#  2. Hank, an M: of the other touched section, signed: his "F1: valid"
#     counts (he may judge), his "F1: send", "pause" and "retry" are
#     refused (not the home section), nothing queued or held;
#  3. an admin's unsigned "F1: send": refused;
#  4. the positive control: Grace, signed, with a Cc: and Reply-To: of
#     her own choosing: the forward goes to Bob, the list and Grace,
#     never to the addresses her mail named;
#  5. an answer keeps the blocking ledger's notice from the maintainers:
#     Mallory's unsigned reply From: Bob, under the quoted [F1], answers
#     nothing; Bob's own, signed, does;
#  6. a reply to the forward (public mail) speaks to its review: Mallory,
#     signed as herself, judges F1 and asks send, pause and retry on it:
#     nothing counts, nothing is queued or paused.
# Driven through "reviewbot run --once" with a file source.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    name: list
    path: $d/in.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox
admins: [root@example.net]
policy:
  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: shadow
      shadow_to: maintainers
    RING HEADER:
      mode: advisory
EOC
sec_keys example.org example.net example.com
(
	cd "$d/demo/tree"
	export GIT_AUTHOR_NAME=Bob GIT_AUTHOR_EMAIL=bob@example.com
	export GIT_COMMITTER_NAME=Bob GIT_COMMITTER_EMAIL=bob@example.com
	export GIT_AUTHOR_DATE=2026-11-04T08:00:00Z GIT_COMMITTER_DATE=2026-11-04T08:00:00Z
	python3 - <<'PY'
s = open("MAINTAINERS").read()
s = s.replace("THE REST\n", "RING HEADER\nM:\tHank Header <hank@example.org>\n"
              "L:\tdemo-list@example.org\nS:\tMaintained\n"
              "F:\tinclude/ring.h\n\nTHE REST\n", 1)
open("MAINTAINERS", "w").write(s)
PY
	git commit -q -a -m "MAINTAINERS: RING HEADER"
	printf '/* a */\n/* b */\n/* c */\n' >>lib/ring.c
	printf '/* d */\n' >>include/ring.h
	git commit -q -a -m "ring: notes" -m "Bob wants notes here."
	git format-patch -q -1 --stdout HEAD |
		sed -e '0,/^Subject:/s//To: demo-list@example.org\nMessage-ID: <bob-notes@example.com>\nSubject:/'
	git reset -q --hard HEAD~1
) >"$d/bob.eml"
sec_append "$d/bob.eml"
sec_run run1.log
[ "$(q "SELECT subsystem FROM series WHERE id = 'bob-notes@example.com'")" = "RING BUFFER" ] ||
	rb_fail "RING BUFFER is not home: $(q "SELECT subsystem || ' ' || state || ' ' || COALESCE(detail, '') FROM series")"
review=$(q "SELECT review_msgid FROM findings WHERE category = 'signed-off-by' AND fid IS NOT NULL")
[ -n "$review" ] || rb_fail "no shadow review with the missing Signed-off-by: $(tail -5 "$d/run1.log")"
[ "$(q "SELECT policy FROM reviews WHERE message_id = '$review'")" = shadow ] ||
	rb_fail "the review is not shadow mail"
fid=$(q "SELECT fid FROM findings WHERE review_msgid = '$review' AND category = 'signed-off-by'")
sent() { q "SELECT COUNT(*) FROM reviews WHERE kind = 'forward'"; }

# 1. Mallory as Grace, unsigned.
sec_reply forged 'Grace Hopper <grace@example.org>' "$fid: send\n"
cp "$d/forged.raw" "$d/forged.eml"
sec_append "$d/forged.eml"
sec_run run2.log
[ "$(sent)" = 0 ] || rb_fail "1: a forged send queued a forward"
st=$(q "SELECT authorised || ': ' || detail FROM requests WHERE reply_msgid = 'forged@example.org'")
case $st in
0:*DKIM*) ;;
*) rb_fail "1: the forged send: '$st'" ;;
esac

# 2. Hank, signed: an M: of another touched section.
sec_reply hank 'Hank Header <hank@example.org>' "$fid: valid\n$fid: send\npause\nretry\n"
sec_sign "$d/hank.raw" "$d/hank.eml" example.org
sec_append "$d/hank.eml"
sec_run run3.log
[ "$(sent)" = 0 ] || rb_fail "2: an M: of another section forwarded a finding"
[ "$(q "SELECT authorised || ':' || role FROM verdicts WHERE reply_msgid = 'hank@example.org'")" = 1:maintainer ] ||
	rb_fail "2: Hank's verdict (he may judge): $(q "SELECT state || ' ' || COALESCE(reason, '') FROM feedback WHERE message_id = 'hank@example.org'")"
[ "$(q "SELECT COUNT(*) FROM requests WHERE reply_msgid = 'hank@example.org' AND authorised = 0 AND detail LIKE '%home section (RING BUFFER)%'")" = 3 ] ||
	rb_fail "2: Hank's requests: $(q "SELECT group_concat(verb || ' ' || authorised || ' ' || detail, '; ') FROM requests WHERE reply_msgid = 'hank@example.org'")"
[ "$(q "SELECT COUNT(*) FROM series_pause")" = 0 ] || rb_fail "2: Hank paused the series"

# 3. An admin, unsigned.
sec_reply root 'Root <root@example.net>' "$fid: send\n"
cp "$d/root.raw" "$d/root.eml"
sec_append "$d/root.eml"
sec_run run4.log
[ "$(sent)" = 0 ] || rb_fail "3: an unsigned admin forwarded a finding"

# 4. Grace, signed, naming addresses of her own: the policy's only.
sec_reply grace 'Grace Hopper <grace@example.org>' "$fid: send\n" \
	'Cc: Victim <victim@example.com>\nReply-To: other@example.com'
sec_sign "$d/grace.raw" "$d/grace.eml" example.org
sec_append "$d/grace.eml"
sec_run run5.log
[ "$(sent)" = 1 ] ||
	rb_fail "4: positive control: Grace's signed send: $(q "SELECT group_concat(verb || ' ' || authorised || ' ' || detail, '; ') FROM requests WHERE reply_msgid = 'grace@example.org'")"
rcpts=$(q "SELECT o.rcpts FROM outbox o JOIN reviews r ON r.message_id = o.message_id WHERE r.kind = 'forward'")
[ "$(printf '%s\n' "$rcpts" | sort | tr '\n' ' ')" = "bob@example.com demo-list@example.org grace@example.org " ] ||
	rb_fail "4: the forward goes to: $(printf '%s' "$rcpts" | tr '\n' ' ')"
# 5. Answers: From: Bob, unsigned, then signed by example.com.
answer="> [$fid] (high) There is no Signed-off-by: line.\n\nI will add it in v2.\n"
sec_reply bob-forged 'Bob <bob@example.com>' "$answer"
cp "$d/bob-forged.raw" "$d/bob-forged.eml"
sec_reply bob-answer 'Bob <bob@example.com>' "$answer"
sec_sign "$d/bob-answer.raw" "$d/bob-answer.eml" example.com
sec_append "$d/bob-forged.eml"
sec_run run6.log
[ "$(q "SELECT COUNT(*) FROM answers")" = 0 ] ||
	rb_fail "5: a forged author's reply answered a finding"
sec_append "$d/bob-answer.eml"
sec_run run7.log
[ "$(q "SELECT fid || ' ' || by_addr FROM answers")" = "$fid bob@example.com" ] ||
	rb_fail "5: positive control: Bob's signed answer: $(q "SELECT state || ' ' || COALESCE(reason, '') FROM feedback WHERE message_id = 'bob-answer@example.org'")"

# 6. The forward is public mail on the list, and a reply to it speaks to
# the review it came from: Mallory, under her own name and signed, asks
# on it what only the home section's people may, and judges F1. None of
# it counts: no verdict authorised, every request refused, no mail, no
# pause.
review=$(q "SELECT message_id FROM reviews WHERE kind = 'forward'")
[ -n "$review" ] || rb_fail "6: no forward in the store"
n_out=$(q "SELECT COUNT(*) FROM outbox")
sec_reply mallory-fwd 'Mallory <mallory@example.net>' \
	"$fid: false positive\n$fid: send\npause\nretry\n"
sec_sign "$d/mallory-fwd.raw" "$d/mallory-fwd.eml" example.net
sec_append "$d/mallory-fwd.eml"
sec_run run8.log
orig=$(q "SELECT copy_of FROM reviews WHERE kind = 'forward'")
[ -n "$orig" ] || rb_fail "6: the forward names no review it came from"
[ "$(q "SELECT review_msgid FROM feedback WHERE message_id = 'mallory-fwd@example.org'")" = "$orig" ] ||
	rb_fail "6: the reply to the forward is not taken as one to its review: $(q "SELECT review_msgid || ' ' || state FROM feedback WHERE message_id = 'mallory-fwd@example.org'")"
[ "$(q "SELECT COUNT(*) FROM verdicts WHERE reply_msgid = 'mallory-fwd@example.org' AND authorised = 1")" = 0 ] ||
	rb_fail "6: a stranger's verdict on a forward counts"
[ "$(q "SELECT COUNT(*) FROM verdicts WHERE reply_msgid = 'mallory-fwd@example.org' AND authorised = 0")" = 1 ] ||
	rb_fail "6: Mallory's verdict is not recorded as refused: $(q "SELECT state || ' ' || COALESCE(reason, '') FROM feedback WHERE message_id = 'mallory-fwd@example.org'")"
[ "$(q "SELECT COUNT(*) FROM requests WHERE reply_msgid = 'mallory-fwd@example.org' AND authorised = 0")" = 3 ] ||
	rb_fail "6: Mallory's requests: $(q "SELECT group_concat(verb || ' ' || authorised || ' ' || COALESCE(detail, ''), '; ') FROM requests WHERE reply_msgid = 'mallory-fwd@example.org'")"
[ "$(q "SELECT COUNT(*) FROM outbox")" = "$n_out" ] ||
	rb_fail "6: a stranger's reply to a forward queued mail"
[ "$(q "SELECT COUNT(*) FROM series_pause")" = 0 ] || rb_fail "6: Mallory paused the series"
echo "1 passed, 0 failed"
