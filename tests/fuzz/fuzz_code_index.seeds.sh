#!/bin/bash
# fuzz_code_index.seeds.sh DIR - seeds for fuzz_code_index: the index
# files "reviewbot code-index" ($RB_BIN) writes for a small git tree
# (C files, a header, a binary blob, a copy, a symlink) and for the next
# commit, built from the first file (one blob read).
set -eu
out=$1
bin=${RB_BIN:?}
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-seed-cidx.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/repo"
cd "$work/repo"
git init -q .
mkdir -p mm include
printf 'int foo_bar(void)\n{\n\treturn bar_baz + 0x1fUL;\n}\n' > mm/a.c
printf 'static int foo_qux;\nint 3dnow_thing;\n' > mm/b.c
printf 'foo_bar\n#define FOO_MAX 16\n' > include/c.h
printf 'shared_word here\n' > dup1.txt
cp dup1.txt dup2.txt
printf '\000\001 foo_bar binary_only \000' > bin.dat
ln -s mm/a.c link
git add -A
git -c user.name=t -c user.email=t@t commit -q -m one
"$bin" code-index --tree . --cache-dir "$work/c" foo_bar > /dev/null
printf 'static int foo_qux;\nint new_in_two;\n' > mm/b.c
git add -A
git -c user.name=t -c user.email=t@t commit -q -m two
"$bin" code-index --tree . --cache-dir "$work/c" foo_bar > /dev/null
n=0
for f in "$work"/c/*.cidx; do
	n=$((n + 1))
	cp "$f" "$out/seed$n"
done
[ "$n" -eq 2 ]
