#!/bin/bash
# fuzz_subject.seeds.sh DIR - writes real subject lines as seeds: the
# first 2,000 of the linux-api corpus and those of the seed series. They
# are read from ../shared at run time, never stored in the project.
set -eu
dir=$1
shared=${RB_SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}
mkdir -p "$dir"
{
	xz -dc "$shared/corpus/linux-api.mbox.xz" | head -c 30000000 |
		grep -a -m 2000 '^Subject: ' || true
	cat "$shared"/seeds/0*-*.patch "$shared"/seeds/001-cover*.txt \
		2>/dev/null | grep -a '^Subject: ' || true
} | sed 's/^Subject: //' |
	awk -v d="$dir" '{ f = sprintf("%s/s%05d", d, NR); printf "%s", $0 > f; close(f) }'
