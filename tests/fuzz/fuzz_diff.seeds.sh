#!/bin/bash
# fuzz_diff.seeds.sh DIR - seeds for fuzz_diff: the real patch mails of
# corpus/apply-6.1 (read from ../shared, never stored in the project).
set -eu
shared=${RB_SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}
for f in "$shared"/corpus/apply-6.1/*.eml; do
	[ -e "$f" ] || continue # no shared folder: the patches below only
	cp "$f" "$1/$(basename "$f")"
done
# Hand-written patches against the small repository fuzz_diff.c makes.
printf -- '--- a/a.c\n+++ b/a.c\n@@ -2,3 +2,3 @@\n\n-int b;\n+long b;\n\n' \
	>"$1/small-blank"
printf -- '--- a/a.c\n+++ b/a.c\n@@ -6,2 +6,2 @@\n int d;\n-int e;\n+int E;\n' \
	>"$1/small-offset"
printf 'diff --git a/dir/b.h b/dir/c.h\nsimilarity index 50%%\nrename from dir/b.h\nrename to dir/c.h\n--- a/dir/b.h\n+++ b/dir/c.h\n@@ -1,2 +1,2 @@\n #define B 1\n-#define C 2\n+#define C 3\n' \
	>"$1/small-rename"
printf 'diff --git a/x/y b/x/y\nnew file mode 100755\n--- /dev/null\n+++ b/x/y\n@@ -0,0 +1 @@\n+z\n\\ No newline at end of file\n' \
	>"$1/small-new"
printf 'diff --git a/bin b/bin\nindex c2000e7f432c502e785f1d0928304a1a4ee332bd..13145ff2e38bc79ddb6eb684ac60cb45350eaf08 100644\nGIT binary patch\nliteral 5\nMcmZ={aB^k@00Nf)$N&HU\n\nliteral 3\nKcmZ={Z~_1U2mpit\n\n' \
	>"$1/small-binary"
printf 'diff --git a/bin b/bin\nindex c2000e7f432c502e785f1d0928304a1a4ee332bd..6f7ba40f695f9fbf8074c07e4e38b950d887e32f 100644\nGIT binary patch\ndelta 29\nlcmZ1=zeIjQ3giFHfh_*qtlg7lE@0UFkoh??OG#p84gjoq3u6EP\n\n' \
	>"$1/small-delta"
# Issue 33: binary deltas that each declare a 64 MiB result.
python3 "$(dirname "$0")/../security/hostile_patch.py" delta-bomb \
	"$1/bomb-delta" 2
