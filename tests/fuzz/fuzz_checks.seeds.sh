#!/bin/bash
# fuzz_checks.seeds.sh DIR - seeds for fuzz_checks: checkpatch output of a
# real run over corpus patches (when the linux tree is there), the corpus
# patch mails themselves (for the commit-msg checker), JSON lines and
# compiler output. Byte 0 of each seed selects the parser.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
shared=${RB_SHARED:-$here/../../../shared}
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
n=0
for f in $(ls "$shared"/corpus/apply-6.1/*.eml | head -n 12); do
	n=$((n + 1))
	{ printf '\003'; cat "$f"; } > "$out/mail$n"
	if [ -f "$tree/scripts/checkpatch.pl" ]; then
		{ printf '\000'; perl "$tree/scripts/checkpatch.pl" --no-tree \
			--show-types --emacs --quiet --no-summary \
			--color=never "$f" | sed "s|$f|/tmp/x/0002.patch|"; } \
			> "$out/cp$n" || true
	fi
done
printf '\001{"severity":"low","category":"x","file":"a.c","line":3,"code":"+x","message":"m","patch":1}\n{"message":"only"}\nnot json\n[1]\n' > "$out/ext1"
printf '\002/src/mm/a.c:12:5: warning: unused variable '"'"'x'"'"' [-Wunused-variable]\n../mm/b.c:3: error: expected '"'"';'"'"'\nIn file included from /src/include/linux/mm.h:3,\n/usr/include/stdio.h:1:1: warning: w\n' > "$out/build1"
