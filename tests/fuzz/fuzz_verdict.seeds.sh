#!/bin/bash
# fuzz_verdict.seeds.sh DIR - seeds for fuzz_verdict: the bodies of the
# first 600 replies ("Subject: Re:") of the linux-api corpus, read from
# ../shared at run time, never stored in the project; and a few lines of
# the feedback protocol written here, with a sub-maintainer's requests
# (issue 36: send, retry, pause, resume, an answer under a quoted [Fn]).
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
printf 'F1, F3: send\nsend F2 and F4\nretry\n' >"$dir/p3"
printf 'pause\nresume.\n> F1: send\n' >"$dir/p4"
printf '> [F1] (low) A.\n\nFixed locally.\n> [F2] (low) B.\n> -- \n> reviewbot\nThanks\n' >"$dir/p5"
