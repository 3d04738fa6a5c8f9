#!/bin/bash
# fuzz_verdict.seeds.sh DIR - seeds for fuzz_verdict: the bodies of the
# first 600 replies ("Subject: Re:") of the linux-api corpus, read from
# ../shared at run time, never stored in the project; and a few lines of
# the feedback protocol written here.
set -eu
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
shared=${RB_SHARED:-$here/../../../shared}
mkdir -p "$dir"
xz -dc "$shared/corpus/linux-api.mbox.xz" | head -c 8000000 |
	awk -v d="$dir" '
	/^From / { if (f) close(f); f = ""; hdr = 1; re = 0; next }
	hdr && /^Subject: [Rr][Ee]:/ { re = 1 }
	hdr && /^$/ { hdr = 0; if (re && k < 600) f = sprintf("%s/r%04d", d, ++k); next }
	!hdr && f { print > f }' || true
printf 'F2: false positive\nF1: valid\nfp F3\nF1, F4 and F5 - fixed\n' >"$dir/p1"
printf '> [F2] (medium) Is that right?\n> more\n\nThis is not a false positive.\nfp\n' >"$dir/p2"
