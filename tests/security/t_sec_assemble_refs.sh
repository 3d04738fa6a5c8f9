#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 38: a pass assembles only the threads its new mail touches,
# walking the store's index of Message-ID, In-Reply-To and References
# (bot/stages/assemble.c). A poster chooses those headers, so he can
# make the walk long or make it loop. In passes of "reviewbot run --once":
#  A. a reply whose References names 4,000 ids (none stored) and the
#     patch: the pass walks them and ends, the series unchanged;
#  B. two replies that name each other (In-Reply-To and References),
#     and one that names itself: a cycle, walked once;
#  C. sixteen replies of 4,000 fresh References each in one pass: the
#     walk passes its budget, counted inside it, and the pass assembles
#     the whole store instead (event=assemble.full), once;
#  D. then a reply elsewhere: an ordinary pass again, no fallback;
#  E. a reply into the thread that C made huge: the walk passes its
#     budget again and the pass assembles the whole store (what every
#     pass cost before issue 38), and ends.
# The patch is reviewed once; every message is assembled; each pass
# ends (a timeout kills a loop).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
sec_patch p1 p1@example.org
sec_append "$d/p1.eml"
sec_run run1.log
[ "$(q "SELECT COUNT(*) FROM series")" = 1 ] ||
	rb_fail "the patch is not one series"

# reply NAME IRT REFS-FILE: a reply $d/NAME.eml.
reply()
{
	python3 - "$d/$1.eml" "$1" "$2" "$3" <<'PY'
import sys
dst, name, irt, refs = sys.argv[1:5]
refs = open(refs).read().strip() if refs != "-" else ""
open(dst, "w").write(
    "From: Bob Roe <bob@example.org>\nTo: demo-list@example.org\n"
    "Subject: Re: [PATCH] ring: note that a new ring is empty\n"
    "Date: Thu, 5 Nov 2026 10:00:00 +0000\n"
    "Message-ID: <%s@example.org>\nIn-Reply-To: <%s>\n%s\n"
    "A word.\n" % (name, irt, ("References: " + refs) if refs else ""))
PY
}

# A: 4,000 References, then the patch.
python3 -c 'print(" ".join("<a%d@nowhere.example>" % i for i in range(4000)) + " <p1@example.org>")' >"$d/refs-a"
reply big p1@example.org "$d/refs-a"
# B: a cycle of two, and one that names itself.
echo "<c2@example.org>" >"$d/refs-c1"
echo "<c1@example.org>" >"$d/refs-c2"
echo "<self@example.org> <c1@example.org>" >"$d/refs-self"
reply c1 c2@example.org "$d/refs-c1"
reply c2 c1@example.org "$d/refs-c2"
reply self self@example.org "$d/refs-self"
sec_append "$d/big.eml" "$d/c1.eml" "$d/c2.eml" "$d/self.eml"
timeout 120 "$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run2.log" ||
	rb_fail "pass A/B failed or looped: $(tail -n 20 "$d/run2.log")"
! grep -q 'event=assemble.full' "$d/run2.log" ||
	rb_fail "4,000 References should fit the walk's budget"
[ "$(q "SELECT COUNT(*) FROM msg_links WHERE message_id = 'big@example.org'")" = 4001 ] ||
	rb_fail "the big reply's links: $(q "SELECT COUNT(*) FROM msg_links WHERE message_id = 'big@example.org'")"

# C: sixteen replies of 4,000 fresh References each, in one pass.
for k in $(seq 1 16); do
	python3 -c "import sys; print(' '.join('<h$k.%d@nowhere.example>' % i for i in range(4000)) + ' <p1@example.org>')" >"$d/refs-h$k"
	reply "h$k" p1@example.org "$d/refs-h$k"
	sec_append "$d/h$k.eml"
done
timeout 300 "$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run3.log" ||
	rb_fail "pass C failed or looped: $(tail -n 20 "$d/run3.log")"
[ "$(grep -c 'event=assemble.full' "$d/run3.log")" = 1 ] ||
	rb_fail "pass C did not fall back to the whole store once: $(grep assemble "$d/run3.log")"

# D: a reply in another thread, an ordinary pass.
reply late elsewhere@example.org -
sec_append "$d/late.eml"
sec_run run4.log
! grep -q 'event=assemble.full' "$d/run4.log" ||
	rb_fail "pass D fell back to the whole store"
# E: a reply into the huge thread.
reply late2 p1@example.org -
sec_append "$d/late2.eml"
timeout 300 "$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run5.log" ||
	rb_fail "pass E failed or looped: $(tail -n 20 "$d/run5.log")"
[ "$(grep -c 'event=assemble.full' "$d/run5.log")" = 1 ] ||
	rb_fail "pass E: the walk of 68,000 ids fit a budget of 50,000?"

[ "$(q "SELECT COUNT(*) FROM series")" = 1 ] ||
	rb_fail "series: $(q "SELECT group_concat(id) FROM series")"
[ "$(q "SELECT COUNT(*) FROM jobs WHERE kind = 'review'")" = 1 ] ||
	rb_fail "the patch was queued for review more than once"
[ "$(q "SELECT COUNT(*) FROM messages WHERE arrival IS NULL")" = 0 ] ||
	rb_fail "messages no assembly saw: $(q "SELECT group_concat(message_id) FROM messages WHERE arrival IS NULL")"
[ "$(q "SELECT COUNT(*) FROM feedback")" = 22 ] ||
	rb_fail "replies looked at: $(q "SELECT COUNT(*) FROM feedback") of 22"
echo PASS
