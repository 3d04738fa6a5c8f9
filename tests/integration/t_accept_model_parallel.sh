#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_model_parallel.sh - issue 30 through "reviewbot run": the
# passes of a patch and the patches of a series run at once
# (model.concurrency 4), share a cached prompt prefix, get only the
# focuses that have something to look at, and keep the verifier's tool
# budget out of the finders' reach. A 4-patch series on the demo tree:
#  1/4 documentation only (Documentation/ring.rst, whose text names
#      spin_lock()): no model call at all, and its mail says why;
#  2/4 a spinlock in ring_push(): correctness, locking, memory, claims;
#  3/4 ring_free(): correctness, memory, claims; the finding on it is
#      confirmed and mailed;
#  4/4 EXPORT_SYMBOL(ring_init): correctness, memory, api, claims.
# For each wire format (OpenAI, Anthropic), the scripted model server:
#  - every finder calls the tools twice in its first turn; with
#    model.tools.max_calls 1 the second call is refused, and the verifier
#    then still reads the tree twice through its reserve
#    (verifier_calls 2) before its third call is refused;
#  - Anthropic: every finder request marks the system prompt and, where
#    another pass shares it, the patch's data cache_control ephemeral,
#    never the focus; the server reports cache reads, which the daemon's
#    model.cost lines count;
#  - OpenAI: the finders of a patch send one system prompt, and the same
#    data before their focus;
#  - correctness and memory see the diff without the commit message.
# Then the recording is replayed with model.concurrency 1, the model
# server gone: the same mails, byte for byte, whatever the threads did.
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

