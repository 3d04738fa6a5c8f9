#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/eval.sh [REVIEWBOT] - "reviewbot eval" on the set it builds from
# the linux-api corpus (docs/EVAL.md), with a SCRIPTED MODEL, not a real
# one: tests/model_server.py in both wire formats (OpenAI, Anthropic), and
# the "command" provider, each answering from bench/eval_model.py, which
# plants a hit on two pairs in three and a miss on every pair. Its
# figures show that the set builder, the model stage's validators, the
# scorer and the report work end to end; they say nothing about a model.
#
# Against a real model, the same two commands (what an operator runs):
#
#   reviewbot eval --build-set --from linux-api.mbox.xz --out set.json
#   reviewbot eval --set set.json -c config.yaml --json report.json
#
# with model.* of config.yaml naming the provider (and trees.* a kernel
# tree, so that the patches apply and the model reads the tree).
#
# Then "reviewbot eval --inject" on the linux trees that are set up
# (scripts/setup-linux-tree.sh; 6.1 and 6.12): the cases (each pair's bug
# put back into a real tree, with its control), their context recall with
# no model, the same SCRIPTED model on cases and controls
# (bench/eval_model.py cases), and the checkers.
#
# Writes bench/RESULTS-eval.md. REVIEWBOT may be relative; without it the
# Release build in build-bench/ is used, built first (bench/lib.sh). The
# corpus is read from ../shared, or RB_SHARED.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_need python3 xz
bin=$(bench_reviewbot "${1:-}") || exit 1
shared=$(bench_shared "${RB_SHARED:-$top/../shared}" corpus/linux-api.mbox.xz) ||
	exit 1
out=$(bench_out "$top/bench/RESULTS-eval.md")
w=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-eval.XXXXXX")
pid=""
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	rm -rf "$w"
}
trap cleanup EXIT

start=$(date +%s%N)
"$bin" eval --build-set --from "$shared/corpus/linux-api.mbox.xz" \
	--out "$w/set.json" >"$w/build.txt" 2>"$w/build.err" ||
	bench_die "build-set failed: $(cat "$w/build.err")"
build_s=$((($(date +%s%N) - start) / 1000000000))
python3 "$top/bench/eval_model.py" script "$w/set.json" "$w/script.json"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
python3 "$top/tests/model_server.py" --port "$port" --script "$w/script.json" \
	--log "$w/server.log" &
pid=$!
for _ in $(seq 400); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.025
done

# The linux 6.1 tree, when set up (scripts/setup-linux-tree.sh): a patch
# that applies alone is reviewed on the tree, as the pipeline does.
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
trees=""
if [ -d "$tree/.git" ]; then
	trees="trees:
  - name: linux-6.1
    path: $tree
    fetch_minutes: 0"
fi

# run NAME PROVIDER URL-OR-COMMAND: one eval, its report in $w/NAME.md
run() {
	local name=$1 provider=$2 where=$3 key=url
	[ "$provider" = command ] && key=command
	cat >"$w/$name.yaml" <<-YAML
	$trees
	model:
	  provider: $provider
	  $key: $where
	  name: scripted
	  cost_per_mtok_in: 3
	  cost_per_mtok_out: 15
	YAML
	"$bin" eval --set "$w/set.json" -c "$w/$name.yaml" \
		--labels "$top/tests/data/eval/labelled.json" \
		--json "$w/$name.json" \
		--label "scripted model ($name), not a real model" \
		>"$w/$name.md" 2>"$w/$name.err" ||
		bench_die "eval ($name) failed: $(cat "$w/$name.err")"
}
run openai openai "http://127.0.0.1:$port/v1/chat/completions"
run anthropic anthropic "http://127.0.0.1:$port/v1/messages"
run command command "python3 $top/bench/eval_model.py command $w/set.json"

# --inject on the trees that are set up, with the same scripted server.
itrees=()
tree_names=""
for v in 6.1 6.12; do
	case $v in
	6.1) d=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1} ;;
	*) d=${RB_LINUX_TREE_6_12:-$HOME/.cache/reviewbot/linux-$v} ;;
	esac
	[ -d "$d/.git" ] || continue
	ln -s "$(realpath -e -- "$d")" "$w/linux-$v"
	itrees+=(--tree "$w/linux-$v")
	tree_names+="linux-$v "
