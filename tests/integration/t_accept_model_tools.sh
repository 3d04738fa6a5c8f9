#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_model_tools.sh - issues 19 and 30 through "reviewbot run": the
# model reads the tree with the read-only tools, reviews in focused
# passes, and a verifier proves what it confirms. For each wire format
# (OpenAI, Anthropic), the scripted model server on patch 3/3
# (ring_free()):
#  - two focuses, memory and locking, each read lib/ring.c at the tip
#    through a tool (the two calls model.tools.max_calls allows the
#    finders of the patch), then answer: memory raises a null-deref on
#    "r->slots = NULL;", an api-misuse and a use-after-free on
#    "free(r->slots);" and a logic finding on the prototype; locking
#    raises a race on "free(r->slots);" and dismisses the api-misuse;
#  - the merge: the api-misuse, proposed by one focus and ruled out by
#    another, is dropped; the race and the use-after-free on one line
#    are one finding (use-after-free, the race named);
#  - one verifier conversation per finding, each with its own tools:
#    the null-deref's reads ring_push() at the base (answered, though
#    the finders spent the patch's calls), asks for two more reads, and
#    its third call is refused at its own limit (2); it confirms with
#    the ring_push() line it read: the finding reaches the mail;
#  - the use-after-free's verifier confirms with the finding's own line
#    only: dropped; the logic finding's quotes ring_init() at the base,
#    which is in the tree but which it was never shown: dropped; the
#    mail's model line says so;
#  - every verifier prompt has a nonce of its own, never the finders';
#  - the kept finding's reasoning (the finder's severity reason, the
#    verifier's reason) is stored, and not mailed;
#  - every finder prompt carries the context: the cover letter, and the
#    later patches' subjects and diffstats; and the code read from the
#    tree before the review: ring_free() whole, numbered as the tree,
#    and the definition of struct ring from the base (issue 30).
# Then the daemon runs again on a fresh store with --replay of what the
# first run recorded, the model server gone: the same mails. Last, v2 of
# the series: the review of its changed patch 3/3 is told what v1's
# review raised there (without names) and the range-diff since v1.
# (model.focus_planner is off here: the locking pass, which the planner
# leaves out on the ring, that has no lock, is part of the scenario.)
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
 {"kind": "finder", "match": "FOCUS: memory", "repeat": true,
  "match_result": "void ring_free(struct ring *r)", "usage": [1000, 200],
  "answer_json":
  {"findings": [
   {"file": "lib/ring.c", "side": "new", "line": 44,
    "quoted_code": "r->slots = NULL;", "category": "null-deref",
    "severity": "medium", "confidence": 0.9, "introduced_by_patch": true,
    "severity_reason": "a crash on a misuse, not a corruption",
    "trigger_scenario": "ring_push() after ring_free(): head - tail is not size, so it stores through r->slots, now NULL.",
    "question": "ring_free() leaves size, head and tail as they were. Should it also set size to 0, or is pushing to a freed ring a caller bug?"},
   {"file": "lib/ring.c", "side": "new", "line": 43,
    "quoted_code": "free(r->slots);", "category": "api-misuse",
    "severity": "medium", "confidence": 0.9, "introduced_by_patch": true,
    "trigger_scenario": "A caller that embeds the ring frees the slots, then reads r->head.",
    "question": "Would a comment say that ring_free() does not free r itself, unlike the kfree() helpers?"},
   {"file": "lib/ring.c", "side": "new", "line": 43,
    "quoted_code": "free(r->slots);", "category": "use-after-free",
    "severity": "high", "confidence": 0.6, "introduced_by_patch": true,
    "trigger_scenario": "ring_pop() on another thread reads r->slots while it is freed.",
    "question": "Who keeps ring_pop() from reading the slots ring_free() frees?"},
   {"file": "include/ring.h", "side": "new", "line": 17,
    "quoted_code": "void ring_free(struct ring *r);", "category": "logic",
    "severity": "low", "confidence": 0.5, "introduced_by_patch": true,
    "trigger_scenario": "A caller frees a ring that ring_init() failed on.",
    "question": "Is ring_free() safe on a ring whose ring_init() failed?"}],
   "dismissed": []}},
 {"kind": "finder", "match": "FOCUS: locking", "repeat": true,
  "match_result": "void ring_free(struct ring *r)", "usage": [1000, 100],
  "answer_json":
  {"findings": [
   {"file": "lib/ring.c", "side": "new", "line": 43,
    "quoted_code": "free(r->slots);", "category": "race",
    "severity": "high", "confidence": 0.5, "introduced_by_patch": true,
    "trigger_scenario": "ring_free() and ring_pop() on two threads.",
    "question": "Can ring_free() race with ring_pop()?"}],
   "dismissed": [
   {"file": "lib/ring.c", "line": 43, "category": "api-misuse",
    "reason": "the ring is embedded in its owner; freeing r is the owner'"'"'s job, as for ring_init()"}]}},
 {"kind": "finder", "match": "void ring_free(struct ring", "repeat": true,
  "usage": [900, 30],
  "tool_calls": [{"name": "read_file", "arguments":
   {"path": "lib/ring.c", "side": "tip", "start": 36, "end": 46}}]},
 {"kind": "finder", "repeat": true, "usage": [1000, 20],
  "answer_json": {"findings": []}},
 {"kind": "verifier", "match": "Should it also set size to 0",
  "repeat": true, "usage": [800, 30],
  "tool_calls": [{"name": "read_file", "arguments":
    {"path": "lib/ring.c", "side": "base", "start": 16, "end": 23}},
   {"name": "read_file", "arguments":
    {"path": "include/ring.h", "side": "tip", "start": 1, "end": 20}},
   {"name": "read_file", "arguments":
    {"path": "lib/ring.c", "side": "base", "start": 1, "end": 14}}]},
 {"kind": "verifier", "match": "Should it also set size to 0",
  "match_result": "r->slots[r->head % r->size] = v;", "repeat": true,
  "usage": [500, 50], "verdict": "confirmed",
  "reason": "ring_push() at the base stores through r->slots whatever it is",
  "evidence_from": {"Should it also": ["@own",
   "r->slots[r->head % r->size] = v;"]}},
 {"kind": "verifier", "match": "Who keeps ring_pop()", "repeat": true,
  "usage": [500, 50], "verdict": "confirmed"},
 {"kind": "verifier", "match": "whose ring_init() failed", "repeat": true,
  "usage": [500, 50], "verdict": "confirmed", "evidence_by_quote": {
   "whose ring_init() failed": [
    {"file": "include/ring.h", "side": "tip", "line": 17,
     "quote": "void ring_free(struct ring *r);"},
    {"file": "lib/ring.c", "side": "base", "line": 7,
     "quote": "r->slots = calloc(size, sizeof(*r->slots));"}]}}
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
  focus_planner: false
  tools:
    enabled: true
    max_calls: 2
    verifier_calls: 2"
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
# (a) the finding the code it read backs is confirmed and sent.
acc.check("Should it also set size to 0" in b,
          "3/3: the evidenced finding is missing:\n" + m["body"])
# (b) the dismissed one, and those whose evidence fails, are not.
for gone in ("does not free r itself", "Who keeps ring_pop()",
             "whose ring_init() failed"):
    acc.check(gone not in b, "3/3: %r reached the mail:\n%s" % (gone, m["body"]))
s = acc.flat("\n".join(x["body"] for x in acc.mails()))
acc.check("2 dropped because the second look could not show it in the code"
          in s and "1 dropped because another pass had ruled it out" in s,
          "no model line about the dropped findings:\n" + s)
# The reasoning is kept with the finding, and never mailed.
r = acc.q("SELECT category, state, severity_reason, verifier_reason"
          " FROM findings WHERE checker = 'model'")
acc.check(r == [("null-deref", "raised",
                 "a crash on a misuse, not a corruption",
                 "ring_push() at the base stores through r->slots whatever it is")],
          "model findings stored: %s" % r)
acc.check("a crash on a misuse" not in s and "whatever it is" not in s,
          "the reasoning was mailed:\n" + s)

log = [json.loads(l) for l in open(os.path.join(acc.D, "model-requests.log"))]
ver = [e for e in log if e["kind"] == "verifier"]
vtext = [json.dumps(e["body"]) for e in ver]
# One conversation per finding: the null-deref's two turns, then one
# each for the use-after-free (the race named in it) and the logic one.
acc.check(len(ver) == 4, "verifier requests: %d" % len(ver))
uaf = [t for t in vtext if "Who keeps ring_pop()" in t]
acc.check(len(uaf) == 1 and "category use-after-free" in uaf[0] and
          "Also reported on these lines as race: Can ring_free() race" in uaf[0],
          "the race and the use-after-free were not one finding: %s" % uaf)
acc.check(not any("does not free r itself" in t for t in vtext),
          "the dismissed finding was verified")
# (c) the verifier read ring_push() at the base through its own tools,
# though the finders had spent the patch's two calls ...
res = [r["content"] for e in ver for r in e.get("tool_results") or []]
acc.check(any("r->slots[r->head % r->size] = v;" in c for c in res),
          "the verifier's tool results lack ring_push(): %s" % res)
fres = [r["content"] for e in log if e["kind"] == "finder"
        for r in e.get("tool_results") or []]
acc.check(len([c for c in fres if "void ring_free(struct ring *r)" in c]) >= 2,
          "the finders did not spend their two calls: %s" % fres)
# ... and its third call, past its own limit of two, was refused.
last = [e for e in ver if "Should it also" in json.dumps(e["body"])][-1]
tr = last["tool_results"]
acc.check(len(tr) == 3 and "r->slots[r->head" in tr[0]["content"] and
          "struct ring {" in tr[1]["content"] and
          "limit" in tr[2]["content"].lower(),
          "the third call was not refused: %s" % tr)
acc.check(last["tool_choice"] in ("none", {"type": "none"}),
          "the verifier was not told to answer: %s" % last["tool_choice"])
# One nonce per call: no verifier prompt holds a finder's.
fnd = [e for e in log if e["kind"] == "finder"]
text = json.dumps([e["body"] for e in fnd])
fn = set(re.findall(r"<<<DATA-([0-9a-f]{16})", text))
vn = set(re.findall(r"<<<DATA-([0-9a-f]{16})", "".join(vtext)))
acc.check(fn and vn and not (fn & vn) and
          not any(n in t for n in fn for t in vtext),
          "a finder's nonce reached a verifier: %s %s" % (fn, vn))
# Two focuses per patch, each with its own instructions.
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
grep -q 'event=model.cost.*4 tool calls, 1 refused' "$d/daemon.log" ||
	rb_fail "the cost line: $(grep model.cost "$d/daemon.log")"
grep -q 'event=model.unevidenced.*only the finding.s own lines' "$d/daemon.log" &&
	grep -q 'event=model.unevidenced.*was not shown to the verifier' "$d/daemon.log" ||
	rb_fail "the reasons for the drops: $(grep model.unevidenced "$d/daemon.log")"
echo "ok: $fmt: confirmed with evidence it read, dropped without, the limits held"
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
