#!/bin/sh
# A model behind the "command" provider for test_model: the prompt comes
# on stdin; the verifier's prompt asks for "verdicts", and a confirmation
# quotes its evidence: the finding's own line (the leaking "return ret;"
# of leak.patch) and the allocation the prompt's diff shows
# (tests/model_server.py --verifier-stdin, evidence "auto").
in=$(cat)
case "$in" in
*'"verdicts"'*)
	printf '%s\n' "$in" |
		python3 "$(dirname "$0")/../../model_server.py" --verifier-stdin
	;;
*)
	cat "$(dirname "$0")/leak.answer.json"
	;;
esac
