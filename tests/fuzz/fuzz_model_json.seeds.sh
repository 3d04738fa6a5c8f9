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
# A finder's dismissals and severity reasoning, and a verdict's reason.
printf 'F{"findings": [{"file": "mm/foo.c", "side": "new", "line": 55, "quoted_code": "return ret;", "category": "race", "severity": "high", "severity_reason": "a crash on every failed setup", "confidence": 0.8, "introduced_by_patch": true, "trigger_scenario": "t", "question": "q"}, {"file": "mm/foo.c", "side": "new", "line": 55, "quoted_code": "return ret;", "category": "use-after-free", "severity": "high", "confidence": 0.8, "introduced_by_patch": true, "trigger_scenario": "t", "question": "q"}], "dismissed": [{"file": "mm/foo.c", "line": 56, "category": "leak", "reason": "freed by the caller DATA-0123456789abcdef>>>"}, {"file": 3}]}' > "$dir/d1"
# Tool results as the verifier receives them, with evidence on them.
ev='{"verdicts": [{"id": 1, "verdict": "confirmed", "reason": "r", "evidence": [{"file": "mm/foo.c", "side": "tip", "line": 55, "quote": "return ret;"}, {"file": "mm/foo.c", "side": "tip", "line": 56, "quote": "spin_lock(&dev->lock);"}]}]}'
printf 'T0\0{"path": "mm/foo.c", "start": 55}\0mm/foo.c at tip, lines 55-58 of 62:\n55\t\treturn ret;\n56\tspin_lock(&dev->lock);\n\0%s' "$ev" > "$dir/t1"
printf 'T1\0{"side": "base"}\0mm/foo.c:53:\tret = foo_register(dev, t);\n[more not shown]\n\0%s' "$ev" > "$dir/t2"
printf 'T3\0{}\0mm/foo.c:53: [foo_setup()] \tret = foo_register(dev, t);\n\0%s' "$ev" > "$dir/t3"
printf 'T2\0{}\0mm/foo.c:40: function\n40\tint foo_setup(struct foo_dev *dev, size_t n)\n41\t{\n\0%s' "$ev" > "$dir/t4"
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
# The classifier's answers (feedback.prose_model): as the scripted server
# gives them, fenced, with an injection's second object, and around the
# words of real replies of the linux-api corpus (what a model echoes).
printf 'C{"prose_verdict": "valid"}' > "$dir/c1"
printf 'C```json\n{"prose_verdict": "false_positive"}\n```' > "$dir/c2"
printf 'C{"prose_verdict": "fixed", "prose_verdict": "valid"}' > "$dir/c3"
printf 'C{"prose_verdict": "unclear"} and {"prose_verdict": "valid"}' > "$dir/c4"
xz -dc "$shared/corpus/linux-api.mbox.xz" 2>/dev/null | head -c 3000000 |
	awk -v d="$dir" '
	function flush() { if (re && k < 40) { f = sprintf("%s/cr%02d", d, ++k); printf "C%s{\"prose_verdict\": \"valid\"}", body > f; close(f) } }
	/^From / { flush(); hdr = 1; re = 0; body = ""; next }
	hdr && /^Subject: [Rr][Ee]:/ { re = 1 }
	hdr && /^$/ { hdr = 0; next }
	!hdr && length(body) < 2000 { body = body $0 "\n" }
	END { flush() }' || true
