#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_workers_pg.sh - scale-out on a real PostgreSQL 15 (issue 11): two
# ingest processes (one leader by advisory lock, one standby), four
# workers and two senders, all "reviewbot run --role ...", share one
# store. 200 copies of the demo series (each its own Message-IDs) come
# from a Maildir. Along the way:
#  - the ingest leader is SIGKILLed; the standby takes over;
#  - a worker is SIGKILLed in the middle of its jobs (up to
#    review.parallel_series at once): each lease runs out and another
#    worker finishes each job;
#  - a worker gets SIGTERM in the middle of its jobs: it finishes them,
#    then exits 0 (a drain).
# Each of the two gone is replaced, so four workers run at any time.
# Also runs tests/test_metrics on this PostgreSQL.
# At the end each series was reviewed exactly once (one worker.done per
# series across all workers), the SMTP sink (aiosmtpd) holds each mail
# once, and the workers' counters add up.
here=$(cd "$(dirname "$0")" && pwd)
# A directory of our own, out of the way of sweeps of /tmp/rb-test.*.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/rb-workers.XXXXXX")
chmod 0755 "$TMPDIR"
export TMPDIR
. "$here/lib.sh"
trap 'rb_cleanup; rmdir "$TMPDIR"' EXIT
d=$RB_TEST_DIR
N=${RB_WORKERS_SERIES:-200}
LEASE=6
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || rb_skip "no aiosmtpd"
rb_need psql
chmod 0755 "$d"
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
# The workers' own copy of the tree, made before the change below: they
# fetch the change themselves (trees[].url, fetch_minutes) when they start.
git clone -q --bare "$d/demo/tree" "$d/clone.git" || rb_fail "git clone"
# Each review must take a while, so that a worker can be caught in the
# middle of one: the tree ships a scripts/checkpatch.pl (run from the
# configured branch tip in the sandbox, as the kernel's is) that takes
# 0.25 s and finds nothing, or 8 s for a series whose patches say
# "rb-slow-review" (the sandbox clears the environment, so the patch is
# what can tell it).
mkdir -p "$d/demo/tree/scripts"
cat >"$d/demo/tree/scripts/checkpatch.pl" <<'PL'
my $s = 0.25;
for my $f (@ARGV) {
	open(my $h, '<', $f) or next;
	local $/;
	my $t = <$h>;
	$s = 8 if defined $t && $t =~ /rb-slow-review/;
}
select(undef, undef, undef, $s);
exit 0;
PL
git -C "$d/demo/tree" add scripts/checkpatch.pl
git -C "$d/demo/tree" -c user.name=t -c user.email=t@example.org \
	commit -q --amend --no-edit || rb_fail "git commit"

# N copies of the demo series into a Maildir, each copy with its own
# Message-IDs (and In-Reply-To and References to match); one more into
# $d/later for the last part.
/usr/bin/python3 - "$d/demo/series.mbox" "$d/in" "$N" <<'PY'
import os, re, sys
mbox, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for sub in ("tmp", "new", "cur"):
    os.makedirs(os.path.join(out, sub), exist_ok=True)
msgs, cur = [], None
for line in open(mbox, "rb"):
    if line.startswith(b"From ") and (cur is None or cur[-1] == b"\n"):
        if cur is not None:
            msgs.append(b"".join(cur))
        cur = []
        continue
    cur.append(re.sub(rb"^>(>*From )", rb"\1", line))
msgs.append(b"".join(cur))
for c in range(n + 1):
    tag = b"w%d" % c
    for j, m in enumerate(msgs):
        head, _, body = m.partition(b"\n\n")
        head = re.sub(rb"<([^>@]+)@", lambda x: b"<" + x.group(1) + b"." +
                      tag + b"@", head)
        # The base is the tree's head, which the test amends.
        body = re.sub(rb"(?m)^base-commit: .*\n", b"", body)
        if c == n:
            # The last series is the slow one (the checkpatch.pl above).
            body = body.replace(b"\n---\n", b"\n\nrb-slow-review\n---\n", 1)
        d = os.path.join(out, "new") if c < n else out + "/../later"
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "%05d.%d.eml" % (c, j)), "wb") as f:
            f.write(head + b"\n\n" + body)
PY

rb_start_pg
# The config holds no user name (check-config refuses one): libpq's own.
export PGUSER=reviewbot
mkdir -p "$d/sink"
rb_start_aiosmtpd "$d/sink"
cat >"$d/config.yaml" <<EOC
store:
  url: postgresql://127.0.0.1:$RB_PG_PORT/reviewbot
