#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/precision-tree.sh - the precision of the tree checkers' rules
# (issue 32: kernel-doc, coccinelle, cc-maintainers, sparse) on the 112
# patches of ../shared/corpus/apply-6.1, each applied alone on linux 6.1
# (scripts/setup-linux-tree.sh) with "reviewbot check --json", and the
# labels of bench/labels/findings.tsv (the same columns and rules as
# bench/precision.sh: true, debatable or false; strict precision counts
# only true). Prints the per-rule table; unlabelled findings go to
# stderr as label rows to fill in.
#
# usage: bench/precision-tree.sh [REVIEWBOT]
#   TREE_CHECKERS   the checkers (default kernel-doc,cc-maintainers,coccinelle)
#   TREE_PATCHES=N  only the first N patches in name order (default all)
#   TREE_LIST=FILE  only the patches named in FILE (one .eml name a line;
#                   bench/labels/tree-build.txt: those built for sparse)
#   PRECISION_WORK=DIR keeps the run there; PRECISION_REUSE=1 reuses it
#   RB_BUILD_CACHE  the build cache for sparse (a private directory)
# kernel-doc and cc-maintainers take seconds a patch; coccinelle runs 72
# semantic patches (tens of seconds a patch on 2 shared cores); sparse
# builds the touched objects of x86_64 defconfig, base and patched.
set -eu -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
if [ -n "${1:-}" ]; then
	bin=$(bench_bin "$1") || exit 1
else
	bin=$(bench_reviewbot "") || exit 1
fi
shared=${RB_SHARED:-$here/../shared}
labels=$here/bench/labels/findings.tsv
py="python3 $here/bench/precision.py"
tree=$("$here/scripts/setup-linux-tree.sh")
checkers=${TREE_CHECKERS:-kernel-doc,cc-maintainers,coccinelle}
if [ -n "${PRECISION_WORK:-}" ]; then
	work=$PRECISION_WORK
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/rb-precision-tree.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
run=$work/tree-$(echo "$checkers" | tr ',' '-').jsonl
if [ "${PRECISION_REUSE:-0}" != 1 ] || [ ! -s "$run" ]; then
	: >"$work/tree.tagged"
	t0=$(date +%s)
	n=0
	for f in "$shared"/corpus/apply-6.1/*.eml; do
		n=$((n + 1))
		[ -n "${TREE_PATCHES:-}" ] && [ "$n" -gt "$TREE_PATCHES" ] && break
		if [ -n "${TREE_LIST:-}" ] &&
			! grep -qx "$(basename "$f")" "$TREE_LIST"; then
			n=$((n - 1))
			continue
		fi
		id=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import precision; print(precision.msgid_of(sys.argv[2]))' "$here/bench" "$f")
		"$bin" check --tree "$tree" --checkers "$checkers" --timeout 1800 \
			${RB_BUILD_CACHE:+--build-cache "$RB_BUILD_CACHE"} \
			--json "$f" 2>>"$work/tree.err" |
			sed "s|^|$id\t$f\t|" >>"$work/tree.tagged" || true
	done
	echo "$n patches in $(($(date +%s) - t0)) s ($checkers)" >&2
	$py tag p112 <"$work/tree.tagged" >"$run"
fi
$py tree-report "$run" "$labels"
