#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_check_maint.sh - "reviewbot check --checkers cc-maintainers" on a small
# tree with history: a patch to a file of FROB, sent to the list only,
# whose Fixes: tag names a commit by Bob (who did not sign it off), gets
# one finding naming FROB's M: and Bob, not the list it was sent to, not
# THE REST's list. A patch that Cc's them all gets none.
set -eu
: "${RB_BIN:?}"
command -v git >/dev/null || { echo "SKIP: git not installed (scripts/install-deps.sh build)"; exit 77; }
T=$(mktemp -d /tmp/rb-t-maint-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
git init -q "$T/repo"
cd "$T/repo"
git config user.name "Jane Doe"
git config user.email "jane.doe@example.org"
cat >MAINTAINERS <<'M'
FROB DRIVER
M:	Fred Maint <fred@example.org>
L:	frob-list@example.org
S:	Maintained
F:	drivers/frob/

THE REST
M:	Linus Torvalds <torvalds@linux-foundation.org>
L:	linux-kernel@vger.kernel.org
S:	Buried alive in reporters
F:	*
F:	*/
M
mkdir -p drivers/frob
printf 'int frob;\n' >drivers/frob/frob.c
git add -A
git commit -q -m "frob: add frob"
GIT_AUTHOR_NAME="Bob Bug" GIT_AUTHOR_EMAIL=bob@example.org \
	git commit -q --allow-empty -m "frob: break it"
bad=$(git rev-parse --short=12 HEAD)
printf 'int frob;\nint frob_fixed;\n' >drivers/frob/frob.c
git commit -q -am "frob: fix it" -m "Fixes: $bad (\"frob: break it\")
Signed-off-by: Jane Doe <jane.doe@example.org>"
git format-patch -q -1 --stdout | sed 's/^Subject: /To: frob-list@example.org\nSubject: /' >"$T/list.eml"
git format-patch -q -1 --stdout |
	sed 's/^Subject: /To: frob-list@example.org\nCc: Fred Maint <FRED@example.org>, bob@example.org\nSubject: /' >"$T/all.eml"
git reset -q --hard HEAD~1
out=$("$RB_BIN" check --tree "$T/repo" --checkers cc-maintainers --json "$T/list.eml") ||
	fail "exit $?"
[ "$(echo "$out" | grep -c '"category":"cc-maintainers"')" = 1 ] ||
	fail "want one finding: $out"
echo "$out" | grep -q 'Fred Maint <fred@example.org> (maintainer:FROB DRIVER)' ||
	fail "FROB's M: not named: $out"
echo "$out" | grep -q "Bob Bug <bob@example.org> (author of the Fixes: target $bad)" ||
	fail "the Fixes: target's author not named: $out"
echo "$out" | grep -q 'frob-list@\|vger\|torvalds' && fail "named too much: $out"
out=$("$RB_BIN" check --tree "$T/repo" --checkers cc-maintainers --json "$T/all.eml") ||
	fail "exit $?"
[ -z "$out" ] || fail "a patch that Cc's everyone got: $out"
echo "1 passed, 0 failed"
