#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17: a rate-limited mail does not hold up the rest of the outbox,
# and a mailing list has no per-recipient limit.
#
# Mallory floods the list with small patches to lib/ring.c. Their reviews
# go to her, RING BUFFER's people and the list. With a per-recipient limit
# of 2 an hour, her third review must wait (the limit protects people);
# Bob's patch to the Makefile, posted after the flood, goes to Bob and
# the same list (THE REST), and must go out in the same pass:
# neither Mallory's waiting mail nor the list's count may hold it up.
# Before the fix the sender stopped at the first mail it might not send,
# and the list, which gets every review, hit its own limit.
. "$(dirname "$0")/../integration/lib.sh"
set -e
d=$RB_TEST_DIR
export RB_NOW=1793780000
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
(
	cd "$d/demo/tree"
	# THE REST without a maintainer: Bob's review goes to Bob and the
	# list only, no person Mallory's reviews go to.
	sed -i '/^M:	Ada Lovelace/d' MAINTAINERS
	git -c user.name=t -c user.email=t@example.org commit -q -a \
		--amend --no-edit
	commit() # NAME EMAIL DATE FILE SUBJECT
	{
		GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2 GIT_AUTHOR_DATE=$3 \
		GIT_COMMITTER_NAME=$1 GIT_COMMITTER_EMAIL=$2 \
		GIT_COMMITTER_DATE=$3 git commit -q -s -a -m "$5"
	}
	for i in 1 2 3; do
		echo "/* note $i */" >>lib/ring.c
		commit Mallory mallory@evil.example "2026-11-03T09:0$i:00Z" \
			lib/ring.c "ring: note $i"
		git format-patch -q -1 --stdout HEAD >"../m$i.patch"
		git reset -q --hard HEAD~1
	done
	echo "# built by make" >>Makefile
	commit Bob bob@example.com 2026-11-03T10:00:00Z Makefile \
		"make: say how the tree is built"
	git format-patch -q -1 --stdout HEAD >../bob.patch
	git reset -q --hard HEAD~1
)
for f in m1 m2 m3 bob; do
	sed -e '0,/^Subject:/s//To: demo-list@example.org\nList-Id: <demo-list.example.org>\nSubject:/' \
		"$d/demo/$f.patch"
done >"$d/in.mbox"

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
    THE REST:
      mode: advisory
      send_when_empty: true
EOC
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run.log" 2>&1 ||
	rb_fail "run: $(tail -5 "$d/run.log")"
q() { python3 -c 'import sqlite3,sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$d/rb.db" "$1"; }

[ "$(q "SELECT COUNT(*) FROM outbox")" = 4 ] ||
	rb_fail "expected 4 reviews queued: $(q "SELECT rcpts FROM outbox")"
# The positive control: the limit still protects people.
n=$(grep -l '^To: .*mallory@evil.example' "$d"/outbox/new/* 2>/dev/null | wc -l)
[ "$n" = 2 ] || rb_fail "expected 2 of Mallory's 3 reviews sent, got $n"
[ "$(q "SELECT COUNT(*) FROM outbox WHERE state = 'queued' AND last_error LIKE 'rate limit%' AND rcpts LIKE '%mallory@evil.example%'")" = 1 ] ||
	rb_fail "Mallory's third review is not waiting for the rate limit: $(q "SELECT state, last_error, rcpts FROM outbox")"
# Bob's review went out in the same pass, to the list as well.
bob=$(grep -l '^To: .*bob@example.com' "$d"/outbox/new/* 2>/dev/null || true)
[ -n "$bob" ] || rb_fail "Bob's review was held up by Mallory's: $(q "SELECT state, last_error, replace(rcpts, char(10), ' ') FROM outbox")"
tr -d '\r' <"$bob" | grep -q 'demo-list@example.org' ||
	rb_fail "Bob's review does not go to the list"
[ "$(q "SELECT state FROM outbox WHERE rcpts LIKE '%bob@example.com%'")" = sent ] ||
	rb_fail "Bob's review is not marked sent"
echo "1 passed, 0 failed"
