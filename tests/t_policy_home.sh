#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_policy_home.sh - a series is reviewed under its home subsystem's
# policy (issue 15), through "reviewbot run", on linux 6.1 and a real
# patch: memfd_restricted (v10 1/9) adds a syscall, so besides mm/ it
# touches the x86 syscall tables, generic headers, a uapi header and
# kernel/sys_ni.c. With every subsystem off but MEMORY MANAGEMENT
# (advisory):
#  - the series is reviewed, under MEMORY MANAGEMENT's policy, and the
#    footer names that subsystem only;
#  - the people of the sections that are off get no mail unless the
#    author had Cc'd them; the lists the patch was posted to stay where
#    MAINTAINERS names them for the touched files (kvm, which it does
#    not, is the poster's choice alone: issue 33);
#  - with policy.resolve: strictest (the old rule), the sections that are
#    off veto the review.
. "$(dirname "$0")/integration/lib.sh"
d=$RB_TEST_DIR
rb_need sqlite3
rb_need_shared corpus/apply-6.1
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
[ -d "$tree/.git" ] ||
	rb_skip "no kernel tree at $tree (scripts/setup-linux-tree.sh, or RB_LINUX_TREE)"
patch=$RB_SHARED/corpus/apply-6.1/14096226b1cd9f40bb913030edff8528e0c2cdbc.eml
[ -r "$patch" ] || rb_skip "no $patch"

# conf NAME [RESOLVE]
conf() {
	cat >"$d/$1.yaml" <<EOC
store:
  path: $d/$1.db
sources:
  - type: mbox
    path: $d/in.mbox
trees:
  - name: mainline
    path: $tree
outbox:
  maildir: $d/$1-out
admins: [admin@example.org]
policy:
  ${2:+resolve: $2}
  default:
    mode: "off"
  subsystems:
    MEMORY MANAGEMENT:
      mode: advisory
      send_when_empty: true
      checkers: [commit-msg]
EOC
	"$RB_BIN" check-config -c "$d/$1.yaml" >/dev/null 2>"$d/$1.cc" ||
		rb_fail "config $1: $(cat "$d/$1.cc")"
}
# One mbox message: the patch as posted (a 1-patch series), sent to the
# lists only, so that who else gets the review is the bot's choice.
{
	echo "From mboxrd@z Thu Jan  1 00:00:00 1970"
	/usr/bin/python3 - "$patch" <<'PY'
import re, sys
raw = open(sys.argv[1], "rb").read()
head, _, body = raw.partition(b"\n\n")
head = re.sub(rb"(?ms)^(To|Cc):.*?(?=^\S)", b"", head + b"\n")
head = head.replace(b"[PATCH v10 1/9]", b"[PATCH v10]")
head += (b"To: linux-mm@kvack.org\nCc: kvm@vger.kernel.org, "
         b"linux-kernel@vger.kernel.org, linux-api@vger.kernel.org\n")
sys.stdout.buffer.write(head.rstrip(b"\n") + b"\n\n" + body)
PY
} >"$d/in.mbox"
q() { sqlite3 "$d/$1.db" "$2"; }

conf home
"$RB_BIN" run --once -c "$d/home.yaml" 2>"$d/home.log" ||
	rb_fail "run: $(tail -5 "$d/home.log")"
st=$(q home "SELECT state || '|' || COALESCE(subsystem, '') FROM series")
[ "$st" = "reviewed|MEMORY MANAGEMENT" ] ||
	rb_fail "series: '$st', want reviewed under MEMORY MANAGEMENT: $(q home 'SELECT detail FROM series')"
n=$(ls "$d/home-out/new" | wc -l)
[ "$n" = 1 ] || rb_fail "$n mails, want 1"
m=$(tr -d '\r' <"$d/home-out/new"/*)
echo "$m" | grep -q '^reviewbot, advisory for MEMORY MANAGEMENT' ||
	rb_fail "the footer: $(echo "$m" | tail -4)"
echo "$m" | grep -q 'and [0-9]* more' && rb_fail "the footer names more than the home"
rcpt=$(echo "$m" | sed -n '/^To:/,/^Subject:/p' | tr -d '\n')
# The home section's maintainer and lists.
for want in akpm@linux-foundation.org linux-mm@kvack.org \
	linux-kernel@vger.kernel.org linux-api@vger.kernel.org; do
	echo "$rcpt" | grep -qi "$want" || rb_fail "$want is not a recipient: $rcpt"
done
echo "$rcpt" | grep -qi kvm@vger.kernel.org &&
	rb_fail "kvm@vger.kernel.org, in the Cc but no touched file's list, is a recipient: $rcpt"
# x86's maintainers and the generic headers' (a catch-all) are off, and
# the author did not Cc them; the lists of the off sections neither.
for no in tglx@linutronix.de luto@kernel.org arnd@arndb.de linux-arch@vger.kernel.org; do
	echo "$rcpt" | grep -qi "$no" &&
		rb_fail "$no (an off section) got mail: $rcpt"
done
echo "home: reviewed under MEMORY MANAGEMENT, its lists kept, off sections quiet"

conf strict strictest
"$RB_BIN" run --once -c "$d/strict.yaml" 2>"$d/strict.log" ||
	rb_fail "run: $(tail -5 "$d/strict.log")"
st=$(q strict "SELECT state || '|' || detail FROM series")
case "$st" in
"skipped|policy: off for"*) ;;
*) rb_fail "strictest: '$st', want skipped by an off section" ;;
esac
[ "$(ls "$d/strict-out/new" 2>/dev/null | wc -l)" = 0 ] ||
	rb_fail "strictest sent mail"
echo "strictest: the off sections veto the review, as before"
echo PASS
