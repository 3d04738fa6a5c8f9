#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/eval-record.sh [-c MODEL.yaml] [REVIEWBOT] - records "reviewbot
# eval --inject" on the cases of bench/eval-replay/set.json on the linux
# 6.1 tree (scripts/setup-linux-tree.sh), every exchange with the model
# kept (--record, tool turns included), and writes into bench/eval-replay/:
#
#   recording.tar.xz  the exchanges, one JSON file each, named by the
#                     request's hash (review/model/model_provider.h)
#   report.md, report.json  what the run printed: the figures CI replays
#   meta.json         the model, the kernel, the prompt set, the label
#   config.yaml       (with -c) the model options the replay needs
#
# Then it replays the recording at once and fails unless the replay gives
# the same bytes. The model's figures only: context recall (--recall)
# builds the tools' index of the whole tree (a minute), and bench/eval.sh
# measures it. tests/t_eval_replay.sh (ctest) replays it in CI and
# fails when the figures change.
#
# Without -c: a SCRIPTED MODEL, NOT A REAL MODEL - tests/model_server.py
# answering from bench/eval_model.py (cases mode), labelled as such.
# With -c MODEL.yaml: a real model. MODEL.yaml holds only "model:" (the
# provider, url, name, focuses, tools, prices), its key in api_key_env or
# api_key_file, never inline; it is copied to bench/eval-replay/config.yaml
# without those two lines. docs/EVAL.md says how to commit the result.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
cfg=""
if [ "${1:-}" = -c ]; then
	cfg=$(realpath -e -- "$2") || bench_die "no config '$2'"
	shift 2
fi
bench_need python3 xz tar
bin=$(bench_reviewbot "${1:-}") || exit 1
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
[ -d "$tree/.git" ] ||
	bench_die "no linux 6.1 tree at $tree: run scripts/setup-linux-tree.sh"
out=$top/bench/eval-replay
labels=$top/tests/data/eval/labelled.json
w=$(mktemp -d "${TMPDIR:-/tmp}/rb-eval-record.XXXXXX")
pid=""
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	rm -rf "$w"
}
trap cleanup EXIT
# The code index of the tree (review/code/code_index.c) in the run's folder.
export XDG_CACHE_HOME=$w/cache
# The tree under the name the report gives it, wherever it is.
ln -s "$(realpath -e -- "$tree")" "$w/linux-6.1"
tree=$w/linux-6.1
kernel=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = //p' "$tree/Makefile" |
	head -n 3 | paste -sd.)

if [ -z "$cfg" ]; then
	# The cases, for the script of answers.
	"$bin" eval --inject --set "$out/set.json" --tree "$tree" \
		--cases "$w/cases.json" >/dev/null 2>"$w/cases.err" ||
		bench_die "eval --inject: $(cat "$w/cases.err")"
	python3 "$top/bench/eval_model.py" cases "$w/cases.json" "$labels" \
		"$w/script.json"
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
	python3 "$top/tests/model_server.py" --port "$port" \
		--script "$w/script.json" --log "$w/server.log" &
	pid=$!
	for _ in $(seq 400); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
		sleep 0.025
	done
	sed "s|^  url: .*|  url: http://127.0.0.1:$port/v1/chat/completions|" \
		"$out/config.yaml" >"$w/record.yaml"
	replay_cfg=$out/config.yaml
	label="SCRIPTED model (tests/model_server.py + bench/eval_model.py), not a real model"
	scripted=true
else
	grep -Eq '^(trees|sources|smtp|store):' "$cfg" &&
		bench_die "$cfg: give a file with only model: in it"
	grep -Eq '^[[:space:]]*api_key:' "$cfg" &&
		bench_die "$cfg: the key goes in api_key_env or api_key_file"
	cp "$cfg" "$w/record.yaml"
	grep -Ev '^[[:space:]]*api_key_(env|file):' "$cfg" >"$w/replay.yaml"
	replay_cfg=$w/replay.yaml
	name=$(sed -n 's/^[[:space:]]*name:[[:space:]]*//p' "$cfg" | head -n 1)
	label="model ${name:-?}, recorded $(date -u +%Y-%m-%d)"
	scripted=false
fi

run() { # run DIR-OPTION DIR CONFIG OUT: one eval --inject, its report in OUT.*
	"$bin" eval --inject --set "$out/set.json" \
		--tree "$tree" -c "$3" --labels "$labels" "$1" "$2" \
		--json "$4.json" --label "$label" >"$4.md" 2>"$4.err" ||
		bench_die "eval ($1): $(tail -n 5 "$4.err")"
}
run --record "$w/rec" "$w/record.yaml" "$w/report"
[ -z "$pid" ] || { kill "$pid"; pid=""; }
run --replay "$w/rec" "$replay_cfg" "$w/replay"
cmp -s "$w/report.json" "$w/replay.json" && cmp -s "$w/report.md" "$w/replay.md" ||
	bench_die "the replay does not give the recorded figures: $(diff "$w/report.md" "$w/replay.md" | head -n 20)"
prompt=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["prompt_version"])' "$w/report.json")

tar -C "$w/rec" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
	-cf - . | xz -9 >"$w/recording.tar.xz"
cp "$w/recording.tar.xz" "$w/report.md" "$w/report.json" "$out/"
[ "$replay_cfg" = "$out/config.yaml" ] || cp "$replay_cfg" "$out/config.yaml"
python3 - "$out/meta.json" "$kernel" "$prompt" "$label" "$scripted" <<'PY'
import json, sys
out, kernel, prompt, label, scripted = sys.argv[1:]
json.dump({"scripted": scripted == "true", "kernel": kernel,
           "tree": "linux-" + ".".join(kernel.split(".")[:2]),
           "prompt_set": prompt, "label": label,
           "made_by": "bench/eval-record.sh"},
          open(out, "w"), indent=1)
open(out, "a").write("\n")
PY
echo "bench/eval-replay: $(ls "$w/rec" | wc -l) exchanges, recording.tar.xz $(wc -c <"$out/recording.tar.xz") bytes, prompt set $prompt, linux $kernel"
grep -A4 '^| model | prompt set | subset' "$out/report.md"
