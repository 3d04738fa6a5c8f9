#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_maintainers_parity.sh - "reviewbot maintainers" prints what the kernel
# tree's scripts/get_maintainer.pl prints, byte for byte, on a sample:
#  - every 14th mail of ../shared/corpus/apply-6.1 (8) and 4 patch mails
#    from the start of linux-api.mbox.xz, in both modes (default:
#    --nogit --nogit-fallback --norolestats; --roles: --nogit
#    --nogit-fallback), on the linux 6.1 git tree;
#  - the hand-written fixture of tests/data/maintainers, with the real
#    script run with --no-tree in a copy of the fixture tree, and the
#    recorded expectations there checked again;
#  - "Fixes:" lines on a small git repository (the fixed commit's signers);
#  - every person of the kernel's .mailmap as M: lines of one section;
#  - the on-disk index (--cache-dir) gives what a parse (--no-cache) does.
# Where get_maintainer's runs with PERL_HASH_SEED=0, 1, 2 disagree with
# each other, the same set of lines is enough. bench/maintainers.sh
# checks the whole corpus. Skips (77) without the kernel tree.
set -eu -o pipefail
src=${RB_SRC:?}
bin=${RB_BIN:?}
. "$src/tests/need.sh"
rb_need_linux_tree
tree=$RB_LINUX_TREE
rb_need_shared corpus/apply-6.1 corpus/linux-api.mbox.xz
shared=$RB_SHARED
gm=$tree/scripts/get_maintainer.pl
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-t-maint.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0

# compare NAME OURS THEIRS RERUN... : byte equal, or the same set of lines
# when the oracle's own order changes with the hash seed.
compare() {
	local name=$1 ours=$2 theirs=$3
	shift 3
	if cmp -s "$ours" "$theirs"; then
		return 0
	fi
	PERL_HASH_SEED=1 "$@" > "$work/s1" 2>/dev/null || true
	PERL_HASH_SEED=2 "$@" > "$work/s2" 2>/dev/null || true
	if { ! cmp -s "$theirs" "$work/s1" || ! cmp -s "$theirs" "$work/s2"; } &&
		[ "$(sort "$ours")" = "$(sort "$theirs")" ]; then
		echo "ok (order varies in get_maintainer): $name"
		return 0
	fi
	echo "FAIL: $name"
	diff "$theirs" "$ours" | head -20 || true
	fail=1
}

