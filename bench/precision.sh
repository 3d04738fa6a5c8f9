#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/precision.sh - the precision of every finding rule on real mail,
# from a fresh run and the labels in bench/labels/findings.tsv:
#
#  1. the 112 patches of ../shared/corpus/apply-6.1, each applied on linux
#     6.1 (scripts/setup-linux-tree.sh): reviewbot check --checkers
#     commit-msg,checkpatch --json;
#  2. the whole linux-api archive (corpus/linux-api.mbox.xz) through
#     reviewbot review with the embedded defaults (advisory everywhere, no
#     tree, so the commit-msg rules run on every series; the findings
#     table keeps every finding, whatever the policy's cap did);
#  3. checkpatch on the 150 archive series of bench/labels/cp-series.txt
#     (picked with "precision.py pick STORE 150 15"; fixed by Message-ID
#     so that changes to series assembly do not move the set), with
#     --no-apply (they do not apply to 6.1; the base tree's checkpatch.pl
#     reads the patches alone).
#
# Every finding is keyed (bench/precision.py) and run through
# bench/findings_post.c: the checkpatch filter with the 6.1 tree as base
# and rb_findings_postprocess(), once with every rule on (what each rule
# says after the fixes; its precision decides its default) and once with
# the shipped defaults (review/checks/rules.c: what the bot emits). Labels are
# matched to both; the per-rule table and the default's precision go to
# OUT (default bench/RESULTS-precision.md); unlabelled findings that the
# default emits are listed on stderr, to be labelled next.
#
# usage: bench/precision.sh [REVIEWBOT] [OUT]
#   REVIEWBOT  default $RB_BUILD/bot/reviewbot, else the Release build in
#              build-bench/, built first (bench/lib.sh); findings_post.c
#              is always the build-bench/ one (these sources)
#   PRECISION_WORK=DIR keeps the run there (default: a temporary dir);
#   with PRECISION_REUSE=1 the steps whose output is there are not run
#   again (to relabel and recompute)
# About 15 minutes on 2 shared cores (a sanitizer build), most of it
# reviewbot review over 30,571 messages and checkpatch.pl.
set -eu -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
if [ -n "${1:-}" ]; then
	bin=$(bench_bin "$1") || exit 1
elif [ -n "${RB_BUILD:-}" ]; then
	bin=$(bench_bin "$RB_BUILD/bot/reviewbot") || exit 1
else
	bin=$(bench_reviewbot "") || exit 1
fi
out=$(realpath -m "${2:-$here/bench/RESULTS-precision.md}")
shared=${RB_SHARED:-$here/../shared}
labels=$here/bench/labels/findings.tsv
py="python3 $here/bench/precision.py"
tree=$("$here/scripts/setup-linux-tree.sh")
if [ -n "${PRECISION_WORK:-}" ]; then
	work=$PRECISION_WORK
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/rb-precision.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
ms() { date +%s%3N; }

# The helper (bench/findings_post.c), a target of the bench build.
post=$(bench_build findings_post)/bench/findings_post || exit 1

reuse() { [ "${PRECISION_REUSE:-0}" = 1 ] && [ -s "$work/$1" ]; }

