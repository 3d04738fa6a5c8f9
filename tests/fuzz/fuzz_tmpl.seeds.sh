#!/bin/bash
# fuzz_tmpl.seeds.sh DIR - seeds for the template engine: the project's own
# templates, and a few lines of the shared seed series wrapped in tags.
set -eu
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
shared=${RB_SHARED:-$here/../../../shared}
n=0
for t in "$here"/../../templates/*.txt; do
	[ -f "$t" ] || continue
	n=$((n + 1))
	cp "$t" "$dir/tmpl$n"
done
for s in "$shared"/seeds/00*-patch-*.patch; do
	[ -f "$s" ] || continue
	n=$((n + 1))
	{ echo '{{#blocks}}{{quote}}'; head -c 2000 "$s"; echo '{{/blocks}}'; } > "$dir/seed$n"
done
printf '{{#a.b.c}}{{.}}{{/a.b.c}}{{^z}}zero{{/z}}\0{"a":{"b":{"c":[1,"x",{"y":2}]}},"z":0}' > "$dir/json"
# Render mode ("R\n" patch NUL commit-message NUL file NUL code NUL message)
# from the shared seed series: patch and commit message as sent.
for s in "$shared"/seeds/00[2-9]-patch-*.patch; do
	[ -f "$s" ] || continue
	n=$((n + 1))
	file=$(sed -n 's#^+++ b/##p' "$s" | head -n 1)
	code=$(grep -m 1 '^+[^+]' "$s" | cut -c2-)
	{
		printf 'R\n'
		sed -n '/^diff --git /,$p' "$s"
		printf '\0'
		sed -n '/^$/,/^---$/p' "$s"
		printf '\0%s\0%s\0' "$file" "$code"
		printf 'Is this right? Reviewed-by: x\n\nA second paragraph.'
	} > "$dir/render$n"
done
