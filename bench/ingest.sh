#!/bin/bash
# bench/ingest.sh - the daemon's ingest, measured beside real peers in one
# run:
#
#  (a) latency: from the LMTP delivery (into a real Dovecot) of the last
#      patch of a 9-patch series to the reply landing in the aiosmtpd sink,
#      model off; the series is made with git format-patch on the demo tree
#      (scripts/demo.sh), which has no checkpatch.pl and no kernel build,
#      so only the commit-message checks run. reviewbot woken by IMAP IDLE
#      beside the same daemon polling (poll_seconds 10, the smallest the
#      config allows, against the same Dovecot announcing no IDLE), and
#      beside the floor: a Python imaplib client in IDLE, from the
#      delivery to its "* N EXISTS" (Dovecot holds IDLE notifications
#      back for 0.5 s to batch them).
#  (b) throughput: the linux-api corpus (30,571 messages) imported into a
#      public-inbox v2 archive and served by public-inbox-nntpd; reviewbot
#      --once over NNTP with its store on disk (fsync per commit, the
#      production set-up) and on tmpfs (the protocol and parsing cost),
#      beside Python nntplib fetching every article (no store). Two
#      figures for reviewbot: the ingest pass (fetch and store every
#      article, from its nntp.synced log line) against nntplib, and the
#      whole --once (ingest, parse, assemble, the jobs: start: all).
#  (c) throughput over IMAP: the same corpus in a Maildir served by a
#      loopback Dovecot; mbsync (isync, the tool list readers pull mail
#      with) into a Maildir, against reviewbot --once ingesting into its
#      store on disk, same run (imap.synced and the whole --once).
#
# (b) and (c) run each side in turn TROUNDS times in the same run (the
# peer, then reviewbot, alternately), and report the medians, each ratio
# with the load average (uptime, 1 minute) beside it: the machine is
# shared, so a figure means little without the load it was taken under.
#
# usage: bench/ingest.sh [latency|nntp|imap|throughput|all] [RESULTS.md]
#   (throughput: (b) and (c); all: (a), (b) and (c))
#   ROUNDS=N   latency rounds per mode (default 7)
#   TROUNDS=N  throughput rounds per side for (b) and (c) (default 5)
#   NNTP_N=N   corpus messages for (b) and (c) (default: all)
# RB_BIN: the reviewbot to measure (default build-bench/bot/reviewbot,
# built first: bench/lib.sh).
set -u -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
RB_SHARED=$(bench_shared "${RB_SHARED:-$(cd "$src/.." && pwd)/shared}" \
	corpus/linux-api.mbox.xz) || exit 1
export RB_SHARED
RB_BIN=$(bench_reviewbot "${RB_BIN:-}") || exit 1
what=${1:-all}
case $what in
latency | nntp | imap | throughput | all) ;;
*) bench_die "usage: bench/ingest.sh [latency|nntp|imap|throughput|all] [RESULTS.md]" ;;
esac
out=$(bench_out "${2:-/dev/stdout}") || exit 1
bench_need xz python3 sqlite3
[ "$what" = nntp ] || bench_need dovecot
[ "$what" = imap ] || [ "$what" = latency ] ||
	bench_need public-inbox-init public-inbox-nntpd
[ "$what" = nntp ] || [ "$what" = latency ] || bench_need mbsync
rounds=${ROUNDS:-7}
trounds=${TROUNDS:-5}
corpus=$RB_SHARED/corpus/linux-api.mbox.xz
. "$src/tests/integration/lib.sh"
d=$RB_TEST_DIR
chmod 0755 "$d"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", b - a }'; }
# stats FILE: "median min max" of one number per line
stats() {
	sort -g "$1" | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f %.3f %.3f", m, v[1], v[NR] }'
}
report() { printf '%s\n' "$*" >>"$d/report"; }
: >"$d/report"

# feed.py PORT MBOX TAG FIRST LAST: delivers messages FIRST..LAST (0-based)
# of MBOX by LMTP, with TAG added to every Message-ID.
cat >"$d/feed.py" <<'PY'
import smtplib, sys
from mbox_feed import split, tagged
port, mbox, tag, first, last = sys.argv[1:6]
lm = smtplib.LMTP("127.0.0.1", int(port))
for m in split(mbox)[int(first):int(last) + 1]:
    lm.sendmail("list@example.org", ["bot"], tagged(m, tag))
