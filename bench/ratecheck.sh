#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/ratecheck.sh - the outbox's rate check at a million sent mails
# (issue 38: under 10 ms). bench/bench_ratecheck.c fills a SQLite store
# through the store's own calls with N sent mails (default 1,000,000,
# one a minute: 1.9 years of a busy list; each To: one of 50,000
# authors or a heavy one, Cc: a maintainer and the list, one in five
# Cc'ing a person from the patch), then times what the sender asks
# before each mail (the global count and the mail's counted addresses
# with their counts, RB_BENCH_ROUNDS rounds, default 2000), and the
# check as it was before migration 9 on the same rows (5 rounds), with
# both query plans.
#
# usage: bench/ratecheck.sh [RESULTS.md]   (default bench/RESULTS-ratecheck.md)
# N=mails. The store is kept in $RB_BENCH_STORE when that is set (a
# second run skips the fill), else in a temporary directory.
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
out=$(bench_out "${1:-$src/bench/RESULTS-ratecheck.md}") || exit 1
n=${N:-1000000}
rounds=${RB_BENCH_ROUNDS:-2000}
bench=$(bench_build bench_ratecheck)/bench/bench_ratecheck || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-ratecheck.XXXXXX")
trap 'rm -rf "$work"' EXIT
db=${RB_BENCH_STORE:-$work/rb.db}

fill="filled by an earlier run (RB_BENCH_STORE)"
if [ ! -s "$db" ]; then
	read -r _ _ fill < <("$bench" fill "$db" "$n")
	fill="filled in $fill s through the store's calls"
fi
"$bench" check "$db" "$rounds" >"$work/check.out"
size=$(du -m "$db" | cut -f1)
load=$(cut -d' ' -f1-3 /proc/loadavg)
row() # LABEL NAME
{
	awk -v label="$1" -v name="$2" '$1 == name {
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", label,
			$7, $2, $3, $4, $5, $8, $6 }' \
		"$work/check.out"
}
{
	echo "## The outbox's rate check at $n sent mails (bench/ratecheck.sh)"
	echo
	echo "Measured $(date -u +%F) on $(nproc) cores, load $load (other"
	echo "builds running), SQLite store of $size MB, $fill."
	echo "Each mail 2.5 KB; 60 of them sent in the hour before the check. \"first\""
	echo "is the first round (pages not yet in SQLite's cache); \"before\" is"
	echo "the check of migration 8 run on the same rows with the plan it had."
	echo
	echo "| check | first ms | median ms | p95 ms | p99 ms | max ms | rounds over 10 ms | rounds |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	row "now: global count + the mail's counted addresses (migration 9)" new
	row "before: global count + a LIKE per person (migration 8's plan)" old
	echo
	echo "Query plans (SQLite EXPLAIN QUERY PLAN):"
	echo
	echo '```'
	sed -n 's/^plan: //p' "$work/check.out"
	echo '```'
	echo
	echo "Repeat: \`bench/ratecheck.sh bench/RESULTS-ratecheck.md\` (N= mails,"
	echo "RB_BENCH_ROUNDS= rounds, RB_BENCH_STORE= a store to keep between runs)."
} >"$out"
cat "$out"
