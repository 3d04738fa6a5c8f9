#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_model_tools.sh - issue 19 through "reviewbot run": the model
# reads the tree with the read-only tools, reviews in focused passes, and
# its verifier must back each confirmation with quotes from the tree.
# For each wire format (OpenAI, Anthropic), the scripted model server on
# patch 3/3 (ring_free()):
#  - the finder, in two focuses (memory, locking), reads lib/ring.c at
#    the tip through a tool and raises two findings, which both focuses
#    repeat (merged: each once);
#  - the verifier reads ring_push(), the code that stores through
#    r->slots, at the base (a tool call), and asks for one read more:
#    with model.tools.max_calls 2 that third call of the patch is refused
#    and the verifier is told to answer;
#  - it confirms both findings: the first with a quote of ring_push()
#    at the base, which is in the tree, so the finding reaches the mail;
#    the second with a quote that is in no tree ("kfree(r);"), so it is
#    dropped and the mail's model line says so;
#  - every finder prompt carries the context: the cover letter, and the
#    later patches' subjects and diffstats; and the code read from the
#    tree before the review: ring_free() whole, numbered as the tree,
#    and the definition of struct ring from the base (issue 30).
# Then the daemon runs again on a fresh store with --replay of what the
# first run recorded, the model server gone: the same mails. Last, v2 of
# the series: the review of its changed patch 3/3 is told what v1's
# review raised there (without names) and the range-diff since v1.
. "$(dirname "$0")/accept_lib.sh"

if [ -z "${1:-}" ]; then
	for fmt in openai anthropic; do
		bash "$0" "$fmt"
		rc=$?
		[ $rc = 0 ] || exit $rc
	done
	echo PASS
	exit 0
fi
fmt=$1
echo "== $fmt"
acc_need
acc_demo
acc_helpers
acc_model_script '{"steps": [
 {"kind": "finder", "match": "void ring_free(struct ring", "usage": [900, 30],
  "tool_calls": [{"name": "read_file", "arguments":
   {"path": "lib/ring.c", "side": "tip", "start": 36, "end": 46}}]},
 {"kind": "finder", "match": "void ring_free(struct ring", "repeat": true,
  "usage": [1000, 200], "answer_json":
  {"findings": [
   {"file": "lib/ring.c", "side": "new", "line": 44,
    "quoted_code": "r->slots = NULL;", "category": "null-deref",
    "severity": "medium", "confidence": 0.9, "introduced_by_patch": true,
    "trigger_scenario": "ring_push() after ring_free(): head - tail is not size, so it stores through r->slots, now NULL.",
    "question": "ring_free() leaves size, head and tail as they were. Should it also set size to 0, or is pushing to a freed ring a caller bug?"},
   {"file": "lib/ring.c", "side": "new", "line": 43,
    "quoted_code": "free(r->slots);", "category": "api-misuse",
    "severity": "medium", "confidence": 0.9, "introduced_by_patch": true,
    "trigger_scenario": "A caller that embeds the ring frees the slots, then reads r->head.",
    "question": "Would a comment say that ring_free() does not free r itself, unlike the kfree() helpers?"}]}},
 {"kind": "finder", "repeat": true, "usage": [1000, 20],
  "answer_json": {"findings": []}},
 {"kind": "verifier", "usage": [800, 30],
  "tool_calls": [{"name": "read_file", "arguments":
    {"path": "lib/ring.c", "side": "base", "start": 16, "end": 23}},
   {"name": "read_file", "arguments":
    {"path": "include/ring.h", "side": "tip", "start": 1, "end": 20}}]},
 {"kind": "verifier", "repeat": true, "usage": [500, 50],
  "verdict": "confirmed", "evidence_by_quote": {
   "r->slots = NULL;": [
    {"file": "lib/ring.c", "side": "base", "line": 20,
     "quote": "r->slots[r->head % r->size] = v;"},
    {"file": "lib/ring.c", "side": "tip", "line": 44,
     "quote": "r->slots = NULL;"}],
   "free(r->slots);": [
    {"file": "lib/ring.c", "side": "tip", "line": 43,
     "quote": "kfree(r);"}]}}
]}'
acc_servers model
if [ "$fmt" = anthropic ]; then
	url=http://127.0.0.1:$ACC_MODEL_PORT/v1/messages
else
	url=http://127.0.0.1:$ACC_MODEL_PORT/v1/chat/completions
fi
ACC_MODEL_YAML="model:
  provider: $fmt
  url: $url
  name: scripted
  api_key_env: RB_TEST_KEY
  timeout_seconds: 30
  max_retries: 1
  focuses: [memory, locking]
  tools:
    enabled: true
    max_calls: 2"
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory'
rb_start daemon "$RB_BIN" run -c "$d/config.yaml" --record "$d/rec"
acc_wait_log 'event=imap\.login'
acc_feed "$d/demo/series.mbox" ""
acc_settle
acc_check "$d/demo/series.mbox" <<'PY' || exit 1
import json
m = acc.review_to(acc.msgid(sys.argv[1], 3))
b = acc.flat(m["body"])
# (a) the finding the caller's code backs is confirmed and sent.
acc.check("Should it also set size to 0" in b,
          "3/3: the evidenced finding is missing:\n" + m["body"])
# (b) the one whose evidence is in no tree is dropped, and said so.
acc.check("does not free r itself" not in b,
          "3/3: the finding without evidence reached the mail:\n" + m["body"])
s = acc.flat("\n".join(x["body"] for x in acc.mails()))
acc.check("1 dropped because the second look's evidence is not in the tree"
          in s, "no model line about the dropped finding:\n" + s)