lm.quit()
PY

# A 9-patch series on the demo tree: commit 5 has no Signed-off-by, so
# the commit-message checker has something to say.
make_series() {
	bash "$src/scripts/demo.sh" --make-only "$d/demo" >/dev/null
	local t=$d/demo/tree i
	export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.org
	export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.org
	git -C "$t" checkout -q -b nine
	for i in 1 2 3 4 5 6 7 8 9; do
		printf '\nint ring_helper_%d(void)\n{\n\treturn %d;\n}\n' \
			$i $i >>"$t/lib/ring.c"
		git -C "$t" add lib/ring.c
		if [ $i = 5 ]; then
			git -C "$t" commit -q -m "ring: add helper $i" \
				-m "Helper $i returns $i."
		else
			git -C "$t" commit -q -s -m "ring: add helper $i" \
				-m "Helper $i returns $i, for the callers that need it."
		fi
	done
	git -C "$t" format-patch -q --cover-letter --thread -9 \
		--stdout >"$d/nine.raw"
	sed -e 's/^\(Subject: \[PATCH [0-9]\/9\]\)/To: demo-list@example.org\nList-Id: <demo-list.example.org>\n\1/' \
		"$d/nine.raw" >"$d/nine.mbox"
	git -C "$t" checkout -q master
	[ "$(grep -c '^List-Id:' "$d/nine.mbox")" = 10 ] ||
		rb_fail "the series has no List-Id on every mail"
}

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
    poll_seconds: $2
smtp:
  url: smtp://127.0.0.1:$RB_SMTP_PORT
  from: reviewbot <reviewbot@example.org>
  starttls: "off"
list_ids: [demo-list.example.org]
trees:
  - name: demo
    path: $d/demo/tree
    fetch_minutes: 0
outbox:
  maildir: $d/$1-outbox
  rate_per_hour: 10000
  rate_per_recipient_hour: 10000
  rate_per_list_hour: 10000
model:
  provider: none
admins: [admin@example.org]
policy:
  default:
    mode: "off"
    bases: [demo]
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
}

sinkn() { find "$d/sink/new" -type f | wc -l; }
q() { sqlite3 "$1" "$2" 2>/dev/null; }

# latency_mode NAME POLL: ROUNDS series, each delivered as 0..8, then (once
# stored) 9/9 timed to the first reply in the sink.
latency_mode() {
	local name=$1 r t0 t1 n0 i
	conf "$name" "$2"
	rb_start "$name" "$RB_BIN" run -c "$d/$name.yaml"
	for i in $(seq 200); do
		grep -qs 'event=imap.login' "$d/$name.log" && break
		sleep 0.05
	done
	: >"$d/$name.times"
	for r in $(seq "$rounds"); do
		/usr/bin/python3 "$d/feed.py" "$RB_LMTP_PORT" "$d/nine.mbox" \
			"$name$r" 0 8
		for i in $(seq 600); do
			[ "$(q "$d/$name.db" "SELECT count(*) FROM messages WHERE message_id LIKE '%.$name$r@%'")" = 9 ] && break
			sleep 0.05
		done
		# a random phase against the poll cycle: 0.5 to 10.5 s
		sleep "$((RANDOM % 10)).$((RANDOM % 10))"
		sleep 0.5
		n0=$(sinkn)
		t0=$(now)
		/usr/bin/python3 "$d/feed.py" "$RB_LMTP_PORT" "$d/nine.mbox" \
			"$name$r" 9 9
		for i in $(seq 3000); do
			[ "$(sinkn)" -gt "$n0" ] && break
			sleep 0.005
		done
		t1=$(now)
		[ "$(sinkn)" -gt "$n0" ] ||
			rb_fail "$name round $r: no reply: $(tail -5 "$d/$name.log")"
		secs "$t0" "$t1" >>"$d/$name.times"
		# let every reply of the round land before the next one
		sleep 1
	done
	rb_stop "$name"
}

