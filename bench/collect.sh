#!/bin/bash
# collect.sh - rebuilds bench/RESULTS.md: the summary (bench/SUMMARY.md,
# edited by hand when a figure changes) followed by each benchmark's own
# section (bench/RESULTS-*.md, written by its script); and the charts,
# bench/charts/*.svg, from the measured points beside them (*.tsv, written
# by bench/curves.sh), with bench/plot.py (python3, standard library).
set -euo pipefail
cd "$(dirname "$0")"
for t in charts/*.tsv; do
	[ -e "$t" ] || continue
	python3 plot.py "$t" >/dev/null
done
echo "bench/charts: $(ls charts/*.svg 2>/dev/null | wc -l) charts"
{
	cat SUMMARY.md
	for f in RESULTS-*.md; do
		printf '\n'
		cat "$f"
	done
} >RESULTS.md
echo "bench/RESULTS.md: $(wc -l <RESULTS.md) lines"
