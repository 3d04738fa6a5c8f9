#!/bin/sh
# model.sh - a scripted "command" provider for tests/t_eval.sh, not a
# model: on the finder's prompt it names two lines of the buggy patch of
# archive.mbox, one the fix later changed (a leak: a hit) and one it did
# not (api-misuse: a miss); on the verifier's it confirms every finding,
# with the finding's own line as its evidence.
in=$(cat)
case $in in
*'"verdicts"'*)
	# Each confirmation quotes, as its evidence, the finding's own line.
	printf '%s\n' "$in" | python3 -c '
import json, re, sys
out, cur = [], None
for l in sys.stdin.read().split("\n"):
    m = re.match(r"Finding (\d+): (.*), (old|new) side line (\d+),", l)
    if m:
        cur = m
    elif l.startswith("Quoted code: ") and cur:
        out.append({"id": int(cur.group(1)), "verdict": "confirmed",
                    "reason": "scripted", "evidence": [
                        {"file": cur.group(2), "line": int(cur.group(4)),
                         "side": "base" if cur.group(3) == "old" else "tip",
                         "quote": l[len("Quoted code: "):]}]})
        cur = None
print(json.dumps({"verdicts": out}))'
	;;
*'foo_read(f, buf) < 0'*)
	cat <<'JSON'
{"findings": [
 {"file": "drivers/foo.c", "side": "new", "line": 19,
  "quoted_code": "if (foo_read(f, buf) < 0)", "category": "leak",
  "severity": "medium", "confidence": 0.8, "introduced_by_patch": true,
  "trigger_scenario": "foo_read() fails after kmalloc() succeeded.",
  "question": "Is buf freed when foo_read() fails?"},
 {"file": "include/foo.h", "side": "new", "line": 3,
  "quoted_code": "int foo_get(struct foo *f);", "category": "api-misuse",
  "severity": "low", "confidence": 0.6, "introduced_by_patch": true,
  "trigger_scenario": "A caller outside drivers/.",
  "question": "Should foo_get() be exported?"}
]}
JSON
	;;
*)
	echo '{"findings": []}'
	;;
esac
