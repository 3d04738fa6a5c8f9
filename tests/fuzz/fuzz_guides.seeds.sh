#!/bin/bash
# fuzz_guides.seeds.sh DIR - seeds for fuzz_guides: the real patch mails of
# corpus/apply-6.1 and the seed series (read from ../shared, never stored
# in the project), and a patch that only moves lines, written here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shared=${RB_SHARED:-$here/../../../shared}
for f in "$shared"/corpus/apply-6.1/*.eml "$shared"/seeds/*.patch; do
	[ -e "$f" ] || continue # no shared folder: the patch below only
	cp "$f" "$1/$(basename "$f")"
done
printf -- '--- a/mm/x.c\n+++ b/mm/x.c\n@@ -1,3 +1,3 @@\n-\t\tfolio_put(f);\n+\tfolio_put(f);\n \tspin_unlock(ptl);\n' \
	>"$1/moved"
