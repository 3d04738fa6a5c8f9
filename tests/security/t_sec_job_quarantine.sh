#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: a job that kills the worker. Before, the job table never
# looked at attempts: a series whose review took the daemon down (the
# binary-delta bomb, OOM-killed in a 600 MiB limit) was claimed first
# again on every restart, and the innocent series queued behind it was
# never reviewed. Now each claim finds out whether the last one died
# with the job in hand (counted in its own transaction, before any work),
# jobs a worker died with go after the others, and after
# limits.max_job_attempts (3) such deaths the job is quarantined: its
# series gets one "could not be reviewed" note, to its author, and the
# queue moves on.
#
# Kill test (tests/t_review_kill.sh's model) through "reviewbot run" on
# SQLite: RB_FAULT=job:1:poison kills the process when the job of the
# poison series starts (after its claim's commit, before its work), as
# an OOM kill would, in every run, the last one included.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
cat >>"$d/config.yaml" <<EOC
limits:
  max_job_attempts: 3
EOC
sec_patch poison poison@evil.example 'Mallory <mallory@evil.example>'
export RB_FAULT=job:1:poison

# run N: one pass of the daemon; prints its exit status.
run() {
	set +e
	"$RB_BIN" run -c "$d/config.yaml" --once >>"$d/run$1.log" 2>&1
	echo $?
	set -e
}
mails() { # the outbox's mails to ADDRESS
	grep -l "^To: .*$1" "$d"/outbox/new/* 2>/dev/null | wc -l
}

# 1: the poison series alone; its job is the oldest.
sec_append "$d/poison.eml"
rc=$(run 1)
[ "$rc" = 137 ] || rb_fail "run 1: want SIGKILL (137), got $rc: $(tail -n 5 "$d/run1.log")"
# 2: the innocent demo series arrives; its job is queued behind.
cat "$d/demo/series.mbox" >>"$d/in.mbox"
rc=$(run 2)
[ "$rc" = 137 ] || rb_fail "run 2: want SIGKILL (137), got $rc"
# The poison job killed a worker once: the innocent series went first.
[ "$(mails ada@example.org)" -ge 1 ] ||
	rb_fail "run 2: the innocent series was not reviewed before the poison one ran again"
innocent=$(mails ada@example.org)
rc=$(run 3)
[ "$rc" = 137 ] || rb_fail "run 3: want SIGKILL (137), got $rc"
[ "$(q "SELECT lost FROM jobs WHERE key = 'poison@evil.example'")" = 2 ] ||
	rb_fail "after 3 deaths the claims counted $(q "SELECT lost FROM jobs WHERE key = 'poison@evil.example'") (the third is counted by the next claim)"
# 4: the third death is counted; the job is quarantined, not run.
rc=$(run 4)
[ "$rc" = 0 ] || rb_fail "run 4: the poison job ran again ($rc): $(tail -n 5 "$d/run4.log")"
grep -q "quarantined: the worker died 3 times" "$d/run4.log" ||
	rb_fail "run 4 does not say why: $(tail -n 5 "$d/run4.log")"
# 5: nothing more happens.
rc=$(run 5)
[ "$rc" = 0 ] || rb_fail "run 5: exit $rc"

[ "$(q "SELECT state FROM series WHERE id = 'poison@evil.example'")" = quarantined ] ||
	rb_fail "poison series: $(q "SELECT state || ' ' || COALESCE(detail, '') FROM series WHERE id = 'poison@evil.example'")"
[ "$(q "SELECT state || ' ' || lost FROM jobs WHERE key = 'poison@evil.example'")" = "failed 3" ] ||
	rb_fail "poison job: $(q "SELECT state || ' ' || lost || ' ' || COALESCE(error, '') FROM jobs WHERE key = 'poison@evil.example'")"
[ "$(mails mallory@evil.example)" = 1 ] ||
	rb_fail "$(mails mallory@evil.example) notices to the poison's author, not 1"
[ "$(mails ada@example.org)" = "$innocent" ] ||
	rb_fail "the innocent series was mailed again"
python3 - "$d/outbox/new" <<'PY' || exit 1
import email, email.policy, os, sys
for f in os.listdir(sys.argv[1]):
    m = email.message_from_binary_file(open(os.path.join(sys.argv[1], f), "rb"),
                                       policy=email.policy.default)
    if "mallory" not in m["To"]:
        continue
    b = " ".join(m.get_body(("plain",)).get_content().split())
    if m["Cc"] or "reviewbot could not review this patch" not in b or \
            "each of the 3 times it tried" not in b or \
            m["In-Reply-To"] != "<poison@evil.example>":
        sys.exit("the notice: To %s Cc %s In-Reply-To %s\n%s"
                 % (m["To"], m["Cc"], m["In-Reply-To"], b))
print("one notice to the poison's author; the innocent series reviewed once")
PY
echo "1 passed, 0 failed"
