#!/bin/bash
# collect.sh - rebuilds bench/RESULTS.md: the summary (bench/SUMMARY.md,
# edited by hand when a figure changes) followed by each benchmark's own
# section (bench/RESULTS-*.md, written by its script).
set -euo pipefail
cd "$(dirname "$0")"
{
	cat SUMMARY.md
	for f in RESULTS-*.md; do
		printf '\n'
		cat "$f"
	done
} >RESULTS.md
echo "bench/RESULTS.md: $(wc -l <RESULTS.md) lines"