# The sample of real patches.
ls "$shared"/corpus/apply-6.1/*.eml | awk 'NR % 14 == 1' > "$work/list"
{ xz -dc "$shared/corpus/linux-api.mbox.xz" || true; } | head -c 3000000 |
	awk -v d="$work" '/^From / { if (f) close(f); n++;
		f = sprintf("%s/api-%03d", d, n); next }
		f { l = $0; if (l ~ /^>+From /) l = substr(l, 2); print l > f }'
grep -l '^diff --git ' "$work"/api-* | head -n 4 >> "$work/list"
[ "$(wc -l < "$work/list")" -ge 12 ]

cd "$tree"
# The lookups run on the on-disk index (a private cache directory, made
# by the first run); the same lookups parsing MAINTAINERS must agree.
cache=$work/cache
"$bin" maintainers --tree . --cache-dir "$cache" --each $(cat "$work/list") \
	> "$work/ours.txt"
[ "$(ls "$cache"/*.idx | wc -l)" -eq 1 ]
"$bin" maintainers --tree . --cache-dir "$cache" --roles \
	--each $(cat "$work/list") > "$work/oursr.txt"
"$bin" maintainers --tree . --no-cache --roles --each $(cat "$work/list") \
	> "$work/parsed.txt"
if ! cmp -s "$work/oursr.txt" "$work/parsed.txt"; then
	echo "FAIL: the cached index and a parse disagree"
	diff "$work/parsed.txt" "$work/oursr.txt" | head -20 || true
	fail=1
fi
for mode in def roles; do
	mkdir -p "$work/$mode"
	file=$work/ours.txt
	[ $mode = roles ] && file=$work/oursr.txt
	awk -v d="$work/$mode" '/^==> .* <==$/ { if (f) close(f);
		p = substr($0, 5, length($0) - 8); n = split(p, a, "/");
		f = d "/" a[n]; printf "" > f; next } { print > f }' "$file"
done
n=0
while read -r p; do
	b=$(basename "$p")
	PERL_HASH_SEED=0 perl "$gm" --nogit --nogit-fallback --norolestats \
		"$p" > "$work/theirs" 2>/dev/null
	compare "$b" "$work/def/$b" "$work/theirs" \
		perl "$gm" --nogit --nogit-fallback --norolestats "$p"
	PERL_HASH_SEED=0 perl "$gm" --nogit --nogit-fallback \
		"$p" > "$work/theirs" 2>/dev/null
	compare "$b (roles)" "$work/roles/$b" "$work/theirs" \
		perl "$gm" --nogit --nogit-fallback "$p"
	n=$((n + 1))
done < "$work/list"
echo "compared $n patches in both modes"

# The fixture, against the real script and the recorded expectations.
fx=$src/tests/data/maintainers
mkdir -p "$work/fixture"
cp -r "$fx/tree/." "$work/fixture/"
cp "$fx/MAINTAINERS" "$work/fixture/MAINTAINERS"
cp "$fx/mailmap" "$work/fixture/.mailmap"
cd "$work/fixture"
for p in "$fx"/patches/*.patch; do
	b=$(basename "$p" .patch)
	"$bin" maintainers --maintainers MAINTAINERS --mailmap .mailmap \
		--dir . "$p" > "$work/ours"
	"$bin" maintainers --maintainers MAINTAINERS --mailmap .mailmap \
		--dir . --roles "$p" > "$work/oursr"
	perl "$gm" --no-tree --nogit --nogit-fallback --norolestats "$p" \
		> "$work/theirs" 2>/dev/null
	compare "fixture $b" "$work/ours" "$work/theirs" \
		perl "$gm" --no-tree --nogit --nogit-fallback --norolestats "$p"
	compare "fixture $b (recorded)" "$work/ours" "$fx/patches/$b.out" true
	perl "$gm" --no-tree --nogit --nogit-fallback "$p" \
		> "$work/theirs" 2>/dev/null
	compare "fixture $b (roles)" "$work/oursr" "$work/theirs" \
		perl "$gm" --no-tree --nogit --nogit-fallback "$p"
	compare "fixture $b (roles, recorded)" "$work/oursr" \
		"$fx/patches/$b.roles" true
done

# "Fixes:" on a small git repository: the signers of the fixed commit.
repo=$work/repo
mkdir -p "$repo"
cd "$repo"
git init -q .
cp -r "$fx/tree/." .
cp "$fx/MAINTAINERS" MAINTAINERS
cp "$fx/mailmap" .mailmap
echo 'Zed Ignored <zed@example.org>' > .get_maintainer.ignore
git add -A
git -c user.name=t -c user.email=t@t commit -q -m base
echo x > drivers/first.c
git add -A
printf 'drivers: a bug\n\nText.\n\nSigned-off-by: Sig One <one@example.org>
Acked-by: Alice Example <alice@example.org>
Signed-off-by: Old Name <old@example.org>
Signed-off-by: Zed Ignored <zed@example.org>
Reviewed-by: Linus Torvalds <torvalds@linux-foundation.org>
Signed-off-by: Sig One <one@example.org>\n' |
	git -c user.name=t -c user.email=t@t commit -q -F -
h=$(git rev-parse --short=12 HEAD)
printf 'Subject: fix\n\nFixes: %s ("a bug")\n\n--- a/drivers/first.c\n+++ b/drivers/first.c\n' \
	"$h" > "$work/fix.patch"
"$bin" maintainers --tree . "$work/fix.patch" > "$work/ours"
"$bin" maintainers --tree . --roles "$work/fix.patch" > "$work/oursr"
PERL_HASH_SEED=0 perl "$gm" --no-tree --nogit --nogit-fallback \
	--norolestats "$work/fix.patch" > "$work/theirs" 2>/dev/null
compare "Fixes: signers" "$work/ours" "$work/theirs" perl "$gm" --no-tree \
	--nogit --nogit-fallback --norolestats "$work/fix.patch"
PERL_HASH_SEED=0 perl "$gm" --no-tree --nogit --nogit-fallback \
	"$work/fix.patch" > "$work/theirs" 2>/dev/null
compare "Fixes: signers (roles)" "$work/oursr" "$work/theirs" perl "$gm" \
	--no-tree --nogit --nogit-fallback "$work/fix.patch"
# Every person of the kernel's .mailmap as an M: line of one section:
# .mailmap parsing, mailmapping and de-duplication on all 455 lines.
mm=$work/mailmap
mkdir -p "$mm"
cd "$mm"
cp "$tree/.mailmap" .mailmap
{
	echo "MAILMAP ALL"
	sed 's/#.*//' .mailmap | grep -o '[^<>]*<[^>]*>' | sed 's/^ *//' |
		awk '{ print "M:\t" $0 }'
	echo "S:	Maintained"
	echo "F:	x/"
} > MAINTAINERS
printf -- '--- a/x/y.c\n+++ b/x/y.c\n' > p.patch
"$bin" maintainers --maintainers MAINTAINERS --mailmap .mailmap p.patch \
	> "$work/ours"
"$bin" maintainers --maintainers MAINTAINERS --mailmap .mailmap --roles \
	p.patch > "$work/oursr"
perl "$gm" --no-tree --nogit --nogit-fallback --norolestats p.patch \
	> "$work/theirs" 2>/dev/null
compare ".mailmap, all entries" "$work/ours" "$work/theirs" perl "$gm" \
	--no-tree --nogit --nogit-fallback --norolestats p.patch
perl "$gm" --no-tree --nogit --nogit-fallback p.patch > "$work/theirs" \
	2>/dev/null
compare ".mailmap, all entries (roles)" "$work/oursr" "$work/theirs" \
	perl "$gm" --no-tree --nogit --nogit-fallback p.patch
exit $fail
