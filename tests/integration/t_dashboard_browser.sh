#!/bin/bash
# The dashboard in a real browser: headless Chromium in a 1280-pixel
# window, driven through chromedriver by dashboard_driver.py, loads the
# series list, a series page and the stats page of a store filled by
# "reviewbot review" (the demo series, a patch whose subject carries a
# <script> element, one whose subject is 300 characters without a space,
# 60 more one-patch series so that the list has two pages, and the
# author's reply judging F1 valid). The pages must show the series'
# subject, the verdict and the precision figure (1.00), fit the window,
# page with plain links and filter with the form; the <script> in the
# subject must stay text (no script element in the DOM, CSP forbids
# any). Screenshots are kept in $RB_BUILD/tests/dashboard-*.png. The
# whole archive's answers are t_dashboard_corpus.sh's, their times
# bench/dashboard.sh's.
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

# 60 more series, older than the others, and a subject that no browser
# can break at a space (the oldest, on page 2).
python3 - "$d/more.mbox" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(61):
        title = ("ring: tune%03d " % i) if i else "ring: " + "x" * 300
        f.write("From x@x Mon Nov  2 12:00:00 2026\n"
                "From: Bob <bob@example.org>\n"
                "To: demo-list@example.org\n"
                "Subject: [PATCH] %s\n"
                "Date: Sun, 2 Nov 2025 %02d:%02d:00 +0000\n"
                "Message-ID: <more-%d@example.org>\n"
                "List-Id: <demo-list.example.org>\n\n"
                "Tune it.\n\nSigned-off-by: Bob <bob@example.org>\n---\n"
                " lib/ring.c | 1 +\n\n"
                "diff --git a/lib/ring.c b/lib/ring.c\n"
                "--- a/lib/ring.c\n+++ b/lib/ring.c\n"
                "@@ -1,3 +1,4 @@\n // SPDX-License-Identifier: GPL-2.0\n"
                "+/* tune %d */\n #include <stdlib.h>\n"
                " #include \"../include/ring.h\"\n\n"
                % (title, i // 60, i % 60, i, i))
PY

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
      require_dkim: false         # the reply below is not signed
EOC
"$RB_BIN" review -c "$d/config.yaml" "$d/demo/series.mbox" "$d/xss.eml" \
	"$d/more.mbox" \
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
	"text:h1=Series" \
	"text:#pager=63 series, page 1 of 2" \
	"count:#series tr=51" \
	"count:script=0" \
	"text:#series=ring: small fixes and helpers" \
	"text:#series=<script>document.title='pwned'</script> & \"quotes\"" \
	"text:#series=applied on demo" \
	"fit:1280" \
	"shot:$shots/dashboard-series-list.png" \
	"click:#older" \
	"text:#pager=page 2 of 2" \
	"count:#series tr=14" \
	"text:#series=ring: tune012" \
	"text:#series=ring: xxxxxxxxxx" \
	"fit:1280" \
	"shot:$shots/dashboard-series-list-2.png" \
	"open:$url" \
	"type:#q=tune01" \
	"click:#filter button" \
	"text:#pager=10 series, page 1 of 1" \
	"text:#series=ring: tune019" \
	"open:${url}?section=RING+BUFFER&findings=1" \
	"text:#pager=1 series" \
	"text:#series=ring: small fixes and helpers" \
	"text:#series=thread" \
	"open:${url}series?id=$sid" \
	"text:#verdicts=valid" \
	"text:#verdicts=ada@example.org" \
	"text:#findings=Signed-off-by" \
	"text:#findings=judged valid" \
	"text:#patches=ring: refuse a ring of size zero" \
	"count:script=0" \
	"fit:1280" \
	"shot:$shots/dashboard-series.png" \
	"open:${url}stats" \
	"text:#precision-finding=1.00" \
	"count:svg=3" \
	"count:p.reading=3" \
	"count:script=0" \
	"fit:1280" \
	"shot:$shots/dashboard-stats.png" ||
	rb_fail "the browser check failed (serve log: $(cat "$RB_TEST_DIR/serve.log"))"
for f in series-list series-list-2 series stats; do
	[ -s "$shots/dashboard-$f.png" ] || rb_fail "no screenshot dashboard-$f.png"
done
echo "1 passed, 0 failed"
