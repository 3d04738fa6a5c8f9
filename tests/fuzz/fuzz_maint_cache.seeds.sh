#!/bin/bash
# fuzz_maint_cache.seeds.sh DIR - seeds for fuzz_maint_cache: the cache
# files "reviewbot maintainers" ($RB_BIN) writes for a git tree made of
# the test fixture (tests/data/maintainers), with and without .mailmap:
# the index files (.idx) and the files of each commit's tree (.tree).
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
bin=${RB_BIN:?}
data=$src/tests/data/maintainers
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-seed-cache.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/repo"
cd "$work/repo"
git init -q .
cp -r "$data/tree/." .
cp "$data/MAINTAINERS" MAINTAINERS
cp "$data/mailmap" .mailmap
git add -A
git -c user.name=t -c user.email=t@t commit -q -m one
"$bin" maintainers --tree . --cache-dir "$work/c" \
	"$data"/patches/01-alpha.patch > /dev/null
git rm -q .mailmap
head -n 40 "$data/MAINTAINERS" > MAINTAINERS
git add -A
git -c user.name=t -c user.email=t@t commit -q -m two
"$bin" maintainers --tree . --cache-dir "$work/c" \
	"$data"/patches/01-alpha.patch > /dev/null
n=0
for f in "$work"/c/*.idx "$work"/c/*.tree; do
	n=$((n + 1))
	cp "$f" "$out/seed$n"
done
[ "$n" -eq 4 ]
