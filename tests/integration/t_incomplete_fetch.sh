#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_incomplete_fetch.sh - a series with a part missing, through "reviewbot
# run", as b4 would handle it:
#  1. with series.fetch_url, the missing part is fetched from a real
#     public-inbox-httpd (the software behind lore.kernel.org) serving the
#     whole thread: the part was sent to another list (another List-Id,
#     on the allow-list too: a fetched part must have been sent to a
#     list the bot reads, issue 33), the series is reviewed, the fetched patch gets its review, and no
#     "incomplete" notice goes out; the same thread's other messages (a
#     stranger's patch in reply) are not stored;
#  2. without a fetch source, under "incomplete: notify", parts sent to
#     different recipients (the author Cc'd a list per patch): no notice;
#  3. parts all sent to the same recipients, one missing: one notice;
#  4. a stable review series ([PATCH 5.10 0/3]) is not reviewed at all;
#  5. under the default "incomplete: review-prefix", patches 1 and 2 of 3
#     are reviewed and the review says that 3/3 did not arrive.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
d=$RB_TEST_DIR
rb_need sqlite3
rb_need public-inbox-httpd
rb_need public-inbox-init
export PI_CONFIG=$d/pi/config
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null

# mk OUT SPEC...: writes the demo series' parts as an mbox; SPEC is
# INDEX[|HEADER=VALUE[|HEADER=VALUE]] (headers replaced or added), and
# "stranger" adds a reply patch by someone else to the cover.
mk() {
	/usr/bin/python3 - "$d/demo/series.mbox" "$@" <<'PY'
import re, sys
src, out, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
parts, cur = [], None
for line in open(src, "rb"):
    if line.startswith(b"From ") and (cur is None or cur[-1] == b"\n"):
        if cur is not None:
            parts.append(b"".join(cur))
        cur = [line]
        continue
    cur.append(line)
parts.append(b"".join(cur))
def edit(m, k, v):
    head, _, body = m.partition(b"\n\n")
    pat = re.compile(rb"^" + re.escape(k.encode()) + rb":.*$", re.M | re.I)
    if pat.search(head):
        head = pat.sub((k + ": " + v).encode(), head)
    else:
        head += ("\n" + k + ": " + v).encode()
    return head + b"\n\n" + body
with open(out, "wb") as f:
    for spec in specs:
        if spec == "stranger":
            m = parts[2]
            m = edit(m, "From", "Mallory <mallory@example.net>")
            m = edit(m, "Message-Id", "<stranger.1@example.net>")
            m = edit(m, "Subject", "[PATCH 2/3] ring: a better idea")
            f.write(m)
            continue
        bits = spec.split("|")
        m = parts[int(bits[0])]
        for kv in bits[1:]:
            k, v = kv.split("=", 1)
            m = edit(m, k, v)
        f.write(m)
PY
}
L='List-Id=<demo-list.example.org>'
# The inbox holds every part (patch 2 went to another list) and a
# stranger's patch in the same thread.
mk "$d/all.mbox" "0|$L" "1|$L" "2|List-Id=<other.example.org>|To=other@example.org" \
	"3|$L" stranger
mk "$d/list.mbox" "0|$L" "1|$L" "3|$L"

mkdir -p "$d/pi"
public-inbox-init -V2 -L basic all "$d/pi/all" http://127.0.0.1/all \
	all@example.org || rb_fail "public-inbox-init"
perl -MPublicInbox::Config -MPublicInbox::InboxWritable -e '
	my $ibx = PublicInbox::Config->new->lookup_name("all") or die "no inbox\n";
	PublicInbox::InboxWritable->new($ibx)->import_mbox(\*STDIN, "mboxo");' \
	<"$d/all.mbox" || rb_fail "import"
PORT=$(rb_free_port)
rb_start httpd public-inbox-httpd -l "127.0.0.1:$PORT"
rb_wait_port "$PORT"

# conf NAME MBOX [SERIES-YAML [POLICY-YAML]]
conf() {
	cat >"$d/$1.yaml" <<EOC
store:
  path: $d/$1.db
sources:
  - type: mbox
    path: $2
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/$1-out
list_ids: [demo-list.example.org, other.example.org]
admins: [admin@example.org]
series:
  incomplete_wait_minutes: 0
${3:-}
policy:
  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
${4:-}
EOC
	"$RB_BIN" check-config -c "$d/$1.yaml" >/dev/null 2>"$d/$1.cc" ||
		rb_fail "config $1: $(cat "$d/$1.cc")"
}
q() { sqlite3 "$d/$1.db" "$2"; }
mails() { ls "$d/$1-out/new" 2>/dev/null | wc -l; }
kinds() { q "$1" "SELECT kind || ':' || patch_idx FROM reviews ORDER BY 1" | paste -sd ' '; }

