#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_threads.sh - issue 37, through "reviewbot run" (Dovecot in, the
# SMTP sink out, the scripted model server): versions and threads as a
# reviewer reads them, and feedback that teaches. The demo series (RING
# BUFFER, M: grace@example.org); the model raises two findings on 3/3's
# ring_free(): "does not free r itself" on "free(r->slots);" (line 43)
# and "Should it also set size to 0" on "r->slots = NULL;" (line 44).
#
#  1. v1 is reviewed; Grace (a person) replies to v1 3/3 quoting
#     "+	free(r->slots);" and asking about it; Ada answers F2 of our
#     review in prose ("No, this is fine: ...", no "F2: ..." line), DKIM
#     signed: a proposed verdict with her words, counted apart.
#  2. v2 arrives (it changes only include/ring.h in 3/3), after a known
#     bot (known_bots) replied to v2 3/3 quoting "+	r->slots = NULL;"
#     (a maintainer's and a known bot's replies may keep a finding
#     unsaid: both are signed, as the policy's require_dkim asks):
#     the review of v2 3/3 lists Grace's line as raised on v1 and
#     unchanged (no name), and neither model finding comes again: each
#     is on a line a reply in the thread already quoted (stats count
#     them); the model's prompt had the interdiff, the cover summary's.
#  3. The admin confirms Ada's proposal (reviewbot verdicts confirm) and
#     approves a note from its reason (reviewbot notes add): the next
#     review of the section carries the note, fenced, and its prompt set
#     has another version, by which stats split; the dashboard shows the
#     words and the note.
. "$(dirname "$0")/accept_lib.sh"
acc_dkim example.org
acc_need
acc_demo
acc_helpers
acc_model_script "$(acc_model_ring_free)"
acc_servers model
acc_config "  default:
    mode: \"off\"
  subsystems:
    RING BUFFER:
      mode: advisory" "known_bots: [sashiko@example.org]
review:
  reply_to_cover: false"
acc_start
mbox=$d/demo/series.mbox

acc_feed "$mbox" ""
acc_settle
acc_check "$mbox" <<'PY' || exit 1
import email.utils
m = acc.review_to(acc.msgid(sys.argv[1], 3))
b = m["body"]
acc.check("[F1] (medium) Would a comment say that ring_free() does not free"
          in b and "[F2] (medium) ring_free() leaves size" in b,
          "v1 3/3 lacks its two findings:\n" + b)
# Ada answers F2 in prose, quoting it: no verdict line.
acc.write_reply(acc.D + "/ada.raw", m, "Ada Lovelace <ada@example.org>",
                {"F2": "No, this is fine: a freed ring is never pushed to,\n"
                       "ring_init() comes first again."},
                "<ada-prose-1@example.org>")
# Grace replies to the patch itself, quoting the line she asks about.
p3 = acc.msgid(sys.argv[1], 3)
open(acc.D + "/grace.raw", "w").write(
    "From: Grace Hopper <grace@example.org>\n"
    "To: Ada Lovelace <ada@example.org>\n"
    "Cc: demo-list@example.org\n"
    "Subject: Re: [PATCH 3/3] ring: add ring_free()\n"
    "Date: Wed, 4 Nov 2026 10:00:00 +0000\n"
    "Message-ID: <grace-1@example.org>\n"
    "In-Reply-To: " + p3 + "\n"
    "References: " + p3 + "\n"
    "List-Id: <demo-list.example.org>\n\n"
    "On Tue, 3 Nov 2026, Ada Lovelace wrote:\n"
    "> +void ring_free(struct ring *r)\n"
    "> +{\n"
    "> +\tfree(r->slots);\n\n"
    "Should this also reset head and tail, so that a freed ring reads\n"
    "as empty rather than as full of freed slots?\n\n"
    "> +\tr->slots = NULL;\n"
    "> +}\n\n"
    "Reviewed-by: Grace Hopper <grace@example.org>\n")
PY
acc_sign "$d/ada.raw" "$d/ada.eml" example.org
acc_sign "$d/grace.raw" "$d/grace.eml" example.org
acc_feed "$d/ada.eml" ""
acc_feed "$d/grace.eml" ""
acc_settle
acc_check <<'PY' || exit 1
r = acc.q("SELECT fid, verdict, authorised, proposed, role, guessed_by,"
          " comment FROM verdicts")
