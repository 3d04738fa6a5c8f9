#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_check_build_delta.sh - the build check's comparison with the base
# counts: the base has "unused parameter 'flags'" once in lib/ring.c; a
# patch that adds a second function with an unused "flags" gets that one
# reported, at its line (the same text the base has does not hide it),
# and the old one is not. A kernel-shaped Makefile on the demo tree, as
# in tests/integration/t_accept_build.sh; "reviewbot check", no daemon.
set -eu
: "${RB_BIN:?}" "${RB_SRC:?}"
for c in git gcc make bwrap; do
	command -v $c >/dev/null || { echo "SKIP: $c not installed (scripts/install-deps.sh)"; exit 77; }
done
T=$(mktemp -d /tmp/rb-t-build-delta-XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
fail() { echo "FAIL: $*"; exit 1; }
bash "$RB_SRC/scripts/demo.sh" --make-only "$T/demo" >/dev/null
cd "$T/demo/tree"
export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.org
export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.org
cat >Makefile <<'M'
O ?= .
defconfig:
	echo CONFIG_RING=y > $(O)/.config
%.o: %.c
	mkdir -p $(dir $(O)/$@)
	$(CC) -Wall $(if $(W),-Wextra) -c $< -o $(O)/$@
M
cat >>lib/ring.c <<'C'

int ring_check(struct ring *r, int flags)
{
	return r->head - r->tail <= r->size;
}
C
git add -A
git commit -q -m "build: a kernel-shaped Makefile; an old warning"
cat >>lib/ring.c <<'C'

int ring_check2(struct ring *r, int flags)
{
	return r->head != r->tail;
}
C
git commit -q -a -s -m "ring: add ring_check2()" -m "Another check."
line=$(grep -n '^int ring_check2' lib/ring.c | cut -d: -f1)
git format-patch -q -1 --stdout >"$T/p.eml"
git reset -q --hard HEAD~1
mkdir -m 0700 "$T/cache"
out=$("$RB_BIN" check --tree "$T/demo/tree" --checkers build \
	--build-cache "$T/cache" --json "$T/p.eml") || fail "exit $?"
[ "$(echo "$out" | grep -c '"checker":"build"')" = 1 ] ||
	fail "want one build finding: $out"
echo "$out" | grep -q "\"file\":\"lib/ring.c\",\"line\":$line,.*unused parameter 'flags'" ||
	fail "not the new unused parameter at line $line: $out"
echo "1 passed, 0 failed"
