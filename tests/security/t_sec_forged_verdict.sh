#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: forged maintainer verdicts on the default config.
#
# With require_dkim: false, the default then, a reply "From: <an M: of
# the section>" saying "F1: false positive" switched the Signed-off-by
# check off for every series of the section. Now, on a config that does
# not mention require_dkim:
#  1. Mallory's unsigned reply From: Grace (RING BUFFER's M:) on the
#     review of Bob's patch is refused ("the policy requires DKIM"), and
#     Carol's later patch, without a Signed-off-by either, still gets
#     the finding;
#  2. Grace's own reply, DKIM-signed by example.org, is taken (the
#     positive control), but it speaks for Bob's series only: Carol's
#     next patch still gets the finding, since a section-wide
#     suppression needs an admin;
#  3. an admin's signed verdict does reach every series (Dave's).
# Driven through "reviewbot run --once" with a file source.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/verdict_lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
d=$RB_TEST_DIR
export RB_NOW=1793780000
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
: >"$d/in.mbox"
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    path: $d/in.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox
admins: [root@example.net]
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
grep -q require_dkim "$d/config.yaml" && rb_fail "the config names require_dkim"
sec_keys example.org example.net
one_patch Bob bob@example.com 2026-11-04T08:00:00Z lib/ring.c \
	"ring: a note from Bob" 0 "$d/bob.eml"
one_patch Carol carol@example.com 2026-11-05T08:00:00Z include/ring.h \
	"ring: a note from Carol" 0 "$d/carol.eml"
one_patch Erin erin@example.com 2026-11-05T09:00:00Z lib/ring.c \
	"ring: a note from Erin" 0 "$d/erin.eml"
one_patch Dave dave@example.com 2026-11-05T10:00:00Z include/ring.h \
	"ring: a note from Dave" 0 "$d/dave.eml"

feed "$d/bob.eml"
[ "$(sob_state bob@example.com)" = raised ] ||
	rb_fail "Bob's patch was not found to lack a Signed-off-by: $(tail -3 "$d/run.log")"
set -- $(sob_review bob@example.com)
review=$1 fid=$2

# 1. Mallory writes Grace's address.
reply forged 'Grace Hopper <grace@example.org>' "$review" "$fid: false positive\n"
feed "$d/forged"
st=$(q "SELECT state || ': ' || coalesce(reason, '') FROM feedback WHERE message_id = 'forged@example.org'")
case $st in
refused:*DKIM*) ;;
*) rb_fail "1: the forged maintainer's verdict: '$st'" ;;
esac
feed "$d/carol.eml"
[ "$(sob_state carol@example.com)" = raised ] ||
	rb_fail "1: a forged maintainer's verdict switched the check off for Carol: $(sob_state carol@example.com)"

# 2. Grace herself, signed: Bob's series only.
reply grace-raw 'Grace Hopper <grace@example.org>' "$review" "$fid: false positive\n"
sec_sign "$d/grace-raw" "$d/grace" example.org
feed "$d/grace"
[ "$(q "SELECT authorised || ':' || role FROM verdicts WHERE reply_msgid = 'grace-raw@example.org'")" = 1:maintainer ] ||
	rb_fail "2: positive control: Grace's signed verdict: $(q "SELECT state, reason FROM feedback WHERE message_id = 'grace-raw@example.org'")"
feed "$d/erin.eml"
[ "$(sob_state erin@example.com)" = raised ] ||
	rb_fail "2: a maintainer's verdict on Bob's series silenced the check in Erin's: $(sob_state erin@example.com)"

# 3. An admin, signed: everyone's.
set -- $(sob_review erin@example.com)
reply root-raw 'Root <root@example.net>' "$1" "$2: false positive\n"
sec_sign "$d/root-raw" "$d/root" example.net
feed "$d/root"
[ "$(q "SELECT authorised || ':' || role FROM verdicts WHERE reply_msgid = 'root-raw@example.org'")" = 1:admin ] ||
	rb_fail "3: positive control: the admin's signed verdict: $(q "SELECT state, reason FROM feedback WHERE message_id = 'root-raw@example.org'")"
feed "$d/dave.eml"
[ "$(sob_state dave@example.com)" = suppressed ] ||
	rb_fail "3: positive control: the admin's verdict does not reach Dave's patch: $(sob_state dave@example.com)"
echo "1 passed, 0 failed"
