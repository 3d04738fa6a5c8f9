#!/bin/bash
# bench/prompt.sh - what the model is shown of the code, with no model:
# bench_prompt (bench/bench_prompt.c) over the 112 real patches of
# corpus/apply-6.1, each applied alone on linux 6.1, through the prompt
# builder the review stage uses, checked against universal-ctags. With
# BEFORE=REV it measures REV's code as well (git archive REV into a
# temporary directory, bench_prompt.c copied in and built there), for
# the before/after rows of bench/RESULTS-model.md.
#
# usage: bench/prompt.sh [OUT.md]
#   RB_LINUX_TREE (default ~/.cache/reviewbot/linux-6.1), RB_SHARED
#   BEFORE=bc7837f  also the code at that commit (the last before issue 30)
set -u -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need ctags git /usr/bin/time
out=$(bench_out "${1:-/dev/stdout}") || exit 1
shared=$(bench_shared "${RB_SHARED:-$src/../shared}" corpus/apply-6.1) ||
	exit 1
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
[ -d "$tree/.git" ] || bench_die "needs the linux 6.1 tree at $tree"
b=$(bench_build bench_prompt) || exit 1
w=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$w"' EXIT
run()
{
	/usr/bin/time -f '%U s of CPU, %e s wall, %M KB peak' \
		"$1" "$tree" HEAD "$shared"/corpus/apply-6.1/*.eml \
		>"$w/$2.md" 2>"$w/$2.time" || bench_die "$2: bench_prompt failed"
}
if [ -n "${BEFORE:-}" ]; then
	mkdir "$w/before"
	git -C "$src" archive "$BEFORE" | tar -x -C "$w/before" ||
		bench_die "no commit $BEFORE"
	cp "$src/bench/bench_prompt.c" "$w/before/bench/"
	printf 'add_executable(bench_prompt bench_prompt.c)\ntarget_link_libraries(bench_prompt PRIVATE rb_review)\n' \
		>>"$w/before/bench/CMakeLists.txt"
	{ cmake -S "$w/before" -B "$w/before/build" -DCMAKE_C_COMPILER=clang \
		-DCMAKE_BUILD_TYPE=Release -DRB_BENCH=ON -DRB_SANITIZE=OFF \
		-DRB_FUZZ=OFF && cmake --build "$w/before/build" -j2 \
		--target bench_prompt; } >/dev/null 2>&1 ||
		bench_die "cannot build bench_prompt at $BEFORE"
	run "$w/before/build/bench/bench_prompt" before
fi
run "$b/bench/bench_prompt" after
{
	for r in before after; do
		[ -f "$w/$r.md" ] || continue
		echo "### $r ($(cat "$w/$r.time"))"
		echo
		sed -n '/^mails /,$p' "$w/$r.md"
		echo
	done
} >"$out"
