#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_daemon_kill.sh - the daemon SIGKILLed at random points (and, through
# RB_FAULT, right after a store commit, before the last UID moves) while
# 500 messages arrive by LMTP into Dovecot: 480 real linux-api mails and
# five copies of a reviewable series. After a final run, every message is
# stored exactly once and every complete series reviewed exactly once,
# the same as an uninterrupted run over the same mailbox (isync's model),
# and each review reached the SMTP sink under one Message-ID.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
d=$RB_TEST_DIR
corpus=$RB_SHARED/corpus/linux-api.mbox.xz
rb_need_shared corpus/linux-api.mbox.xz
rb_need sqlite3
rb_need dovecot
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || rb_skip "no aiosmtpd"
chmod 0755 "$d"
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null

# feed.py PORT CORPUS SKIP COUNT SERIES COPIES: delivers COUNT corpus
# messages from SKIP on, with COPIES copies of the SERIES mbox (each with
# its own Message-IDs) at random places, a few ms apart.
cat >"$d/feed.py" <<'PY'
import lzma, random, re, smtplib, sys, time
port, corpus, skip, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
series, copies = sys.argv[5], int(sys.argv[6])
def split(f):
    cur = None
    for line in f:
        if line.startswith(b"From "):
            if cur is not None:
                yield b"".join(cur)
            cur = []
            continue
        cur.append(re.sub(rb"^>(>*From )", rb"\1", line))
    if cur:
        yield b"".join(cur)
msgs = []
with lzma.open(corpus, "rb") as f:
    for i, m in enumerate(split(f)):
        if i >= skip + count:
            break
        if i >= skip:
            msgs.append(m)
demo = list(split(open(series, "rb")))
rnd = random.Random(9)
for c in range(copies):
    tag = b"copy%d" % c
    pos = rnd.randrange(len(msgs))
    for j, m in enumerate(demo):
        head, _, body = m.partition(b"\n\n")
        head = re.sub(rb"<([^>@]+)@", lambda x: b"<" + x.group(1) + b"." + tag + b"@", head)
        msgs.insert(pos + j, head + b"\n\n" + body)
lm = smtplib.LMTP("127.0.0.1", port)
for m in msgs:
    lm.sendmail("list@example.org", ["bot"], m)
    time.sleep(0.004)
lm.quit()
print(len(msgs))
PY

rb_start_dovecot
mkdir -p "$d/sink/tmp" "$d/sink/new" "$d/sink/cur"
rb_start_aiosmtpd "$d/sink"
printf 'botpass\n' >"$d/pass"
# conf NAME [SMTP-YAML]
conf() {
	cat >"$d/$1.yaml" <<EOC
store:
  path: $d/$1.db
sources:
  - type: imap
    name: lists
    url: imap://127.0.0.1:$RB_IMAP_PORT
    user: bot
    password_file: $d/pass
    starttls: "off"
    poll_seconds: 10
${2:-}
list_ids: [demo-list.example.org, linux-api.vger.kernel.org]
trees:
  - name: demo
    path: $d/demo/tree
    fetch_minutes: 0
outbox:
  maildir: $d/$1-outbox
  rate_per_hour: 1000
  rate_per_recipient_hour: 1000
  rate_per_list_hour: 1000
admins: [admin@example.org]
# The kills land anywhere, a job's middle too: a job killed three times
# would be quarantined (limits.max_job_attempts), which is right for a
# job that kills the worker and not what this test compares.
limits:
  max_job_attempts: 1000
policy:
  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
}
conf killed "smtp:
  url: smtp://127.0.0.1:$RB_SMTP_PORT
  from: reviewbot <reviewbot@example.org>
  starttls: \"off\""
conf ref
q() { sqlite3 "$1" "$2" 2>/dev/null; }

/usr/bin/python3 "$d/feed.py" "$RB_LMTP_PORT" "$corpus" 3000 480 \
	"$d/demo/series.mbox" 5 >"$d/fed" 2>"$d/feed.log" &
feeder=$!
kills=0
RANDOM=7
while kill -0 $feeder 2>/dev/null || [ $kills -lt 12 ]; do
	if [ $((kills % 3)) = 1 ]; then
		export RB_FAULT=ingest:$((RANDOM % 40 + 1))
	else
		unset RB_FAULT
	fi
	"$RB_BIN" run -c "$d/killed.yaml" 2>>"$d/killed.log" &
	pid=$!
	sleep "0.$((RANDOM % 9 + 1))"
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null || true
	kills=$((kills + 1))
done
unset RB_FAULT
wait $feeder || rb_fail "LMTP feeder: $(cat "$d/feed.log")"
total=$(cat "$d/fed")
[ "$total" = 500 ] || rb_fail "fed $total messages, not 500"
echo "$kills SIGKILLs ($(grep -c RB_FAULT "$d/killed.log") right after a store commit)"

