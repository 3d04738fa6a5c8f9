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
# usage: bench/ingest.sh [latency|nntp|imap|throughput|all] [RESULTS.md]
#   (throughput: (b) and (c); all: (a), (b) and (c))
#   ROUNDS=N   latency rounds per mode (default 7)
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

	t0=$(now)
	got=$(/usr/bin/python3 -W ignore - "$port" <<'PY'
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
)
	t1=$(now)
	local pyt pyn pyb
	pyt=$(secs "$t0" "$t1")
	read -r pyn pyb <<<"$got"

	# rb_nntp NAME DBDIR
	rb_nntp() {
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
		"$RB_BIN" run -c "$d/$1.yaml" --once 2>"$d/$1.log" ||
			rb_fail "$1: $(tail -3 "$d/$1.log")"
		b=$(now)
		echo "$(secs "$a" "$b") $(q "$2/$1.db" "SELECT count(*) FROM messages") $(q "$2/$1.db" "SELECT last FROM source_state") $(synced "$d/$1.log" nntp.synced)"
	}
	local shm
	shm=$(mktemp -d /dev/shm/rb-bench-ingest.XXXXXX)
	read -r tt tn tl tsn tst <<<"$(rb_nntp tmpfs "$shm")"
	rm -rf "$shm"
	read -r dt dn dl dsn dst <<<"$(rb_nntp disk "$d")"
	report "### (b) Ingest throughput over NNTP (public-inbox-nntpd, linux-api corpus)"
	report ""
	report "$msgs corpus messages imported into a public-inbox v2 archive in $imp s"
	report "(import_mbox, one process); the group's high-water mark is $dl."
	report "The ingest pass fetches and stores every article (pipelined ARTICLE,"
	report "256 to a store transaction); the whole --once also parses, assembles"
	report "and runs the jobs."
	report ""
	report "| what | articles | seconds | articles/s |"
	report "| --- | --- | --- | --- |"
	report "| reviewbot ingest pass, store on disk (SQLite WAL, synchronous=FULL) | $dsn stored | $dst | $(rate "$dsn" "$dst") |"
	report "| reviewbot ingest pass, store on tmpfs | $tsn stored | $tst | $(rate "$tsn" "$tst") |"
	report "| Python nntplib ARTICLE loop, nothing stored | $pyn fetched ($pyb bytes) | $pyt | $(rate "$pyn" "$pyt") |"
	report "| reviewbot --once, whole (start: all), store on disk | $dn stored | $dt | $(rate "$dn" "$dt") |"
	report "| reviewbot --once, whole (start: all), store on tmpfs | $tn stored | $tt | $(rate "$tn" "$tt") |"
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
	t0=$(now)
	mbsync -q -c "$d/mbsyncrc" list 2>"$d/mbsync.log" ||
		rb_fail "mbsync: $(tail -3 "$d/mbsync.log")"
	t1=$(now)
	local mt mn ft fn
	mt=$(secs "$t0" "$t1")
	mn=$(find "$d/mbsync/INBOX" -type f -path '*/cur/*' -o -type f -path '*/new/*' | wc -l)
	# The same without an fsync per message, into tmpfs: no durability
	# cost at all, as reviewbot's store on tmpfs below (the fair pair).
	rm -rf "$d/mbsync"
	local mshm
	mshm=$(mktemp -d /dev/shm/rb-bench-mbsync.XXXXXX)
	sed -e '1i FSync no\n' -e "s|$d/mbsync/|$mshm/|g" "$d/mbsyncrc" \
		>"$d/mbsyncrc2"
	t0=$(now)
	mbsync -q -c "$d/mbsyncrc2" list 2>"$d/mbsync2.log" ||
		rb_fail "mbsync: $(tail -3 "$d/mbsync2.log")"
	t1=$(now)
	ft=$(secs "$t0" "$t1")
	fn=$(find "$mshm/INBOX" -type f -path '*/cur/*' -o -type f -path '*/new/*' | wc -l)
	rm -rf "$mshm"

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
	local a b it in isn ist tsn tst shm
	# The ingest pass with the store on tmpfs (no fsync cost), first.
	shm=$(mktemp -d /dev/shm/rb-bench-imap.XXXXXX)
	rb_imap_cfg "$d/imap-tmpfs.yaml" "$shm"
	"$RB_BIN" run -c "$d/imap-tmpfs.yaml" --once 2>"$d/imap-tmpfs.log" ||
		rb_fail "imap: $(tail -3 "$d/imap-tmpfs.log")"
	read -r tsn tst <<<"$(synced "$d/imap-tmpfs.log" imap.synced)"
	rm -rf "$shm"
	a=$(now)
	"$RB_BIN" run -c "$d/imap.yaml" --once 2>"$d/imap.log" ||
		rb_fail "imap: $(tail -3 "$d/imap.log")"
	b=$(now)
	it=$(secs "$a" "$b")
	in=$(q "$d/imap.db" "SELECT count(*) FROM messages")
	read -r isn ist <<<"$(synced "$d/imap.log" imap.synced)"
	report "### (c) Ingest throughput over IMAP (Dovecot, linux-api corpus)"
	report ""
	report "$msgs corpus messages in a Maildir served by a loopback Dovecot (indexed"
	report "by one SELECT before either client is timed). mbsync $(mbsync --version | awk '{ print $2 }')"
	report "pulls INBOX into a Maildir (its defaults: FSync yes, pipelined FETCH);"
	report "reviewbot fetches 256 messages to a UID FETCH, two FETCHes ahead,"
	report "and commits every 1,024 messages (SQLite on disk, synchronous=FULL)."
	report ""
	report "| what | messages | seconds | messages/s |"
	report "| --- | --- | --- | --- |"
	report "| reviewbot ingest pass (fetch and store; an fsync per 1,024) | $isn stored | $ist | $(rate "$isn" "$ist") |"
	report "| mbsync, Sync Pull into a Maildir (FSync yes, its default: an fsync per message) | $mn stored | $mt | $(rate "$mn" "$mt") |"
	report "| reviewbot ingest pass, store on tmpfs (no fsync cost) | $tsn stored | $tst | $(rate "$tsn" "$tst") |"
	report "| mbsync, Sync Pull, FSync no, Maildir on tmpfs (no fsync cost) | $fn stored | $ft | $(rate "$fn" "$ft") |"
	report "| reviewbot --once, whole (ingest, parse, assemble, jobs) | $in stored | $it | $(rate "$in" "$it") |"
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
