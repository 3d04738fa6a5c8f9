#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_run_scope.sh - issue 34, through "reviewbot run --once": nothing
# wrong to anyone, the right person always reached.
#
#  1. Scope before anything is said. Real mail of the linux-api archive
#     (tests/data/scope/): a man-pages patch (man2/link.2) and the
#     numactl series "numa balancing: Migrate on fault among multiple
#     bound nodes" (-V6: 1/3 the kernel, 2/3 man-pages, 3/3 numactl,
#     whose in-body From: is caritas@localhost). On the demo tree no
#     patch of either is for the tree: both are recorded, and nobody is
#     told anything, though every section is advisory and apply failures
#     go to the author. With the linux 6.1 tree (when set up), the
#     kernel patch is kept and the other two are left out: whatever goes
#     out is about 1/3 only, says so, and never goes to caritas@localhost.
#  2. The right person. Bob posts Ada's patch (her in-body From:): the
#     review goes to Bob, the sender; Ada gets it only where Bob Cc'd
#     her, as git send-email does. A patch that does not apply tells the
#     admins by default, and Bob (not Ada) where the section opted in.
#  3. Latency is the bot's own: a patch dated 2019, replayed now, was
#     reviewed seconds after the bot received it.
. "$(dirname "$0")/integration/lib.sh"
set -e
d=$RB_TEST_DIR
data=$RB_SRC/tests/data/scope
export RB_NOW=1793700000
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
q() { python3 -c 'import sqlite3,sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$1" "$2"; }

# conf NAME TREE MBOX [DEFAULT-POLICY-LINES]: every section advisory; with
# RING=1, only RING BUFFER (the demo tree's THE REST names Ada).
conf() {
	cat >"$d/$1.yaml" <<EOC
store:
  path: $d/$1.db
sources:
  - type: mbox
    path: $3
trees:
  - name: t
    path: $2
outbox:
  maildir: $d/$1-out
admins: [admin@example.org]
policy:
  default:
    mode: $([ -n "${RING:-}" ] && echo '"off"' || echo advisory)
    send_when_empty: true
${4:-}
${RING:+  subsystems:
    RING BUFFER:
      mode: advisory
      send_when_empty: true}
EOC
	"$RB_BIN" check-config -c "$d/$1.yaml" >/dev/null 2>"$d/$1.cc" ||
		rb_fail "config $1: $(cat "$d/$1.cc")"
}
run() {
	"$RB_BIN" run --once -c "$d/$1.yaml" >"$d/$1.out" 2>"$d/$1.log" ||
		rb_fail "run $1: $(tail -5 "$d/$1.log")"
}
mails() { ls "$d/$1-out/new" 2>/dev/null | wc -l; }

# 1. Another project's patches, on the demo tree: silence.
cat "$data/man-pages-link.mbox" "$data/numa-balancing-v6.mbox" >"$d/foreign.mbox"
conf foreign "$d/demo/tree" "$d/foreign.mbox" "    report_apply_failures: author"
run foreign
[ "$(mails foreign)" = 0 ] ||
	rb_fail "mail about another project's patches: $(cat "$d"/foreign-out/new/* | tr -d '\r' | head -20)"
st=$(q "$d/foreign.db" "SELECT state, detail FROM series ORDER BY id")
[ "$(echo "$st" | grep -c '^skipped|not for these trees: ')" = 2 ] ||
	rb_fail "the two series are not recorded as not for the tree: $st"
echo "$st" | grep -q 'man2/link.2 is outside' ||
	rb_fail "the man-pages patch's path is not named: $st"
grep -q 'not for these trees' "$d/foreign.out" ||
	rb_fail "the summary does not count them: $(cat "$d/foreign.out")"
echo "ok 1: a man-pages patch and a numactl series on the demo tree: recorded, nothing sent"

tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
if [ -d "$tree/.git" ]; then
	conf numa "$tree" "$data/numa-balancing-v6.mbox" \
		"    report_apply_failures: author"
	run numa
	st=$(q "$d/numa.db" "SELECT state FROM series")
	case $st in
	apply_failed | reviewed) ;;
	*) rb_fail "the kernel patch of the series was not taken up: $st $(q "$d/numa.db" 'SELECT detail FROM series')" ;;
	esac
	[ "$(mails numa)" -ge 1 ] || rb_fail "nothing said about the kernel patch"
	for f in "$d"/numa-out/new/*; do
		m=$(tr -d '\r' <"$f")
		echo "$m" | grep -qi 'caritas@localhost' &&
			rb_fail "a mail names caritas@localhost: $(echo "$m" | sed -n '/^To:/,/^Subject:/p')"
		echo "$m" | grep -q '^In-Reply-To: <20201126053219.234793-[34]-' &&
			rb_fail "a reply to the man-pages or numactl patch"
		echo "$m" | grep -q 'Patches 2/3 and 3/3 change files outside these trees' ||
			rb_fail "the mail does not say 2/3 and 3/3 were left out: $m"
		echo "$m" | grep -q '^To: .*ying.huang@intel.com' ||
			rb_fail "the mail misses the poster: $(echo "$m" | sed -n '/^To:/,/^Subject:/p')"
	done
	echo "ok 1b: on linux 6.1 the kernel patch alone ($st), 2/3 and 3/3 left out"
else
	echo "SKIP 1b: no linux 6.1 tree at $tree (scripts/setup-linux-tree.sh)"
fi

# 2. Bob posts Ada's patches. The demo series, from Bob, each patch with
# Ada's in-body From: (patch 2 has no Signed-off-by); once without Ada
# in the Cc, once with her; and a patch that does not apply.
python3 - "$d/demo/series.mbox" "$d" <<'PY'
import re, sys
src, d = sys.argv[1:3]
parts = [p for p in re.split(r"(?m)^(?=From [0-9a-f]{40} )", open(src).read()) if p]
def bob(cc_ada, tag, date=None):
    out = []
    for p in parts:
        head, _, body = p.partition("\n\n")
        m = re.search(r"(?m)^From: (.*)$", head)
        author = m.group(1)
        head = head.replace("From: " + author, "From: Bob Sender <bob@example.com>")
        head = re.sub(r"(?m)^Message-I[Dd]: <", "Message-ID: <%s-" % tag, head)
        head = re.sub(r"(?m)^(In-Reply-To|References): <", r"\1: <%s-" % tag, head)
        head += "\nTo: demo-list@example.org"
        if cc_ada:
            head += "\nCc: " + author
        if date:
            head = re.sub(r"(?m)^Date: .*$", "Date: " + date, head)
        if "Subject: [PATCH 0/" not in head:
            body = "From: %s\n\n%s" % (author, body)
        out.append(head + "\n\n" + body)
    return "".join(out)
open(d + "/bob.mbox", "w").write(bob(False, "nocc"))
open(d + "/bobcc.mbox", "w").write(bob(True, "cc"))
open(d + "/old.mbox", "w").write(bob(False, "old", "Tue, 14 May 2019 09:00:00 +0000"))
PY
grep -q '^Message-ID: <nocc-' "$d/bob.mbox" || rb_fail "the staged series has no Message-ID to tag"
export RING=1
conf bob "$d/demo/tree" "$d/bob.mbox"
run bob
[ "$(mails bob)" -ge 1 ] || rb_fail "no review of Bob's series: $(tail -5 "$d/bob.log")"
for f in "$d"/bob-out/new/*; do
	h=$(tr -d '\r' <"$f" | sed -n '/^To:/,/^Subject:/p' | tr -d '\n')
	echo "$h" | grep -q '^To: Bob Sender <bob@example.com>' ||
		rb_fail "a review does not go to the sender: $h"
	echo "$h" | grep -qi 'ada@example.org' &&
		rb_fail "Ada, whom Bob did not Cc, is a recipient: $h"
done
# The sign-off finding speaks to Bob about Ada.
m=$(cat "$d"/bob-out/new/* | tr -d '\r' | tr '\n' ' ')
echo "$m" | grep -q 'could they add their Signed-off-by:' && echo "$m" | grep -q 'or if you did' &&
	rb_fail "the old wording that speaks to the person it names"
echo "ok 2: Bob's post of Ada's patches is answered to Bob"

conf bobcc "$d/demo/tree" "$d/bobcc.mbox"
run bobcc
n=0
for f in "$d"/bobcc-out/new/*; do
	h=$(tr -d '\r' <"$f" | sed -n '/^To:/,/^Subject:/p' | tr -d '\n')
	echo "$h" | grep -q '^To: Bob Sender <bob@example.com>' ||
		rb_fail "a review does not go to the sender: $h"
	echo "$h" | grep -q 'Cc: .*ada@example.org' && n=$((n + 1))
done
[ "$n" -ge 1 ] || rb_fail "Ada, whom Bob Cc'd, got no review"
echo "ok 3: Ada gets it where Bob Cc'd her"

# A patch that applies nowhere: the admins by default, Bob where the
# section opted in, never Ada.
python3 - "$d/bob.mbox" "$d/broken.mbox" <<'PY'
import re, sys
s = open(sys.argv[1]).read().replace("<nocc-", "<broken-")
# Every context line of the diffs changed: nothing applies.
s = re.sub(r"(?m)^ (\S)", r" XX\1", s)
open(sys.argv[2], "w").write(s)
PY
conf broken "$d/demo/tree" "$d/broken.mbox"
run broken
for f in "$d"/broken-out/new/*; do
	h=$(tr -d '\r' <"$f" | sed -n '/^To:/,/^Subject:/p' | tr -d '\n')
	[ "$h" = "${h#To: admin@example.org}" ] &&
		rb_fail "an apply failure goes to someone else than the admins by default: $h"
done
[ "$(mails broken)" = 1 ] || rb_fail "$(mails broken) apply-failure notices, want 1 to the admins"
sed -i 's/^      send_when_empty: true$/&\n      report_apply_failures: author/' "$d/broken.yaml"
rm -rf "$d/broken.db"* "$d/broken-out"
run broken
[ "$(mails broken)" = 1 ] || rb_fail "$(mails broken) notices where the section opted in, want 1"
h=$(tr -d '\r' <"$d"/broken-out/new/* | sed -n '/^To:/,/^Subject:/p' | tr -d '\n')
echo "$h" | grep -q '^To: Bob Sender <bob@example.com>' ||
	rb_fail "the author notice misses the poster: $h"
echo "$h" | grep -qi 'ada@example.org' && rb_fail "the notice goes to Ada: $h"
echo "ok 4: apply failures: the admins by default, the poster where opted in"

# 3. A replayed 2019 mail: the latency is from when the bot got it.
conf old "$d/demo/tree" "$d/old.mbox"
run old
[ "$(mails old)" -ge 1 ] || rb_fail "no review of the 2019 series"
"$RB_BIN" stats --json -c "$d/old.yaml" >"$d/stats.json" 2>/dev/null ||
	rb_fail "stats failed"
max=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["review_mails"]["latency_max_s"])' "$d/stats.json")
[ "$max" -lt 3600 ] ||
	rb_fail "a replayed 2019 mail shows $max s to review: the mail's Date, not when it was received"
echo "ok 5: a replayed 2019 mail was reviewed in ${max} s"
echo PASS
