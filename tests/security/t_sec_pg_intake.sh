#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17, attack 4: one message must not stop all intake on PostgreSQL.
#
# A UTF8 PostgreSQL database refuses text that is not UTF-8. An attacker
# posts a mail whose Message-ID and Subject: carry raw 8-bit bytes (and
# one whose Message-ID is longer than a header line may be, too long for
# a PostgreSQL index), before a good series. "reviewbot run --once" with
# a file source must record the bad mails as malformed (or normalised)
# with a reason, move past them, and store and review the good series.
# Before the fix the source retried the first mail forever.
. "$(dirname "$0")/../integration/lib.sh"
set -e
rb_need psql
rb_start_pg
d=$RB_TEST_DIR
export RB_NOW=1793700000
# The production case: a UTF8 database (initdb's default here may be
# SQL_ASCII, which takes any byte but NUL).
psql -h 127.0.0.1 -p "$RB_PG_PORT" -U reviewbot -d postgres -qc \
	"CREATE DATABASE rbutf8 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0" >/dev/null
# The config holds no user name (check-config refuses one): libpq's own.
export PGUSER=reviewbot
url="postgresql://127.0.0.1:$RB_PG_PORT/rbutf8"
pq() { psql -h 127.0.0.1 -p "$RB_PG_PORT" -U reviewbot -d rbutf8 -Atqc "$1"; }

bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
python3 - "$d/demo/series.mbox" "$d/in.mbox" <<'PY'
import sys
good = open(sys.argv[1], "rb").read()
long_id = b"x" * 1500 + b"".join(b"%d" % i for i in range(700))
bad = (b"From mallory Thu Jan  1 00:00:00 1970\n"
       b"From: Mallory <mallory@evil.example>\n"
       b"To: demo-list@example.org\n"
       b"List-Id: <demo-list.example.org>\n"
       b"Subject: caf\xe9 \xff\xfe broken\n"
       b"Date: Tue, 3 Nov 2026 08:00:00 +0000\n"
       b"Message-ID: <bad-\xff\xe9-1@evil.example>\n\n"
       b"Hello \xff.\n\n"
       b"From mallory Thu Jan  1 00:00:00 1970\n"
       b"From: Mallory <mallory@evil.example>\n"
       b"To: demo-list@example.org\n"
       b"List-Id: <demo-list.example.org>\n"
       b"Subject: a long id\n"
       b"Date: Tue, 3 Nov 2026 08:01:00 +0000\n"
       b"Message-ID: <" + long_id + b"@evil.example>\n\n"
       b"Hello.\n\n")
open(sys.argv[2], "wb").write(bad + good)
PY

cat >"$d/config.yaml" <<EOC
store:
  url: $url
sources:
  - type: mbox
    path: $d/in.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox
admins: [admin@example.org]
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run1.log" 2>&1 ||
	echo "run exited $?" >>"$d/run1.log"
# A second pass must not be stuck either (and sends nothing twice).
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run2.log" 2>&1 ||
	echo "run exited $?" >>"$d/run2.log"

n=$(pq "SELECT COUNT(*) FROM series WHERE total = 3" 2>/dev/null || echo 0)
[ "$n" = 1 ] || rb_fail "the good series was not stored after the bad mail: $(tail -5 "$d/run1.log")"
n=$(ls "$d/outbox/new" 2>/dev/null | wc -l)
[ "$n" -ge 1 ] || rb_fail "the good series was not reviewed: $(tail -5 "$d/run1.log")"
# The 8-bit mail: a Message-ID the bot could not answer (RFC 5322 3.6.4:
# printable ASCII; issue 33) makes the mail malformed, recorded alone
# with the byte named, under a key of its own that PostgreSQL takes.
n=$(pq "SELECT COUNT(*) FROM messages WHERE origin LIKE '%in.mbox:1' AND state = 'malformed' AND reason LIKE '%byte 0x%in the Message-ID%'")
[ "$n" = 1 ] || rb_fail "the 8-bit Message-ID was not recorded as malformed: $(pq "SELECT message_id, state, reason FROM messages WHERE origin LIKE '%in.mbox:1'")"
# The long one: normalised (the parser puts a synthetic id in place of
# one longer than a header line) or quarantined with its reason.
n=$(pq "SELECT COUNT(*) FROM messages WHERE origin LIKE '%in.mbox:2' AND (length(message_id) <= 998 OR (state = 'malformed' AND reason IS NOT NULL))")
[ "$n" = 1 ] || rb_fail "the over-long Message-ID was neither normalised nor quarantined: $(pq "SELECT length(message_id), state, reason FROM messages WHERE origin LIKE '%in.mbox:2'")"
n=$(ls "$d/outbox/new" | wc -l)
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run3.log" 2>&1 || true
[ "$(ls "$d/outbox/new" | wc -l)" = "$n" ] || rb_fail "a later pass sent again"
echo "1 passed, 0 failed"
