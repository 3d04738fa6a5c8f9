#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_versions.sh - issue 18, versions, on real mail: v1 and v2 of
# Ted Ts'o's "ext4: Add support for mounted updates to the superblock via
# an ioctl" from the linux-api archive (tests/data/versions/, 4 mails
# each, sent by B4 Relay with b4's change-id and "Link to v1"). v2 changes
# patch 3 only: patches 1 and 2 have the same git patch-id.
#
# Driven through "reviewbot run" (Dovecot in, the SMTP sink out, the
# scripted model server), review.reply_to_cover set:
#  - v1: the model raises a finding on patch 3's
#    "ret.raid_stripe_width = le16_to_cpu(es->s_raid_stripe_width);"
#    (s_raid_stripe_width is __le32), shown in the summary to the cover;
#  - v2: linked to v1, one re-review (the model sees patch 3 only), the
#    summary says patches 1 and 2 are unchanged since v1 and carries the
#    short range-diff and patch 3's interdiff, shortened (issue 37);
#    v2 turned that line into le32_to_cpu(), so the v1
#    finding's outcome is "fixed in v2", and stats --json counts it per
#    checker and per subsystem.
. "$(dirname "$0")/accept_lib.sh"
data=$RB_SRC/tests/data/versions
acc_need
acc_helpers
acc_model_script '{"steps": [
 {"kind": "finder", "repeat": true, "usage": [1000, 200],
  "match": "ret.raid_stripe_width = le16_to_cpu(es->s_raid_stripe_width);",
  "answer_json": {"findings": [
   {"file": "fs/ext4/ioctl.c", "side": "new", "line": 1267,
    "quoted_code": "ret.raid_stripe_width = le16_to_cpu(es->s_raid_stripe_width);",
    "category": "logic", "severity": "medium", "confidence": 0.9,
    "introduced_by_patch": true,
    "trigger_scenario": "A file system with a stripe width above 65535 blocks reports a truncated value.",
    "question": "s_raid_stripe_width is __le32 in struct ext4_super_block: does le16_to_cpu() drop its upper half here?"}]}},
 {"kind": "finder", "repeat": true, "usage": [1000, 20],
  "answer_json": {"findings": []}},
 {"kind": "verifier", "repeat": true, "usage": [500, 50],
  "verdict": "confirmed", "evidence": "auto"}
]}'
acc_servers model
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: imap
    name: lists
    url: imap://127.0.0.1:$RB_IMAP_PORT
    user: bot
    password_file: $d/pass
    starttls: "off"
    poll_seconds: $ACC_POLL
smtp:
  url: smtp://127.0.0.1:$RB_SMTP_PORT
  from: reviewbot <reviewbot@example.org>
  starttls: "off"
list_ids: [linux-api.vger.kernel.org]
outbox:
  maildir: $d/outbox
admins: [admin@example.org]
$ACC_MODEL_YAML
review:
  reply_to_cover: true
policy:
  default:
    mode: advisory
EOC
"$RB_BIN" check-config -c "$d/config.yaml" >"$d/check-config.log" 2>&1 ||
	rb_fail "the config is refused: $(cat "$d/check-config.log")"
acc_start

acc_feed "$data/ext4-tune2fs-v1.mbox" ""
acc_settle
acc_check <<'PY' || exit 1
ms = acc.about("[PATCH 0/3]")
acc.check(len(ms) == 1, "v1: want one summary to the cover, got:\n" +
          acc.show(acc.mails()))
b = acc.flat(ms[0]["body"])
acc.check("does le16_to_cpu() drop its upper half" in b,
          "v1: the model finding is not in the summary:\n" + ms[0]["body"])
r = acc.q("SELECT state, fid FROM findings WHERE checker = 'model'")
acc.check(r == [("raised", "F1")], "v1 model findings: %s" % r)
PY
# One finder request per patch and focus (model.focuses: five by default)
# that the planner keeps (it logs each one it leaves out).
focuses=5
n1=$(grep -c '"kind": "finder"' "$d/model-requests.log")
s1=$(grep -c 'event=model.plan_skip' "$d/daemon.log")
[ "$n1" = $((3 * focuses - s1)) ] ||
	rb_fail "v1: want $((3 * focuses - s1)) finder requests (3 patches, $focuses focuses, $s1 planned out), got $n1"

