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
#      beside Python nntplib fetching every article (no store).
#
# usage: bench/ingest.sh [latency|nntp|all] [RESULTS.md]
#   ROUNDS=N   latency rounds per mode (default 7)
#   NNTP_N=N   corpus messages for (b) (default: all)
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
latency | nntp | all) ;;
*) bench_die "usage: bench/ingest.sh [latency|nntp|all] [RESULTS.md]" ;;
esac
out=$(bench_out "${2:-/dev/stdout}") || exit 1
bench_need xz python3 sqlite3
[ "$what" = nntp ] || bench_need dovecot
[ "$what" = latency ] || bench_need public-inbox-init public-inbox-nntpd
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
import re, smtplib, sys
port, mbox, tag, first, last = sys.argv[1:6]
msgs, cur = [], None
for line in open(mbox, "rb"):
    if line.startswith(b"From ") and (cur is None or cur[-1] == b"\n"):
        if cur is not None:
            msgs.append(b"".join(cur))
        cur = []
        continue
    cur.append(re.sub(rb"^>(>*From )", rb"\1", line))
msgs.append(b"".join(cur))
lm = smtplib.LMTP("127.0.0.1", int(port))
for m in msgs[int(first):int(last) + 1]:
    head, _, body = m.partition(b"\n\n")
    head = re.sub(rb"<([^>@]+)@", lambda x: b"<" + x.group(1) + b"." +
                  tag.encode() + b"@", head)
    lm.sendmail("list@example.org", ["bot"], head + b"\n\n" + body)
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

run_nntp() {
	local n=${NNTP_N:-0} t0 t1 G=org.kernel.vger.linux-api port got
	rb_need public-inbox-nntpd
	rb_need sqlite3
	export PI_CONFIG=$d/pi/config
	mkdir -p "$d/pi"
	public-inbox-init -V2 -L basic linux-api "$d/pi/linux-api" \
		http://example.org/linux-api linux-api@vger.kernel.org ||
		rb_fail "public-inbox-init"
	git config -f "$PI_CONFIG" publicinbox.linux-api.newsgroup $G
	if [ "$n" -gt 0 ]; then
		xz -dc "$corpus" | awk -v n="$n" '/^From /{ if (++c > n) exit } { print }' \
			>"$d/corpus.mbox"
	else
		xz -dc "$corpus" >"$d/corpus.mbox"
	fi
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
		echo "$(secs "$a" "$b") $(q "$2/$1.db" "SELECT count(*) FROM messages") $(q "$2/$1.db" "SELECT last FROM source_state")"
	}
	local shm
	shm=$(mktemp -d /dev/shm/rb-bench-ingest.XXXXXX)
	read -r tt tn tl <<<"$(rb_nntp tmpfs "$shm")"
	rm -rf "$shm"
	read -r dt dn dl <<<"$(rb_nntp disk "$d")"
	rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.0f", n / t }'; }
	report "### (b) Ingest throughput over NNTP (public-inbox-nntpd, linux-api corpus)"
	report ""
	report "$msgs corpus messages imported into a public-inbox v2 archive in $imp s"
	report "(import_mbox, one process); the group's high-water mark is $dl."
	report ""
	report "| what | articles | seconds | articles/s |"
	report "| --- | --- | --- | --- |"
	report "| reviewbot --once, store on disk (SQLite WAL, synchronous=FULL) | $dn stored | $dt | $(rate "$dn" "$dt") |"
	report "| reviewbot --once, store on tmpfs | $tn stored | $tt | $(rate "$tn" "$tt") |"
	report "| Python nntplib ARTICLE loop, nothing stored | $pyn fetched ($pyb bytes) | $pyt | $(rate "$pyn" "$pyt") |"
	report ""
}

case $what in
latency) run_latency ;;
nntp) run_nntp ;;
all)
	run_latency
	run_nntp
	;;
*)
	echo "usage: bench/ingest.sh [latency|nntp|all] [RESULTS.md]" >&2
	exit 2
	;;
esac
cat "$d/report" >>"$out"
