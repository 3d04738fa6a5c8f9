#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_nntp_archive.sh - the NNTP source against a real public-inbox-nntpd
# (the software behind lore.kernel.org) serving a v2 archive made with the
# public-inbox tools from a slice of the linux-api corpus: every article
# is stored, byte for byte the same body as in the corpus; the highest
# article number is kept in the store; new articles are found by the
# daemon's polling. The same archive through public-inbox-imapd tests the
# IMAP source's LOGIN (that server offers no AUTH=PLAIN).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
d=$RB_TEST_DIR
corpus=$RB_SHARED/corpus/linux-api.mbox.xz
rb_need_shared corpus/linux-api.mbox.xz
rb_need sqlite3
rb_need public-inbox-nntpd
rb_need public-inbox-init
export PI_CONFIG=$d/pi/config
G=org.kernel.vger.linux-api

# slice SKIP COUNT OUT: messages SKIP+1..SKIP+COUNT of the corpus (mboxrd).
slice() {
	/usr/bin/python3 - "$corpus" "$1" "$2" "$3" <<'PY'
import lzma, sys
skip, count = int(sys.argv[2]), int(sys.argv[3])
n = 0
with lzma.open(sys.argv[1], "rb") as f, open(sys.argv[4], "wb") as out:
    for line in f:
        if line.startswith(b"From "):
            n += 1
            if n > skip + count:
                break
        if n > skip:
            out.write(line)
PY
}
# import MBOX: adds an mboxrd to the archive in one process (public-inbox-mda
# costs 0.3 s a message; this is the library it uses, ~4 ms a message).
import() {
	perl -MPublicInbox::Config -MPublicInbox::InboxWritable -e '
		my $ibx = PublicInbox::Config->new->lookup_name("linux-api")
			or die "no inbox\n";
		PublicInbox::InboxWritable->new($ibx)->import_mbox(\*STDIN,
								   "mboxrd");' <"$1"
}
mkdir -p "$d/pi"
public-inbox-init -V2 -L basic linux-api "$d/pi/linux-api" \
	http://example.org/linux-api linux-api@vger.kernel.org ||
	rb_fail "public-inbox-init"
git config -f "$PI_CONFIG" publicinbox.linux-api.newsgroup $G
slice 200 100 "$d/a.mbox"
slice 300 20 "$d/b.mbox"
import "$d/a.mbox" || rb_fail "import"
NNTP_PORT=$(rb_free_port)
rb_start nntpd public-inbox-nntpd -l "127.0.0.1:$NNTP_PORT"
rb_wait_port "$NNTP_PORT"
# group -> "count first last" as the server says
group() {
	/usr/bin/python3 -W ignore - "$NNTP_PORT" <<'PY'
import nntplib, sys
s = nntplib.NNTP("127.0.0.1", int(sys.argv[1]))
_, count, first, last, _ = s.group("org.kernel.vger.linux-api")
print(count, first, last)
s.quit()
PY
}
read -r cnt first high <<<"$(group)"
[ "$first" = 1 ] && [ "$high" -ge 100 ] || rb_fail "GROUP says $cnt $first $high"

cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: nntp
    name: lore
    url: nntp://127.0.0.1:$NNTP_PORT
    groups: [$G]
    start: all
    poll_seconds: 10
$(rb_cfg_quiet)
EOC
q() { sqlite3 "$d/rb.db" "$1" 2>/dev/null; }
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run1.log" ||
	rb_fail "run: $(tail -3 "$d/run1.log")"
[ "$(q "SELECT last FROM source_state WHERE source='lore' AND mailbox='$G'")" = "$high" ] ||
	rb_fail "the highest article number is not $high"
n=$(q "SELECT count(*) FROM messages WHERE origin LIKE 'nntp://%'")
ids=$(grep -i '^Message-ID:' "$d/a.mbox" | tr 'A-Z' 'a-z' | sort -u | wc -l)
[ "$n" -ge $((ids - 2)) ] && [ "$n" -le "$ids" ] ||
	rb_fail "$n articles stored, the slice has $ids Message-IDs"
# Bodies are the corpus bytes (dot-unstuffed, line ends aside).
/usr/bin/python3 - "$d/a.mbox" "$d/rb.db" <<'PY' || rb_fail "bodies differ"
import re, sqlite3, sys
msgs, cur = {}, None
def done(m):
    h = re.search(rb"(?mi)^Message-ID:\s*<([^>]+)>", m.split(b"\n\n", 1)[0])
    if h:
        msgs[h.group(1).lower()] = m
for line in open(sys.argv[1], "rb"):
    if line.startswith(b"From "):
        if cur is not None:
            done(b"".join(cur))
        cur = []
        continue
    cur.append(re.sub(rb"^>(>*From )", rb"\1", line))
done(b"".join(cur))
same = bad = 0
for mid, raw in sqlite3.connect(sys.argv[2]).execute(
        "SELECT message_id, raw FROM messages"):
    k = mid.strip("<>").lower().encode()
    if k not in msgs:
        continue
    a = msgs[k].split(b"\n\n", 1)[1].rstrip(b"\n")
    b = bytes(raw).replace(b"\r\n", b"\n").split(b"\n\n", 1)[1].rstrip(b"\n")
    same, bad = (same + 1, bad) if a == b else (same, bad + 1)
