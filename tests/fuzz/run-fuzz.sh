#!/bin/bash
# run-fuzz.sh FUZZER NAME - runs a libFuzzer target for a bounded time over
# seeds drawn from ../shared (never copied into the project tree).
# A target may provide tests/fuzz/NAME.seeds.sh, which writes seed files
# into the directory given as $1; otherwise the seeds are the first
# messages of the linux-api corpus, one file each.
set -eu
fuzzer=$1
name=$2
here=$(cd "$(dirname "$0")" && pwd)
shared=${RB_SHARED:-$here/../../../shared}
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-fuzz-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seeds" "$work/new"
if [ ! -r "$shared/corpus/linux-api.mbox.xz" ]; then
	# A fresh clone: fuzz from the project's own mail, and say so.
	echo "SKIP: seeds from shared/corpus, not found (RB_SHARED=$shared):" \
		"fuzzing from the project's own seeds; set RB_SHARED=/path/to/shared"
	cp "$here"/../data/mail/*.eml "$work/seeds/"
fi
if [ -x "$here/$name.seeds.sh" ] || [ -f "$here/$name.seeds.sh" ]; then
	bash "$here/$name.seeds.sh" "$work/seeds"
else
	xz -dc "$shared/corpus/linux-api.mbox.xz" | head -c 4000000 |
		awk -v d="$work/seeds" '/^From /{n++} n{f=sprintf("%s/m%05d",d,n); print > f; if (n%50==0) close(f)}'
fi
# Bounded: RB_FUZZ_SECONDS (default 20) of mutation after the seeds ran.
# The random seed is fixed per target, so a run is a prefix of one
# sequence of inputs: a busy machine runs fewer of them, never other ones,
# and a longer run with the same seed (RB_FUZZ_SECONDS=600) checks ahead
# of CI. RB_FUZZ_SEED=0 lets libFuzzer pick one, for exploring.
# A crash leaves its input as crash-* in the working directory.
seed=${RB_FUZZ_SEED:-$(printf '%s' "$name" | cksum | cut -d' ' -f1)}
set +e
"$fuzzer" -seed="$seed" -max_total_time="${RB_FUZZ_SECONDS:-20}" \
	-rss_limit_mb=2048 \
	-max_len=65536 -timeout=10 -print_final_stats=1 \
	-artifact_prefix="$PWD/$name-" "$work/new" "$work/seeds" \
	>"$work/log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	# The report, not the fuzzer's progress lines.
	grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED)' "$work/log" |
		grep -A 60 -m 1 -E 'ERROR|runtime error|Sanitizer|timeout|out-of-memory' ||
		tail -n 40 "$work/log"
else
	tail -n 8 "$work/log"
fi
exit $rc
