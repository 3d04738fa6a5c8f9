#!/bin/bash
# The model stage inside "reviewbot review", against the scripted model
# server on loopback (OpenAI wire format): a confirmed finding that quotes
# real code reaches the reply under the quoted line, a finding quoting
# code that is not in the patch is dropped, every exchange is recorded,
# and --replay gives the same replies with the server gone.
. "$(dirname "$0")/lib.sh"
set -e
d=$RB_TEST_DIR
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
export RB_NOW=1793700000 RB_TEST_KEY=test-key
port=$(rb_free_port)
cat >"$d/script.json" <<'EOS'
{"steps": [
 {"kind": "finder", "match": "ring_free", "repeat": true, "answer_json":
  {"findings": [
   {"file": "lib/ring.c", "side": "new", "line": 44,
    "quoted_code": "r->slots = NULL;", "category": "logic",
    "severity": "medium", "confidence": 0.8, "introduced_by_patch": true,
    "trigger_scenario": "ring_push() after ring_free(): head - tail is not size, so it stores through r->slots, now NULL.",
    "question": "ring_free() leaves size, head and tail as they were. Should it also set size to 0, or is pushing to a freed ring a caller bug?"},
   {"file": "lib/ring.c", "side": "new", "line": 43,
    "quoted_code": "kfree(r);", "category": "double-free",
    "severity": "high", "confidence": 0.9, "introduced_by_patch": true,
    "trigger_scenario": "x", "question": "Is r freed twice?"}]}},
 {"kind": "finder", "repeat": true, "answer_json": {"findings": []}},
 {"kind": "verifier", "repeat": true, "verdict": "confirmed",
  "evidence": "auto"}
]}
EOS
rb_start model /usr/bin/python3 "$RB_SRC/tests/model_server.py" \
	--port "$port" --script "$d/script.json" --log "$d/model.log"
rb_wait_port "$port"
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
outbox:
  maildir: $d/outbox
trees:
  - name: demo
    path: $d/demo/tree
model:
  provider: openai
  url: http://127.0.0.1:$port/v1/chat/completions
  name: scripted
  api_key_env: RB_TEST_KEY
  timeout_seconds: 10
policy:
  default:
    mode: advisory
EOC
set +e
"$RB_BIN" review -c "$d/config.yaml" "$d/demo/series.mbox" >"$d/out.log" 2>&1
rc=$?
set -e
cat "$d/out.log"
[ $rc -le 1 ] || rb_fail "review failed ($rc)"
mail=$(grep -l 'PATCH 3/3' "$d"/outbox/new/* || true)
[ -n "$mail" ] || rb_fail "no reply to 3/3"
body=$(tr -d '\r' <"$mail")
echo "$body" | grep -q '^> +	r->slots = NULL;' || rb_fail "the quoted line is missing"
echo "$body" | grep -q 'Should it also set size to 0' || rb_fail "the model's question is missing"
echo "$body" | grep -q 'kfree' && rb_fail "a hallucinated finding reached the mail"
echo "$body" | grep -qi 'model review' || rb_fail "no model line in the summary"
ls "$d/rb.db.exchanges"/*.json >/dev/null 2>&1 || rb_fail "no exchange was recorded"
tokens=$(sqlite3 "$d/rb.db" "SELECT SUM(tokens_in) FROM reviews WHERE model = 'scripted'")
[ "${tokens:-0}" -gt 0 ] || rb_fail "tokens were not stored"
sqlite3 "$d/rb.db" "SELECT checker, category, state FROM findings"
# The prompt set's version is stored with each model review and finding.
pv=$(sqlite3 "$d/rb.db" "SELECT DISTINCT prompt FROM reviews WHERE model = 'scripted'")
echo "$pv" | grep -qE '^[0-9a-f]{12}$' || rb_fail "no prompt version on the reviews: '$pv'"
fpv=$(sqlite3 "$d/rb.db" "SELECT DISTINCT prompt FROM findings WHERE checker = 'model'")
[ "$fpv" = "$pv" ] || rb_fail "model findings carry '$fpv', reviews '$pv'"
"$RB_BIN" stats -c "$d/config.yaml" --store "$d/rb.db" | grep -q "by prompt version" ||
	rb_fail "stats do not split by prompt version"

# Replay: the server is gone, the recorded answers give the same mails.
rb_stop model
mkdir -p "$d/replay"
"$RB_BIN" review -c "$d/config.yaml" --store "$d/replay/rb.db" \
	--outbox "$d/replay/outbox" --replay "$d/rb.db.exchanges" \
	"$d/demo/series.mbox" >"$d/replay.log" 2>&1 || true
want=$(for f in "$d"/outbox/new/*; do sha256sum <"$f"; done | sort)
got=$(for f in "$d"/replay/outbox/new/*; do sha256sum <"$f"; done | sort)
[ "$want" = "$got" ] || rb_fail "replay differs: $(cat "$d/replay.log")"
echo "1 passed, 0 failed"
