#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17, attack 3: one author silences a check for everyone.
#
# Ada's series lacks a Signed-off-by in 2/3; she answers the review with
# "F1: false positive". Her verdict judges her own series: the finding is
# suppressed in her v2 (the positive control: the product's promise),
# but Bob's patch, later, without a Signed-off-by either, must still get
# it. Suppression across series needs an admin (issue 33): when RING
# BUFFER's maintainer Grace marks it false on Bob's review, her verdict
# is taken, but Carol's ring patch and Dave's Makefile patch (THE REST,
# not Grace's) still get the finding (t_sec_forged_verdict.sh has the
# admin's verdict reaching every series). The replies are unsigned and
# the policy says require_dkim: false: this test is about scope.
# Driven through "reviewbot run --once" with a file source.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/verdict_lib.sh"
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
      require_dkim: false
    THE REST:
      mode: advisory
      require_dkim: false
EOC
one_patch Bob bob@example.com 2026-11-04T08:00:00Z lib/ring.c \
	"ring: a note from Bob" 0 "$d/bob.eml"
one_patch Carol carol@example.com 2026-11-05T08:00:00Z include/ring.h \
	"ring: a note from Carol" 0 "$d/carol.eml"
one_patch Dave dave@example.com 2026-11-05T09:00:00Z Makefile \
	"make: a note from Dave" 0 "$d/dave.eml"
ada_v2 >"$d/ada-v2.mbox"

# 1. Ada's series: 2/3 has no Signed-off-by.
feed "$d/demo/series.mbox"
[ "$(sob_state ada@example.org)" = raised ] ||
	rb_fail "Ada's 2/3 was not found to lack a Signed-off-by: $(tail -3 "$d/run.log")"
set -- $(sob_review ada@example.org)
reply ada-fp 'Ada Lovelace <ada@example.org>' "$1" "$2: false positive\n"

# 2. Ada's verdict, then Bob's patch and Ada's v2.
feed "$d/ada-fp"
[ "$(q "SELECT authorised FROM verdicts WHERE judge = 'ada@example.org'")" = 1 ] ||
	rb_fail "positive control: Ada's verdict was refused: $(q "SELECT * FROM verdicts")"
feed "$d/bob.eml" "$d/ada-v2.mbox"
[ "$(q "SELECT MAX(version) FROM series WHERE author = 'ada@example.org'")" = 2 ] ||
	rb_fail "Ada's v2 was not assembled"
[ "$(sob_state ada@example.org)" = suppressed ] ||
	rb_fail "positive control: Ada's v2 repeats the finding she judged false"
[ "$(sob_state bob@example.com)" = raised ] ||
	rb_fail "Ada's verdict on her own series silenced the check in Bob's: $(sob_state bob@example.com)"

# 3. RING BUFFER's maintainer judges it false on Bob's review.
set -- $(sob_review bob@example.com)
reply grace-fp 'Grace Hopper <grace@example.org>' "$1" "$2: false positive\n"
feed "$d/grace-fp"
[ "$(q "SELECT authorised FROM verdicts WHERE judge = 'grace@example.org'")" = 1 ] ||
	rb_fail "positive control: Grace's verdict was refused: $(q "SELECT judge, authorised, reason FROM verdicts")"
feed "$d/carol.eml" "$d/dave.eml"
[ "$(sob_state carol@example.com)" = raised ] ||
	rb_fail "RING BUFFER's maintainer's verdict on Bob's series silenced the check in Carol's: $(sob_state carol@example.com)"
[ "$(sob_state dave@example.com)" = raised ] ||
	rb_fail "RING BUFFER's maintainer silenced the check in THE REST: $(sob_state dave@example.com)"
# Each verdict keeps its judge's role (migration 4), for stats.
[ "$(q "SELECT judge || ':' || role FROM verdicts ORDER BY id" | tr '\n' ' ')" = "ada@example.org:author grace@example.org:maintainer " ] ||
	rb_fail "roles: $(q "SELECT judge, role, owner FROM verdicts")"
echo "1 passed, 0 failed"
