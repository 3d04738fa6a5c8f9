#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_prose_model.sh - issue 37: feedback.prose_model, the optional model
# reading of a prose answer the fixed phrases leave unclear, through the
# configured provider, recorded and replayed like every exchange.
#  1. "reviewbot run --once --record DIR" reviews the demo series (the
#     scripted model: two findings on 3/3), then reads Ada's answer to F1
#     of the review of 3/3, "Hmm, let me check the callers first." (no
#     phrase decides it): the classifier request carries her words inside
#     its data block, the scripted model says "valid", and the proposed
#     verdict is stored with guess valid, guessed by the model.
#  2. The same mail on a fresh store with --replay DIR and the model
#     server stopped: the same proposal, from the recordings.
#  3. With prose_model off (the default), the same answer is a proposal
#     with no guess, and no classifier request is made.
. "$(dirname "$0")/lib.sh"
set -e
rb_need git
d=$RB_TEST_DIR
export RB_NOW=1793780000
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
port=$(rb_free_port)
cat >"$d/model.json" <<'EOS'
{"steps": [
 {"kind": "classifier", "repeat": true,
  "answer_json": {"prose_verdict": "valid"}},
 {"kind": "finder", "match": "void ring_free(struct ring", "repeat": true,
  "answer_json": {"findings": [
   {"file": "lib/ring.c", "side": "new", "line": 43,
    "quoted_code": "free(r->slots);", "category": "api-misuse",
    "severity": "medium", "confidence": 0.9, "introduced_by_patch": true,
    "trigger_scenario": "A caller that embeds the ring reads r->head.",
    "question": "Would a comment say that ring_free() does not free r itself?"}]}},
 {"kind": "finder", "repeat": true, "answer_json": {"findings": []}},
 {"kind": "verifier", "repeat": true, "verdict": "confirmed",
  "evidence": "auto"}
]}
EOS
rb_start model /usr/bin/python3 "$RB_SRC/tests/model_server.py" \
	--port "$port" --script "$d/model.json" --log "$d/model.log"
rb_wait_port "$port"
export RB_TEST_KEY=test-key
config()
{
	cat >"$d/$1.yaml" <<EOC
store:
  path: $d/$1.db
sources:
  - type: mbox
    name: list
    path: $d/in.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox-$1
admins: [root@example.net]
feedback:
  prose_model: $2
model:
  provider: openai
  url: http://127.0.0.1:$port/v1/chat/completions
  name: scripted
  api_key_env: RB_TEST_KEY
  timeout_seconds: 30
  max_retries: 0
policy:
  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
      require_dkim: false
EOC
}
run()
{
	"$RB_BIN" run -c "$d/$1.yaml" --once "${@:2}" >>"$d/$1.log" 2>&1 ||
		rb_fail "run $1: $(tail -n 5 "$d/$1.log")"
}
q()
{
	python3 -c 'import sqlite3,sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$d/$1.db" "$2"
}
config a true
cp "$d/demo/series.mbox" "$d/in.mbox"
run a --record "$d/rec"
review=$(q a "SELECT review_msgid FROM findings WHERE checker = 'model' AND fid = 'F1'")
[ -n "$review" ] || rb_fail "1: no F1 in a review: $(tail -n 5 "$d/a.log")"
printf 'From ada@example.org Thu Jan  1 00:00:00 1970\nFrom: Ada Lovelace <ada@example.org>\nTo: reviewbot <reviewbot@localhost>\nSubject: Re: [PATCH 3/3] ring: add ring_free()\nDate: Thu, 5 Nov 2026 10:00:00 +0000\nMessage-ID: <ada-prose@example.org>\nIn-Reply-To: %s\nReferences: %s\n\n> [F1] (medium) Would a comment say that ring_free() does not free r\n> itself?\n\nHmm, let me check the callers first.\n\nAda\n' \
	"$review" "$review" >"$d/reply.mbox"
cat "$d/reply.mbox" >>"$d/in.mbox"
run a --record "$d/rec"
st=$(q a "SELECT fid, verdict, guessed_by, proposed, authorised, comment FROM verdicts")
[ "$st" = "F1|valid|model|1|0|Hmm, let me check the callers first." ] ||
	rb_fail "1: the proposal: '$st'; feedback: $(q a 'SELECT state, reason FROM feedback')"
python3 - "$d/model.log" <<'PY' || rb_fail "1: the classifier request"
import json, re, sys
c = [e for e in map(json.loads, open(sys.argv[1])) if e["kind"] == "classifier"]
assert len(c) == 1, "%d classifier requests" % len(c)
t = json.dumps(c[0]["body"])
assert re.search(r"<<<DATA-([0-9a-f]{16}) reply\\nHmm, let me check the callers first.\\nDATA-\1>>>", t), t
assert "ada@example.org" not in t and "Lovelace" not in t, "a name reached the model"
PY
echo "ok 1: the model reads an unclear answer; recorded"

# 2. Replayed on a fresh store, with no model server.
rb_stop model
# The series first, then the reply: a reply names a review that exists.
config b true
cp "$d/demo/series.mbox" "$d/in.mbox"
run b --replay "$d/rec"
cat "$d/reply.mbox" >>"$d/in.mbox"
run b --replay "$d/rec"
st=$(q b "SELECT fid, verdict, guessed_by, proposed FROM verdicts")
[ "$st" = "F1|valid|model|1" ] ||
	rb_fail "2: the replayed proposal: '$st': $(tail -n 5 "$d/b.log")"
echo "ok 2: replayed from the recordings, the same guess"

# 3. Off (the default): no guess, no request.
config c false
sed -i '/prose_model/d' "$d/c.yaml"
cp "$d/demo/series.mbox" "$d/in.mbox"
run c --replay "$d/rec"
cat "$d/reply.mbox" >>"$d/in.mbox"
run c --replay "$d/rec"
st=$(q c "SELECT fid, coalesce(verdict, 'unclear'), coalesce(guessed_by, '-'), proposed FROM verdicts")
[ "$st" = "F1|unclear|-|1" ] || rb_fail "3: '$st'"
echo "ok 3: off by default: a proposal without a guess"
echo PASS
