#!/bin/bash
# fuzz_kdoc.seeds.sh DIR - seeds for fuzz_kdoc: the real output of the
# linux tree's scripts/kernel-doc -none on some of its files (when the
# tree is there), and the saved output of the checker's probe.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
n=0
if [ -f "$tree/scripts/kernel-doc" ] && command -v perl >/dev/null; then
	for f in mm/page_alloc.c mm/slab_common.c kernel/fork.c \
		include/linux/mm.h drivers/base/core.c; do
		n=$((n + 1))
		(cd "$tree" && perl scripts/kernel-doc -none -Wall "$f" 2>&1) \
			>"$out/real$n" || true
	done
fi
for f in "$here"/../data/checks/*.kdoc-out; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	cp "$f" "$out/real$n"
done
printf "mm/a.c:12: warning: Function parameter or member 'a' not described in 'f'\nmm/a.c:12: warning: Excess function parameter 'x' description in 'f'\n./mm/a.c:1: error: Cannot parse struct or union!\n" >"$out/hand1"
