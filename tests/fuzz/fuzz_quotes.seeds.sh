#!/bin/bash
# fuzz_quotes.seeds.sh DIR - seeds for fuzz_quotes: the bodies of the
# first 600 replies ("Subject: Re:") of the linux-api corpus that quote a
# patch line ("> +"), read from ../shared at run time, never stored in
# the project; and replies to a review written here.
set -eu
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
shared=${RB_SHARED:-$here/../../../shared}
mkdir -p "$dir"
xz -dc "$shared/corpus/linux-api.mbox.xz" | head -c 30000000 |
	awk -v d="$dir" '
	function flush() { if (re && q && k < 600) { f = sprintf("%s/q%04d", d, ++k); printf "%s", body > f; close(f) } }
	/^From / { flush(); hdr = 1; re = 0; q = 0; body = ""; next }
	hdr && /^Subject: [Rr][Ee]:/ { re = 1 }
	hdr && /^$/ { hdr = 0; next }
	!hdr { body = body $0 "\n"; if ($0 ~ /^> ?\+/) q = 1 }
	END { flush() }' || true
printf '> +\tret = foo();\n\nThis leaks on error.\n> > +x\n>+y\nwhy?\n' >"$dir/p1"
printf '> [F1] (medium) Is that right?\n\nNo, this is fine because the lock is held.\n> [F2] x\nF2: fp\n' >"$dir/p2"
