#!/bin/bash
# t_eval_replay.sh - the committed recording of "reviewbot eval --inject"
# (bench/eval-replay/, made by bench/eval-record.sh; SCRIPTED until a
# real model's run is committed, meta.json says which) replayed with no
# model: the report must be the committed one, byte for byte. A change of
# the figures - of the cases, the scorer, the labels, the context recall
# or the model stage's handling of the same answers - fails here; so does
# a change of the prompt set, whose requests the recording cannot answer
# (record again: docs/EVAL.md). Needs the linux 6.1 tree the recording was
# made on.
#
# It runs the release build, RB_BIN_RELEASE (.ci/run exports its gcc
# build): the prompt's prefetch reads the definitions through the word
# index of the whole kernel tree, which takes seconds in a release build
# and many minutes under the sanitizers.
set -u
: "${RB_BIN:?}" "${RB_SRC:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/need.sh"
rb_need_linux_tree
[ -n "${RB_BIN_RELEASE:-}" ] && [ -x "$RB_BIN_RELEASE" ] ||
	rb_skip "needs RB_BIN_RELEASE=path/to/a release reviewbot (.ci/run sets it): under the sanitizers indexing the kernel tree takes many minutes"
RB_BIN=$RB_BIN_RELEASE
rec=$RB_SRC/bench/eval-replay
meta() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$rec/meta.json" "$1"
}
kernel=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = //p' \
	"$RB_LINUX_TREE/Makefile" | head -n 3 | paste -sd.)
[ "$kernel" = "$(meta kernel)" ] ||
	rb_skip "the recording was made on linux $(meta kernel), this tree is linux $kernel: record it again (bench/eval-record.sh, docs/EVAL.md)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-eval-replay.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/rec"
# The code index of the tree goes with the test, not in the user's cache.
export XDG_CACHE_HOME=$tmp/cache
xz -dc "$rec/recording.tar.xz" | tar -C "$tmp/rec" -xf - ||
	{ echo "FAIL: cannot unpack $rec/recording.tar.xz"; exit 1; }
# The tree under the name it had when recorded.
ln -s "$(realpath -e -- "$RB_LINUX_TREE")" "$tmp/$(meta tree)"
cd "$tmp" || exit 1
"$RB_BIN" eval --inject --set "$rec/set.json" \
	--tree "$tmp/$(meta tree)" -c "$rec/config.yaml" \
	--labels "$RB_SRC/tests/data/eval/labelled.json" --replay "$tmp/rec" \
	--json "$tmp/report.json" --label "$(meta label)" \
	>"$tmp/report.md" 2>"$tmp/err"
rc=$?
now=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["prompt_version"])' \
	"$tmp/report.json" 2>/dev/null)
if [ "$now" != "$(meta prompt_set)" ]; then
	echo "FAIL: the prompt set is $now, the recording answers prompt set $(meta prompt_set): record it again (bench/eval-record.sh; docs/EVAL.md)"
	exit 1
fi
if [ $rc != 0 ] || ! cmp -s "$tmp/report.json" "$rec/report.json" ||
	! cmp -s "$tmp/report.md" "$rec/report.md"; then
	echo "FAIL: the replay (exit $rc) does not give the committed figures:"
	diff "$rec/report.md" "$tmp/report.md" | head -n 40
	tail -n 5 "$tmp/err"
	exit 1
fi
grep -A4 '^| model | prompt set | subset' "$tmp/report.md"