done
labels=$top/tests/data/eval/labelled.json
# The context code measured: the last commit that changed it.
rev=$(git -C "$top" log -1 --format=%h -- review/model/model_prompt.c \
	review/model/model_tools.c review/model/model.c 2>/dev/null || echo '?')
if [ ${#itrees[@]} -gt 0 ]; then
	start=$(date +%s%N)
	"$bin" eval --inject --recall --set "$w/set.json" "${itrees[@]}" \
		--labels "$labels" --cases "$w/cases.json" >"$w/recall.md" \
		2>"$w/recall.err" ||
		bench_die "eval --inject --recall: $(tail -n 3 "$w/recall.err")"
	recall_s=$((($(date +%s%N) - start) / 1000000000))
	python3 "$top/bench/eval_model.py" cases "$w/cases.json" "$labels" \
		"$w/script.json.new"
	# The server re-reads its script when the file changes.
	mv "$w/script.json.new" "$w/script.json"
	cat >"$w/inject.yaml" <<-YAML
	model:
	  provider: openai
	  url: http://127.0.0.1:$port/v1/chat/completions
	  name: scripted
	  focuses: [correctness]
	  cost_per_mtok_in: 3
	  cost_per_mtok_out: 15
	YAML
	"$bin" eval --inject --set "$w/set.json" "${itrees[@]}" \
		-c "$w/inject.yaml" --labels "$labels" \
		--label "SCRIPTED model, not a real model" >"$w/inject.md" \
		2>"$w/inject.err" ||
		bench_die "eval --inject: $(tail -n 3 "$w/inject.err")"
	start=$(date +%s%N)
	"$bin" eval --inject --checkers --set "$w/set.json" "${itrees[@]}" \
		--labels "$labels" >"$w/checkers.md" 2>"$w/checkers.err" ||
		bench_die "eval --inject --checkers: $(tail -n 3 "$w/checkers.err")"
	checkers_s=$((($(date +%s%N) - start) / 1000000000))
fi
kill "$pid"
pid=""

summary() { # the summary row of a report
	grep -A2 '^| model | prompt set' "$w/$1.md" | tail -n 1
}
pairs=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["pairs"]))' "$w/set.json")
{
	cat <<EOF
## reviewbot eval on real bugs (bench/eval.sh)

What it measures: \`reviewbot eval\` end to end on the evaluation set it
builds from the linux-api corpus (30,571 mails): a patch mail whose
\`Fixes:\` line quotes the subject of an earlier patch mail marks that
patch as buggy, and the fix's diff says where (docs/EVAL.md: how pairs
are found, and which are left out and why). Each buggy patch is reviewed
through the model stage the daemon uses, and each finding is scored: a
hit when it lands within 3 lines of a line the fix changed, or in a
function it changed.

**SCRIPTED MODEL, NOT A REAL MODEL.** Every figure below comes from
bench/eval_model.py, which plants a finding on a line the fix changed for
two pairs in three and a finding elsewhere on every pair, served by
tests/model_server.py (OpenAI and Anthropic wire formats) and run as the
\`command\` provider. Its recall and precision are what it was written to
give; they show that the set builder, the validators, the verifier
round, the scorer and the report work, and nothing about a model. The
costs are computed at an assumed \$3 / \$15 per million tokens in / out.

Against a real model (what an operator runs; model.* in config.yaml
names the provider, trees.* a kernel tree so that the patches apply):

\`\`\`
reviewbot eval --build-set --from ../shared/corpus/linux-api.mbox.xz --out set.json
reviewbot eval --set set.json -c config.yaml --json report.json
\`\`\`

Repeat these figures: \`bench/eval.sh\` (the set in $build_s s, each
scripted run in about a second; the Release build first).

Measured $(date -u +%Y-%m-%d), $(nproc) cores, release build (clang -O2),
${trees:+on the linux 6.1 tree where a buggy patch applies alone, else }on the
diff alone (the context column says which).

### The set

\`\`\`
$(sed 's/; written to .*//' "$w/build.txt")
\`\`\`

### Per run (scripted model, not a real model)

| run | model | prompt set | pairs | pairs with a hit | recall | findings | hits | precision | words | tokens in | tokens out | cost | failed |
| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| scripted server, OpenAI wire format $(summary openai)
| scripted server, Anthropic wire format $(summary anthropic)
| \`command\` provider (no token counts) $(summary command)

### Per pair and per category (scripted server, OpenAI wire format)

EOF
	sed -n '/^| # |/,$p' "$w/openai.md"
	if [ ${#itrees[@]} -gt 0 ]; then
		cat <<EOF

## Bugs put back into real trees: reviewbot eval --inject

Each pair whose fix is in a tree (every line the fix adds is in the
tree's file) becomes a case: the fix reversed, applied to the real tree,
framed by the buggy patch's commit message; a pair whose buggy patch
applies as it is becomes a forward case. Each case has a control: the fix
applied on the buggy code, a correct patch over the same lines, reviewed
the same way; a finding on a control is a false positive on real kernel
code (docs/EVAL.md). Trees: $tree_names(Debian's linux-source packages,
scripts/setup-linux-tree.sh).

\`\`\`
reviewbot eval --inject --recall --set set.json --tree ~/.cache/reviewbot/linux-6.1 \\
	--tree ~/.cache/reviewbot/linux-6.12 --labels tests/data/eval/labelled.json
\`\`\`

$(sed -n '/^| pair | buggy patch/,/^Cases with their controls/p' "$w/recall.md")

### Context recall, no model

Does the finder's prompt (rb_model_prompt_build(), given the context the
review stage builds) hold the lines the fix changed and the whole
functions around them, and do the tools, in the default budget, reach
them (the fix's functions by find_definition, read_file for the rest,
their callers by find_callers)? A line counts when its text, blanks
trimmed, is in the prompt (or in the tools' results); lines with fewer
than three word characters are not counted. These are the figures of the
context code as of $rev (review/model/model_prompt.c, model_tools.c, model.c),
the "before" of the context work (issue 24).
$recall_s s for the trees, most of it the tools' word index of each.

$(sed -n '/^| pair | case | tree | fix lines in the prompt/,/^| all /p' "$w/recall.md")

### The model on cases and controls (SCRIPTED MODEL, NOT A REAL MODEL)

bench/eval_model.py (cases) through tests/model_server.py: per case one
read_file call, then a finding on a line the fix changed, with a category
its hand label accepts on two cases in three (a strict hit), one it
refuses on the others; a finding on the fix's first added line on one
control in two. These figures show that the cases, the controls, the
strict scorer and the report work; they say nothing about a model.

\`\`\`
reviewbot eval --inject --set set.json --tree ... -c config.yaml \\
	--labels tests/data/eval/labelled.json --json report.json
\`\`\`

$(sed -n '/^| pair | case | findings on the case/,$p' "$w/inject.md")

### The committed recording (bench/eval-replay/; $(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(("SCRIPTED, " if m["scripted"] else "") + "linux " + m["kernel"] + ", prompt set " + m["prompt_set"])' "$top/bench/eval-replay/meta.json"))

bench/eval-record.sh recorded the cases of bench/eval-replay/set.json on
linux 6.1 (every exchange, tool turns included); tests/t_eval_replay.sh
(ctest) replays it with no model and fails unless the report is the
committed one, byte for byte. docs/EVAL.md says how to record a real
model's run and commit it in its place.

\`\`\`
bench/eval-record.sh                 # SCRIPTED: tests/model_server.py
bench/eval-record.sh -c model.yaml   # a real model (its key in api_key_env)
cd build-test && ctest -R t_eval_replay
\`\`\`

$(grep -A4 '^| model | prompt set | subset' "$top/bench/eval-replay/report.md")

### The checkers on the same cases and controls

commit-msg and checkpatch (from the tree), with the filters the review
stage applies (rb_checkpatch_filter(), the rules that are off by
default): their recall is the floor a model must beat, their findings on
controls their false positives on real code. $checkers_s s.

\`\`\`
reviewbot eval --inject --checkers --set set.json --tree ... \\
	--labels tests/data/eval/labelled.json
\`\`\`

$(sed -n '/^| pair | case | checker findings on the case/,$p' "$w/checkers.md")
EOF
	fi
} >"$w/results.md"
[ "$pairs" -gt 0 ] || bench_die "the set has no pairs"
cp "$w/results.md" "$out"
echo "bench/RESULTS-eval.md: $pairs pairs"
summary openai
