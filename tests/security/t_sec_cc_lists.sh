#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: the poster's Cc: picks the lists. A review went to 96 lists
# that only the patch's own Cc: header named (every one a real L: of
# MAINTAINERS, so the bot took each for a list it may write to), and
# lists were never trimmed.
#
# Staged as an attacker would: the demo tree's MAINTAINERS gains 96
# sections, each with its list, none covering lib/ring.c. Mallory posts
# a patch to lib/ring.c, sent to demo-list and Cc'd to the 96 lists and
# to 40 people who maintain nothing. The review goes to the author,
# RING BUFFER's people and demo-list (the touched file's list, which the
# bot reads): not to one of the 96 lists, nor to any of the 40. With
# outbox.max_lists: 1 and a second list for the touched section, one
# list is left: the one the bot reads.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
(
	cd "$d/demo/tree"
	for i in $(seq -w 1 96); do
		printf '\nSUBSYSTEM %s\nM:\tOwner %s <owner%s@example.net>\nL:\tlist%s@vger.kernel.org\nS:\tMaintained\nF:\tdrivers/sub%s/\n' \
			"$i" "$i" "$i" "$i" "$i" >>MAINTAINERS
	done
	GIT_AUTHOR_DATE=2026-11-02T11:00:00Z GIT_COMMITTER_DATE=2026-11-02T11:00:00Z \
		git commit -q -a -m "MAINTAINERS: 96 subsystems"
)
sec_patch hostile hostile@example.org "Mallory <mallory@example.org>"
python3 - "$d/hostile.eml" <<'PY'
import sys
p = sys.argv[1]
head, body = open(p).read().split("\n\n", 1)
cc = ["list%02d@vger.kernel.org" % i for i in range(1, 97)]
cc += ["Person %d <p%d@example.com>" % (i, i) for i in range(40)]
head += "\nCc: " + ",\n ".join(cc) + "\nList-Id: <demo-list.example.org>"
open(p, "w").write(head + "\n\n" + body)
PY
sed -i 's/^admins:/list_ids: [demo-list.example.org]\nadmins:/' "$d/config.yaml"
sed -i 's/^      require_dkim: true$/      require_dkim: false/' "$d/config.yaml"
sec_append "$d/hostile.eml"
sec_run run.log
n=$(ls "$d/outbox/new" 2>/dev/null | wc -l)
[ "$n" = 1 ] || rb_fail "$n mails, want the one review: $(tail -5 "$d/run.log")"
m=$(tr -d '\r' <"$d"/outbox/new/*)
rcpt=$(echo "$m" | sed -n '/^To:/,/^Subject:/p' | tr -d '\n')
echo "$rcpt" | grep -q '^To: Mallory <mallory@example.org>' ||
	rb_fail "the review misses the poster: $rcpt"
for want in grace@example.org alan@example.org demo-list@example.org; do
	echo "$rcpt" | grep -q "$want" || rb_fail "$want is not a recipient: $rcpt"
done
echo "$rcpt" | grep -Eq 'list[0-9]+@vger' &&
	rb_fail "a list only the poster's Cc named is a recipient: $rcpt"
echo "$rcpt" | grep -q 'example.com' &&
	rb_fail "a person only the poster's Cc named is a recipient: $rcpt"
[ "$(q "SELECT lists FROM outbox")" = demo-list@example.org ] ||
	rb_fail "the outbox's lists: $(q "SELECT lists FROM outbox")"
grep -q 'event=policy.recipients_refused count=136 ' "$d/run.log" ||
	rb_fail "the log does not count the 136 left out: $(grep recipients_refused "$d/run.log")"
echo "ok 1: 96 lists and 40 people in the Cc, none of them written to"

# A cap on lists: RING BUFFER gets a second list; of the two, the one
# the bot reads (list_ids) stays.
sed -i 's/^  maildir: .*$/&\n  max_lists: 1/' "$d/config.yaml"
sed -i 's/^L:\tdemo-list@example.org$/&\nL:\tring-list@example.org/' "$d/demo/tree/MAINTAINERS"
git -C "$d/demo/tree" commit -q -a -m "MAINTAINERS: a second list"
rm -rf "$d/rb.db"* "$d/outbox"
sec_run run2.log
rcpt=$(tr -d '\r' <"$d"/outbox/new/* | sed -n '/^To:/,/^Subject:/p' | tr -d '\n')
[ "$(echo "$rcpt" | grep -o -- '-list@example.org' | wc -l)" = 1 ] ||
	rb_fail "outbox.max_lists: 1 let more lists through: $rcpt"
echo "$rcpt" | grep -q 'demo-list@example.org' ||
	rb_fail "the list the bot reads was trimmed before the others: $rcpt"
grep -q 'event=policy.recipient_capped addr=ring-list@example.org why=outbox.max_lists' "$d/run2.log" ||
	rb_fail "the trimmed list is not logged"
echo "ok 2: outbox.max_lists keeps the list the bot reads"
echo PASS
