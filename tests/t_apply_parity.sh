#!/bin/bash
# t_apply_parity.sh - "reviewbot apply --write-tree" gives the same tree id
# as "git apply --cached" + "git write-tree" on a fresh index of the same
# base, for a sample of the real patch mails in corpus/apply-6.1 on linux
# 6.1.192 (DESIGN.md fact 4). bench/apply.sh checks all 112 and a negative
# set. Skips (77) when the kernel tree has not been set up.
set -u
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
corpus=${RB_SHARED:?}/corpus/apply-6.1
bin=${RB_BIN:?}
if ! git -C "$tree" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	echo "no linux tree at $tree (scripts/setup-linux-tree.sh): skipped"
	exit 77
fi
[ -d "$corpus" ] || { echo "no corpus at $corpus: skipped"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-parity.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One fresh index of the base, copied for each patch.
GIT_INDEX_FILE=$work/base.index git -C "$tree" read-tree HEAD || exit 1

# Every 8th mail: 14 of the 112, spread over the corpus.
mapfile -t mails < <(ls "$corpus"/*.eml | awk 'NR % 8 == 1')
n=0
bad=0
for m in "${mails[@]}"; do
	n=$((n + 1))
	cp "$work/base.index" "$work/index"
	if ! GIT_INDEX_FILE=$work/index git -C "$tree" apply --cached "$m" \
		2>"$work/err"; then
		echo "SKIP $(basename "$m"): git apply rejects it"
		continue
	fi
	want=$(GIT_INDEX_FILE=$work/index git -C "$tree" write-tree)
	got=$("$bin" apply --tree "$tree" --check --no-3way --write-tree "$m" |
		tail -n 1)
	if [ "$got" != "$want" ]; then
		echo "FAIL $(basename "$m"): git $want, reviewbot '$got'"
		"$bin" apply --tree "$tree" --check --no-3way "$m" | head -n 20
		bad=$((bad + 1))
	else
		echo "ok   $(basename "$m") $got"
	fi
done
echo "$((n - bad))/$n patches give git's tree"
[ "$bad" -eq 0 ]
