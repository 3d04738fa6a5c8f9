#!/bin/sh
# model.sh - a scripted "command" provider for tests/t_eval.sh, not a
# model: on the finder's prompt it names two lines of the buggy patch of
# archive.mbox, one the fix later changed (a leak: a hit) and one it did
# not (api-misuse: a miss); on the verifier's it confirms every finding,
# with the finding's own line and one more line of the prompt as its
# evidence.
in=$(cat)
case $in in
*'"verdicts"'*)
	# Each confirmation quotes the finding's own line and a line of the
	# prompt's diff that the claim rests on (tests/model_server.py
	# --verifier-stdin: evidence "auto").
	printf '%s\n' "$in" |
		python3 "$(dirname "$0")/../../model_server.py" --verifier-stdin
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