r = acc.q("SELECT category, state FROM findings WHERE checker = 'model'")
acc.check(r == [("null-deref", "raised")], "model findings stored: %s" % r)

log = [json.loads(l) for l in open(os.path.join(acc.D, "model-requests.log"))]
ver = [e for e in log if e["kind"] == "verifier"]
# The verifier read ring_push() at the base through the tools ...
res = [r["content"] for e in ver for r in e.get("tool_results") or []]
acc.check(any("r->slots[r->head % r->size] = v;" in c for c in res),
          "the verifier's tool results lack ring_push(): %s" % res)
# (c) ... and its second call, the patch's third, was refused.
last = ver[-1]["tool_results"]
acc.check(len(last) == 2 and "r->slots[r->head" in last[0]["content"] and
          "ring_push" not in last[1]["content"] and
          "limit" in last[1]["content"].lower(),
          "the third call was not refused: %s" % last)
acc.check(ver[-1]["tool_choice"] in ("none", {"type": "none"}),
          "the verifier was not told to answer: %s" % ver[-1]["tool_choice"])
# Two focuses per patch, each with its own instructions.
fnd = [e for e in log if e["kind"] == "finder"]
text = json.dumps([e["body"] for e in fnd])
acc.check("FOCUS: memory, lifetimes" in text and
          "FOCUS: locking and concurrency" in text and
          "FOCUS: correctness" not in text, "the finders' focuses")
# The context: the cover letter, and the patches after this one.
acc.check("cover-letter\\nThree small changes to the ring buffer." in text,
          "no cover letter in the finder's prompt")
acc.check("later-patches\\n[3/3] ring: add ring_free()\\n  include/ring.h"
          in text, "no later patches in the finder's prompt")
# (issue 30) The code read before the review: the changed function
# whole, numbered as the tree, and the struct it uses, from the base.
acc.check("=== function ring_free() in lib/ring.c, lines 41-45 of the tree "
          "after this patch\\n   41 void ring_free(struct ring *r)\\n" in text,
          "no ring_free() in the finder's prompt")
acc.check("=== struct ring in include/ring.h, lines" in text,
          "no struct ring in the finder's prompt")
PY
grep -q 'event=model.cost.*2 tool calls, 1 refused' "$d/daemon.log" ||
	rb_fail "the cost line: $(grep model.cost "$d/daemon.log")"
echo "ok: $fmt: confirmed with evidence, dropped without, the limit held"
acc_stop

# (d) The replay: a fresh store, the recorded exchanges, no model server.
rb_stop model
mkdir -p "$d/run1"
mv "$d"/sink/new/* "$d/run1/"
rm -f "$d"/rb.db "$d"/rb.db-* "$d"/rb.db.lock
mv "$d/daemon.log" "$d/daemon1.log"
rb_start daemon "$RB_BIN" run -c "$d/config.yaml" --replay "$d/rec"
acc_wait_log 'event=imap\.login'
ACC_IDLE0=0 # a new log: any run.idle after the work counts
acc_settle
acc_stop
$PY - "$d/run1" "$d/sink/new" <<'PY' || rb_fail "the replay's mails differ"
import email, email.policy, os, sys
def mails(dirname):
    out = []
    for f in os.listdir(dirname):
        m = email.message_from_bytes(open(os.path.join(dirname, f), "rb").read(),
                                     policy=email.policy.compat32)
        out.append((m["Subject"], m["X-RcptTo"], m["In-Reply-To"],
                    m.get_payload(decode=True)))
    return sorted(out)
a, b = mails(sys.argv[1]), mails(sys.argv[2])
if a != b or not a:
    print("first run: %d mails, replay: %d" % (len(a), len(b)))
    for x, y in zip(a, b):
        if x != y:
            print("--- first\n%s\n--- replay\n%s" % (x, y))
    sys.exit(1)
PY
echo "ok: $fmt: the replay sends the same mails with the server gone"

# v2: what the earlier review said, and what changed since.
rb_start model $PY "$RB_SRC/tests/model_server.py" --port "$ACC_MODEL_PORT" \
	--script "$d/model.json" --log "$d/model-v2.log"
rb_wait_port "$ACC_MODEL_PORT"
mv "$d/daemon.log" "$d/daemon2.log"
rb_start daemon "$RB_BIN" run -c "$d/config.yaml"
acc_wait_log 'event=imap\.login'
acc_v2 "$d/v2.mbox"
acc_feed "$d/v2.mbox" v2
acc_settle
acc_check <<'PY' || exit 1
import json
log = [json.loads(l) for l in open(os.path.join(acc.D, "model-v2.log"))]
fnd = [json.dumps(e["body"]) for e in log if e["kind"] == "finder"]
p3 = [t for t in fnd if "void ring_free(struct ring *ring)" in t]
acc.check(p3, "no finder request for v2's patch 3/3")
acc.check(all("earlier-review\\n- F1 of v1, patch 2, the commit message,"
              " signed-off-by (commit-msg): not judged" in t and
              "\\n- F1 of v1, patch 3, lib/ring.c line 44, null-deref"
              " (model): \\\"r->slots = NULL;\\\": not judged" in t
              for t in p3),
          "v2 3/3: the earlier review is not in the prompt: %s" %
          p3[0][p3[0].find("earlier-review"):][:800])
acc.check(all("Range-diff:\\nSince v1: " in t for t in p3),
          "v2 3/3: no range-diff in the prompt")
for t in p3:
    er = t.split("earlier-review")[1].split("DATA-")[0]
    acc.check("ada@" not in er and "Ada" not in er and "grace" not in er,
              "a name in the earlier review: %s" % er)
PY
acc_stop
echo "ok: $fmt: v2's review reads v1's findings and the range-diff"
