#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: the in-body From: picks the recipient. The bot sent its
# apply-failure mail, with the poster's phishing subject, to an address
# that only the patch's in-body "From:" line named.
#
# Staged as an attacker would: Mallory posts a patch that applies
# nowhere, whose body starts "From: Victim <victim@example.net>" (as if
# she sent Victim's patch), under a subject made to phish. Neither
# notice goes to Victim:
#  1. by default the notice goes to the admins only (issue 34);
#  2. where RING BUFFER opted into author notices, to Mallory, the
#     sender: Victim is not on it (Mallory did not Cc her);
#  3. Mallory claims B4 Relay (From: "Victim via B4 Relay
#     <devnull+victim.example.net@kernel.org>"), which would make the
#     in-body author the poster; the policy checks DKIM and the relay's
#     signature is missing, so she is not believed.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
sec_patch phish phish@example.org "Mallory <mallory@example.org>"
python3 - "$d/phish.eml" "$d/relay.eml" <<'PY'
import re, sys
src, relay = sys.argv[1:3]
head, body = open(src).read().split("\n\n", 1)
head = re.sub(r"(?m)^Subject:.*$",
              "Subject: [PATCH] URGENT: your account is suspended, "
              "log in at http://phish.example/", head)
# Every context line changed: the patch applies nowhere.
body = re.sub(r"(?m)^ (\S)", r" XX\1", body)
body = "From: Victim <victim@example.net>\n\n" + body
open(src, "w").write(head + "\n\n" + body)
head = head.replace("From: Mallory <mallory@example.org>",
                    "From: Victim via B4 Relay <devnull+victim.example.net@kernel.org>")
head = head.replace("<phish@example.org>", "<relay@example.org>")
open(relay, "w").write(head + "\n\n" + body)
PY
sec_append "$d/phish.eml"
sec_run run1.log
[ "$(q "SELECT state FROM series")" = apply_failed ] ||
	rb_fail "the patch applied: $(q "SELECT state || ' ' || detail FROM series")"
rcpts=$(q "SELECT group_concat(rcpts, ' ') FROM outbox")
[ "$rcpts" = root@example.net ] ||
	rb_fail "the default apply-failure notice goes to '$rcpts', not the admins only"
echo "ok 1: by default the notice goes to the admins only"

sed -i 's/^      max_findings: 10$/&\n      report_apply_failures: author/' "$d/config.yaml"
rm -rf "$d/rb.db"* "$d/outbox"
sec_run run2.log
rcpts=$(q "SELECT group_concat(rcpts, ' ') FROM outbox")
[ "$rcpts" = mallory@example.org ] ||
	rb_fail "the author notice goes to '$rcpts', not to the sender only"
echo "ok 2: an author notice goes to the sender, never to the in-body From:"

: >"$d/in.mbox"
sec_append "$d/relay.eml"
rm -rf "$d/rb.db"* "$d/outbox"
sec_run run3.log
rcpts=$(q "SELECT group_concat(rcpts, ' ') FROM outbox")
case $rcpts in
*victim@example.net*) rb_fail "a forged B4 Relay From: made the in-body From: the recipient: $rcpts" ;;
esac
[ "$rcpts" = devnull+victim.example.net@kernel.org ] ||
	rb_fail "the notice of an unsigned relay claim goes to '$rcpts'"
echo "ok 3: a B4 Relay claim without the relay's DKIM signature is not believed"
echo PASS
