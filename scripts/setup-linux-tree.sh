#!/bin/sh
# setup-linux-tree.sh - a reference kernel tree for parity tests,
# benchmarks and "reviewbot eval --inject": Debian's linux-source-VERSION
# imported into a git repository with "git add -f -A" (its .gitignore
# ignores everything; DESIGN.md, peers).
#
# usage: setup-linux-tree.sh [VERSION] [DIR]
# VERSION is 6.1 (the default) or another Debian linux-source-VERSION
# package, such as 6.12 (bookworm-security). DIR defaults, for 6.1, to
# $RB_LINUX_TREE, else ~/.cache/reviewbot/linux-6.1; for another VERSION
# to $RB_LINUX_TREE_<VERSION, dots as underscores> (RB_LINUX_TREE_6_12),
# else ~/.cache/reviewbot/linux-VERSION.
# Prints the directory on stdout. Idempotent: an existing tree is reused.
set -eu
ver=6.1
case ${1:-} in
[0-9]*.[0-9]*)
	ver=$1
	shift
	;;
esac
case $ver in
*[!0-9.]*)
	echo "setup-linux-tree.sh: $ver: not a version such as 6.1 or 6.12" >&2
	exit 2
	;;
esac
if [ "$ver" = 6.1 ]; then
	dflt=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
else
	envname=RB_LINUX_TREE_$(echo "$ver" | tr . _)
	eval "dflt=\${$envname:-\$HOME/.cache/reviewbot/linux-$ver}"
fi
dir=${1:-$dflt}
pkg=linux-source-$ver
if [ -d "$dir/.git" ] && git -C "$dir" rev-parse -q --verify HEAD >/dev/null; then
	echo "$dir"
	exit 0
fi
if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
	grep -q 'install ok installed'; then
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	# A fresh machine's package lists may be stale (a 404 on install).
	$SUDO apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
		--no-install-recommends "$pkg" xz-utils >&2
fi
# linux-source-6.1_6.1.192... but not linux-source-6.12 for 6.1.
tarball=$(ls "/usr/src/$pkg.tar.xz" 2>/dev/null | head -n 1)
[ -n "$tarball" ] || {
	echo "setup-linux-tree.sh: no /usr/src/$pkg.tar.xz after installing $pkg" >&2
	exit 1
}
tmp="$dir.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
tar -xJf "$tarball" -C "$tmp" --strip-components=1
cd "$tmp"
git init -q
git config user.name "reviewbot setup"
git config user.email "setup@reviewbot.invalid"
git config core.autocrlf false
git add -f -A
GIT_AUTHOR_DATE="2024-01-01T00:00:00Z" GIT_COMMITTER_DATE="2024-01-01T00:00:00Z" \
	git commit -q -m "linux $(basename "$tarball" .tar.xz)"
cd - >/dev/null
rm -rf "$dir"
mv "$tmp" "$dir"
echo "$dir"