acc.check(r == [("F2", "false_positive", 0, 1, "author", "phrase",
                 "No, this is fine: a freed ring is never pushed to,\n"
                 "ring_init() comes first again.")],
          "the prose answer is not a proposed verdict with its words: %s;"
          " feedback: %s" % (r, acc.q("SELECT state, reason FROM feedback")))
acc.check(acc.q("SELECT state FROM feedback WHERE message_id ="
                " 'ada-prose-1@example.org'") == [("proposed",)],
          "feedback: %s" % acc.q("SELECT * FROM feedback"))
t = acc.stats()["threads"]
acc.check(t["verdicts"]["proposed"] == {"pending": 1, "confirmed": 0,
                                        "rejected": 0} and
          t["verdicts"]["explicit"] == 0,
          "stats: a proposal counts apart: %s" % t)
PY
echo "ok 1: a prose answer under [F2] is a proposed verdict with its words"

# A known bot replies to v2 3/3 before v2 is reviewed (delivered first).
acc_v2 "$d/v2.mbox"
acc_check "$mbox" <<'PY' || exit 1
p3 = acc.tagged(acc.msgid(sys.argv[1], 3), "v2")
open(acc.D + "/bot.raw", "w").write(
    "From: Sashiko <sashiko@example.org>\n"
    "To: Ada Lovelace <ada@example.org>\n"
    "Cc: demo-list@example.org\n"
    "Subject: Re: [PATCH v2 3/3] ring: add ring_free()\n"
    "Date: Thu, 5 Nov 2026 10:00:00 +0000\n"
    "Message-ID: <sashiko-1@example.org>\n"
    "In-Reply-To: " + p3 + "\n"
    "References: " + p3 + "\n"
    "List-Id: <demo-list.example.org>\n\n"
    "> +\tfree(r->slots);\n"
    "> +\tr->slots = NULL;\n\n"
    "Leaves size, head and tail as they were: a push after this writes\n"
    "through a NULL slots pointer.\n")
PY
acc_sign "$d/bot.raw" "$d/bot.eml" example.org
acc_feed "$d/bot.eml" ""
acc_settle
acc_feed "$d/v2.mbox" v2
acc_settle
acc_check "$d/v2.mbox" <<'PY' || exit 1
ids = [acc.tagged(acc.msgid(sys.argv[1], i), "v2") for i in range(4)]
m3 = acc.review_to(ids[3])
b = m3["body"]
acc.check("> +void ring_free(struct ring *r)\n> +{\n> +\tfree(r->slots);\n\n"
          in b and "Raised on v1 (patch 3/3, this line) by a reviewer, not"
          " answered there, and unchanged in v2." in acc.flat(b),
          "v2 3/3 does not list the line Grace raised on v1:\n" + b)
acc.check("2 findings not said again: a reply in the thread had quoted"
          " their lines." in acc.flat(b), "v2 3/3 does not say why:\n" + b)
acc.check("Grace" not in b and "grace@" not in b,
          "a reviewer's name reached the mail:\n" + b)
acc.check("does not free r itself" not in b and "set size to 0" not in b,
          "v2 3/3 repeats a finding on a line the thread quoted:\n" + b)
r = acc.q("SELECT f.line, f.state, f.quoted FROM findings f JOIN series s"
          " ON s.id = f.series_id WHERE s.version = 2 AND f.checker ="
          " 'model' ORDER BY f.line")
acc.check(r == [(43, "dropped", "reviewer"), (44, "dropped", "bot")],
          "v2's model findings: %s" % r)
r = acc.q("SELECT patch_idx, prev_idx, source, file, line, code, state"
          " FROM thread_quotes")
acc.check(r == [(3, 3, "reviewer", "lib/ring.c", 43, "\tfree(r->slots);",
                 "unchanged")], "thread_quotes: %s" % r)
t = acc.stats()["threads"]
acc.check(t["earlier_replies"]["unchanged"] == 1 and
          t["already_quoted"] == {"dropped": 2, "marked": 0},
          "stats threads: %s" % t)
# What the model read of v2 3/3: the interdiff, the raised line, no name.
log = open(acc.D + "/model-requests.log", errors="replace").read()
acc.check("Interdiff of this patch against the previous version's" in log
          and "-+void ring_free(struct ring *r);" in log and
          "++void ring_free(struct ring *ring);" in log,
          "the prompt of v2 3/3 lacks its interdiff")
