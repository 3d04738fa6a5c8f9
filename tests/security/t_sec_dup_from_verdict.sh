#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17, attack 2: DKIM bypass by a duplicated From:. Mallory has a
# mailbox at example.org, the domain of Grace, the RING BUFFER maintainer.
# She signs her own reply (d=example.org) marking F2 a false positive,
# then prepends "From: Grace Hopper <grace@example.org>". A parser that
# reads the first From: judges the reply as Grace's, and DKIM, which
# verifies the last From: (RFC 6376 5.4.2), passes. The daemon must
# record the mail as malformed (RFC 5322 3.6 allows one From:) and store
# no verdict from it; the author's own signed reply in the same run (the
# positive control) is judged and stored. Variants: a duplicated
# In-Reply-To (a verdict aimed at another review) and Message-ID.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
sec_keys example.org
sec_patch v1 ring-empty-v1@example.org
sec_append "$d/v1.eml"
sec_run run1.log
review=$(q "SELECT message_id FROM reviews WHERE kind = 'review'")
[ -n "$review" ] || rb_fail "no review of the patch: $(cat "$d/run1.log")"
[ "$(q "SELECT COUNT(*) FROM findings WHERE fid = 'F2'")" = 1 ] ||
	rb_fail "the review has no F2"

# The positive control: the author's signed verdict on F1.
sec_reply author 'Ada Lovelace <ada@example.org>' 'Thanks.\n\nF1: valid\n'
sec_sign "$d/author.raw" "$d/author.eml" example.org
# The attack: Mallory's own signed reply, with Grace's From: on top.
sec_reply forged 'Mallory <mallory@example.org>' 'F2: false positive\n'
sec_sign "$d/forged.raw" "$d/forged.signed" example.org
{ printf 'From: Grace Hopper <grace@example.org>\n'; cat "$d/forged.signed"; } >"$d/forged.eml"
# The same with the From: lines the other way round (Grace's below).
{ sed -n '1p' "$d/forged.signed"; printf 'From: Grace Hopper <grace@example.org>\n'; sed '1d' "$d/forged.signed"; } |
	sed 's/Message-ID: <forged@/Message-ID: <forged2@/' >"$d/forged2.eml"
# Two In-Reply-To: the signed one names another mail, the first ours.
sec_reply irt 'Ada Lovelace <ada@example.org>' 'F3: false positive\n'
sed -i "s/^In-Reply-To: .*/In-Reply-To: <elsewhere@example.org>/" "$d/irt.raw"
sec_sign "$d/irt.raw" "$d/irt.signed" example.org
{ printf 'In-Reply-To: %s\n' "$review"; cat "$d/irt.signed"; } >"$d/irt.eml"

# The one-shot command runs the same stages: the forged reply alone, on
# a store of its own, must not judge as Grace either.
sed "s#$d/rb.db#$d/rb-review.db#" "$d/config.yaml" >"$d/review.yaml"
"$RB_BIN" review -c "$d/review.yaml" "$d/v1.eml" >"$d/review1.log" 2>&1 ||
	rb_fail "review: $(cat "$d/review1.log")"
"$RB_BIN" review -c "$d/review.yaml" "$d/forged.eml" >"$d/review2.log" 2>&1 || true
judged=$(python3 -c 'import sqlite3,sys; print(";".join("%s %s %s" % r for r in sqlite3.connect(sys.argv[1]).execute("SELECT judge, fid, verdict FROM verdicts WHERE authorised = 1")))' "$d/rb-review.db")
[ -z "$judged" ] || rb_fail "reviewbot review judged the forged reply: $judged"

sec_append "$d/forged.eml" "$d/forged2.eml" "$d/irt.eml" "$d/author.eml"
sec_run run2.log

[ "$(q "SELECT COUNT(*) FROM verdicts WHERE authorised = 1 AND judge = 'ada@example.org' AND fid = 'F1' AND verdict = 'valid'")" = 1 ] ||
	rb_fail "the author's verdict (the positive control) was not stored: $(cat "$d/run2.log")"
n=$(q "SELECT COUNT(*) FROM verdicts WHERE fid <> 'F1' OR judge <> 'ada@example.org'")
[ "$n" = 0 ] || rb_fail "$n verdict(s) from the forged replies: $(q "SELECT judge || ' ' || fid || ' ' || verdict || ' ' || authorised FROM verdicts WHERE fid <> 'F1'")"
[ "$(q "SELECT COUNT(*) FROM findings WHERE state = 'suppressed'")" = 0 ] ||
	rb_fail "a finding was suppressed"
# Each forged reply is recorded, with its reason, and goes no further.
[ "$(q "SELECT COUNT(*) FROM messages WHERE state = 'malformed' AND reason LIKE '%duplicate From: header%RFC 5322 3.6 allows one%'")" = 2 ] ||
	rb_fail "the two replies with two From: are not recorded as malformed: $(q "SELECT group_concat(state || ' ' || COALESCE(reason, ''), '; ') FROM messages")"
[ "$(q "SELECT COUNT(*) FROM messages WHERE state = 'malformed' AND reason LIKE '%duplicate In-Reply-To: header%'")" = 1 ] ||
	rb_fail "the reply with two In-Reply-To: is not recorded as malformed"
[ "$(q "SELECT COUNT(*) FROM feedback WHERE judge = 'grace@example.org'")" = 0 ] ||
	rb_fail "a reply was judged as Grace's"
grep -q 'duplicate From: header' "$d/run2.log" ||
	rb_fail "the reason is not logged: $(cat "$d/run2.log")"
echo "1 passed, 0 failed"