sources:
  - type: maildir
    name: lists
    path: $d/in
    poll_seconds: 10
smtp:
  url: smtp://127.0.0.1:$RB_SMTP_PORT
  from: reviewbot <reviewbot@example.org>
  starttls: "off"
list_ids: [demo-list.example.org]
trees:
  - name: demo
    path: $d/clone.git
    url: $d/demo/tree
    branch: master
    fetch_minutes: 1
outbox:
  maildir: $d/outbox
  rate_per_hour: 10000
  rate_per_recipient_hour: 10000
  rate_per_list_hour: 10000
admins: [admin@example.org]
policy:
  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
"$RB_BIN" check-config -c "$d/config.yaml" >/dev/null 2>"$d/cc.log" ||
	rb_fail "config: $(cat "$d/cc.log")"
"$RB_BIN" migrate --store "$RB_PG_URL" >/dev/null || rb_fail "migrate"
# The counters' and leases' unit tests on PostgreSQL, in a database of
# their own (they empty their tables).
psql -h 127.0.0.1 -p "$RB_PG_PORT" -d postgres -qc 'CREATE DATABASE metrics'
RB_TEST_PG_URL=postgresql://127.0.0.1:$RB_PG_PORT/metrics \
	"$RB_BUILD/tests/test_metrics" >"$d/test_metrics.log" 2>&1 ||
	rb_fail "test_metrics on PostgreSQL: $(cat "$d/test_metrics.log")"
