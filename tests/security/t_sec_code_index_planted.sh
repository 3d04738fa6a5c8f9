#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_code_index_planted.sh - issue 38: the model's word index is a
# file per base tree in the code index directory (model.index_dir),
# mapped and trusted as far as who wrote it. Whoever can put a file
# there could make the searches miss the files they choose (an index
# that leaves a blob out of a word's list), or have the bot write
# through a symlink. Planted as such a writer would: the tree's index
# name as a symlink to a file, as a file others may write, as another
# tree's index, as another user's file (as root), and the directory
# itself open to all or another user's.
#
# Each is refused: the index is built again from the tree (the lookups
# find the word), the symlink's target is neither read as the index nor
# written, and a directory that is not ours alone is not used.
set -eu
: "${RB_BIN:?}"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v git >/dev/null || skip "git not installed"

T=$(mktemp -d /tmp/rb-t-sec-cidx-XXXXXX)
trap 'rm -rf "$T"' EXIT
unset XDG_CACHE_HOME

git init -q "$T/repo"
cd "$T/repo"
git config user.name "Jane Doe"
git config user.email "jane.doe@example.org"
printf 'int frob_secret(int x)\n{\n\treturn x;\n}\n' >frob.c
printf 'int other_word;\n' >other.c
git add frob.c other.c
git commit -q -m one
git rm -q frob.c
git commit -q -m two
T1=$(git rev-parse 'HEAD~1^{tree}')
D=$T/idx
F=$D/$T1.cidx

# idx DIR: code-index of HEAD~1 in DIR; HOW says how it came, dies
# unless frob_secret is found in its one blob.
HOW=
idx() {
	"$RB_BIN" code-index --tree "$T/repo" --rev HEAD~1 --cache-dir "$1" \
		frob_secret >"$T/out" 2>&1 || fail "code-index: $(cat "$T/out")"
	grep -q '^frob_secret: in 1 blobs' "$T/out" ||
		fail "frob_secret not found: $(cat "$T/out")"
	HOW=$(grep -o ': \(built\|updated\|loaded\)' "$T/out" | head -n1 |
		cut -c3-)
}

idx "$D"
[ "$HOW" = built ] || fail "first: not built"
[ -f "$F" ] || fail "no index file at $F"
idx "$D"
[ "$HOW" = loaded ] || fail "second: not loaded"
cp "$F" "$T/good"
# The index of HEAD's tree, which lacks frob_secret, beside it.
"$RB_BIN" code-index --tree "$T/repo" --rev HEAD --cache-dir "$D" \
	>/dev/null 2>&1 || fail "code-index HEAD"
T2=$(git rev-parse 'HEAD^{tree}')

# 1. A symlink at the index's name: not followed, not written through.
cp "$D/$T2.cidx" "$T/decoy"
cp "$T/decoy" "$T/decoy.orig"
rm "$F"
ln -s "$T/decoy" "$F"
idx "$D"
[ "$HOW" != loaded ] || fail "a symlinked index was loaded"
[ -f "$F" ] && [ ! -L "$F" ] || fail "the symlink is still there"
cmp -s "$T/decoy" "$T/decoy.orig" || fail "written through the symlink"
cmp -s "$F" "$T/good" || fail "the index built again differs"

# 2. A file that others may write.
chmod 0666 "$F"
idx "$D"
[ "$HOW" != loaded ] || fail "a file others may write was loaded"
[ "$(stat -c %a "$F")" = 600 ] || fail "rebuilt as $(stat -c %a "$F")"

# 3. Another tree's index (frob_secret in no blob) under this tree's name.
cp "$D/$T2.cidx" "$F"
chmod 0600 "$F"
idx "$D"
[ "$HOW" != loaded ] || fail "another tree's index was loaded"
cmp -s "$F" "$T/good" || fail "the index built again differs"

# 4. As root: an index of another user.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chown nobody "$F"
	idx "$D"
	[ "$HOW" != loaded ] || fail "another user's index was loaded"
	[ "$(stat -c %u "$F")" = 0 ] || fail "the index is still nobody's"
fi

# 5. The directory open to all: made ours alone before it is used.
chmod 0777 "$D"
idx "$D"
[ "$(stat -c %a "$D")" = 700 ] || fail "the directory stays $(stat -c %a "$D")"

# 6. The directory a symlink to another: not used (built in memory).
mkdir -m 700 "$T/elsewhere"
ln -s "$T/elsewhere" "$T/link"
idx "$T/link"
[ "$HOW" = built ] || fail "a symlinked directory was used"
[ -z "$(ls -A "$T/elsewhere")" ] || fail "wrote through a symlinked directory"

# 7. As root: a directory of another user is not used.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -m 777 "$T/theirs"
	cp "$D/$T2.cidx" "$T/theirs/$T1.cidx"
	chown -R nobody "$T/theirs"
	idx "$T/theirs"
	[ "$HOW" = built ] || fail "another user's directory was used"
	[ "$(ls "$T/theirs" | wc -l)" = 1 ] || fail "wrote in another user's directory"
fi
echo "PASS: planted index files and directories refused"
