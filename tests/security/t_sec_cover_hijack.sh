#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17, attack 8: cover-letter hijack. Mallory posts "[PATCH 0/3]"
# into Ada's thread. b4 takes the last 0/N of a version as its cover, so
# the bot saw a new series (the cover's Message-ID is the series id) of
# Ada's patches with Mallory as its author, reviewed it again and mailed
# author, maintainers and list. A cover now joins a series only when the
# series' sender sent it:
#  A. after Ada's series (with its cover) was reviewed, Mallory's 0/3 in
#     reply to Ada's cover gets no review and mails nobody;
#  B. Ada's patches sent without their cover (they reference it), and
#     Mallory's 0/3 carrying that very Message-ID, in one batch: one
#     series, Ada's, reviewed once, and nothing goes to Mallory.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
series=$d/demo/series.mbox
cover=$(sed -n 's/^Message-Id: <\(cover\.[^>]*\)>$/\1/p' "$series")
[ -n "$cover" ] || rb_fail "the demo series has no cover letter"

# attacker MSGID IN-REPLY-TO: Mallory's cover letter, in Ada's thread.
attacker()
{
	cat <<EOM
From: Mallory <mallory@evil.example>
To: demo-list@example.org
Date: Tue, 3 Nov 2026 12:00:00 +0000
Message-Id: <$1>
In-Reply-To: <$2>
References: <$2>
Subject: [PATCH 0/3] ring: small fixes and helpers, reviewed again

Mallory's cover letter for Ada's patches.

Mallory (3):
  ring: add ring_count()
  ring: refuse a ring of size zero
  ring: add ring_free()

 include/ring.h |  2 ++
 lib/ring.c     | 13 +++++++++++++
 2 files changed, 15 insertions(+)
EOM
}

# A: the review first, then the hijack.
cp "$series" "$d/in.mbox"
sec_run a1.log
n1=$(q "SELECT COUNT(*) FROM outbox")
[ "$n1" -ge 1 ] || rb_fail "Ada's series got no review: $(cat "$d/a1.log")"
attacker hijack-a@evil.example "$cover" >"$d/hijack-a.eml"
sec_append "$d/hijack-a.eml"
sec_run a2.log
[ "$(q "SELECT COUNT(*) FROM outbox")" = "$n1" ] ||
	rb_fail "the hijacking cover made mail: $(q "SELECT group_concat(series_id || ' -> ' || replace(rcpts, char(10), ','), '; ') FROM outbox")"
[ "$(q "SELECT COUNT(*) FROM series")" = 1 ] ||
	rb_fail "a second series: $(q "SELECT group_concat(id || ' by ' || author, '; ') FROM series")"
[ "$(q "SELECT author FROM series")" = ada@example.org ] ||
	rb_fail "the series' author is $(q "SELECT author FROM series")"
[ "$(q "SELECT COUNT(*) FROM reviews")" = "$(q "SELECT COUNT(*) FROM reviews WHERE series_id = '$cover'")" ] ||
	rb_fail "a review of another series: $(q "SELECT group_concat(series_id, ' ') FROM reviews")"

# B: no cover of Ada's; Mallory's carries the id Ada's patches reference.
rm -rf "$d/rb.db"* "$d/outbox"
python3 - "$series" "$d/in.mbox" "$cover" <<'PY'
import re, sys
src, dst, cover = sys.argv[1:4]
mails = re.split(r'(?m)^(?=From [0-9a-f]{40} Mon Sep 17)', open(src).read())
open(dst, "w").write("".join(m for m in mails
                             if m and "Message-Id: <%s>" % cover not in m))
PY
[ "$(grep -c '^Subject: \[PATCH' "$d/in.mbox")" = 3 ] || rb_fail "B: not 3 patches"
attacker "$cover" "$cover" | sed '/^In-Reply-To:/d; /^References:/d' >"$d/hijack-b.eml"
sec_append "$d/hijack-b.eml"
sec_run b1.log
[ "$(q "SELECT COUNT(*) FROM series")" = 1 ] ||
	rb_fail "B: $(q "SELECT group_concat(id || ' by ' || author, '; ') FROM series")"
[ "$(q "SELECT author FROM series")" = ada@example.org ] ||
	rb_fail "B: the series' author is $(q "SELECT author FROM series")"
[ "$(q "SELECT COUNT(*) FROM series WHERE id = '$cover'")" = 0 ] ||
	rb_fail "B: Mallory's cover names the series"
[ "$(q "SELECT COUNT(*) FROM outbox")" -ge 1 ] || rb_fail "B: Ada's series got no review: $(cat "$d/b1.log")"
[ "$(q "SELECT COUNT(*) FROM outbox WHERE rcpts LIKE '%mallory%'")" = 0 ] ||
	rb_fail "B: mail to Mallory: $(q "SELECT replace(rcpts, char(10), ',') FROM outbox WHERE rcpts LIKE '%mallory%'")"
echo "1 passed, 0 failed"
