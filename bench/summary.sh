#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/summary.sh - re-runs the benchmarks that bench/SUMMARY.md cites,
# so that its figures can be measured again at one commit (issue 38:
# published figures re-measured at the landed commit, with the load
# beside each ratio).
#
# usage: bench/summary.sh [--list] [--all] [NAME...]
#   (none)   every benchmark not marked long below, one after the other
#   --all    the long ones too
#   NAME...  only those (names as --list prints them)
#   --list   print the table (name, command, time, long or not) and exit
#
# Each run writes where its script writes (the bench/RESULTS-*.md that
# SUMMARY.md's sections come from; scripts that print to standard output
# are given their RESULTS file where SUMMARY.md names one), and its output and errors to
# OUTDIR/NAME.log (OUTDIR: $SUMMARY_OUT, default /tmp/rb-summary.COMMIT).
# OUTDIR/summary.md then gives, for each run: its exit status, its wall
# time, the load average before and after, and the commit. The figures
# of SUMMARY.md's table are then copied by hand from the RESULTS files
# (bench/collect.sh rebuilds bench/RESULTS.md from them).
#
# The times below are estimates from the RESULTS files and the scripts'
# own notes on this project's machine kind (2 cores), not all measured
# again; the load changes them, and summary.md records what each run
# took. Those marked long are not run without --all or their name.
set -u -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src" || exit 1

# name | command (from the top of the tree) | time | long (1) or not (0)
table() {
	cat <<'EOF'
parse|bench/parse.sh bench/RESULTS-msg.md|about 1 min|0
corpus|bench/corpus.sh|about 1 min (8.8 s a pass, two passes and a build)|0
series|bench/series.sh bench/RESULTS-series.md|a few minutes (b4 over 300 series)|0
apply|bench/apply.sh bench/RESULTS-apply.md|about 20 min (parity over 412 mails; git worktree add)|1
maintainers|SAMPLE=20 bench/maintainers.sh bench/RESULTS-maintainers.md|about 10 min at load 2 (the parity oracle: get_maintainer.pl 4 times a patch)|0
maintainers-full|SAMPLE=505 bench/maintainers.sh bench/RESULTS-maintainers-full.md|about 40 min (617 patches of parity)|1
checks|bench/checks.sh|about 10 min (a kernel build in the sandbox)|1
model-eval|bench/model-eval.sh|about 1 min (scripted model)|0
eval|bench/eval.sh|about 4 min (scripted model; the set built in 26 s)|0
send|bench/send.sh bench/RESULTS-send.md|about 1 min|0
ingest-all|bench/ingest.sh all bench/RESULTS-ingest.md|about 15 min (IMAP, NNTP and latency, Dovecot and INN peers)|1
memory|bench/memory.sh bench/RESULTS-memory.md|a few minutes (reviews of 1, 5, 20 MB patches)|0
curves|bench/curves.sh ingest apply latency workers|about 13 min at load 10|1
workers|bench/workers.sh bench/RESULTS-workers.md|about 10 min (PostgreSQL; 16 series at 2 s a call, 1/2/4 workers)|1
feedback|bench/feedback.sh bench/RESULTS-feedback.md|a few minutes (the corpus stored first)|0
dashboard|bench/dashboard.sh bench/RESULTS-dashboard.md|a few minutes (the corpus stored first)|0
ratecheck|bench/ratecheck.sh bench/RESULTS-ratecheck.md|long: it writes a 3.7 GB store of a million sent mails first|1
precision|bench/precision.sh|about 10 min (checkpatch over 150 series)|1
list-replay|bench/list-replay.sh|about 6 min (the archive through reviewbot run)|1
versions|bench/versions.sh|a few minutes (the archive through reviewbot review)|0
EOF
}

all=0 list=0 want=()
for a in "$@"; do
	case $a in
	--all) all=1 ;;
	--list) list=1 ;;
	-h | --help)
		sed -n '3,13p' "$0"
		exit 0
		;;
	-*)
		echo "bench/summary.sh: unknown option $a" >&2
		exit 2
		;;
	*) want+=("$a") ;;
	esac
done

if [ "$list" = 1 ]; then
	echo "| name | command | time | run by default |"
	echo "| --- | --- | --- | --- |"
	table | awk -F'|' '{ printf "| %s | `%s` | %s | %s |\n", $1, $2, $3,
		($4 == 1 ? "no (long: --all or its name)" : "yes") }'
	exit 0
fi

commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- || commit="$commit+changes"
out=${SUMMARY_OUT:-/tmp/rb-summary.$commit}
mkdir -p "$out" || exit 1
rep=$out/summary.md
{
	echo "## bench/summary.sh at $commit, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "| name | command | exit | wall s | load before | load after |"
	echo "| --- | --- | ---: | ---: | --- | --- |"
} > "$rep"
fail=0
while IFS='|' read -r name cmd est long; do
	if [ ${#want[@]} -gt 0 ]; then
		case " ${want[*]} " in *" $name "*) ;; *) continue ;; esac
	elif [ "$long" = 1 ] && [ "$all" = 0 ]; then
		echo "| $name | \`$cmd\` | not run (long: $est) | | | |" >> "$rep"
		continue
	fi
	echo "bench/summary.sh: $name: $cmd ($est)" >&2
	l0=$(cut -d' ' -f1-3 /proc/loadavg)
	t0=$(date +%s.%N)
	bash -c "$cmd" > "$out/$name.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	l1=$(cut -d' ' -f1-3 /proc/loadavg)
	[ "$rc" = 0 ] || fail=1
	echo "| $name | \`$cmd\` | $rc | $(awk -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%.0f", b - a }') | $l0 | $l1 |" >> "$rep"
done < <(table)
cat "$rep"
echo "bench/summary.sh: logs in $out" >&2
exit "$fail"
