#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17: a DKIM pass counts for a verdict only when the signature
# covers the one From: (one field, one mailbox, named in h=), covers the
# whole body, and its d= aligns with the From: domain. Mallory has a
# mailbox at example.org, the domain of Grace, the RING BUFFER maintainer,
# so example.org's signer signs what she sends. Each forged reply below
# passes libopendkim's own check; none may be judged as Grace's:
#  - two-box:  "From: Grace <grace@...>, Mallory <mallory@...>" (one
#    field, two mailboxes; the parser reads Grace);
#  - no-from:  a signature whose h= leaves From: out;
#  - l-tag:    Grace's own signed "Thanks." with l=, and a verdict
#    appended after the signed length;
#  - hidden:   Grace's From: on top, then a line that is no header field
#    (the parser's header block ends there), then Mallory's signed From:;
#  - nul:      a NUL byte in a header field, which made libopendkim 2.11
#    read past its buffer (found by fuzz_dkim).
# Grace's genuine signed reply in the same run is judged (the control).
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

sec_reply grace 'Grace Hopper <grace@example.org>' 'F3: valid\n'
sec_sign "$d/grace.raw" "$d/grace.eml" example.org

sec_reply two-box 'Grace Hopper <grace@example.org>, Mallory <mallory@example.org>' \
	'F1: false positive\n'
sec_sign "$d/two-box.raw" "$d/two-box.eml" example.org

sec_reply no-from 'Grace Hopper <grace@example.org>' 'F1: false positive\n'
sec_sign "$d/no-from.raw" "$d/no-from.eml" example.org \
	--headers to:subject:date:message-id:in-reply-to:references

sec_reply l-tag 'Grace Hopper <grace@example.org>' 'Thanks.\n'
sec_sign "$d/l-tag.raw" "$d/l-tag.eml" example.org --body-length
printf 'F2: false positive\n' >>"$d/l-tag.eml"

# Mallory signs her own reply; on top go Grace's From: and the threading
# headers, then a line without a colon, which ends the header block for
# a parser but not for every DKIM verifier.
printf 'From: Mallory <mallory@example.org>\nTo: reviewbot <reviewbot@localhost>\nSubject: Re: x\nDate: Thu, 5 Nov 2026 10:00:00 +0000\nMessage-ID: <hidden@example.org>\n\nF1: false positive\n' >"$d/hidden.raw"
sec_sign "$d/hidden.raw" "$d/hidden.signed" example.org
{
	printf 'From: Grace Hopper <grace@example.org>\nMessage-ID: <hidden@example.org>\n'
	printf 'In-Reply-To: %s\nReferences: %s\n' "$review" "$review"
	printf 'X-Not-A-Field\n'
	cat "$d/hidden.signed"
} >"$d/hidden.eml"

sec_reply nul 'Grace Hopper <grace@example.org>' 'F1: false positive\n'
sed -i 's/^\(Subject: Re: .*\)$/\1\x7f\x00\x00/' "$d/nul.raw"
sec_sign "$d/nul.raw" "$d/nul.eml" example.org
[ "$(tr -cd '\000' <"$d/nul.eml" | wc -c)" = 2 ] ||
	rb_fail "no NUL bytes in the staged reply"

# The one-shot command first, on a store of its own, then the daemon.
sed "s#$d/rb.db#$d/rb-review.db#" "$d/config.yaml" >"$d/review.yaml"
"$RB_BIN" review -c "$d/review.yaml" "$d/v1.eml" >"$d/review1.log" 2>&1 ||
	rb_fail "review: $(cat "$d/review1.log")"
"$RB_BIN" review -c "$d/review.yaml" "$d/two-box.eml" "$d/no-from.eml" \
	"$d/l-tag.eml" "$d/hidden.eml" "$d/nul.eml" >"$d/review2.log" 2>&1 || true
grep -q 'AddressSanitizer' "$d/review2.log" &&
	rb_fail "reviewbot review crashed: $(grep -m1 -A3 ERROR "$d/review2.log")"
judged=$(python3 -c 'import sqlite3,sys; print(";".join("%s %s %s" % r for r in sqlite3.connect(sys.argv[1]).execute("SELECT judge, fid, verdict FROM verdicts WHERE authorised = 1")))' "$d/rb-review.db")
[ -z "$judged" ] || rb_fail "reviewbot review judged a forged reply: $judged"

sec_append "$d/two-box.eml" "$d/no-from.eml" "$d/l-tag.eml" "$d/hidden.eml" \
	"$d/nul.eml" "$d/grace.eml"
sec_run run2.log
[ "$(q "SELECT COUNT(*) FROM verdicts WHERE authorised = 1 AND judge = 'grace@example.org' AND fid = 'F3'")" = 1 ] ||
	rb_fail "Grace's own verdict (the positive control) was not stored: $(q "SELECT group_concat(message_id || ' ' || state || ' ' || COALESCE(reason, ''), '; ') FROM feedback")"
bad=$(q "SELECT COALESCE(group_concat(judge || ' ' || fid || ' ' || verdict, '; '), '') FROM verdicts WHERE authorised = 1 AND fid <> 'F3'")
[ -z "$bad" ] || rb_fail "forged verdicts were judged: $bad"
# (libopendkim itself refuses an h= without From: "header list missing
# required entries"; the check in rb_dkim_verify() does not rely on it.)
for r in 'two-box:From: holds 2 mailboxes' 'no-from:requires DKIM' \
	'l-tag:body length (l=)' 'hidden:2 From: header fields' \
	'nul:a NUL byte in the header block'; do
	id=${r%%:*} want=${r#*:}
	got=$(q "SELECT COALESCE(reason, state) FROM feedback WHERE message_id = '$id@example.org'")
	case $got in
	*"$want"*) ;;
	*) rb_fail "<$id@example.org>: expected \"$want\", got \"$got\"" ;;
	esac
done
echo "1 passed, 0 failed"
