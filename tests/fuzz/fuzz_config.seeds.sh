#!/bin/bash
# fuzz_config.seeds.sh DIR - seeds for fuzz_config: config.yaml (the reference)
# and the hand-written test configs (all part of this project).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
cp "$src/config.yaml" "$1/config.yaml"
for f in "$src"/tests/data/config/*.yaml; do
	cp "$f" "$1/$(basename "$f")"
done
