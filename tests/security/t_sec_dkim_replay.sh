#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17: a signed verdict cannot be replayed against another review.
# Verdicts are public: the list archives Grace's signed "F1: false
# positive" on the review of Ada's patch. Her provider signed From:,
# Subject:, Date: and Message-ID:, but not In-Reply-To: or References:.
# Mallory copies the mail and threads it under the review of Bob's
# patch instead, without touching a signed byte: the signature still
# passes, so it must not count as a verdict on Bob's findings. Grace's
# reply whose signature covers its threading is judged (the control).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
sec_keys example.org
sec_patch ada ring-ada@example.org
sec_patch bob ring-bob@example.org 'Bob Builder <bob@example.org>'
sec_append "$d/ada.eml" "$d/bob.eml"
sec_run run1.log
for s in ada bob; do
	r=$(q "SELECT r.message_id FROM reviews r JOIN series s ON s.id = r.series_id WHERE r.kind = 'review' AND s.id LIKE 'ring-$s%'")
	[ -n "$r" ] || rb_fail "no review of $s's patch: $(tail -5 "$d/run1.log")"
	eval "review_$s=\$r"
done

# Grace's archived verdict on Ada's review, threading left unsigned.
review=$review_ada
sec_reply archived 'Grace Hopper <grace@example.org>' 'F1: false positive\n'
sec_sign "$d/archived.raw" "$d/archived.eml" example.org \
	--headers from:to:subject:date:message-id
# Mallory points it at Bob's review: only unsigned fields change.
sed -e "s/^In-Reply-To: .*/In-Reply-To: $review_bob/" \
	-e "s/^References: .*/References: $review_bob/" \
	"$d/archived.eml" >"$d/replayed.eml"
cmp -s "$d/archived.eml" "$d/replayed.eml" && rb_fail "the replay changed nothing"

# The control: Grace's reply to Bob's review, threading signed.
review=$review_bob
sec_reply grace 'Grace Hopper <grace@example.org>' 'F3: valid\n'
sec_sign "$d/grace.raw" "$d/grace.eml" example.org

sec_append "$d/replayed.eml" "$d/grace.eml"
sec_run run2.log
[ "$(q "SELECT COUNT(*) FROM verdicts WHERE authorised = 1 AND judge = 'grace@example.org' AND fid = 'F3'")" = 1 ] ||
	rb_fail "Grace's own verdict (the positive control) was not stored: $(q "SELECT group_concat(message_id || ' ' || state || ' ' || COALESCE(reason, ''), '; ') FROM feedback")"
bad=$(q "SELECT COALESCE(group_concat(judge || ' ' || fid || ' ' || verdict, '; '), '') FROM verdicts WHERE authorised = 1 AND fid <> 'F3'")
[ -z "$bad" ] || rb_fail "the replayed verdict was judged: $bad"
got=$(q "SELECT COALESCE(reason, state) FROM feedback WHERE message_id = 'archived@example.org'")
case $got in
*"does not cover In-Reply-To"*) ;;
*) rb_fail "the replay: expected the threading reason, got \"$got\"" ;;
esac
echo "1 passed, 0 failed"
