#!/bin/bash
# The dashboard in a real browser: headless Chromium, driven through
# chromedriver by dashboard_driver.py, loads the series list, a series
# page and the stats page of a store filled by "reviewbot review" (the
# demo series, a patch whose subject carries a <script> element, and the
# author's reply judging F1 valid). The pages must show the series'
# subject, the verdict and the precision figure (1.00); the <script> in
# the subject must stay text (no script element in the DOM, CSP forbids
# any). Screenshots are kept in $RB_BUILD/tests/dashboard-*.png.
. "$(dirname "$0")/lib.sh"
set -e
rb_need chromium
rb_need chromedriver
"$RB_BIN" serve --help >/dev/null 2>&1 ||
	rb_skip "reviewbot has no serve command yet (main.c's command table)"
d=$RB_TEST_DIR
export RB_NOW=1793700000
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null

# A second patch: its subject is hostile markup.
cat >"$d/xss.eml" <<'EOM'
From: Eve <eve@example.org>
To: demo-list@example.org
Subject: [PATCH] ring: <script>document.title='pwned'</script> & "quotes"
Date: Mon, 2 Nov 2026 12:00:00 +0000
Message-ID: <xss-1@example.org>
List-Id: <demo-list.example.org>

Nothing to see.

Signed-off-by: Eve <eve@example.org>
---
 lib/ring.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/lib/ring.c b/lib/ring.c
--- a/lib/ring.c
+++ b/lib/ring.c
@@ -1,3 +1,4 @@
 // SPDX-License-Identifier: GPL-2.0
+/* <script>alert(1)</script> */
 #include <stdlib.h>
 #include "../include/ring.h"
EOM

cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
"$RB_BIN" review -c "$d/config.yaml" "$d/demo/series.mbox" "$d/xss.eml" \
	2>"$d/review.log" || rb_fail "review: $(cat "$d/review.log")"
q() { python3 -c 'import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone(); print(r[0] if r else "")' "$d/rb.db" "$1"; }
review=$(q "SELECT review_msgid FROM findings WHERE fid = 'F1' AND category = 'signed-off-by'")
[ -n "$review" ] || rb_fail "the demo series has no finding F1: $(cat "$d/review.log")"
series=$(q "SELECT series_id FROM findings WHERE review_msgid = '$review'")
cat >"$d/reply.eml" <<EOM
From: Ada Lovelace <ada@example.org>
To: reviewbot <reviewbot@localhost>
Subject: Re: [PATCH 2/3] ring: refuse a ring of size zero
Date: Tue, 3 Nov 2026 10:00:00 +0000
Message-ID: <reply-1@example.org>
In-Reply-To: $review
References: $review

F1: valid, I forgot it.
EOM
"$RB_BIN" review -c "$d/config.yaml" "$d/reply.eml" 2>>"$d/review.log"
[ "$(q "SELECT COUNT(*) FROM verdicts WHERE authorised = 1")" = 1 ] ||
	rb_fail "the reply gave no verdict: $(cat "$d/review.log")"

rb_start serve "$RB_BIN" serve -c "$d/config.yaml" --listen 127.0.0.1:0
for i in $(seq 100); do
	url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$RB_TEST_DIR/serve.log" || true)
	[ -n "$url" ] && break
	sleep 0.05
done
[ -n "$url" ] || rb_fail "serve did not start: $(cat "$RB_TEST_DIR/serve.log")"
wd=$(rb_free_port)
rb_start chromedriver chromedriver --port="$wd"
rb_wait_port "$wd"
mkdir -p "$d/profile"
shots=${RB_BUILD:-$d}/tests
mkdir -p "$shots"
sid=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$series")
python3 "$RB_SRC/tests/integration/dashboard_driver.py" "$wd" "$d/profile" \
	"open:$url" \
	"text:#series=ring: small fixes and helpers" \
	"text:#series=<script>document.title='pwned'</script> & \"quotes\"" \
	"text:#series=applied on demo" \
	"count:script=0" \
	"text:h1=Series" \
	"shot:$shots/dashboard-series-list.png" \
	"open:${url}series?id=$sid" \
	"text:#verdicts=valid" \
	"text:#verdicts=ada@example.org" \
	"text:#findings=Signed-off-by" \
	"shot:$shots/dashboard-series.png" \
	"open:${url}stats" \
	"text:#precision-finding=1.00" \
	"count:svg=3" \
	"count:script=0" \
	"shot:$shots/dashboard-stats.png" ||
	rb_fail "the browser check failed (serve log: $(cat "$RB_TEST_DIR/serve.log"))"
for f in series-list series stats; do
	[ -s "$shots/dashboard-$f.png" ] || rb_fail "no screenshot dashboard-$f.png"
done
echo "1 passed, 0 failed"
