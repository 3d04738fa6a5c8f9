#!/bin/bash
# t_apply_parity.sh - "reviewbot apply --write-tree" gives the same tree id
# as "git apply --cached" + "git write-tree" on a fresh index of the same
# base, for a sample of the real patch mails in corpus/apply-6.1 on linux
# 6.1.192 (DESIGN.md fact 4). bench/apply.sh checks all 112 and a negative
# set. Skips (77) when the kernel tree has not been set up.
# First the command line on a small repository made here (always runs):
# a format-patch mbox of 2 patches, a failure, --json, usage errors.
set -u
. "$(dirname "$0")/need.sh"
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
corpus=${RB_SHARED:-}/corpus/apply-6.1
bin=${RB_BIN:?}
small=$(mktemp -d "${TMPDIR:-/tmp}/rb-apply-cli.XXXXXX")
trap 'rm -rf "$small"' EXIT
die() { echo "FAIL: $*"; exit 1; }
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.org
g() { git -C "$small/r" "$@"; }
git init -q "$small/r"
seq 1 30 >"$small/r/f.c"
g add f.c && g commit -q -m base
base=$(g rev-parse HEAD)
sed -i 's/^10$/ten/' "$small/r/f.c" && g commit -q -am "f: ten"
sed -i 's/^20$/twenty/' "$small/r/f.c" && g commit -q -am "f: twenty"
g format-patch -q --stdout "$base" >"$small/series.mbox"
want=$(g rev-parse 'HEAD^{tree}')
# The base gains 3 lines on top: both hunks apply with offset 3.
g checkout -q "$base" && { printf 'a\nb\nc\n'; seq 1 30; } >"$small/r/f.c"
g commit -q -am shifted
out=$("$bin" apply --tree "$small/r" --base "$base" --write-tree \
	"$small/series.mbox") || die "series: exit $?: $out"
[ "$(echo "$out" | tail -n 1)" = "$want" ] || die "series tree: $out"
echo "$out" | grep -q '^1/2 .*f: ten: applied$' || die "no applied line: $out"
out=$("$bin" apply --tree "$small/r" "$small/series.mbox") ||
	die "offset: exit $?: $out"
echo "$out" | grep -q 'f.c: hunk #1 at line 10 (offset 3)' ||
	die "no offset: $out"
sed -i 's/^b$/B/' "$small/r/f.c" && g commit -q -am "f: B"
g format-patch -q -1 --stdout HEAD >"$small/shift.eml"
out=$("$bin" apply --tree "$small/r" --base "$base" --no-3way \
	"$small/shift.eml")
[ $? -eq 1 ] || die "a failing patch must exit 1: $out"
echo "$out" | grep -q 'failed: hunk #1 of f.c does not match at line 1 ' ||
	die "no failure reason: $out"
# The preimage blob is in the repository: the 3-way merge is tried.
out=$("$bin" apply --tree "$small/r" --base "$base" "$small/shift.eml")
[ $? -eq 1 ] || die "a conflicting patch must exit 1: $out"
echo "$out" | grep -q '3-way merge with its preimage .* has conflicts' ||
	die "no merge reason: $out"
"$bin" apply --tree "$small/r" --base "$base" --no-3way --json \
	"$small/shift.eml" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert not d["ok"]; assert d["failure"]["kind"] == "hunk", d' ||
	die "bad --json"
"$bin" apply --tree "$small/r" >/dev/null 2>&1
[ $? -eq 2 ] || die "no patch must exit 2"
"$bin" apply --tree "$small/r" --base nope "$small/shift.eml" >/dev/null 2>&1
[ $? -eq 2 ] || die "a bad --base must exit 2"
"$bin" apply --help | grep -q 'usage: reviewbot apply' || die "--help"
echo "ok   command line on a small repository"

rb_need_linux_tree
tree=$RB_LINUX_TREE
rb_need_shared corpus/apply-6.1
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-parity.XXXXXX")
trap 'rm -rf "$work" "$small"' EXIT

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
