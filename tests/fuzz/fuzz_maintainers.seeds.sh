#!/bin/bash
# fuzz_maintainers.seeds.sh DIR - seeds for fuzz_maintainers: slices of
# the kernel's MAINTAINERS (when the linux tree exists, else the
# hand-written fixture), a NUL, a real patch mail from ../shared, a NUL
# and a slice of .mailmap. Read in place, never copied into the project.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
shared=${RB_SHARED:-$src/../shared}
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
maint=$src/tests/data/maintainers/MAINTAINERS
mailmap=$src/tests/data/maintainers/mailmap
if [ -f "$tree/MAINTAINERS" ]; then
	maint=$tree/MAINTAINERS
	mailmap=$tree/.mailmap
fi
lines=$(wc -l < "$maint")
n=0
for p in $(ls "$shared"/corpus/apply-6.1/*.eml | head -n 16) \
	"$src"/tests/data/maintainers/patches/*.patch; do
	n=$((n + 1))
	# 600 lines of MAINTAINERS from a different place each time.
	start=$(( (n * 1409) % (lines > 600 ? lines - 600 : 1) + 1 ))
	{
		sed -n "${start},$((start + 600))p" "$maint"
		printf '\0'
		head -c 20000 "$p"
		printf '\0'
		sed -n "$((n * 20 + 1)),$((n * 20 + 40))p" "$mailmap"
	} > "$out/seed$n"
done
