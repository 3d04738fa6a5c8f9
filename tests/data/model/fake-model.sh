#!/bin/sh
# A model behind the "command" provider for test_model: the prompt comes
# on stdin; the verifier's prompt asks for "verdicts", and a confirmation
# quotes its evidence (the leaking "return ret;" of leak.patch).
in=$(cat)
case "$in" in
*'"verdicts"'*)
	echo '{"verdicts": [{"id": 1, "verdict": "confirmed", "reason": "seen", "evidence": [{"file": "mm/foo.c", "side": "tip", "line": 55, "quote": "return ret;"}]}]}'
	;;
*)
	cat "$(dirname "$0")/leak.answer.json"
	;;
esac