# 1. fetched from the inbox.
conf fetch "$d/list.mbox" "  fetch_url: http://127.0.0.1:$PORT/all/"
"$RB_BIN" run --once -c "$d/fetch.yaml" 2>"$d/fetch.log" ||
	rb_fail "run: $(tail -5 "$d/fetch.log")"
p2=$(sed -n 's/^Message-Id: <\(1491f9b[^>]*\)>/\1/p' "$d/demo/series.mbox")
[ "$(q fetch "SELECT origin LIKE 'fetch:%' FROM messages WHERE message_id = '$p2'")" = 1 ] ||
	rb_fail "patch 2 was not fetched: $(grep incomplete "$d/fetch.log")"
[ "$(q fetch "SELECT count(*) FROM messages WHERE message_id = 'stranger.1@example.net'")" = 0 ] ||
	rb_fail "a stranger's patch from the thread was stored"
[ "$(q fetch "SELECT complete FROM series WHERE id LIKE 'cover.%'")" = 1 ] ||
	rb_fail "the series is not complete: $(q fetch 'SELECT id, complete, state, detail FROM series')"
k=$(kinds fetch)
[ "$k" = "review:2" ] || rb_fail "reviews after the fetch: '$k', want review:2"
grep -qs "^In-Reply-To: <$p2>" "$d/fetch-out/new"/* ||
	rb_fail "the review does not answer the fetched patch"
echo "1: patch 2 fetched from public-inbox-httpd, reviewed, no notice"

# 2. no fetch source, one Cc per patch: no notice.
mk "$d/percc.mbox" "0|$L" "1|$L|Cc=a-list@example.org" "3|$L|Cc=b-list@example.org"
conf percc "$d/percc.mbox" "" "      incomplete: notify"
"$RB_BIN" run --once -c "$d/percc.yaml" 2>"$d/percc.log" ||
	rb_fail "run: $(tail -5 "$d/percc.log")"
[ "$(mails percc)" = 0 ] || rb_fail "a notice for a series Cc'd per patch: $(kinds percc)"
q percc "SELECT detail FROM series" | grep -q 'Cc.d lists per patch' ||
	rb_fail "no reason recorded: $(q percc 'SELECT state, detail FROM series')"
echo "2: parts sent to different recipients: no notice"

# 3. no fetch source, the same recipients: one notice, to the author.
conf same "$d/list.mbox" "" "      incomplete: notify"
"$RB_BIN" run --once -c "$d/same.yaml" 2>"$d/same.log" ||
	rb_fail "run: $(tail -5 "$d/same.log")"
k=$(kinds same)
[ "$k" = "incomplete:0" ] || rb_fail "reviews: '$k', want one incomplete notice"
[ "$(mails same)" = 1 ] || rb_fail "$(mails same) mails, want 1"
echo "3: the same recipients, a part missing: one notice"

# 4. a stable review series, complete: not reviewed.
S='Subject=[PATCH 5.10 0/3] ring: small fixes and helpers'
mk "$d/stable.mbox" "0|$L|$S" "1|$L|Subject=[PATCH 5.10 1/3] ring: add ring_count()" \
	"2|$L|Subject=[PATCH 5.10 2/3] ring: refuse a ring of size zero" \
	"3|$L|Subject=[PATCH 5.10 3/3] ring: add ring_free()"
conf stable "$d/stable.mbox"
"$RB_BIN" run --once -c "$d/stable.yaml" 2>"$d/stable.log" ||
	rb_fail "run: $(tail -5 "$d/stable.log")"
[ "$(mails stable)" = 0 ] || rb_fail "a stable review series got mail: $(kinds stable)"
q stable "SELECT detail FROM series" | grep -q 'stable review' ||
	rb_fail "not skipped as stable: $(q stable 'SELECT state, detail FROM series')"
echo "4: a stable review series is not reviewed"

# 5. the default: the parts before the first gap are reviewed.
mk "$d/prefix.mbox" "0|$L" "1|$L" "2|$L"
conf prefix "$d/prefix.mbox"
"$RB_BIN" run --once -c "$d/prefix.yaml" 2>"$d/prefix.log" ||
	rb_fail "run: $(tail -5 "$d/prefix.log")"
k=$(kinds prefix)
[ "$k" = "review:2" ] || rb_fail "reviews: '$k', want review:2 (patch 2 lacks its Signed-off-by)"
tr -d '\r' <"$d/prefix-out/new"/* | tr '\n' ' ' |
	grep -q 'Patch 3/3 did not reach the list; only patches 1 *to 2 of 3 were looked at' ||
	rb_fail "the review does not name the missing part: $(tr -d '\r' <"$d/prefix-out/new"/*)"
q prefix "SELECT state || ': ' || detail FROM series" | grep -q '^incomplete: patches 1 to 2 of 3 reviewed' ||
	rb_fail "series: $(q prefix 'SELECT state, detail FROM series')"
echo "5: review-prefix: patches 1 and 2 of 3 reviewed, 3/3 named missing"
echo PASS
