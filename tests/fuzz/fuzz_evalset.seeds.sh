#!/bin/bash
# fuzz_evalset.seeds.sh DIR - seeds for fuzz_evalset: a fix's diff,
# "=====", a buggy patch's diff; from the synthetic archive of
# tests/data/eval (the real fix of its buggy patch) and every pair of
# the project's model test patches.
set -eu
dir=$1
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
python3 - "$dir" "$here/data/eval/archive.mbox" "$here"/data/model/*.patch <<'PY'
import re, sys
out, archive, patches = sys.argv[1], sys.argv[2], sys.argv[3:]
def diff(text):
    i = text.find("\ndiff --git")
    return text[i + 1:] if i >= 0 else ""
mails = re.split(r"(?m)^From ann@example\.org .*\n", open(archive).read())
diffs = [d for d in (diff(m) for m in mails) if d]
diffs += [diff(open(p).read()) for p in patches]
n = 0
for a in diffs:
    for b in diffs:
        n += 1
        with open("%s/e%04d" % (out, n), "w") as f:
            f.write(a + "\n=====\n" + b)
PY
