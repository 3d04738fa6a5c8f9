#!/bin/bash
# fuzz_series.seeds.sh DIR - seeds for fuzz_series: small mboxes of 2 to 12
# consecutive messages of the linux-api corpus (threads arrive close
# together), at most 60 kB each, and the seed series of ../shared/seeds
# as one mbox. Read from ../shared, never copied into the project.
set -eu
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
shared=${RB_SHARED:-$here/../../../shared}
xz -dc "$shared/corpus/linux-api.mbox.xz" | head -c 6000000 |
	awk -v d="$dir" '
	/^From / { if (c >= 2 + k % 11 || size > 60000) {
		close(f); k++; c = 0; size = 0 }
		c++ }
	{ f = sprintf("%s/s%05d", d, k); size += length($0) + 1
	  if (size <= 60000) print > f }' || true
for f in "$shared"/seeds/0[0-9][1-9]-*; do
	[ -e "$f" ] || continue # no shared folder
	echo "From seed@example Thu Jan  1 00:00:00 1970"
	cat "$f"
	echo
done >"$dir/seeds-series"