t0=$(ms)
if ! reuse p112.jsonl; then
echo "== 1. corpus/apply-6.1 on $(git -C "$tree" log -1 --format=%s)" >&2
: > "$work/p112.tagged"
for f in "$shared"/corpus/apply-6.1/*.eml; do
	id=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import precision; print(precision.msgid_of(sys.argv[2]))' "$here/bench" "$f")
	"$bin" check --tree "$tree" --checkers commit-msg,checkpatch --json \
		"$f" 2>>"$work/p112.err" | sed "s|^|$id\t$f\t|" \
		>> "$work/p112.tagged" || true
done
$py tag p112 < "$work/p112.tagged" > "$work/p112.jsonl"
echo $(( ($(ms) - t0) / 1000 )) > "$work/p112.secs"
fi
t1=$(ms)

if ! reuse archive.jsonl; then
echo "== 2. linux-api archive through reviewbot review" >&2
rm -rf "$work/arch" && mkdir -p "$work/arch"
(cd "$work/arch" && "$bin" review --store s.db --outbox out \
	"$shared/corpus/linux-api.mbox.xz" > log.txt 2>&1) || true
tail -2 "$work/arch/log.txt" >&2
$py archive "$work/arch/s.db" "$tree" > "$work/archive.jsonl"
echo $(( ($(ms) - t1) / 1000 )) > "$work/archive.secs"
fi
t2=$(ms)

if ! reuse cp.jsonl; then
echo "== 3. checkpatch --no-apply on the series of labels/cp-series.txt" >&2
rm -rf "$work/cp" && mkdir -p "$work/cp"
$py export "$work/arch/s.db" "$work/cp" "$here/bench/labels/cp-series.txt" \
	> "$work/cp/list.txt"
: > "$work/cp.tagged"
while read -r d sid; do
	files=$(ls "$d"/*.eml | tr '\n' ' ')
	files=${files% }
	# shellcheck disable=SC2086
	"$bin" check --tree "$tree" --no-apply --checkers checkpatch --json \
		$files 2>>"$work/cp.err" | sed "s|^|$sid\t$files\t|" \
		>> "$work/cp.tagged" || true
done < "$work/cp/list.txt"
$py tag archive-cp < "$work/cp.tagged" > "$work/cp.jsonl"
echo $(( ($(ms) - t2) / 1000 )) > "$work/cp.secs"
fi

cat "$work/p112.jsonl" "$work/archive.jsonl" "$work/cp.jsonl" > "$work/run.jsonl"
"$post" --tree "$tree" --all-rules < "$work/run.jsonl" \
	> "$work/all-rules.jsonl"
"$post" --tree "$tree" < "$work/run.jsonl" \
	> "$work/emitted.jsonl"
patches_arch=$(sqlite3 "$work/arch/s.db" "SELECT count(*) FROM patches p
	JOIN series s ON s.id = p.series_id
	WHERE p.idx > 0 AND s.state = 'reviewed'")
patches_cp=$(find "$work/cp" -name '*.eml' | wc -l)
{
	echo "## Precision of the finding rules (bench/precision.sh)"
	echo
	echo "Run $(date -u +%Y-%m-%d) with $("$bin" --version 2>/dev/null | head -1 || echo reviewbot)"
	echo "on the tree \"$(git -C "$tree" log -1 --format=%s)\" (linux 6.1.192); labels:"
	echo "bench/labels/findings.tsv ($(grep -v '^#' "$labels" | tail -n +2 | wc -l) labelled findings)."
	echo "Times (2 shared cores, $(basename "$(dirname "$(dirname "$bin")")")):"
	echo "112 patches $(cat "$work/p112.secs" 2>/dev/null || echo ?) s, archive"
	echo "$(cat "$work/archive.secs" 2>/dev/null || echo ?) s, checkpatch sample $(cat "$work/cp.secs" 2>/dev/null || echo ?) s."
	echo
	cat <<'EOF'
How the labels were made: each finding was judged as a linux-mm
maintainer would, reading the patch and the code around it: true (I
would defend it on the list), debatable or false, with a one-line
reason; debatable counts as not true. Stage 1 (seed 20261215) took
every finding on the 112 patches and, per rule, 30 commit-msg or 5
checkpatch findings of the first run; stage 2 (seeds 20261216-18), after
the fixes, topped every checkpatch type up to 5 labels and the rules
that might reach 90% up to 15 (commit-msg: 30), one finding a patch
first. Quoted-printable mail is fed to checkpatch undecoded, so many
false checkpatch reports here are "=3D" and soft line breaks.

EOF
	"$post" --table > "$work/table.tsv"
	$py report "$work/run.jsonl" "$work/all-rules.jsonl" \
		"$work/emitted.jsonl" "$labels" "$patches_arch" "$patches_cp" \
		"$work/table.tsv" 2> "$work/unlabelled.txt"
} > "$out"
cat "$work/unlabelled.txt" >&2
echo "wrote $out (work: $work)" >&2
