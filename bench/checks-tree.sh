#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/checks-tree.sh - what the tree checkers of issue 32 cost a series
# on 2 cores: time and disk of "reviewbot check --checkers build,sparse,
# kernel-doc,coccinelle,cc-maintainers" (the checkers a policy can name;
# the daemon runs the same code) on linux 6.1, with a build cache made
# empty for the run:
#
#  1. the first series on a new base: the base checked out, configured
#     (x86_64 defconfig), prepared and its objects built, then the series;
#  2. the next series on the same base (its objects reuse the base's
#     output and the kept base diagnostics);
#  3. a 3-patch series (each patch built in turn);
#  4. a series that touches no C file (a comment in MAINTAINERS).
#
# The probes are made here from the tree's own files (kernel/ksysfs.c),
# as tests/integration/t_accept_checks.sh makes them.
#
# usage: bench/checks-tree.sh [REVIEWBOT]   (default build-bench/bot/
# reviewbot, built first: bench/lib.sh). BENCH_JOBS: make -j (default 2).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
bench_need git python3 sparse spatch
bin=$(bench_reviewbot "${1:-}") || exit 1
tree=$("$here/scripts/setup-linux-tree.sh") ||
	bench_die "no kernel tree (scripts/setup-linux-tree.sh failed)"
work=$(mktemp -d /tmp/rb-bench-tree-XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
cache=$work/cache
mkdir -m 0700 "$cache"
ms() { date +%s%3N; }
p=$work/probe
(
	set -e
	git init -q "$p"
	cd "$p"
	export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.org
	export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.org
	mkdir kernel
	git -C "$tree" show HEAD:kernel/ksysfs.c >kernel/ksysfs.c
	git -C "$tree" show HEAD:MAINTAINERS >MAINTAINERS
	git add -A
	git commit -q -m base
	base=$(git rev-parse HEAD)
	fn() { # fn NAME BODY: a function with its prototype, before rcu_expedited
		python3 - "$1" "$2" <<'PY'
import sys
name, body = sys.argv[1:3]
s = open("kernel/ksysfs.c").read()
a = "int rcu_expedited;\n"
t = "int %s(void);\nint %s(void)\n{\n\t%s\n}\n\n" % (name, name, body)
i = s.index(a)
open("kernel/ksysfs.c", "w").write(s[:i] + t + s[i:])
PY
	}
	out() { git format-patch -q --stdout "$base"..HEAD >"$1"; git reset -q --hard "$base"; }
	fn ksysfs_bench_one "return 1;"
	git commit -q -a -s -m "ksysfs: one" -m "One."
	out "$p/first.mbox"
	fn ksysfs_bench_two "int x; return 2;"
	git commit -q -a -s -m "ksysfs: two" -m "Two."
	out "$p/next.mbox"
	fn ksysfs_bench_a "return 1;"
	git commit -q -a -s -m "ksysfs: a" -m "A."
	fn ksysfs_bench_b "return 2;"
	git commit -q -a -s -m "ksysfs: b" -m "B."
	fn ksysfs_bench_c "return 3;"
	git commit -q -a -s -m "ksysfs: c" -m "C."
	out "$p/three.mbox"
	sed -i '0,/^THE REST$/s//THE  REST/' MAINTAINERS
	git commit -q -a -s -m "MAINTAINERS: a space" -m "Nothing."
	out "$p/noc.mbox"
) || bench_die "could not make the probes"

echo "== tree checkers on linux $(git -C "$tree" log -1 --format=%s)," \
	"$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| series | wall s | findings | cache after |"
echo "| --- | --- | --- | --- |"
for s in first next three noc; do
	t0=$(ms)
	n=$("$bin" check --tree "$tree" --build-cache "$cache" --timeout 3600 \
		--checkers build,sparse,kernel-doc,coccinelle,cc-maintainers \
		--json "$p/$s.mbox" 2>"$work/$s.err" | tee "$work/$s.json" |
		wc -l)
	t1=$(ms)
	echo "| $s | $(((t1 - t0) / 1000)).$((((t1 - t0) % 1000) / 100)) | $n |" \
		"$(du -sh "$cache" | cut -f1) |"
done
echo
echo "Findings of 'next' (an unused variable): $(cut -c1-200 "$work/next.json")"
echo "Base source checkout: $(du -sh "$cache"/*/src | cut -f1)," \
	"base output: $(du -sh "$cache"/*/out | cut -f1)," \
	"ccache: $(du -sh "$cache"/ccache 2>/dev/null | cut -f1)"
