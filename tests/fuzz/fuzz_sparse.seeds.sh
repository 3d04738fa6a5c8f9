#!/bin/bash
# fuzz_sparse.seeds.sh DIR - seeds for fuzz_sparse: the real output of a
# sandboxed C=1 build of linux 6.1 objects (tests/data/checks/*.make-out,
# taken from the sparse checker's runs), and a few hand-made variants.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
n=0
for f in "$here"/../data/checks/*.make-out; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	cp "$f" "$out/real$n"
done
printf 'rb-sparse: kernel/a.c:3:16: warning: dereference of noderef expression\nrb-sparse: kernel/a.c:9:5: warning: incorrect type in argument 1 (different address spaces)\nrb-sparse: kernel/a.c:9:5:    expected void *\nrb-sparse: kernel/a.c:9:5:    got void [noderef] __user *p\n/src/kernel/a.c:12:1: error: expected ; [-Werror=foo]\n' >"$out/hand1"