# The last run, started after the feeder delivered every message: until
# it says it is idle (event=run.idle, logged by the first pass that finds
# nothing to do: every message of the mailbox is stored, parsed and
# assembled, every due job has run and every due mail has gone). A sample
# of the store alone cannot tell this: the store is quiet between a
# parse's commit and the assemble that queues the jobs.
rb_start daemon "$RB_BIN" run -c "$d/killed.yaml"
for i in $(seq 2400); do
	grep -q 'event=run.idle' "$d/daemon.log" && break
	sleep 0.05
done
grep -q 'event=run.idle' "$d/daemon.log" ||
	rb_fail "the daemon did not go idle in 120 s: $(tail -5 "$d/daemon.log")"
last=$(q "$d/killed.db" "SELECT last FROM source_state WHERE mailbox='INBOX'")
[ "$last" = 500 ] || rb_fail "idle, but the mailbox was read to UID $last of 500"
rb_stop daemon
# Work left is either due (lost: a bug) or deferred with a due time and a
# reason (the "incomplete" jobs of the corpus' partial series wait an
# hour from when they were first seen).
due=$(q "$d/killed.db" "SELECT kind, key, state, attempts, error FROM jobs WHERE state = 'running' OR (state = 'ready' AND not_before <= CAST(strftime('%s','now') AS INTEGER))")
[ -z "$due" ] || rb_fail "jobs left due after the daemon went idle: $due"
outq=$(q "$d/killed.db" "SELECT message_id, state, last_error FROM outbox WHERE state IN ('queued','sending')")
[ -z "$outq" ] || rb_fail "mails left in the outbox: $outq"
echo "deferred: $(q "$d/killed.db" "SELECT kind || ' due in ' || (not_before - CAST(strftime('%s','now') AS INTEGER)) || ' s: ' || COALESCE(error, 'waiting for its parts') FROM jobs WHERE state = 'ready'" | sort | uniq -c | sed 's/^ *//' | paste -sd ';')"

"$RB_BIN" run -c "$d/ref.yaml" --once 2>"$d/ref.log" ||
	rb_fail "the reference run: $(tail -3 "$d/ref.log")"

for t in "SELECT message_id FROM messages" \
	"SELECT series_id, kind, patch_idx FROM reviews" \
	"SELECT id, complete FROM series"; do
	q "$d/killed.db" "$t ORDER BY 1" >"$d/a"
	q "$d/ref.db" "$t ORDER BY 1" >"$d/b"
	if ! cmp -s "$d/a" "$d/b"; then
		# Tell lost from deferred: the killed run's jobs of those series.
		for s in $(diff "$d/a" "$d/b" | sed -n 's/^> \([^|]*\)|.*/\1/p' | sort -u); do
			echo "series $s in the killed run: $(q "$d/killed.db" "SELECT kind || ':' || state || ' due ' || not_before || ' attempts ' || attempts || ' error ' || COALESCE(error, '-') FROM jobs WHERE key = '$s'") state $(q "$d/killed.db" "SELECT state || ' ' || COALESCE(detail, '') FROM series WHERE id = '$s'")" >&2
		done
		rb_fail "'$t' differs from the uninterrupted run: $(diff "$d/a" "$d/b" | head -5)"
	fi
done
n=$(q "$d/killed.db" "SELECT count(*) FROM messages")
r=$(q "$d/killed.db" "SELECT count(*) FROM reviews")
[ "$r" -ge 5 ] || rb_fail "only $r reviews; the five series copies each need one"
[ "$(q "$d/killed.db" "SELECT count(*) FROM messages WHERE message_id LIKE '%.copy%'")" = 20 ] ||
	rb_fail "the series copies are not all stored"
# Each review went out under one Message-ID (a resend after a kill is
# byte-identical, so public-inbox would drop it; count distinct ids).
ids=$(grep -hi '^Message-ID:' "$d/sink/new"/* | sort -u | wc -l)
sent=$(q "$d/killed.db" "SELECT count(*) FROM outbox WHERE state='sent'")
[ "$ids" = "$sent" ] || rb_fail "$ids distinct mails in the sink, $sent sent"
dups=$(( $(ls "$d/sink/new" | wc -l) - ids ))
# Only a byte-identical resend is acceptable (the sink's own X- lines
# aside).
/usr/bin/python3 - "$d/sink/new" <<'PY' || rb_fail "a resent mail differs"
import collections, hashlib, os, re, sys
seen = collections.defaultdict(set)
for f in os.listdir(sys.argv[1]):
    raw = open(os.path.join(sys.argv[1], f), "rb").read()
    raw = re.sub(rb"(?m)^X-(Peer|MailFrom|RcptTo):.*\n", b"", raw)
    mid = re.search(rb"(?mi)^Message-ID:\s*(\S+)", raw).group(1)
    seen[mid].add(hashlib.sha256(raw).hexdigest())
sys.exit(any(len(v) > 1 for v in seen.values()))
PY
echo "$n messages stored once each, $r reviews, $sent mails sent, $dups resent byte-identical"
echo PASS