idle_floor() {
	/usr/bin/python3 - "$RB_IMAP_PORT" "$RB_LMTP_PORT" "$rounds" <<'PY' >"$d/floor.times"
import imaplib, smtplib, sys, time
imap_port, lmtp_port, rounds = map(int, sys.argv[1:4])
c = imaplib.IMAP4("127.0.0.1", imap_port)
c.login("bot", "botpass")
c.select("INBOX", readonly=True)
for r in range(rounds):
    tag = c._new_tag().decode()
    c.send(("%s IDLE\r\n" % tag).encode())
    assert c.readline().startswith(b"+")
    msg = ("From: a@example.org\r\nSubject: floor %d\r\n"
           "Message-ID: <floor-%d-%f@example.org>\r\n\r\nx\r\n") % (
           r, r, time.time())
    t0 = time.time()
    lm = smtplib.LMTP("127.0.0.1", lmtp_port)
    lm.sendmail("a@example.org", ["bot"], msg)
    while b"EXISTS" not in c.readline():
        pass
    t1 = time.time()
    lm.quit()
    c.send(b"DONE\r\n")
    while not c.readline().startswith(tag.encode()):
        pass
    print("%.3f" % (t1 - t0))
c.logout()
PY
}

run_latency() {
	rb_need dovecot
	rb_need sqlite3
	make_series
	rb_start_dovecot
	mkdir -p "$d/sink/tmp" "$d/sink/new" "$d/sink/cur"
	rb_start_aiosmtpd "$d/sink"
	printf 'botpass\n' >"$d/pass"
	idle_floor || rb_fail "the imaplib floor"
	latency_mode idle 300
	# The same daemon against a server without IDLE (Dovecot announcing
	# no IDLE after login): it can only poll, every 10 s.
	sed -i '$a imap_capability = IMAP4rev1 SASL-IR LITERAL+ ID ENABLE UIDPLUS' \
		"$RB_DOVECOT_CONF"
	rb_stop dovecot
	rb_start dovecot dovecot -F -c "$RB_DOVECOT_CONF"
	rb_wait_port "$RB_IMAP_PORT"
	latency_mode poll 10
	report "### (a) Latency: last patch of a 9-patch series delivered -> reply in the sink"
	report ""
	report "$rounds rounds each, seconds (median, min, max); the last patch goes out at a"
	report "random phase (0.5 to 10.5 s after the first nine were stored). Model off; the demo tree"
	report "has no checkpatch.pl and no kernel build, so only the commit-message"
	report "checks run (patch 5/9 lacks its Signed-off-by)."
	report ""
	report "| what | median | min | max |"
	report "| --- | --- | --- | --- |"
	read -r m a b <<<"$(stats "$d/idle.times")"
	report "| reviewbot run, woken by IMAP IDLE | $m | $a | $b |"
	read -r m a b <<<"$(stats "$d/poll.times")"
	report "| reviewbot run, polling every 10 s (no IDLE wake-up) | $m | $a | $b |"
	read -r m a b <<<"$(stats "$d/floor.times")"
	report "| floor: Python imaplib in IDLE, delivery -> \`* N EXISTS\` (no fetch, no review) | $m | $a | $b |"
	report ""
}

# import MBOX: the public-inbox library's import_mbox, one process
# (public-inbox-mda costs ~0.3 s a message).
pi_import() {
	perl -MPublicInbox::Config -MPublicInbox::InboxWritable -e '
		my $ibx = PublicInbox::Config->new->lookup_name("linux-api")
			or die "no inbox\n";
		PublicInbox::InboxWritable->new($ibx)->import_mbox(\*STDIN,
								   "mboxrd");' <"$1"
}

# corpus_mbox: $d/corpus.mbox, the corpus (or its first NNTP_N messages).
corpus_mbox() {
	local n=${NNTP_N:-0}
	[ -s "$d/corpus.mbox" ] && return
	if [ "$n" -gt 0 ]; then
		python3 -m mbox_feed head "$n" "$corpus" "$d/corpus.mbox" >/dev/null
	else
		xz -dc "$corpus" >"$d/corpus.mbox"
	fi
}

