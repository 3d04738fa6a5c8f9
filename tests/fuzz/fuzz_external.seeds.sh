#!/bin/bash
# fuzz_external.seeds.sh DIR - seeds for fuzz_external: real compiler
# output (gcc -Wall -Wextra on a small file with warnings, as an external
# checker such as a compiler or a linter prints it) and JSON lines.
set -eu
out=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
printf 'int f(int a, unsigned b)\n{\n\tint x;\n\treturn a < b;\n}\nint g(char *p) { if (p = 0) return 1; }\n' >"$t/a.c"
if command -v gcc >/dev/null; then
	(cd "$t" && gcc -Wall -Wextra -c a.c -o /dev/null 2>&1) >"$out/gcc1" || true
fi
printf '{"severity":"low","category":"x","file":"a.c","line":3,"code":"+x","message":"m","patch":1}\n/in/tree/mm/a.c:3:1: warning: w\nmm/b.c:9: error: e\nnot a finding\n' >"$out/mixed1"
