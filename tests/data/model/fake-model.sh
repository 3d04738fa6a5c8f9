#!/bin/sh
# A model behind the "command" provider for test_model: the prompt comes
# on stdin; the verifier's prompt asks for "verdicts".
in=$(cat)
case "$in" in
*'"verdicts"'*)
	echo '{"verdicts": [{"id": 1, "verdict": "confirmed", "reason": "seen"}]}'
	;;
*)
	cat "$(dirname "$0")/leak.answer.json"
	;;
esac
