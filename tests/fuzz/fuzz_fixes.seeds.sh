#!/bin/bash
# fuzz_fixes.seeds.sh DIR - writes the values of real Fixes: lines as
# seeds: those of the linux-api corpus, read from ../shared at run time,
# and a few written here for the forms the corpus lacks.
set -eu
dir=$1
shared=${RB_SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}
mkdir -p "$dir"
{
	xz -dc "$shared/corpus/linux-api.mbox.xz" 2>/dev/null |
		grep -a -i '^Fixes: ' | sed 's/^[Ff][Ii][Xx][Ee][Ss]: //' |
		head -n 300 || true
	printf '%s\n' 'commit 1234abcd ("x: y")' '"subject only"' \
		'abcdef0 (Revert "a (b)")' '0123456789abcdef0123456789abcdef01234567' \
		'("unterminated'
} | awk -v d="$dir" '{ f = sprintf("%s/f%05d", d, NR); printf "%s", $0 > f; close(f) }'
