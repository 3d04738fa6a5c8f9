#!/bin/bash
# fuzz_prefix.seeds.sh DIR - seeds for fuzz_prefix: the subject lines
# fuzz_subject takes (real subjects of the linux-api corpus and the seed
# series, read from ../shared at run time, never stored in the project),
# and a few prefixes as people write them, written here.
set -eu
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/fuzz_subject.seeds.sh" "$dir"
printf '[RFC PATCH mm-hotfixes v2 1/3] mm: x' >"$dir/p1"
printf '[PATCH,RFC,net-next 0/4] net: y' >"$dir/p2"
printf '[rfc][PATCH] z' >"$dir/p3"
printf 'Re: [PATCH mm-hotfixes-stable] RFCs' >"$dir/p4"
