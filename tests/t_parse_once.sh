#!/bin/bash
# t_parse_once.sh - a message is parsed once on its way from the source to
# the outbox (issue 21): ingest parses it to find its Message-ID and
# stores its metadata with the bytes; assembly works from that metadata;
# only the review stage parses the parts again, because it needs their
# bodies. rb_message_parse() counts its calls, and "reviewbot review"
# logs the count (event=review.done parses=N).
. "$(dirname "$0")/integration/lib.sh"
set -e
d=$RB_TEST_DIR
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
export RB_NOW=1793700000 RB_LOG=1

review() { # review MBOX: prints the parse count of the run
	"$RB_BIN" review --tree "$d/demo/tree" --store "$d/rb.db" \
		--outbox "$d/outbox" "$1" >"$d/out.log" 2>&1 || true
	sed -n 's/.*event=review\.done parses=\([0-9]*\).*/\1/p' "$d/out.log"
}

msgs=$(grep -c '^From ' "$d/demo/series.mbox")
got=$(review "$d/demo/series.mbox")
parts=$(sqlite3 "$d/rb.db" "SELECT count(*) FROM patches")
reviewed=$(sqlite3 "$d/rb.db" "SELECT count(*) FROM series WHERE state = 'reviewed'")
[ -n "$got" ] || rb_fail "no parse count logged: $(tail -n 5 "$d/out.log")"
[ "$reviewed" = 1 ] || rb_fail "the series was not reviewed: $(tail -n 5 "$d/out.log")"
want=$((msgs + parts))
[ "$got" = "$want" ] ||
	rb_fail "$msgs messages, $parts parts reviewed: $got parses, want $want (once at ingest, once for the review)"
echo "first run: $msgs messages, $parts parts reviewed, $got parses"

# A later message: the stored ones are assembled again from their
# metadata, so this run parses the new mail alone.
cover=$(sqlite3 "$d/rb.db" "SELECT message_id FROM patches WHERE idx = 0")
cat >"$d/reply.mbox" <<EOM
From mboxrd@z Thu Jan  1 00:00:00 1970
From: Some One <someone@example.org>
To: list@example.org
Subject: Re: [PATCH 0/3] the series
Date: Mon, 2 Nov 2026 10:00:00 +0000
Message-ID: <reply-1@example.org>
In-Reply-To: <$cover>
References: <$cover>

Looks good to me.
EOM
got=$(review "$d/reply.mbox")
[ "$got" = 1 ] || rb_fail "a new reply cost $got parses, want 1: $(tail -n 5 "$d/out.log")"
echo "second run: 1 new message, $got parse"
echo "1 passed, 0 failed"
