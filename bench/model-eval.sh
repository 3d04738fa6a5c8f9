#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/model-eval.sh - the model stage over a labelled set
# (bench/model-eval/set.json: patches with their known issues), with
# precision and recall per finding, words of commentary per patch and
# tokens, by "reviewbot eval".
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
# It runs "reviewbot eval --set bench/model-eval/set.json" (the same
# patches and labels as labels.json, in the set format of docs/EVAL.md),
# so the figures come from the command an operator runs; REVIEWBOT may
# name the binary, else the Release build in build-bench/ (bench/lib.sh).
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need python3
# A report that cannot be written fails now, not after the run.
[ $# -lt 1 ] || bench_out "$1" >/dev/null || exit 1
bin=$(bench_reviewbot "${REVIEWBOT:-}") || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-model.XXXXXX")
pids=""
cleanup() {
	local p
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

set=$src/bench/model-eval/set.json
run() {
	"$bin" eval --set "$set" "$@" 2>&1 | grep -v '^reviewbot: config '
}

{
echo "# model-eval $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores"
if [ -n "${RB_MODEL_PROVIDER:-}" ]; then
	{
		echo "model:"
		echo "  provider: $RB_MODEL_PROVIDER"
		[ -z "${RB_MODEL_URL:-}" ] || echo "  url: $RB_MODEL_URL"
		[ -z "${RB_MODEL_NAME:-}" ] || echo "  name: $RB_MODEL_NAME"
		[ -z "${RB_MODEL_KEY_ENV:-}" ] || echo "  api_key_env: $RB_MODEL_KEY_ENV"
		[ -z "${RB_MODEL_COMMAND:-}" ] || echo "  command: '$RB_MODEL_COMMAND'"
		[ -z "${RB_MODEL_TOKENS_FIELD:-}" ] ||
			echo "  max_tokens_field: $RB_MODEL_TOKENS_FIELD"
	} >"$work/real.yaml"
	run --label "configured provider" -c "$work/real.yaml" \
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
		printf 'model:\n  provider: %s\n  url: %s\n  name: scripted\n' \
			$fmt "http://127.0.0.1:$port/v1/$path" >"$work/$fmt.yaml"
		echo
		run --label "scripted server, $fmt wire format" \
			-c "$work/$fmt.yaml" --record "$work/rec-$fmt"
		kill "$pid"
	done
	echo
	run --label "replay of the openai recording (no server)" \
		-c "$work/openai.yaml" --replay "$work/rec-openai"
	echo
	echo "exchanges recorded: $(ls "$work/rec-openai" | wc -l) files," \
		"$(du -sk "$work/rec-openai" | cut -f1) KiB"
fi
} | tee "$work/report"
if [ $# -ge 1 ]; then
	cp "$work/report" "$1"
fi
