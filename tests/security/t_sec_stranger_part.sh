#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: a stranger fills a missing part of someone else's series.
#
# Ada's series reaches the list without its 3/3 (she Cc'd the lists per
# patch). b4 takes any [PATCH 3/3] of the thread into the missing slot,
# and so did reviewbot: Mallory's part completed Ada's series, her
# findings were mixed with his patch, and Mallory, now "an author",
# could judge the victim's findings.
#  A. Mallory's [PATCH 3/3], In-Reply-To Ada's cover: not a part of the
#     series (nor of any), Ada stays its only author, and Mallory's
#     "F1: false positive" on the review of Ada's parts is refused as
#     neither an author, a maintainer nor an admin. (Positive control:
#     Ada's own late 3/3 still completes her series.)
#  B. The same 3/3 with a 0x01 byte in its Message-ID and Ada's From:
#     (forgeable) put the whole series into state "error" and no mail
#     went out. A part whose Message-ID cannot be answered is recorded
#     as malformed alone; Ada's parts are reviewed, and Bob's patch in
#     the same pass too.
#  C. A B4 Relay series: the author who may judge is the in-body From:
#     of its patches (the relay's devnull address cannot reply); Eve, who
#     is no part of it, is refused.
# Driven through "reviewbot run --once" with a file source.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
# Verdicts in this test are judged on who sends them, not on DKIM.
sed -i 's/require_dkim: true/require_dkim: false/' "$d/config.yaml"
# An incomplete series is reviewed at once (review-prefix, no wait).
printf 'series:\n  incomplete_wait_minutes: 0\n' >>"$d/config.yaml"
series=$d/demo/series.mbox
cover=$(sed -n 's/^Message-Id: <\(cover\.[^>]*\)>$/\1/p' "$series")
[ -n "$cover" ] || rb_fail "the demo series has no cover letter"

# parts OUT IDX...: the demo series' parts IDX (0 = cover) into OUT.
parts()
{
	python3 - "$series" "$@" <<'PY'
import re, sys
src, out, idx = sys.argv[1], sys.argv[2], [int(i) for i in sys.argv[3:]]
mails = [m for m in re.split(r'(?m)^(?=From [0-9a-f]{40} Mon Sep 17)',
                             open(src).read()) if m]
open(out, "w").write("".join(mails[i] for i in idx))
PY
}

# third OUT FROM MSGID: Ada's 3/3 as someone else posts it, into the
# slot Ada's cover leaves (MSGID may hold any byte: python escapes).
third()
{
	python3 - "$series" "$@" <<'PY'
import re, sys
src, out, frm, mid = sys.argv[1:5]
mails = [m for m in re.split(r'(?m)^(?=From [0-9a-f]{40} Mon Sep 17)',
                             open(src).read()) if m]
m = mails[3]
m = re.sub(r'(?m)^From: .*$', 'From: ' + frm, m, count=1)
m = re.sub(r'(?m)^Message-Id: .*$', 'Message-Id: <' + mid.encode().decode('unicode_escape') + '>', m, count=1)
m = re.sub(r'(?m)^Date: .*$', 'Date: Tue, 3 Nov 2026 12:00:00 +0000', m, count=1)
open(out, "w").write(m)
PY
}

# A. Mallory's part in Ada's thread.
parts "$d/in.mbox" 0 1 2
third "$d/evil3.eml" 'Mallory <mallory@evil.example>' 'evil3@evil.example'
sec_append "$d/evil3.eml"
sec_run a1.log
[ "$(q "SELECT COUNT(*) FROM patches WHERE message_id = 'evil3@evil.example'")" = 0 ] ||
	rb_fail "A: Mallory's 3/3 joined a series: $(q "SELECT group_concat(series_id || ':' || idx, ' ') FROM patches WHERE message_id = 'evil3@evil.example'")"
[ "$(q "SELECT author FROM series WHERE id = '$cover'")" = ada@example.org ] ||
	rb_fail "A: the series' author is '$(q "SELECT author FROM series WHERE id = '$cover'")'"
[ "$(q "SELECT complete FROM series WHERE id = '$cover'")" = 0 ] ||
	rb_fail "A: Ada's series was completed by Mallory's part"
[ "$(q "SELECT COUNT(*) FROM outbox WHERE rcpts LIKE '%mallory%'")" = 0 ] ||
	rb_fail "A: mail to Mallory: $(q "SELECT group_concat(kind, ' ') FROM reviews")"
review=$(q "SELECT message_id FROM reviews WHERE series_id = '$cover' AND kind = 'review' ORDER BY patch_idx LIMIT 1")
[ -n "$review" ] ||
	rb_fail "A: Ada's parts got no review: $(q "SELECT state || ': ' || coalesce(detail, '') FROM series")"
