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
