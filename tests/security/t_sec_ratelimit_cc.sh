#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 38: the per-recipient limit counts the people a poster chose, and
# nothing a poster writes lifts anyone's limit.
#
# Maintainers (M:/R: from the trusted tree) have no per-recipient limit,
# so that a maintainer Cc'd on every review does not cap a list. A
# poster may try to use that, or the patch's own To/Cc, to make the bot
# mail a third party more often than rate_per_recipient_hour (2 here):
#
#  1. Mallory posts 4 patches, each from a new address of hers, each
#     Cc'ing Victim, spelt a new way each time (a name, upper case, a
#     +tag, a quoted local part). Victim is nobody's maintainer, nor the
#     patch's author: the bot's reply-all leaves her out altogether
#     (issue 33: recipients come from the author and MAINTAINERS).
#  2. Mallory posts 3 patches with the maintainer's address in From:
#     (Grace, M: of RING BUFFER). Grace is then the author, counted: 2
#     go out, 1 waits. Bob's patch to the same file, posted after, is
#     Cc'd to Grace as the maintainer and goes out in the same pass:
#     neither the spoofed mails nor Grace's author count hold it up.
#  3. An hour later (the store's clock, RB_NOW) the waiting mails go.
. "$(dirname "$0")/../integration/lib.sh"
set -e
d=$RB_TEST_DIR
export RB_NOW=1793780000
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
(
	cd "$d/demo/tree"
	commit() # NAME EMAIL DATE SUBJECT
	{
		GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2 GIT_AUTHOR_DATE=$3 \
		GIT_COMMITTER_NAME=$1 GIT_COMMITTER_EMAIL=$2 \
		GIT_COMMITTER_DATE=$3 git commit -q -s -a -m "$4"
	}
	for i in 1 2 3 4; do
		echo "/* note $i */" >>lib/ring.c
		commit Mallory "mallory$i@evil.example" \
			"2026-11-03T09:0$i:00Z" "ring: note $i"
		git format-patch -q -1 --stdout HEAD >"../m$i.patch"
		git reset -q --hard HEAD~1
	done
	for i in 1 2 3; do
		echo "/* grace $i */" >>lib/ring.c
		commit "Grace Hopper" grace@example.org \
			"2026-11-03T09:2$i:00Z" "ring: grace $i"
		git format-patch -q -1 --stdout HEAD >"../g$i.patch"
		git reset -q --hard HEAD~1
	done
	echo "/* bob */" >>lib/ring.c
	commit Bob bob@example.com 2026-11-03T10:00:00Z "ring: say why"
	git format-patch -q -1 --stdout HEAD >../bob.patch
	git reset -q --hard HEAD~1
)
victim=("Victim <victim@example.com>" "VICTIM@EXAMPLE.COM"
	"victim+rb@example.com" '"victim"@example.com')
hdr() # FILE EXTRA-HEADERS
{
	sed -e "0,/^Subject:/s//To: demo-list@example.org\n$2List-Id: <demo-list.example.org>\nSubject:/" "$1"
}
{
	for i in 1 2 3 4; do
		hdr "$d/demo/m$i.patch" "Cc: ${victim[$((i - 1))]}\n"
	done
	for i in 1 2 3; do
		hdr "$d/demo/g$i.patch" ""
	done
	hdr "$d/demo/bob.patch" ""
} >"$d/in.mbox"

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
  rate_per_recipient_hour: 2
list_ids: [demo-list.example.org]
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
      send_when_empty: true
EOC
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run.log" 2>&1 ||
	rb_fail "run: $(tail -5 "$d/run.log")"
q() { python3 -c 'import sqlite3,sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$d/rb.db" "$1"; }
show() { q "SELECT state, last_error, replace(rcpts, char(10), ' ') FROM outbox ORDER BY created_at, message_id"; }
# mails in the Maildir whose To: or Cc: holds WORD (any case)
sent_to()
{
	python3 - "$d/outbox/new" "$1" <<'PY'
import email, os, sys
n = 0
for f in os.listdir(sys.argv[1]):
    m = email.message_from_binary_file(open(os.path.join(sys.argv[1], f), "rb"))
    n += sys.argv[2].lower() in (m.get("To", "") + m.get("Cc", "")).lower()
print(n)
PY
}

[ "$(q "SELECT COUNT(*) FROM outbox")" = 8 ] ||
	rb_fail "expected 8 reviews queued: $(show)"
# Every review Cc's the maintainer and the list: they do not limit it.
[ "$(q "SELECT COUNT(*) FROM outbox WHERE rcpts LIKE '%alan@example.org%'")" = 8 ] ||
	rb_fail "the reviews do not all go to RING BUFFER's R:: $(show)"

# 1. Victim: the poster named her 4 times; no mail goes to her.
[ "$(q "SELECT COUNT(*) FROM outbox WHERE lower(rcpts) LIKE '%victim%'")" = 0 ] ||
	rb_fail "Victim, whom only the poster chose, is a recipient: $(show)"
n=$(sent_to 'victim')
[ "$n" = 0 ] || rb_fail "Victim got $n mails: $(show)"
grep -q 'event=policy.recipients_refused' "$d/run.log" ||
	rb_fail "the log does not say the Cc was left out"

# 2. Grace as the author: 2 go out, 1 waits; Bob's review is not held.
[ "$(q "SELECT COUNT(*) FROM outbox WHERE rcpts LIKE 'grace@example.org%' AND state = 'sent'")" = 2 ] ||
	rb_fail "2 of the 3 reviews to Grace as the author should go: $(show)"
[ "$(q "SELECT COUNT(*) FROM outbox WHERE rcpts LIKE 'grace@example.org%' AND state = 'queued'")" = 1 ] ||
	rb_fail "the third review to Grace as the author should wait: $(show)"
bob=$(grep -l '^To: .*bob@example.com' "$d"/outbox/new/* 2>/dev/null || true)
[ -n "$bob" ] || rb_fail "Bob's review was held up: $(show)"
tr -d '\r' <"$bob" | grep -q '^Cc: .*grace@example.org' ||
	rb_fail "Bob's review is not Cc'd to Grace as the maintainer"
# Grace got more than her 2 as the author (Bob's and Mallory's reviews
# Cc'd to her as the maintainer): the tree, not the mail, said so.
[ "$(sent_to 'grace@example.org')" -gt 2 ] ||
	rb_fail "Grace as the maintainer was limited: $(show)"

# 3. An hour later the waiting mails go, to the same people.
export RB_NOW=$((RB_NOW + 3601))
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run2.log" 2>&1 ||
	rb_fail "run 2: $(tail -5 "$d/run2.log")"
[ "$(q "SELECT COUNT(*) FROM outbox WHERE state = 'sent'")" = 8 ] ||
	rb_fail "the waiting mails did not go an hour later: $(show)"
n=$(sent_to 'victim')
[ "$n" = 0 ] || rb_fail "Victim got $n mails over two hours, not 0"
echo "1 passed, 0 failed"
