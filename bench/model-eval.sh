#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/model-eval.sh - the model stage over a labelled set
# (bench/model-eval/labels.json: patches with their known issues), with
# precision and recall per finding, findings per review, words of
# commentary per patch and tokens.
#
# Without a provider it runs against tests/model_server.py on loopback,
# with the scripted answers of bench/model-eval/script.json, in both wire
# formats (OpenAI Chat Completions, Anthropic Messages), records every
# exchange, then replays the recording with no server. Those figures test
# the pipeline (validators, verifier, caps), not a model: real-model
# figures need a real provider:
#
#   RB_MODEL_PROVIDER=openai RB_MODEL_URL=https://.../v1/chat/completions \
#   RB_MODEL_NAME=some-model RB_MODEL_KEY_ENV=OPENAI_API_KEY \
#   bench/model-eval.sh
#
# (or RB_MODEL_PROVIDER=command RB_MODEL_COMMAND='my-agent --json').
#
# usage: bench/model-eval.sh [OUT]   (the report; default: stdout only)
# bench/model_eval.c is built in build-bench/ (Release; bench/lib.sh).
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need python3
# A report that cannot be written fails now, not after the run.
[ $# -lt 1 ] || bench_out "$1" >/dev/null || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-model.XXXXXX")
pids=""
cleanup() {
	local p
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

rel=$(bench_build model_eval) || exit 1

labels=$src/bench/model-eval/labels.json
run() {
	"$rel/bench/model_eval" --labels "$labels" --root "$src" "$@" 2>&1
}

{
echo "# model-eval $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores"
if [ -n "${RB_MODEL_PROVIDER:-}" ]; then
	run --label "configured provider" --provider "$RB_MODEL_PROVIDER" \
		${RB_MODEL_URL:+--url "$RB_MODEL_URL"} \
		${RB_MODEL_NAME:+--name "$RB_MODEL_NAME"} \
		${RB_MODEL_KEY_ENV:+--key-env "$RB_MODEL_KEY_ENV"} \
		${RB_MODEL_COMMAND:+--command "$RB_MODEL_COMMAND"} \
		${RB_MODEL_TOKENS_FIELD:+--tokens-field "$RB_MODEL_TOKENS_FIELD"} \
		--record "$work/rec-real" || true
else
	for fmt in openai anthropic; do
		port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
		/usr/bin/python3 "$src/tests/model_server.py" --port "$port" \
			--script "$src/bench/model-eval/script.json" \
			--log "$work/$fmt.log" &
		pid=$!
		pids="$pids $pid"
		for _ in $(seq 200); do
			(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
			sleep 0.025
		done
		path=chat/completions
		[ $fmt = anthropic ] && path=messages
		echo
		run --label "scripted server, $fmt wire format" \
			--provider $fmt --url "http://127.0.0.1:$port/v1/$path" \
			--name scripted --record "$work/rec-$fmt"
		kill "$pid"
	done
	echo
	run --label "replay of the openai recording (no server)" \
		--provider replay --replay "$work/rec-openai" --name replay
	echo
	echo "exchanges recorded: $(ls "$work/rec-openai" | wc -l) files," \
		"$(du -sk "$work/rec-openai" | cut -f1) KiB"
fi
} | tee "$work/report"
if [ $# -ge 1 ]; then
	cp "$work/report" "$1"
fi
