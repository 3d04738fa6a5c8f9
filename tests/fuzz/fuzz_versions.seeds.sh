#!/bin/bash
# fuzz_versions.seeds.sh DIR - writes the cover letters of the versions
# test data (tests/data/versions/, b4's "Link to v1:") as seeds.
set -eu
dir=$1
mkdir -p "$dir"
src=$(cd "$(dirname "$0")/../data/versions" && pwd)
i=0
for f in "$src"/*.mbox; do
	i=$((i + 1))
	cp "$f" "$dir/v$i"
done
