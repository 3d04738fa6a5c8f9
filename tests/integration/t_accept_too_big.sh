#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_too_big.sh - a series over the review's size limit, through
# "reviewbot run": 30 patches adding 12,000 lines to lib/ (the limit is
# 10,000 changed lines). The author gets one mail, and it says that the
# series is too big to review. Issue 15 had such a series still applied
# so that the mail could say where it stops applying; issue 33 stopped
# that (applying what will not be reviewed only spends the apply's
# budgets on a hostile series), so:
# a series that applies and one whose patch 20 does not get the same
# kind of mail: too big, nothing about where it would stop.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../security/mail_lib.sh"
set -e
sec_setup
# Every section advisory, and the authors are told (issue 34: by
# default only the admins are).
sed -i 's/^    mode: off$/    mode: advisory\n    report_apply_failures: author/' "$d/config.yaml"
sed -i 's/^      max_findings: 10$/&\n      report_apply_failures: author/' "$d/config.yaml"

# series NAME [break]: 30 patches of 400 added lines each, as mails
# appended to the source; with "break", patch 20 appends to lib/ring.c
# instead, and its context lines are altered so that it does not apply.
series() {
	rm -rf "$d/w" && git clone -q "$d/demo/tree" "$d/w"
	(
		cd "$d/w"
		export GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org
		export GIT_COMMITTER_NAME='Ada Lovelace' GIT_COMMITTER_EMAIL=ada@example.org
		export GIT_AUTHOR_DATE=2026-11-03T09:00:00Z GIT_COMMITTER_DATE=2026-11-03T09:00:00Z
		for i in $(seq 1 30); do
			if [ "${2:-}" = break ] && [ "$i" = 20 ]; then
				printf 'int ring_gone;\n' >>lib/ring.c
			else
				seq -f "int big_${i}_%g;" 1 400 >"lib/big$i.c"
				git add "lib/big$i.c"
			fi
			git commit -q -a -m "lib: big part $i" \
				-m "Signed-off-by: Ada Lovelace <ada@example.org>"
		done
		git format-patch -q --thread --cover-letter -o "../$1" HEAD~30
	)
	if [ "${2:-}" = break ]; then
		sed -i 's/^ \(.\+\)$/ \1 changed/' "$d/$1"/0020-*.patch
	fi
	for f in "$d/$1"/*.patch; do
		sed -e '1d' -e '0,/^Subject:/s//To: demo-list@example.org\nSubject:/' \
			"$f" >"$f.eml"
		sec_append "$f.eml"
	done
}

series big ""
sec_run run1.log
ls "$d/outbox/new" >"$d/first"
series broken break
sec_run run2.log
n=$(ls "$d/outbox/new" | wc -l)
[ "$n" = 2 ] || rb_fail "want 2 mails (one per series), got $n: $(grep -v level=info "$d/run2.log" | tail -n 5)"
python3 - "$d/outbox/new" "$d/first" <<'PY' || exit 1
import email, email.policy, os, sys
got = {}
for f in os.listdir(sys.argv[1]):
    m = email.message_from_binary_file(open(os.path.join(sys.argv[1], f), "rb"),
                                       policy=email.policy.default)
    body = " ".join(m.get_body(("plain",)).get_content().split())
    got["big" if f in open(sys.argv[2]).read().split() else "broken"] = (m, body)
ok = True
for k, (m, body) in got.items():
    if "too big to review" not in body or "has not reviewed" not in body \
            or "could not apply" in body:
        print("%s: does not say it is too big:\n%s" % (k, body)); ok = False
    if "applies cleanly" in body or "ring.c" in body:
        print("%s: says where it would stop applying:\n%s" % (k, body)); ok = False
    if m["To"] != "Ada Lovelace <ada@example.org>" or m["Cc"]:
        print("%s: not to the author alone: To %s Cc %s" % (k, m["To"], m["Cc"])); ok = False
if sorted(got) != ["big", "broken"]:
    print("want a mail for each series: %s" % sorted(got)); ok = False
if ok:
    print("both mails say the series is too big to review, and no more")
sys.exit(0 if ok else 1)
PY
echo "1 passed, 0 failed"
