#!/bin/bash
# fuzz_addr.seeds.sh DIR - seeds for fuzz_addr: the From, To, Cc and
# Subject header values of the first messages of the linux-api corpus
# (read from ../shared, never copied into the project), one a file.
set -eu
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
shared=${RB_SHARED:-$here/../../../shared}
xz -dc "$shared/corpus/linux-api.mbox.xz" | head -c 2000000 |
	grep -aE '^(From|To|Cc|Subject): ' | cut -d' ' -f2- | head -n 1500 |
	awk -v d="$dir" '{ f = sprintf("%s/h%05d", d, NR); printf "%s", $0 > f; close(f) }'
