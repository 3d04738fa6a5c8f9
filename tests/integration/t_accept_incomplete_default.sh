#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_incomplete_default.sh - with acceptance 5, under the default
# policy (incomplete: review-prefix, send_when_empty: false): the demo
# series without its patch 2 has a prefix, patch 1/3, with no findings.
# After the wait the daemon reviews that prefix; whatever it sends, the
# author must learn, in exactly one mail, that patch 2/3 did not reach
# the list. (Today the clean prefix gets no mail, so nobody is told.)
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_demo
acc_helpers
acc_servers
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory' 'series:
  incomplete_wait_minutes: 1'
$PY - "$d/demo/series.mbox" "$d/partial.mbox" <<'PY'
import re, sys
parts = re.split(r"(?m)^(?=From [0-9a-f]{40} )", open(sys.argv[1]).read())
parts = [p for p in parts if p and "Subject: [PATCH 2/3]" not in p]
open(sys.argv[2], "w").write("".join(parts))
PY
acc_start
acc_feed "$d/partial.mbox" ""
acc_settle
acc_check <<'PY' || exit 1
import time
due = acc.q1("SELECT not_before FROM jobs WHERE kind = 'incomplete'")
acc.check(due, "no incomplete job: %s" % acc.q("SELECT * FROM jobs"))
while acc.q1("SELECT state FROM jobs WHERE kind = 'incomplete'") != "done":
    acc.check(time.time() < due + 60, "the incomplete job did not run")
    time.sleep(0.2)
PY
acc_settle
acc_check "$d/partial.mbox" <<'PY' || exit 1
ids = [acc.msgid(sys.argv[1], i) for i in range(3)]
ms = [m for m in acc.mails() if m["in_reply_to"] in ids]
told = [m for m in ms if re.search(r"[Pp]atch 2/3 did not reach the list",
                                   acc.flat(m["body"]))]
acc.check(len(told) == 1 and "ada@example.org" in told[0]["rcpt"],
          "the author was not told, in one mail, that patch 2/3 is missing;"
          " series: %s; mails:\n%s" % (acc.q("SELECT state, detail FROM"
                                              " series"), acc.show(ms)))
PY
echo "ok: the author learns that patch 2/3 is missing"
acc_stop
echo PASS
