#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_due_wake.sh - with acceptance 5: the daemon does what is due
# when it is due, not when the next mail or poll_seconds (300, the
# default) wakes it. An IMAP source with IDLE and no more mail: the
# "incomplete" note of a series missing its patch 2 must go out once its
# wait (incomplete_wait_minutes: 1) is over, within 20 s, not up to 300 s
# later; and once the work in hand is done the daemon says so at once
# (event=run.idle), which tests and operators wait on, instead of at its
# next wake. (While the daemon does not wake for due work, an untagged
# response Dovecot sends during IDLE now and then may wake it in time:
# this test then fails on most runs, not on all.)
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_demo
acc_helpers
acc_servers
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
      incomplete: notify' 'series:
  incomplete_wait_minutes: 1'
$PY - "$d/demo/series.mbox" "$d/partial.mbox" <<'PY'
import re, sys
parts = re.split(r"(?m)^(?=From [0-9a-f]{40} )", open(sys.argv[1]).read())
parts = [p for p in parts if p and "Subject: [PATCH 2/3]" not in p]
open(sys.argv[2], "w").write("".join(parts))
PY
cat >"$d/hello.eml" <<'EOM'
From: Alan Turing <alan@example.org>
To: demo-list@example.org
List-Id: <demo-list.example.org>
Subject: ring: is a ring of size one useful?
Date: Thu, 5 Nov 2026 10:00:00 +0000
Message-ID: <hello-1@example.org>

Just asking.
EOM
acc_start
acc_wait_log 'event=run\.idle' # the first pass: an empty mailbox

# One mail that needs storing and parsing, nothing more: once that is
# done the daemon should say so, not sleep first.
acc_feed "$d/hello.eml" ""
acc_settle
acc_check <<'PY' || exit 1
import time
t0 = time.time()
def idles():
    return open(acc.D + "/daemon.log", errors="replace").read().count(
        "event=run.idle")
while idles() < 2:
    acc.check(time.time() - t0 < 20, "a mail was stored and parsed, nothing"
              " else was due, and 20 s later the daemon had not logged"
              " run.idle: it sleeps in IDLE (poll_seconds 300) before the"
              " pass that would")
    time.sleep(0.1)
PY
echo "ok 1: run.idle once the work is done"

acc_feed "$d/partial.mbox" partial
acc_settle
acc_check "$d/partial.mbox" <<'PY' || exit 1
import time
pc = acc.tagged(acc.msgid(sys.argv[1], 0), "partial")
due = acc.q1("SELECT not_before FROM jobs WHERE kind = 'incomplete'")
acc.check(due, "no incomplete job: %s" % acc.q("SELECT * FROM jobs"))
while not [m for m in acc.mails() if m["in_reply_to"] == pc]:
    acc.check(time.time() < due + 20, "the incomplete note was due at %d"
              " and had not gone 20 s later: the daemon sleeps until mail"
              " or poll_seconds (300) wakes it" % due)
    time.sleep(0.2)
PY
echo "ok 2: the incomplete note goes out when it is due"
acc_stop
echo PASS