print("%d bodies identical, %d differ" % (same, bad))
sys.exit(bad != 0 or same < 90)
PY

# The daemon polls: 20 more articles are found within poll_seconds.
rb_start daemon "$RB_BIN" run -c "$d/config.yaml"
sleep 0.5
import "$d/b.mbox" || rb_fail "import 2"
read -r cnt first high2 <<<"$(group)"
[ "$high2" -ge $((high + 20)) ] || rb_fail "GROUP high $high2 after the import"
for i in $(seq 400); do
	[ "$(q "SELECT last FROM source_state WHERE mailbox='$G'")" = "$high2" ] && break
	sleep 0.05
done
[ "$(q "SELECT last FROM source_state WHERE mailbox='$G'")" = "$high2" ] ||
	rb_fail "the daemon did not find the new articles in 20 s"
rb_stop daemon
n2=$(q "SELECT count(*) FROM messages")
[ $((n2 - n)) -ge 18 ] || rb_fail "only $((n2 - n)) new articles stored"
grep -q 'first_contact' "$d/daemon.log" && rb_fail "the state was lost"

# public-inbox-imapd: LOGIN (no AUTH=PLAIN offered), read-only mailbox.
if command -v public-inbox-imapd >/dev/null; then
	IMAP_PORT=$(rb_free_port)
	rb_start imapd public-inbox-imapd -l "127.0.0.1:$IMAP_PORT"
	rb_wait_port "$IMAP_PORT"
	printf 'anything\n' >"$d/pass"
	cat >"$d/imap.yaml" <<EOC
store:
  path: $d/imap.db
sources:
  - type: imap
    name: pi
    url: imap://127.0.0.1:$IMAP_PORT
    user: anonymous
    password_file: $d/pass
    starttls: "off"
    mailboxes: [$G.0]
$(rb_cfg_quiet)
EOC
	"$RB_BIN" run -c "$d/imap.yaml" --once 2>"$d/imap.log" ||
		rb_fail "imap run: $(tail -3 "$d/imap.log")"
	grep -q 'event=imap.login.*method=LOGIN' "$d/imap.log" ||
		rb_fail "LOGIN not used: $(grep imap "$d/imap.log")"
	m=$(sqlite3 "$d/imap.db" "SELECT count(*) FROM messages")
	[ "$m" = "$n2" ] || rb_fail "IMAP stored $m, NNTP $n2"
fi

# "start: new" (the default): a new subscription reads nothing of the
# archive, and stores the group's mark so that it reads only what comes.
sed -e "s#$d/rb.db#$d/new.db#" -e '/start: all/d' "$d/config.yaml" \
	>"$d/new.yaml"
"$RB_BIN" run -c "$d/new.yaml" --once 2>"$d/new.log" ||
	rb_fail "start: new run: $(tail -3 "$d/new.log")"
m=$(sqlite3 "$d/new.db" "SELECT count(*) FROM messages")
[ "$m" = 0 ] || rb_fail "start: new stored $m archive messages"
mark=$(sqlite3 "$d/new.db" "SELECT last FROM source_state")
[ -n "$mark" ] && [ "$mark" -gt 0 ] || rb_fail "start: new stored no mark"

# Pipelined ARTICLEs past the size cap: a 300 KB article between two small
# ones, with a 64K cap. The big one's stream is cancelled (and the
# commands in flight behind it dropped); it is recorded as too big, the
# mark moves past it, and the next pass stores the article after it.
/usr/bin/python3 - "$d/big.mbox" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i, size in enumerate((100, 300000, 100)):
        f.write("From big@example.org Mon Jan  1 00:00:00 2024\n"
                "From: Big <big@example.org>\nTo: linux-api@vger.kernel.org\n"
                "Subject: big %d\nDate: Mon, 1 Jan 2024 00:00:0%d +0000\n"
                "Message-ID: <big-%d@example.org>\n\n" % (i, i, i))
        f.write(("x" * 99 + "\n") * (size // 100) + "\n")
PY
import "$d/big.mbox" || rb_fail "import big"
read -r cnt first high3 <<<"$(group)"
sed -e '/^policy:/i limits:\n  max_message_size: 64K' "$d/config.yaml" >"$d/big.yaml"
for i in 1 2 3 4 5; do
	"$RB_BIN" run -c "$d/big.yaml" --once 2>>"$d/big.log"
	[ "$(q "SELECT last FROM source_state WHERE mailbox='$G'")" = "$high3" ] && break
done
[ "$(q "SELECT last FROM source_state WHERE mailbox='$G'")" = "$high3" ] ||
	rb_fail "the mark did not pass the big article: $(tail -3 "$d/big.log")"
[ "$(q "SELECT count(*) FROM messages WHERE message_id IN ('big-0@example.org', 'big-2@example.org')")" = 2 ] ||
	rb_fail "the small articles around the big one were not stored"
q "SELECT reason FROM messages WHERE state = 'malformed'" |
	grep -q 'over the size cap of 65536 bytes' ||
	rb_fail "the big article was not recorded as too big"
q "SELECT count(*) FROM messages WHERE message_id = 'big-1@example.org'" |
	grep -qx 0 || rb_fail "the big article was stored"
echo PASS
