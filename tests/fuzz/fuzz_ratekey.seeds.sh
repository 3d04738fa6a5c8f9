#!/bin/bash
# fuzz_ratekey.seeds.sh DIR - seeds for fuzz_ratekey: each address of the
# From, To and Cc headers of the first messages of the linux-api corpus
# (read from ../shared, never copied into the project), one a file.
set -eu
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
shared=${RB_SHARED:-$here/../../../shared}
xz -dc "$shared/corpus/linux-api.mbox.xz" | head -c 2000000 |
	grep -aE '^(From|To|Cc): ' | cut -d' ' -f2- | tr ',' '\n' |
	sed 's/^ *//' | grep -a '@' | sort -u | head -n 1500 |
	awk -v d="$dir" '{ f = sprintf("%s/a%05d", d, NR); printf "%s", $0 > f; close(f) }'