# The series: four commits on the demo tree, formatted as a list sends them.
series()
{
	local w=$d/work
	export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL="ada@example.org"
	export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME"
	export GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
	export GIT_AUTHOR_DATE="2026-11-03T09:00:00Z"
	export GIT_COMMITTER_DATE="$GIT_AUTHOR_DATE"
	# The tree has a Documentation/ (a series must fit the tree's top).
	mkdir -p "$d/demo/tree/Documentation"
	printf 'The demo tree.\n' >"$d/demo/tree/Documentation/README"
	git -C "$d/demo/tree" add Documentation/README
	git -C "$d/demo/tree" -c commit.gpgsign=false commit -q -m "docs: a README"
	git clone -q "$d/demo/tree" "$w"
	cd "$w" || exit 1
	git config commit.gpgsign false
	printf 'The ring buffer\n===============\n\nring_push() takes the ring'"'"'s spin_lock() around the store.\n' \
		>Documentation/ring.rst
	git add Documentation/ring.rst
	git commit -q -s -m "ring: document the ring buffer

Say what the ring buffer is for and how it is locked."
	$PY - lib/ring.c include/ring.h <<'PY'
import sys
c, h = sys.argv[1], sys.argv[2]
s = open(c).read()
s = s.replace("\t\treturn -1;\n\tr->slots[r->head % r->size] = v;\n"
              "\tr->head++;\n",
              "\t\treturn -1;\n\tspin_lock(&r->lock);\n"
              "\tr->slots[r->head % r->size] = v;\n\tr->head++;\n"
              "\tspin_unlock(&r->lock);\n", 1)
open(c, "w").write(s)
s = open(h).read()
s = s.replace("\tint *slots;\n", "\tint *slots;\n\tspinlock_t lock;\n", 1)
open(h, "w").write(s)
PY
	git commit -q -a -s -m "ring: take a lock in ring_push()

Two producers could store into the same slot."
	printf '\nvoid ring_free(struct ring *r)\n{\n\tfree(r->slots);\n\tr->slots = NULL;\n}\n' >>lib/ring.c
	sed -i 's/^int ring_pop(struct ring \*r, int \*v);/&\nvoid ring_free(struct ring *r);/' include/ring.h
	git commit -q -a -s -m "ring: add ring_free()

Pair ring_init() with a function that releases the slots."
	$PY - lib/ring.c <<'PY'
import sys
c = sys.argv[1]
s = open(c).read()
s = s.replace("\tr->size = size;\n\treturn 0;\n}\n",
              "\tr->size = size;\n\treturn 0;\n}\nEXPORT_SYMBOL(ring_init);\n",
              1)
open(c, "w").write(s)
PY
	git commit -q -a -s -m "ring: export ring_init()

Modules set up rings of their own."
	git format-patch -q --cover-letter --thread=shallow -o "$d/patches" \
		--base=HEAD~4 HEAD~4..HEAD
	sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/ring: document, lock, free, export/' \
		-e 's/\*\*\* BLURB HERE \*\*\*/Four changes to the ring buffer./' \
		"$d/patches/0000-cover-letter.patch"
	for f in "$d"/patches/*.patch; do
		sed -e '0,/^Subject:/s//To: demo-list@example.org\nList-Id: <demo-list.example.org>\nSubject:/' "$f"
	done >"$d/series.mbox"
	cd - >/dev/null || exit 1
}
series
[ "$(grep -c '^Subject: \[PATCH [0-4]/4\]' "$d/series.mbox")" = 5 ] ||
	rb_fail "the series was not made: $(grep '^Subject' "$d/series.mbox")"

acc_model_script '{"steps": [
 {"kind": "finder", "repeat": true, "usage": [2000, 20],
  "tool_calls": [{"name": "cover_letter"}, {"name": "cover_letter"}]},
 {"kind": "finder", "repeat": true, "no_tools": true,
  "match": "void ring_free(struct ring", "usage": [2000, 200],
  "answer_json": {"findings": [
   {"file": "lib/ring.c", "side": "new", "line": 39,
    "quoted_code": "r->slots = NULL;", "category": "logic",
    "severity": "medium", "confidence": 0.9, "introduced_by_patch": true,
    "trigger_scenario": "ring_push() after ring_free(): head - tail is not size, so it stores through r->slots, now NULL.",
    "question": "ring_free() leaves size, head and tail as they were. Should it also set size to 0, or is pushing to a freed ring a caller bug?"}]}},
 {"kind": "finder", "repeat": true, "no_tools": true, "usage": [2000, 20],
  "answer_json": {"findings": []}},
 {"kind": "verifier", "repeat": true, "usage": [1500, 30],
  "tool_calls": [{"name": "cover_letter"}]},
 {"kind": "verifier", "repeat": true, "no_tools": true, "usage": [1500, 50],
  "verdict": "confirmed", "evidence": "auto"}
]}'
acc_servers model
if [ "$fmt" = anthropic ]; then
	url=http://127.0.0.1:$ACC_MODEL_PORT/v1/messages
else
	url=http://127.0.0.1:$ACC_MODEL_PORT/v1/chat/completions
fi
model_yaml()
{
	ACC_MODEL_YAML="model:
  provider: $fmt
  url: $url
  name: scripted
  api_key_env: RB_TEST_KEY
  timeout_seconds: 30
  max_retries: 1
  concurrency: $1
  tools:
    enabled: true
    max_calls: 1
    verifier_calls: 2"
}
model_yaml 4
policy='  default:
    mode: advisory
    send_when_empty: true
    max_findings: 5'
acc_config "$policy"
rb_start daemon "$RB_BIN" run -c "$d/config.yaml" --record "$d/rec"
acc_wait_log 'event=imap\.login'
acc_feed "$d/series.mbox" ""
acc_settle

acc_check "$d/series.mbox" "$fmt" <<'PY' || exit 1
import json, re
mbox, fmt = sys.argv[1], sys.argv[2]
mail = {i: acc.flat(acc.review_to(acc.msgid(mbox, i))["body"])
        for i in range(1, 5)}
# 1/4: documentation only, no model call, and the mail says so.
acc.check("Model review (scripted): not run: documentation only, nothing"
          " for the model to look at." in mail[1],
          "1/4: the model line:\n" + mail[1])
# 3/4: the finding, confirmed through the verifier, is mailed.
acc.check("Should it also set size to 0" in mail[3],
          "3/4: the finding is missing:\n" + mail[3])
for i, left in ((2, "api left out"), (3, "locking and api left out"),
                (4, "locking left out")):
    acc.check(left + ": nothing for them to look at" in mail[i],
              "%d/4: the model line does not say %r:\n%s" % (i, left,
                                                          mail[i]))

log = [json.loads(l) for l in open(os.path.join(acc.D,
                                                "model-requests.log"))]
def text(e):
    return json.dumps(e["body"])
def patch_of(e):
    m = re.search(r"\[(\d)/4\] [^\"\\]*   <- this patch", text(e))
    return int(m.group(1)) if m else 0
fnd = [e for e in log if e["kind"] == "finder"]
ver = [e for e in log if e["kind"] == "verifier"]
acc.check(not any("File: Documentation/ring.rst" in text(e) for e in log),
          "the documentation patch reached the model")
acc.check(all(patch_of(e) in (2, 3, 4) for e in log),
          "a request for no patch: %s" % [patch_of(e) for e in log])
# The planner: locking for 2/4 only, api for 4/4 only.
first = [e for e in fnd if not e["tool_results"]]
focus = {}
for e in first:
    f = re.search(r"FOCUS: ([a-z]+)", text(e))
    focus.setdefault(patch_of(e), []).append(f.group(1) if f else "")
got = {k: sorted(v) for k, v in focus.items()}
# "does the code do what ..." is claims, "user-visible API" is api.
want = {2: ["correctness", "does", "locking", "memory"],
        3: ["correctness", "does", "memory"],
        4: ["correctness", "does", "memory", "user"]}
acc.check(got == want, "the passes per patch: %s, want %s" % (got, want))
# Correctness and memory judge the diff without the commit message.
for e in first:
    t = text(e)
    blind = "FOCUS: correctness" in t or "FOCUS: memory" in t
    acc.check(("commit message is not shown" in t) == blind and
              ("commit-message\\n" in t) != blind,
              "patch %d: a pass saw the wrong data" % patch_of(e))
# Each finder's second tool call is refused by its own limit ...
res = [r["content"] for e in fnd for r in e["tool_results"]]
acc.check(any("limit of tool calls for this review pass" in c
              for c in res), "no finder was refused: %s" % res[:4])
# ... and the verifier still reads the tree twice, from its reserve.
last = max(ver, key=lambda e: len(e["tool_results"]))
vres = [r["content"] for r in last["tool_results"]]
acc.check(len(vres) == 3 and "Four changes to the ring buffer." in vres[0]
          and "Four changes to the ring buffer." in vres[1] and
          "limit of tool calls" in vres[2],
          "the verifier's tool results: %s" % vres)
acc.check(last["tool_choice"] in ("none", {"type": "none"}),
          "the verifier was not told to answer")

by = {}
for e in first:
    by.setdefault(patch_of(e), []).append(e)
if fmt == "anthropic":
    for p, es in by.items():
        sysv = set()
        for e in es:
            cc = e["cache_control"]
            b = e["body"]
            acc.check(cc and cc[0]["at"] == "system[0]" and
                      len(b["system"]) == 1 and
                      cc[0]["len"] == len(b["system"][0]["text"]),
                      "patch %d: the system prompt is not one cached"
                      " block: %s" % (p, cc))
            sysv.add(b["system"][0]["text"])
            blocks = b["messages"][0]["content"]
            acc.check("\nFOCUS: " in blocks[-1]["text"] and
                      "cache_control" not in blocks[-1],
                      "patch %d: the focus is not the last, uncached"
                      " block" % p)
            for k in cc[1:]:
                acc.check(k["at"] == "messages[0].content[0]" and
                          "FOCUS:" not in blocks[0]["text"] and
                          "The diff" in blocks[0]["text"],
                          "patch %d: a mark off the data: %s" % (p, k))
        acc.check(len(sysv) == 1, "patch %d: %d system prompts" %
                  (p, len(sysv)))
    # Data shared by two passes is marked: 2/4 and 4/4 have two of each.
    acc.check(all(len(e["cache_control"]) == 2 for e in by[2] + by[4]),
              "2/4, 4/4: the data is not marked")
    dl = open(os.path.join(acc.D, "daemon.log")).read()
    reads = [int(x) for x in re.findall(r"tokens, (\d+) cached", dl)]
    acc.check(any(reads), "no cache read counted: %s" % reads)
else:
    for p, es in by.items():
        sysv = {e["body"]["messages"][0]["content"] for e in es}
        acc.check(len(sysv) == 1, "patch %d: %d system prompts" %
                  (p, len(sysv)))
        pre = {}
        for e in es:
            u = e["body"]["messages"][1]["content"]
            k = u.index("\nFOCUS: ")
            pre.setdefault("blind" if "not shown" in u[:k] else "seen",
                           set()).add(u[:k])
        acc.check(all(len(v) == 1 for v in pre.values()),
                  "patch %d: the data before the focus differs" % p)
PY
acc_stop
echo "ok: $fmt: planned, parallel passes on a cached prefix; the verifier's reserve held"

# The replay, one request at a time: the same mails, the server gone.
rb_stop model
mkdir -p "$d/run1"
mv "$d"/sink/new/* "$d/run1/"
rm -f "$d"/rb.db "$d"/rb.db-* "$d"/rb.db.lock
mv "$d/daemon.log" "$d/daemon1.log"
model_yaml 1
acc_config "$policy"
rb_start daemon "$RB_BIN" run -c "$d/config.yaml" --replay "$d/rec"
acc_wait_log 'event=imap\.login'
ACC_IDLE0=0
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
                    m["Message-ID"], m.get_payload(decode=True)))
    return sorted(out)
a, b = mails(sys.argv[1]), mails(sys.argv[2])
if a != b or len(a) != 4:
    print("first run: %d mails, replay: %d" % (len(a), len(b)))
    for x, y in zip(a, b):
        if x != y:
            print("--- first\n%s\n--- replay\n%s" % (x, y))
    sys.exit(1)
PY
echo "ok: $fmt: replayed one request at a time, the same mails byte for byte"