acc_feed "$data/ext4-tune2fs-v2.mbox" ""
acc_settle
acc_check <<'PY' || exit 1
ms = acc.about("[PATCH v2 0/3]")
acc.check(len(ms) == 1, "v2: want one summary to the cover, got:\n" +
          acc.show(acc.mails()))
acc.check(not [m for m in acc.mails() if "[PATCH v2 1/3]" in m["subject"]
               or "[PATCH v2 2/3]" in m["subject"]],
          "v2: the unchanged patches got mails:\n" + acc.show(acc.mails()))
b = acc.flat(ms[0]["body"])
for want in ["Patches 1/3 and 2/3 are unchanged since v1 (the same"
             " patch-id) and not reviewed again.",
             "Since v1: 2 unchanged, 1 changed, 0 new, 0 dropped.",
             "Unchanged since v1 (the same patch-id as 1/3): not reviewed"
             " again.",
             "Changed since v1 (was 3/3).",
             "Fixed in v2 (the line is gone or changed): F1 of v1."]:
    acc.check(want in b, "v2 summary lacks %r:\n%s" % (want, ms[0]["body"]))
# Issue 37: the changed part's interdiff, shortened, quoted as it is.
body = ms[0]["body"]
acc.check("Changed since v1 (was 3/3).\n\n> -+\tEXT4_TUNE_FL_FORCE_FSCK)\n"
          "> ++\tEXT4_TUNE_FL_FORCE_FSCK | EXT4_TUNE_FL_ENCODING | \\\n"
          in body and "more lines)\n" in body,
          "v2 summary lacks patch 3's interdiff:\n" + body)
acc.check("le16_to_cpu() drop its upper half" not in b,
          "v2 raises the finding v2 fixed:\n" + ms[0]["body"])
v1 = "<20250908-tune2fs-v1-0-e3a6929f3355@mit.edu>".strip("<>")
v2 = "<20250916-tune2fs-v2-0-d594dc7486f0@mit.edu>".strip("<>")
r = acc.q("SELECT previous_id, previous_version FROM series_versions"
          " WHERE series_id = ?", v2)
acc.check(r == [(v1, 1)], "v2 is not linked to v1: %s" % r)
r = acc.q("SELECT idx, unchanged_since FROM patch_ids WHERE series_id = ?"
          " ORDER BY idx", v2)
acc.check(r == [(1, 1), (2, 1), (3, None)],
          "v2 parts: want 1 and 2 unchanged since v1, 3 reviewed: %s" % r)
r = acc.q("SELECT checker, outcome, outcome_version FROM findings"
          " WHERE series_id = ? AND state = 'raised'", v1)
acc.check(("model", "fixed", 2) in r,
          "the v1 finding is not fixed in v2: %s" % r)
j = acc.stats()
acc.check(j["by_checker"]["model"].get("fixed_in_later_version") == 1,
          "stats by_checker: %s" % j["by_checker"])
acc.check(j["findings"].get("fixed_in_later_version") == 1,
          "stats findings: %s" % j["findings"])
acc.check(sum(o.get("fixed_in_later_version", 0)
              for o in j["by_subsystem"].values()) == 1,
          "stats by_subsystem: %s" % j["by_subsystem"])
acc.check(j["versions"]["unchanged_not_reviewed"] == 2,
          "stats versions: %s" % j["versions"])
PY
n2=$(grep -c '"kind": "finder"' "$d/model-requests.log")
s2=$(grep -c 'event=model.plan_skip' "$d/daemon.log")
[ "$n2" = $((4 * focuses - s2)) ] ||
	rb_fail "v2: want $((focuses - (s2 - s1))) more finder requests (patch 3 only), got $((n2 - n1))"
echo "ok: v2 re-reviews the one changed patch; the v1 finding is fixed in v2"
acc_stop
echo PASS