acc.check("A reviewer replied to this line of patch 3 on v1 (not answered"
          " there)" in log,
          "the prompt lacks the line raised on v1")
acc.check("Hopper" not in log and "grace-1" not in log,
          "a reviewer's name or reply reached the model")
PY
echo "ok 2: v2 lists the line a reviewer raised on v1; no finding twice"

# The admin decides: confirm Ada's proposal, approve a note from it.
id=$($PY -c 'import os, sys; sys.path.insert(0, os.environ["ACC_DIR"]); import acc; print(acc.q1("SELECT id FROM verdicts WHERE proposed = 1"))')
"$RB_BIN" verdicts -c "$d/config.yaml" >"$d/verdicts.txt" ||
	rb_fail "reviewbot verdicts failed"
grep -q "^$id	pending	F2	false_positive	phrase	ada@example.org	author	No, this is fine" "$d/verdicts.txt" ||
	rb_fail "reviewbot verdicts does not list the proposal: $(cat "$d/verdicts.txt")"
"$RB_BIN" verdicts -c "$d/config.yaml" confirm "$id" >"$d/confirm.txt" ||
	rb_fail "reviewbot verdicts confirm: $(cat "$d/confirm.txt")"
"$RB_BIN" notes -c "$d/config.yaml" add --section "RING BUFFER" \
	--verdict "$id" >"$d/note.txt" ||
	rb_fail "reviewbot notes add: $(cat "$d/note.txt")"
"$RB_BIN" notes -c "$d/config.yaml" >"$d/notes.txt"
grep -q "approved	RING BUFFER	No, this is fine: a freed ring" "$d/notes.txt" ||
	rb_fail "reviewbot notes: $(cat "$d/notes.txt")"

# The same series again as a new one (new Message-IDs): reviewed with the
# note, under another prompt set version.
acc_feed "$mbox" t3
acc_settle
acc_check "$mbox" <<'PY' || exit 1
r = acc.q("SELECT proposed, authorised, verdict FROM verdicts")
acc.check(r == [(2, 1, "false_positive")], "confirmed verdict: %s" % r)
prompts = acc.q("SELECT DISTINCT s.version, r.prompt, s.id FROM reviews r"
                " JOIN series s ON s.id = r.series_id WHERE r.prompt IS NOT"
                " NULL ORDER BY s.first_seen")
acc.check(len(prompts) >= 3 and prompts[0][1] == prompts[1][1] and
          prompts[-1][1] != prompts[0][1],
          "the note did not change the prompt set's version: %s" % prompts)
new = prompts[-1][1]
log = open(acc.D + "/model-requests.log", errors="replace").read()
acc.check("section-notes" in log and "(RING BUFFER) No, this is fine: a"
          " freed ring is never pushed to, ring_init() comes first again."
          in log, "the note is not in the later prompt")
j = acc.stats()
acc.check(new in j["by_prompt"] and prompts[0][1] in j["by_prompt"],
          "stats do not split by the prompt version: %s" % j["by_prompt"])
acc.check(j["by_prompt"][new]["raised"] >= 1,
          "no finding under the new version: %s" % j["by_prompt"])
acc.check(j["threads"]["notes"] == 1 and
          j["threads"]["verdicts"]["proposed"]["confirmed"] == 1,
          "stats threads: %s" % j["threads"])
PY
echo "ok 3: a confirmed reason became a note; its prompt set is apart"

acc_serve
acc_check "$mbox" <<'PY' || exit 1
v1 = acc.msgid(sys.argv[1], 0).strip("<>")
page = acc.page("/series?id=" + v1)
acc.check("No, this is fine: a freed ring" in page and
          "proposed from prose, confirmed" in page,
          "the series page lacks the verdict's words:\n" + page[-3000:])
page = acc.page("/notes")
acc.check("No, this is fine: a freed ring" in page and "RING BUFFER" in page,
          "the notes page lacks the note:\n" + page[-2000:])
PY
"$RB_BIN" notes -c "$d/config.yaml" remove 1 >/dev/null ||
	rb_fail "reviewbot notes remove 1"
"$RB_BIN" notes -c "$d/config.yaml" | grep -q . &&
	rb_fail "the note is still listed after remove"
echo "ok 4: the dashboard shows the words and the note; remove takes it out"
acc_stop
echo PASS
