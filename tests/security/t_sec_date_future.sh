#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17: a Date: in the future is clamped to the time received. The
# review of a series may go out at its newest part's Date plus the
# embargo, and a missing part is waited for from that Date: a patch
# dated 2100 held its own review (and, posted into someone else's
# series, that series' review) for 74 years. The daemon must take the
# time it received the mail instead (15 minutes of clock skew allowed)
# and send the review in the same pass; a Date in the past stays as sent.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
sec_patch v1 ring-empty-future@example.org
sed -i 's/^Date: .*/Date: Fri, 31 Dec 2100 23:59:59 +0000/' "$d/v1.eml"
sec_append "$d/v1.eml"
sec_run run1.log

date=$(q "SELECT date FROM messages WHERE message_id = 'ring-empty-future@example.org'")
[ -n "$date" ] && [ "$date" -le $((RB_NOW + 900)) ] ||
	rb_fail "the stored Date is $date, after the time received $RB_NOW"
last=$(q "SELECT last_date FROM series")
[ -n "$last" ] && [ "$last" -le $((RB_NOW + 900)) ] ||
	rb_fail "the series' newest part is dated $last"
[ "$(q "SELECT COUNT(*) FROM outbox WHERE state = 'sent'")" = 1 ] ||
	rb_fail "the review was not sent: $(q "SELECT COALESCE(group_concat(state || ' after ' || send_after, '; '), 'no mail') FROM outbox")"
n=$(ls "$d/outbox/new" | wc -l)
[ "$n" = 1 ] || rb_fail "expected 1 reply in the Maildir, got $n"
# The Date as sent is still what the reply quotes nowhere but the store.
tr -d '\r' <"$d/outbox/new"/* | grep -q '^Date: .* 2100' &&
	rb_fail "the reply carries the future Date"

# A Date in the past is what the sender said.
sec_patch v2 ring-empty-past@example.org
sed -i -e 's/^Date: .*/Date: Mon, 2 Nov 2026 08:00:00 +0000/' \
	-e 's/^Subject: \[PATCH\]/Subject: [PATCH v2]/' "$d/v2.eml"
sec_append "$d/v2.eml"
sec_run run2.log
[ "$(q "SELECT date FROM messages WHERE message_id = 'ring-empty-past@example.org'")" = 1793606400 ] ||
	rb_fail "a past Date was changed"
echo "1 passed, 0 failed"
