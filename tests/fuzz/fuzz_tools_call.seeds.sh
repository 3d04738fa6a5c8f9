#!/bin/bash
# fuzz_tools_call.seeds.sh DIR - seeds for the tools' calls: each tool
# with good arguments, with paths that leave the tree, with odd types,
# and a made-up tool name.
set -eu
dir=$1
n=0
seed() {
	n=$((n + 1))
	printf "$1" > "$dir/t$n"
}
seed '\x00{"path": "mm/a.c", "start": 2, "end": 6}'
seed '\x00{"path": "mm/a.c", "side": "base"}'
seed '\x00{"path": "../mm/a.c"}'
seed '\x00{"path": "/etc/passwd"}'
seed '\x00{"path": "mm/a.c\\u0000x"}'
seed '\x00{"path": "link"}'
seed '\x00{"path": "mm/bin"}'
seed '\x20{"path": "mm/odd.c", "start": 1e300}'
seed '\x01{"pattern": "b(x"}'
seed '\x01{"pattern": "A_M", "side": "base", "path_prefix": "mm/"}'
seed '\x01{"pattern": "^int [a-z]+\\\\(", "regex": true}'
seed '\x01{"pattern": "(a*)*b", "regex": true}'
seed '\x01{"pattern": "->"}'
seed '\x02{"symbol": "a"}'
seed '\x02{"symbol": "t_t", "side": "base"}'
seed '\x02{"symbol": "s"}'
seed '\x03{"symbol": "b"}'
seed '\x03{"symbol": "a", "side": "tip"}'
seed '\x04{"index": 2}'
seed '\x04{"index": "3"}'
seed '\x05{}'
seed '\x06'
seed '\x07{"path": "mm/", "max": 5}'
seed '\x17{"path": "mm/a.c"}'
seed '\x0frm\x00{"path": "x"}'
seed '\x21int a(int x)\n{'
seed '\x00[1, 2, {"path": "mm/a.c"}]'
seed '\x00{"path": "mm/a.c", "path": "mm/b.h"}'
# glibc's regcomp took 40 s on stacked quantifiers (now refused).
seed '\x01{"pattern": "(a*+)*++++++++++b", "regex": true}'
seed '\x01{"pattern": "((((a*)*)*)*)x", "regex": true}'
# blame, show_commit and log (pickaxe) over the base's two commits.
seed '\x08{"path": "mm/a.c", "start": 1, "end": 4}'
seed '\x08{"path": "mm/a.c", "start": 100000000}'
seed '\x08{"path": "mm/bin"}'
seed '\x08{"path": "link", "end": 0}'
seed '\x18{"path": "mm/a.c"}'
seed '\x09{"commit": "0000000"}'
seed '\x09{"commit": "ffffffffffffffffffffffffffffffffffffffff"}'
seed '\x09{"commit": "HEAD"}'
seed '\x09{"commit": "0123456789abcdef", "path": "mm/"}'
seed '\x09{"commit": "COMMIT1"}'
seed '\x09{"commit": "COMMIT0", "path": "mm/"}'
seed '\x09{"commit": "COMMIT0", "path": "mm/a.c"}'
seed '\x0a{"path": "mm/a.c", "S": "int n"}'
seed '\x0a{"path": "mm/", "G": "^\\tint [a-z]+;$", "max": 1}'
seed '\x0a{"path": "mm/a.c", "G": "(a*)*b"}'
seed '\x0a{"path": "mm/a.c", "G": "(a)\\1"}'
seed '\x0a{"path": "mm/a.c", "S": "x", "G": "y"}'
seed '\x0a{"path": "/", "S": "x"}'
