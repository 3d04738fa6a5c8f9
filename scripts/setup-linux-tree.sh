#!/bin/sh
# setup-linux-tree.sh - the reference kernel tree for parity tests and
# benchmarks: Debian's linux-source-6.1 imported into a git repository with
# "git add -f -A" (its .gitignore ignores everything; DESIGN.md, peers).
#
# usage: setup-linux-tree.sh [DIR]
# DIR defaults to $RB_LINUX_TREE, else ~/.cache/reviewbot/linux-6.1.
# Prints the directory on stdout. Idempotent: an existing tree is reused.
set -eu
dir=${1:-${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}}
if [ -d "$dir/.git" ] && git -C "$dir" rev-parse -q --verify HEAD >/dev/null; then
	echo "$dir"
	exit 0
fi
if ! dpkg-query -W -f='${Status}' linux-source-6.1 2>/dev/null |
	grep -q 'install ok installed'; then
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	# A fresh machine's package lists may be stale (a 404 on install).
	$SUDO apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
		--no-install-recommends linux-source-6.1 xz-utils >&2
fi
tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2>/dev/null | head -n 1)
[ -n "$tarball" ] || {
	echo "setup-linux-tree.sh: no /usr/src/linux-source-6.1*.tar.xz after installing linux-source-6.1" >&2
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
