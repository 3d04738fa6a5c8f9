#!/bin/bash
# fuzz_diff.seeds.sh DIR - seeds for fuzz_diff: the real patch mails of
# corpus/apply-6.1 (read from ../shared, never stored in the project).
set -eu
shared=${RB_SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}
for f in "$shared"/corpus/apply-6.1/*.eml; do
	cp "$f" "$1/$(basename "$f")"
done