q() { psql -h 127.0.0.1 -p "$RB_PG_PORT" -U reviewbot -d reviewbot -qtAc "$1"; }
pid() { cat "$d/$1.pid"; }
# wait_for SECONDS SQL WANT
wait_for() {
	local i=0 got=
	while [ $i -lt $(($1 * 10)) ]; do
		got=$(q "$2" 2>/dev/null)
		[ "$got" = "$3" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "waited $1 s for '$2' = '$3', got '$got'" >&2
	return 1
}

run() { rb_start "$1" "$RB_BIN" run -c "$d/config.yaml" --name "$1" "${@:2}"; }
t0=$(date +%s.%N)
run ingest1 --role ingest
for i in $(seq 100); do
	grep -q 'event=ingest.leader' "$d/ingest1.log" && break
	sleep 0.05
done
grep -q 'event=ingest.leader' "$d/ingest1.log" || rb_fail "ingest1 is not the leader: $(cat "$d/ingest1.log")"
run ingest2 --role ingest
for i in $(seq 100); do
	grep -q 'event=ingest.standby' "$d/ingest2.log" && break
	sleep 0.05
done
grep -q 'event=ingest.standby' "$d/ingest2.log" ||
	rb_fail "ingest2 is not a standby: $(cat "$d/ingest2.log")"
for w in w1 w2 w3 w4; do
	run $w --role worker --lease $LEASE
done
run send1 --role sender
run send2 --role sender

# The workers fetched their copy of the tree.
wait_for 30 "SELECT count(*) >= 4 FROM workers WHERE role = 'worker'" t
for i in $(seq 100); do
	grep -q 'event=tree.fetched' "$d"/w[1-4].log && break
	sleep 0.1
done
grep -q 'event=tree.fetched' "$d"/w[1-4].log ||
	rb_fail "no worker fetched the tree: $(grep -h tree. "$d"/w[1-4].log)"
[ "$(git -C "$d/clone.git" rev-parse master)" = "$(git -C "$d/demo/tree" rev-parse master)" ] ||
	rb_fail "the fetch did not move the workers' branch"
echo "workers fetched their tree: $(grep -l 'event=tree.fetched' "$d"/w[1-4].log | wc -l) of 4"

# The ingest leader dies once some mail is stored; the standby goes on.
wait_for 30 "SELECT count(*) > 40 FROM messages" t || rb_fail "no ingest"
kill -KILL "$(pid ingest1)"
for i in $(seq 100); do
	grep -q 'event=ingest.leader' "$d/ingest2.log" && break
	sleep 0.1
done
grep -q 'event=ingest.leader' "$d/ingest2.log" ||
	rb_fail "the standby did not take over in 10 s"
echo "ingest: the standby took over from the SIGKILLed leader"

# A worker SIGKILLed in the middle of a job.
wait_for 60 "SELECT count(*) >= 10 FROM jobs WHERE state = 'done'" t ||
	rb_fail "the workers do not get going: $(tail -5 "$d/w1.log")"
# Under load w1 may end the job it was seen on before the kill lands: what
# counts is the job w1 holds when it dies, read after the kill (a dead
# worker's rows no longer move). When it held none, it is started again
# and caught in its next job.
lost=
for try in 1 2 3 4 5; do
	busy=
	for i in $(seq 500); do
		busy=$(q "SELECT key FROM jobs WHERE owner = 'w1' AND state = 'running'")
		[ -n "$busy" ] && break
		sleep 0.02
	done
	[ -n "$busy" ] || rb_fail "w1 is never busy"
	kill -KILL "$(pid w1)"
	wait "$(pid w1)" 2>/dev/null
	lost=$(q "SELECT key FROM jobs WHERE owner = 'w1' AND state = 'running'")
	[ -n "$lost" ] && break
	echo "w1 was between two jobs when the kill landed (try $try); again"
	# The jobs it finished are in its log: kept, since run truncates.
	mv "$d/w1.log" "$d/w1-try$try.log"
	run w1 --role worker --lease $LEASE
done
[ -n "$lost" ] || rb_fail "w1 never died holding a job in 5 tries"
echo "w1 SIGKILLed in the middle of <$lost>"
run w5 --role worker --lease $LEASE # four workers again

# A worker asked to stop in the middle of a job: it finishes that job.
for i in $(seq 500); do
	held=$(q "SELECT key FROM jobs WHERE owner = 'w2' AND state = 'running'")
	[ -n "$held" ] && break
	sleep 0.01
done
[ -n "$held" ] || rb_fail "w2 is never busy"
kill -TERM "$(pid w2)"
ts=$(date +%s%N)
for i in $(seq 300); do
	kill -0 "$(pid w2)" 2>/dev/null || break
	sleep 0.05
done
kill -0 "$(pid w2)" 2>/dev/null && rb_fail "w2 did not stop within 15 s of SIGTERM"
wait "$(pid w2)"
rc=$?
[ $rc -eq 0 ] || rb_fail "w2 exited $rc after SIGTERM"
grep -q 'event=worker.drained' "$d/w2.log" || rb_fail "w2 did not drain"
# A worker holds up to review.parallel_series jobs: it finishes each.
for k in $held; do
	grep -F "event=worker.done" "$d/w2.log" | grep -qF "series=$k " ||
		rb_fail "w2 did not finish <$k> before it stopped"
done
run w6 --role worker --lease $LEASE
echo "w2 drained in $((($(date +%s%N) - ts) / 1000000)) ms after SIGTERM, finishing <$held>"

# The rest: w3 to w6 drain the queue (and w1's job once its lease ran
# out); the senders empty the outbox.
wait_for 240 "SELECT count(*) FROM jobs WHERE kind = 'review' AND state = 'done'" "$N" ||
	rb_fail "not every series was reviewed: $(q "SELECT state, count(*) FROM jobs GROUP BY state"); not done: $(q "SELECT kind, key, state, attempts, not_before - EXTRACT(EPOCH FROM now())::bigint, error FROM jobs WHERE state <> 'done'"); $(grep -h 'job.deferred\|apply_deferred\|lease_lost' "$d"/*.log | head -5)"
wait_for 60 "SELECT count(*) FROM outbox WHERE state <> 'sent'" 0 ||
	rb_fail "the outbox is not empty: $(q "SELECT state, count(*) FROM outbox GROUP BY state")"
t1=$(date +%s.%N)
sleep 1.5 # a mail that went twice would have arrived by now

# Each series reviewed exactly once: one worker.done per series.
cat "$d"/w[1-6].log "$d"/w1-try*.log 2>/dev/null | grep 'event=worker.done' |
	sed -n 's/.* series=\([^ ]*\).*/\1/p' | sort | uniq -c >"$d/done"
[ "$(wc -l <"$d/done")" = "$N" ] ||
	rb_fail "$(wc -l <"$d/done") series done, not $N"
awk '$1 != 1 { exit 1 }' "$d/done" ||
	rb_fail "a series was reviewed more than once: $(awk '$1 != 1' "$d/done" | head -3)"
[ "$(q "SELECT count(*) FROM series WHERE state = 'reviewed'")" = "$N" ] ||
	rb_fail "series states: $(q "SELECT state, count(*) FROM series GROUP BY state")"
[ "$(q "SELECT count(*) FROM reviews")" -ge "$N" ] || rb_fail "too few reviews"

# w1's jobs (up to review.parallel_series of them): each lease ran out,
# another worker took the job and finished it.
for k in $lost; do
	by=$(q "SELECT lost_by FROM jobs WHERE key = '$k'")
	[ "$by" = w1 ] || rb_fail "the job <$k> of w1 was not taken over (lost_by '$by')"
	grep -F 'event=worker.done' "$d"/w[2-6].log | grep -qF "series=$k " ||
		rb_fail "no other worker finished <$k>"
	grep -F 'event=worker.done' "$d/w1.log" | grep -qF "series=$k " &&
		rb_fail "w1 finished <$k> although it was killed"
	echo "<$k>: w1's lease ran out, $(grep -lF "event=worker.done" "$d"/w[2-6].log | xargs grep -lF "series=$k " | head -1 | xargs basename -s .log) finished it"
done

# The sink holds each mail once.
files=$(ls "$d/sink/new" | wc -l)
ids=$(grep -hi '^Message-ID:' "$d/sink/new"/* | sort -u | wc -l)
sent=$(q "SELECT count(*) FROM outbox WHERE state = 'sent'")
[ "$files" = "$ids" ] || rb_fail "$files mails in the sink, $ids distinct: duplicates"
[ "$ids" = "$sent" ] || rb_fail "$ids mails in the sink, $sent sent"
[ "$(grep -c 'event=send.sent' "$d/send1.log")" -gt 0 ] &&
	[ "$(grep -c 'event=send.sent' "$d/send2.log")" -gt 0 ] ||
	echo "note: one sender sent everything"

# The counters add up: every claim ended done, failed or lost.
sums=$(q "SELECT SUM(claimed), SUM(done), SUM(failed), SUM(lease_expiries) FROM workers WHERE role = 'worker'")
IFS='|' read -r claimed done failed expired <<<"$sums"
# One lease expiry for each job w1 died with.
[ "$done" = "$N" ] && [ "$failed" = 0 ] &&
	[ "$expired" = "$(echo "$lost" | wc -w)" ] &&
	[ "$claimed" = $((done + failed + expired)) ] ||
	rb_fail "counters claimed|done|failed|expired = $sums"
[ "$(q "SELECT lease_expiries FROM workers WHERE name = 'w1'")" = "$(echo "$lost" | wc -w)" ] ||
	rb_fail "w1's lease expiry is not counted"
[ "$(q "SELECT state FROM workers WHERE name = 'w2'")" = stopped ] ||
	rb_fail "w2 is not marked stopped"

# A review that outlives its lease: the heartbeat renews the lease, and
# no other worker takes the job.
for w in w3 w4 w5 w6; do
	kill -TERM "$(pid $w)"
done
for w in w3 w4 w5 w6; do
	wait "$(pid $w)" || rb_fail "$w exited $? after SIGTERM"
done
run slow --role worker --lease 3
mv "$d/later"/* "$d/in/new/"
kill -HUP "$(pid ingest2)" # a reload polls the sources at once
key="key LIKE '%.w$N@%' AND kind = 'review'"
wait_for 30 "SELECT owner || ' ' || state FROM jobs WHERE $key" "slow running" ||
	rb_fail "the slow worker did not claim the last series"
run watch --role worker --lease 3
sleep 5
[ "$(q "SELECT owner || ' ' || state FROM jobs WHERE $key")" = "slow running" ] ||
	rb_fail "5 s into a review of 8 s, the job is not the slow worker's: $(q "SELECT owner, state, attempts FROM jobs WHERE $key")"
wait_for 40 "SELECT state FROM jobs WHERE $key" done ||
	rb_fail "the slow review did not end"
[ "$(q "SELECT attempts || ' ' || COALESCE(lost_by, '-') FROM jobs WHERE $key")" = "1 -" ] ||
	rb_fail "a review of 8 s under a lease of 3 s was taken over: $(q "SELECT attempts, lost_by FROM jobs WHERE $key")"
[ "$(q "SELECT claimed FROM workers WHERE name = 'watch'")" = 0 ] ||
	rb_fail "the watching worker claimed a job"
echo "a review of 8 s kept its lease of 3 s (renewed by the heartbeat)"

echo "$N series by 4 workers at a time in $(echo "$t1 - $t0" | bc) s; $sent mails sent once each; claimed|done|failed|expired = $sums"
echo PASS