# synced LOG EVENT: "messages seconds" of the pass a source logged.
synced() {
	grep "event=$2 " "$1" | tail -1 |
		sed -e 's/.* messages=\([0-9]*\) ms=\([0-9]*\).*/\1 \2/' |
		awk '{ printf "%d %.3f", $1, $2 / 1000 }'
}
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }'; }
# load: the 1-minute load average now.
load() { cut -d' ' -f1 /proc/loadavg; }
# med FILE COLUMN: the median of COLUMN (1-based) of FILE's lines.
med() { awk -v c="$2" '{ print $c }' "$1" >"$1.col" && stats "$1.col" | cut -d' ' -f1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

run_nntp() {
	local t0 t1 G=org.kernel.vger.linux-api port got
	rb_need public-inbox-nntpd
	rb_need sqlite3
	export PI_CONFIG=$d/pi/config
	mkdir -p "$d/pi"
	public-inbox-init -V2 -L basic linux-api "$d/pi/linux-api" \
		http://example.org/linux-api linux-api@vger.kernel.org ||
		rb_fail "public-inbox-init"
	git config -f "$PI_CONFIG" publicinbox.linux-api.newsgroup $G
	corpus_mbox
	local msgs
	msgs=$(grep -c '^From ' "$d/corpus.mbox")
	t0=$(now)
	pi_import "$d/corpus.mbox" || rb_fail "import"
	t1=$(now)
	local imp
	imp=$(secs "$t0" "$t1")
	port=$(rb_free_port)
	rb_start nntpd public-inbox-nntpd -l "127.0.0.1:$port"
	rb_wait_port "$port"

	cat >"$d/nntp_peer.py" <<'PY'
import nntplib, sys
s = nntplib.NNTP("127.0.0.1", int(sys.argv[1]))
_, count, first, last, _ = s.group("org.kernel.vger.linux-api")
n = b = 0
for i in range(first, last + 1):
    try:
        _, info = s.article(i)
    except nntplib.NNTPTemporaryError:
        continue
    n += 1
    b += sum(len(l) + 2 for l in info.lines)
s.quit()
print(n, b)
PY

	# rb_nntp NAME DBDIR: "whole-seconds stored last synced-n synced-s"
	rb_nntp() {
		rm -f "$2/$1.db" "$2/$1.db-wal" "$2/$1.db-shm"
		cat >"$d/$1.yaml" <<EOC
store:
  path: $2/$1.db
sources:
  - type: nntp
    name: lore
    url: nntp://127.0.0.1:$port
    groups: [$G]
    start: all
outbox:
  maildir: $d/$1-outbox
policy:
  default:
    mode: "off"
EOC
		local a b
		a=$(now)
		# (its summary on stdout is not this function's output)
		"$RB_BIN" run -c "$d/$1.yaml" --once >"$d/$1.out" 2>"$d/$1.log" ||
			rb_fail "$1: $(tail -3 "$d/$1.log")"
		b=$(now)
		echo "$(secs "$a" "$b") $(q "$2/$1.db" "SELECT count(*) FROM messages") $(q "$2/$1.db" "SELECT last FROM source_state") $(synced "$d/$1.log" nntp.synced)"
	}
	local shm r pyn pyb dl
	shm=$(mktemp -d /dev/shm/rb-bench-ingest.XXXXXX)
	: >"$d/nntp.rounds"
	# Each round: nntplib, reviewbot on disk, reviewbot on tmpfs, each
	# with the load it ran under ("pyt pyl dst dsl tst tsl dt tt").
	for r in $(seq "$trounds"); do
		local l1 l2 l3 pyt
		l1=$(load)
		t0=$(now)
		read -r pyn pyb <<<"$(/usr/bin/python3 -W ignore "$d/nntp_peer.py" "$port")"
		t1=$(now)
		pyt=$(secs "$t0" "$t1")
		l2=$(load)
		read -r dt dn dl dsn dst <<<"$(rb_nntp disk "$d")"
		l3=$(load)
		read -r tt tn tl tsn tst <<<"$(rb_nntp tmpfs "$shm")"
		echo "$pyt $l1 $dst $l2 $tst $l3 $dt $tt" >>"$d/nntp.rounds"
		[ "$dsn" = "$pyn" ] && [ "$tsn" = "$pyn" ] ||
			rb_fail "nntp round $r: stored $dsn and $tsn, nntplib fetched $pyn"
	done
	rm -rf "$shm"
	local mpy mds mts mdt mtt
	mpy=$(med "$d/nntp.rounds" 1)
	mds=$(med "$d/nntp.rounds" 3)
	mts=$(med "$d/nntp.rounds" 5)
	mdt=$(med "$d/nntp.rounds" 7)
	mtt=$(med "$d/nntp.rounds" 8)
	report "### (b) Ingest throughput over NNTP (public-inbox-nntpd, linux-api corpus)"
	report ""
	report "$msgs corpus messages imported into a public-inbox v2 archive in $imp s"
	report "(import_mbox, one process); the group's high-water mark is $dl."
	report "The ingest pass fetches and stores every article (pipelined ARTICLE,"
	report "read and parsed on one thread, stored on another, 1,024 to a store"
	report "transaction); the whole --once also parses, assembles and runs the"
	report "jobs. $trounds rounds, each side in turn (nntplib, reviewbot on disk,"
	report "reviewbot on tmpfs); medians, seconds."
	report ""
	report "| what | articles | seconds (median) | articles/s |"
	report "| --- | --- | --- | --- |"
	report "| reviewbot ingest pass, store on disk (SQLite WAL, synchronous=FULL) | $pyn stored | $mds | $(rate "$pyn" "$mds") |"
	report "| reviewbot ingest pass, store on tmpfs | $pyn stored | $mts | $(rate "$pyn" "$mts") |"
	report "| Python nntplib ARTICLE loop, nothing stored | $pyn fetched ($pyb bytes) | $mpy | $(rate "$pyn" "$mpy") |"
	report "| reviewbot --once, whole (start: all), store on disk | $pyn stored | $mdt | $(rate "$pyn" "$mdt") |"
	report "| reviewbot --once, whole (start: all), store on tmpfs | $pyn stored | $mtt | $(rate "$pyn" "$mtt") |"
	report ""
	report "Each round, seconds, and the load average (1 minute) as each side"
	report "started; the ratio is nntplib's seconds over reviewbot's (above 1:"
	report "reviewbot is faster):"
	report ""
	report "| round | nntplib s (load) | reviewbot disk s (load) | ratio, disk | reviewbot tmpfs s (load) | ratio, tmpfs |"
	report "| --- | --- | --- | --- | --- | --- |"
	r=0
	while read -r pyt l1 dst l2 tst l3 dt tt; do
		r=$((r + 1))
		report "| $r | $pyt ($l1) | $dst ($l2) | $(ratio "$pyt" "$dst") | $tst ($l3) | $(ratio "$pyt" "$tst") |"
	done <"$d/nntp.rounds"
	report "| median | $mpy | $mds | **$(ratio "$mpy" "$mds")** | $mts | $(ratio "$mpy" "$mts") |"
	report ""
	rb_stop nntpd
}

# run_imap: the corpus in a Maildir served by Dovecot; mbsync against
# reviewbot. Both pay the same first SELECT (Dovecot indexes the Maildir
# once, before either is timed).
run_imap() {
	# After (a): its Dovecot (no IDLE) and its mail go first.
	[ -f "$d/dovecot.pid" ] && rb_stop dovecot
	rm -rf "$d/mail/bot"
	rb_need dovecot
	rb_need mbsync
	rb_need sqlite3
	corpus_mbox
	rb_start_dovecot
	local md=$d/mail/bot/Maildir msgs t0 t1
	mkdir -p "$md/cur" "$md/new" "$md/tmp"
	msgs=$(/usr/bin/python3 - "$d/corpus.mbox" "$md/cur" <<'PY'
import os, sys
from mbox_feed import split
n = 0
# Names as a delivery agent writes them (time.MusecPpid.host,S=size:2,).
# With names of the form time.n.host:2, Dovecot 2.3 spent 2.5 to 4 s of
# CPU in maildir_filename_base_cmp() on the first body FETCH of every
# session, whoever the client: a cost of the bench, not of the clients.
for m in split(sys.argv[1]):
    n += 1
    name = "%d.M%dP4242.bench,S=%d:2," % (1700000000 + n, n, len(m))
    with open(os.path.join(sys.argv[2], name), "wb") as f:
        f.write(m)
print(n)
PY
)
	chown -R nobody:nogroup "$d/mail"
	/usr/bin/python3 - "$RB_IMAP_PORT" <<'PY' || rb_fail "the first SELECT"
import imaplib, sys
c = imaplib.IMAP4("127.0.0.1", int(sys.argv[1]))
c.login("bot", "botpass")
c.select("INBOX", readonly=True)
c.uid("FETCH", "1:*", "(UID RFC822.SIZE)")
c.logout()
PY
	printf 'botpass\n' >"$d/pass"
	mkdir -p "$d/mbsync"
	cat >"$d/mbsyncrc" <<EOC
IMAPAccount dovecot
Host 127.0.0.1
Port $RB_IMAP_PORT
User bot
PassCmd "cat $d/pass"
SSLType None
AuthMechs PLAIN
Timeout 300

IMAPStore far
Account dovecot

MaildirStore near
Path $d/mbsync/
Inbox $d/mbsync/INBOX

Channel list
Far :far:INBOX
Near :near:INBOX
Sync Pull
Create Near
SyncState *
EOC
	# The same without an fsync per message, into tmpfs: no durability
	# cost at all, as reviewbot's store on tmpfs below (the fair pair).
	local mshm shm
	mshm=$(mktemp -d /dev/shm/rb-bench-mbsync.XXXXXX)
	shm=$(mktemp -d /dev/shm/rb-bench-imap.XXXXXX)
	sed -e '1i FSync no\n' -e "s|$d/mbsync/|$mshm/|g" "$d/mbsyncrc" \
		>"$d/mbsyncrc2"

	# rb_imap_cfg FILE DBDIR
	rb_imap_cfg() {
	cat >"$1" <<EOC
store:
  path: $2/imap.db
sources:
  - type: imap
    name: lists
    url: imap://127.0.0.1:$RB_IMAP_PORT
    user: bot
    password_file: $d/pass
    starttls: "off"
outbox:
  maildir: $d/imap-outbox
policy:
  default:
    mode: "off"
EOC
	}
	rb_imap_cfg "$d/imap.yaml" "$d"
	rb_imap_cfg "$d/imap-tmpfs.yaml" "$shm"
	# mbsync_run RC DIR: seconds of one mbsync pull into DIR (emptied).
	mbsync_run() {
		rm -rf "$2"/*
		local a b
		a=$(now)
		mbsync -q -c "$1" list 2>"$d/mbsync.log" ||
			rb_fail "mbsync: $(tail -3 "$d/mbsync.log")"
		b=$(now)
		mn=$(find "$2/INBOX" -type f -path '*/cur/*' -o -type f -path '*/new/*' | wc -l)
		secs "$a" "$b" >"$d/mbsync.secs"
	}
	# rb_imap_run NAME DBDIR: one --once; sets isn, ist (the pass), it.
	rb_imap_run() {
		rm -f "$2/imap.db" "$2/imap.db-wal" "$2/imap.db-shm"
		local a b
		a=$(now)
		"$RB_BIN" run -c "$d/$1.yaml" --once >"$d/$1.out" 2>"$d/$1.log" ||
			rb_fail "imap: $(tail -3 "$d/$1.log")"
		b=$(now)
		it=$(secs "$a" "$b")
		in=$(q "$2/imap.db" "SELECT count(*) FROM messages")
		read -r isn ist <<<"$(synced "$d/$1.log" imap.synced)"
	}
	# Each round, each side in turn, with the load it started under:
	# "mt l1 ft l2 tst l3 ist l4 it".
	local r mn in it isn ist mt ft tst l1 l2 l3 l4
	: >"$d/imap.rounds"
	for r in $(seq "$trounds"); do
		l1=$(load)
		mbsync_run "$d/mbsyncrc" "$d/mbsync"
		mt=$(cat "$d/mbsync.secs")
		l2=$(load)
		mbsync_run "$d/mbsyncrc2" "$mshm"
		ft=$(cat "$d/mbsync.secs")
		l3=$(load)
		rb_imap_run imap-tmpfs "$shm"
		tst=$ist
		[ "$isn" = "$mn" ] ||
			rb_fail "imap round $r: stored $isn, mbsync $mn"
		l4=$(load)
		rb_imap_run imap "$d"
		[ "$isn" = "$mn" ] ||
			rb_fail "imap round $r: stored $isn, mbsync $mn"
		echo "$mt $l1 $ft $l2 $tst $l3 $ist $l4 $it" >>"$d/imap.rounds"
	done
	rm -rf "$mshm" "$shm"
	local mmt mft mts mis mit
	mmt=$(med "$d/imap.rounds" 1)
	mft=$(med "$d/imap.rounds" 3)
	mts=$(med "$d/imap.rounds" 5)
	mis=$(med "$d/imap.rounds" 7)
	mit=$(med "$d/imap.rounds" 9)
	report "### (c) Ingest throughput over IMAP (Dovecot, linux-api corpus)"
	report ""
	report "$msgs corpus messages in a Maildir served by a loopback Dovecot (indexed"
	report "by one SELECT before either client is timed). mbsync $(mbsync --version | awk '{ print $2 }')"
	report "pulls INBOX into a Maildir (its defaults: FSync yes, pipelined FETCH);"
	report "reviewbot fetches 256 messages to a UID FETCH, two FETCHes ahead, the"
	report "next one sent before the answer to the one before is read (pipelined),"
	report "and commits every 1,024 messages (SQLite on disk, synchronous=FULL)."
	report "$trounds rounds, each side in turn (mbsync FSync yes, mbsync FSync no"
	report "on tmpfs, reviewbot on tmpfs, reviewbot on disk); medians, seconds."
	report ""
	report "| what | messages | seconds (median) | messages/s |"
	report "| --- | --- | --- | --- |"
	report "| reviewbot ingest pass (fetch and store; an fsync per 1,024) | $mn stored | $mis | $(rate "$mn" "$mis") |"
	report "| mbsync, Sync Pull into a Maildir (FSync yes, its default: an fsync per message) | $mn stored | $mmt | $(rate "$mn" "$mmt") |"
	report "| reviewbot ingest pass, store on tmpfs (no fsync cost) | $mn stored | $mts | $(rate "$mn" "$mts") |"
	report "| mbsync, Sync Pull, FSync no, Maildir on tmpfs (no fsync cost) | $mn stored | $mft | $(rate "$mn" "$mft") |"
	report "| reviewbot --once, whole (ingest, parse, assemble, jobs), on disk | $mn fetched | $mit | $(rate "$mn" "$mit") |"
	report ""
	report "Each round, seconds, and the load average (1 minute) as each side"
	report "started; the ratio is mbsync's seconds over reviewbot's (above 1:"
	report "reviewbot is faster). The fair pair is on tmpfs (neither pays for"
	report "durability); on disk mbsync pays an fsync per message:"
	report ""
	report "| round | mbsync FSync no, tmpfs s (load) | reviewbot tmpfs s (load) | ratio, tmpfs | mbsync FSync yes s (load) | reviewbot disk s (load) | ratio, disk |"
	report "| --- | --- | --- | --- | --- | --- | --- |"
	r=0
	while read -r mt l1 ft l2 tst l3 ist l4 it; do
		r=$((r + 1))
		report "| $r | $ft ($l2) | $tst ($l3) | $(ratio "$ft" "$tst") | $mt ($l1) | $ist ($l4) | $(ratio "$mt" "$ist") |"
	done <"$d/imap.rounds"
	report "| median | $mft | $mts | **$(ratio "$mft" "$mts")** | $mmt | $mis | $(ratio "$mmt" "$mis") |"
	report ""
	rb_stop dovecot
}

case $what in
latency) run_latency ;;
nntp) run_nntp ;;
imap) run_imap ;;
throughput)
	run_nntp
	run_imap
	;;
all)
	run_latency
	run_nntp
	run_imap
	;;
*)
	echo "usage: bench/ingest.sh [latency|nntp|imap|throughput|all] [RESULTS.md]" >&2
	exit 2
	;;
esac
cat "$d/report" >>"$out"
