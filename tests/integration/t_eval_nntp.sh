#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_eval_nntp.sh - "reviewbot eval --build-set" from a public-inbox group
# over NNTP (how a linux-mm set is built from lore, docs/EVAL.md): the
# test archive (tests/data/eval/archive.mbox) imported into a v2 inbox
# with the public-inbox tools and served by public-inbox-nntpd, read from
# its first article by the pipeline's NNTP source, gives the same pairs
# and exclusions as the mbox itself; --archive keeps what was read. A
# group that does not exist is an error that says so.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
d=$RB_TEST_DIR
rb_need public-inbox-nntpd
rb_need public-inbox-init
export PI_CONFIG=$d/pi/config
G=org.example.linux-mm
archive=$RB_SRC/tests/data/eval/archive.mbox
mkdir -p "$d/pi"
public-inbox-init -V2 -L basic mm "$d/pi/mm" http://example.org/mm \
	linux-mm@kvack.example.org >/dev/null 2>&1 || rb_fail "public-inbox-init"
git config -f "$PI_CONFIG" publicinbox.mm.newsgroup $G
perl -MPublicInbox::Config -MPublicInbox::InboxWritable -e '
	my $ibx = PublicInbox::Config->new->lookup_name("mm") or die "no inbox\n";
	PublicInbox::InboxWritable->new($ibx)->import_mbox(\*STDIN, "mboxrd");' \
	<"$archive" || rb_fail "import"
PORT=$(rb_free_port)
rb_start nntpd public-inbox-nntpd -l "127.0.0.1:$PORT" >/dev/null
rb_wait_port "$PORT" || rb_fail "public-inbox-nntpd: $(cat "$d/nntpd.log")"

"$RB_BIN" eval --build-set --from "$archive" --out "$d/mbox.json" \
	>"$d/mbox.out" 2>"$d/err" || rb_fail "build-set (mbox): $(cat "$d/err")"
"$RB_BIN" eval --build-set --from "nntp://127.0.0.1:$PORT/$G" \
	--out "$d/nntp.json" --archive "$d/fetched.mbox" >"$d/nntp.out" \
	2>"$d/err" || rb_fail "build-set (nntp): $(cat "$d/err")"
cat "$d/nntp.out"
grep -q "nntp://127.0.0.1:$PORT/$G: 9 articles (0 too big)" "$d/err" ||
	rb_fail "what was read: $(cat "$d/err")"
grep -q "1 pairs, 3 excluded" "$d/nntp.out" || rb_fail "$(cat "$d/nntp.out")"
python3 - "$d/mbox.json" "$d/nntp.json" "nntp://127.0.0.1:$PORT/$G" <<'PY' ||
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert b["source"] == sys.argv[3], b["source"]
assert a["archive"]["messages"] == b["archive"]["messages"] == 9, b["archive"]
assert a["pairs"] == b["pairs"], (a["pairs"], b["pairs"])
assert a["excluded"] == b["excluded"], (a["excluded"], b["excluded"])
PY
	rb_fail "the set read over NNTP is not the mbox's"
[ "$(grep -c '^From ' "$d/fetched.mbox")" = 9 ] || rb_fail "--archive"

"$RB_BIN" eval --build-set --from "nntp://127.0.0.1:$PORT/no.such.group" \
	--out "$d/none.json" >/dev/null 2>"$d/err"
[ $? = 1 ] && grep -q 'no group no.such.group' "$d/err" ||
	rb_fail "a missing group: $(cat "$d/err")"
"$RB_BIN" eval --build-set --from "nntp://127.0.0.1:$PORT" \
	--out "$d/none.json" >/dev/null 2>"$d/err"
[ $? = 2 ] || rb_fail "no group in the URL: $(cat "$d/err")"
echo "ok: the set over NNTP is the mbox's"
