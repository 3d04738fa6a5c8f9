#!/bin/bash
# fuzz_model_json.seeds.sh DIR - seeds for the model answer parsers: the
# project's hand-written answers, and each patch of the shared seed series
# with an answer that quotes its first added line.
set -eu
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
shared=${RB_SHARED:-$here/../../../shared}
data=$here/../data/model
n=0
for a in "$data"/*.json; do
	[ -f "$a" ] || continue
	n=$((n + 1))
	{ printf 'F'; cat "$a"; } > "$dir/f$n"
	{ printf 'P'; cat "$data/leak.patch"; printf '\0msg\0'; cat "$a"; } > "$dir/p$n"
done
printf 'V{"verdicts": [{"id": 1, "verdict": "confirmed", "reason": "r"}, {"id": 2, "verdict": "rejected"}]}' > "$dir/v1"
# Evidence: one quote of the patch (new side), one at the base, one bad.
{
	printf 'E'
	sed -n '/^diff --git /,$p' "$data/leak.patch"
	printf '\0msg line one\0'
	printf '{"verdicts": [{"id": 1, "verdict": "confirmed", "reason": "r", "evidence": [{"file": "mm/foo.c", "side": "tip", "line": 55, "quote": "return 0;"}, {"file": "mm/foo.c", "side": "base", "line": 3, "quote": "x"}, {"file": 7}]}, {"id": 2, "verdict": "confirmed", "evidence": [{"file": "COMMIT_MSG", "side": "tip", "line": 1, "quote": "msg line one"}]}]}'
} > "$dir/e1"
for s in "$shared"/seeds/00[2-9]-patch-*.patch; do
	[ -f "$s" ] || continue
	n=$((n + 1))
	file=$(sed -n 's#^+++ b/##p' "$s" | head -n 1)
	code=$(grep -m 1 '^+[^+]' "$s" | cut -c2- | sed 's/\\/\\\\/g; s/"/\\"/g; s/\t/\\t/g')
	{
		printf 'P'
		sed -n '/^diff --git /,$p' "$s"
		printf '\0'
		sed -n '/^$/,/^---$/p' "$s"
		printf '\0{"findings": [{"file": "%s", "side": "new", "line": 1, "quoted_code": "%s", "category": "logic", "severity": "low", "confidence": 0.5, "introduced_by_patch": true, "trigger_scenario": "t", "question": "Reviewed-by: x?"}]}' "$file" "$code"
	} > "$dir/s$n"
done