sec_reply mallory-fp 'Mallory <mallory@evil.example>' 'F1: false positive\n'
sec_append "$d/mallory-fp.raw"
sec_run a2.log
st=$(q "SELECT state || ': ' || coalesce(reason, '') FROM feedback WHERE message_id = 'mallory-fp@example.org'")
case $st in
refused:*"neither an author"*) ;;
*) rb_fail "A: Mallory's verdict on Ada's review: '$st'" ;;
esac
[ "$(q "SELECT COUNT(*) FROM verdicts WHERE authorised = 1")" = 0 ] ||
	rb_fail "A: an authorised verdict: $(q "SELECT judge || ' ' || role FROM verdicts")"
# Positive control: Ada's own 3/3 arrives late and completes her series.
parts "$d/ada3.eml" 3
sec_append "$d/ada3.eml"
sec_run a3.log
[ "$(q "SELECT complete FROM series WHERE id = '$cover'")" = 1 ] ||
	rb_fail "A: Ada's own 3/3 did not complete her series: $(q "SELECT idx || '=' || message_id FROM patches WHERE series_id = '$cover'")"
echo "A: a stranger's part joins no series; its sender may not judge"

# B. A bad Message-ID in the missing slot, Ada's From: forged.
rm -rf "$d/rb.db"* "$d/outbox"
parts "$d/in.mbox" 0 1 2
third "$d/bad3.eml" 'Ada Lovelace <ada@example.org>' 'bad\x013@evil.example'
grep -q $'\x01' "$d/bad3.eml" || rb_fail "B: no 0x01 byte in the staged Message-ID"
sec_patch bob bob-1@example.org 'Bob <bob@example.org>'
sec_append "$d/bad3.eml" "$d/bob.eml"
sec_run b1.log
[ "$(q "SELECT COUNT(*) FROM series WHERE state = 'error'")" = 0 ] ||
	rb_fail "B: a series in error: $(q "SELECT id || ': ' || coalesce(detail, '') FROM series WHERE state = 'error'")"
[ "$(q "SELECT COUNT(*) FROM messages WHERE state = 'malformed' AND reason LIKE '%Message-ID%'")" = 1 ] ||
	rb_fail "B: the bad part was not recorded as malformed: $(q "SELECT group_concat(state || ':' || coalesce(reason, ''), '; ') FROM messages")"
[ "$(q "SELECT COUNT(*) FROM reviews WHERE series_id = '$cover'")" -ge 1 ] ||
	rb_fail "B: Ada's parts got no review: $(q "SELECT state || ': ' || coalesce(detail, '') FROM series WHERE id = '$cover'")"
[ "$(q "SELECT COUNT(*) FROM reviews WHERE series_id = 'bob-1@example.org'")" -ge 1 ] ||
	rb_fail "B: Bob's patch, in the same pass, got no review: $(q "SELECT id || ' ' || state FROM series")"
echo "B: a part with a bad Message-ID is dropped alone"

# C. A B4 Relay series (tests/t_b4_relay.sh): its author who may judge is
# the in-body From: of its patches; another in-body From: is not.
rm -rf "$d/rb.db"* "$d/outbox"
python3 - "$series" "$d/in.mbox" <<'PY'
import re, sys
src, dst = sys.argv[1:3]
parts = [p for p in re.split(r"(?m)^(?=From [0-9a-f]{40} )", open(src).read()) if p]
out = []
for p in parts:
    head, _, body = p.partition("\n\n")
    author = re.search(r"(?m)^From: (.*)$", head).group(1)
    head = head.replace("From: " + author, "From: Ada Lovelace via B4 Relay"
                        " <devnull+ada.example.org@kernel.org>")
    if "Subject: [PATCH 0/" not in head:
        body = "From: %s\n\n%s" % (author, body)
    out.append(head + "\n\n" + body)
open(dst, "w").write("".join(out))
PY
sec_run c1.log
review=$(q "SELECT message_id FROM reviews WHERE kind = 'review' ORDER BY patch_idx LIMIT 1")
[ -n "$review" ] || rb_fail "C: the relayed series got no review: $(q "SELECT state || ': ' || coalesce(detail, '') FROM series")"
sec_reply ada-fp 'Ada Lovelace <ada@example.org>' 'F1: false positive\n'
sec_reply eve-fp 'Eve <eve@example.org>' 'F1: false positive\n'
sec_append "$d/ada-fp.raw" "$d/eve-fp.raw"
sec_run c2.log
st=$(q "SELECT state FROM feedback WHERE message_id = 'ada-fp@example.org'")
[ "$st" = judged ] ||
	rb_fail "C: the relayed series' author was not taken as its author: $(q "SELECT state || ': ' || coalesce(reason, '') FROM feedback WHERE message_id = 'ada-fp@example.org'")"
st=$(q "SELECT state || ': ' || coalesce(reason, '') FROM feedback WHERE message_id = 'eve-fp@example.org'")
case $st in
refused:*"neither an author"*) ;;
*) rb_fail "C: Eve's verdict on the relayed series: '$st'" ;;
esac
echo "C: a B4 Relay series' author is its in-body From:"
echo "1 passed, 0 failed"
