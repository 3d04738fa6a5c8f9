#!/bin/bash
# fuzz_cocci.seeds.sh DIR - seeds for fuzz_cocci: the saved real output of
# the coccinelle checker's sandboxed script on linux 6.1 probes
# (tests/data/checks/*.cocci-out), and a hand-made variant.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
n=0
for f in "$here"/../data/checks/*.cocci-out; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	cp "$f" "$out/real$n"
done
printf 'rb-cocci: free/ifnullfree.cocci\nkernel/ksysfs.c:157:2-7: WARNING: NULL check before some freeing functions is not needed.\nrb-cocci: ../x\n/etc/passwd:1:1-2: x\nrb-cocci: null/badzero.cocci\n/src/a/kernel/ksysfs.c:3:5-6: WARNING comparing pointer to 0\n' >"$out/hand1"
