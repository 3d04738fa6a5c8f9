#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_prereq.sh - issue 18, prerequisites: a patch built on top of
# the demo series (it changes ring_free(), which the series' patch 3
# adds) applies only with that series applied first. The daemon
# ("reviewbot run") has the demo series in its store; then
#  1. the patch as "git format-patch --base" writes it (base-commit: and
#     a prerequisite-patch-id: per commit in between) is reviewed, the
#     series found among the stored patches by patch-id;
#  2. the same patch as b4 writes it (prerequisite-message-id: naming
#     the series' cover, then the patch-ids) is reviewed, the series
#     applied whole;
#  3. the same patch naming a Message-ID reviewbot never stored gets the
#     apply-failure mail, which names that prerequisite.
. "$(dirname "$0")/accept_lib.sh"
acc_ring "      send_when_empty: true
      report_apply_failures: author"
mbox=$d/demo/series.mbox

# The patch on top of the series, in a scratch clone of the demo tree.
(
	set -e
	git clone -q "$d/demo/tree" "$d/work"
	cd "$d/work"
	export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.org
	export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.org
	export GIT_AUTHOR_DATE=2026-11-04T09:00:00Z GIT_COMMITTER_DATE=2026-11-04T09:00:00Z
	base=$(git rev-parse HEAD)
	git am -q "$d"/demo/patches/000[1-3]-*.patch
	sed -i 's/\tr->slots = NULL;/&\n\tr->size = 0;/' lib/ring.c
	git commit -q -a -s -m "ring: forget the size in ring_free()

A freed ring must not look usable: ring_push() on it would store
through a NULL pointer."
	git format-patch -q -1 --stdout --base="$base" HEAD >"$d/on-top.patch"
) >"$d/work.log" 2>&1 || rb_fail "making the patch on top: $(cat "$d/work.log")"
grep -c '^prerequisite-patch-id: ' "$d/on-top.patch" | grep -qx 3 ||
	rb_fail "git format-patch --base wrote no 3 prerequisite-patch-id lines"

# on-top.patch as a list mail: NAME MSGID, and what replaces the
# prerequisite lines (empty: keep them).
mail_of()
{
	$PY - "$d/on-top.patch" "$d/$1.eml" "$2" "$3" <<'PY'
import re, sys
src, dst, mid, pre = sys.argv[1:5]
s = open(src).read()
s = s.split("\n", 1)[1]  # the "From <sha>" line of format-patch
head, body = s.split("\n\n", 1)
head = head.replace("Subject:", "To: demo-list@example.org\nList-Id:"
                    " <demo-list.example.org>\nMessage-Id: <%s>\nSubject:"
                    % mid, 1)
if pre:
    body = re.sub(r"^prerequisite-patch-id: .*\n", "", body, flags=re.M)
    body = body.replace("\nbase-commit:", "\n" + pre.replace("\\n", "\n")
                        + "\nbase-commit:", 1)
open(dst, "w").write(head + "\n\n" + body)
PY
}

acc_feed "$mbox" ""
acc_settle
cover=$(acc_check "$mbox" <<'PY'
print(acc.msgid(sys.argv[1], 0).strip("<>"))
PY
)
[ -n "$cover" ] || rb_fail "no cover Message-Id in $mbox"
pids=$(grep '^prerequisite-patch-id: ' "$d/on-top.patch" | tr '\n' '#' |
	sed 's/#$//; s/#/\\n/g')

mail_of git-base on-top-1@example.org ""
mail_of b4 on-top-2@example.org "prerequisite-message-id: <$cover>\\n$pids"
mail_of missing on-top-3@example.org \
	"prerequisite-message-id: <never-sent@example.org>"
acc_feed "$d/git-base.eml" ""
acc_feed "$d/b4.eml" ""
acc_feed "$d/missing.eml" ""
acc_settle

acc_check <<'PY' || exit 1
want = {"git format-patch --base": 'prerequisite patches "ring: add'
        ' ring_count()", "ring: refuse a ring of size zero", "ring: add'
        ' ring_free()".',
        "b4's prerequisite-message-id": 'prerequisite series "ring: small'
        ' fixes and helpers" (3 patches).'}
for mid, how in (("<on-top-1@example.org>", "git format-patch --base"),
                 ("<on-top-2@example.org>", "b4's prerequisite-message-id")):
    m = acc.review_to(mid)
    b = acc.flat(m["body"])
    acc.check(m["subject"] == "Re: [PATCH] ring: forget the size in"
              " ring_free()" and "Advisory review of" in b,
              "%s: want a review, got:\n%s" % (how, acc.show([m])))
    acc.check("Applied first: " + want[how] in b,
              "%s: the review does not say the prerequisites went first:"
              "\n%s" % (how, m["body"]))
    acc.check("Missing prerequisites" not in b, "%s: %s" % (how, b))
r = acc.q("SELECT id, state FROM series WHERE id LIKE 'on-top-%'"
          " ORDER BY id")
acc.check(r == [("on-top-1@example.org", "reviewed"),
                ("on-top-2@example.org", "reviewed"),
                ("on-top-3@example.org", "apply_failed")],
          "series states: %s" % r)
m = acc.review_to("<on-top-3@example.org>")
b = acc.flat(m["body"])
acc.check("could not apply this patch" in b and
          "Prerequisites it could not use: prerequisite-message-id"
          " <never-sent@example.org> is not stored." in b,
          "the failure mail does not name the missing prerequisite:\n"
          + m["body"])
acc.check(m["rcpt"] == ["ada@example.org"], "failure mail to %s" % m["rcpt"])
PY
echo "ok 1: prerequisites by patch-id and by message-id applied first; a missing one named"
acc_stop
echo PASS
