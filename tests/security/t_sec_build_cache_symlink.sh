#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_build_cache_symlink.sh - attack 7 of issue 17: the build cache
# defaulted to /var/tmp/reviewbot-build, where any local user can create
# the directory first and plant symlinks; running as root, the checker
# chown()ed the build output and ccache directories to nobody through
# them. Staged as that user would: the cache directory exists, owned by
# someone else, with "ccache" and "KEY/out" (KEY = base commit and config
# hash, both public) pointing at root's directories.
#
# Now the default cache is private, under $XDG_CACHE_HOME or ~/.cache
# (the daemon: beside its store), made 0700; a cache directory that is
# not ours or is a symlink is refused; what the sandbox writes is opened
# without following symlinks. /var/tmp is replaced by a private bind
# mount for the test (a mount namespace), so nothing outside $T is used.
set -eu
: "${RB_BIN:?}"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root: the attack is on chown() as root"
command -v bwrap >/dev/null || skip "bwrap not installed"
command -v gcc >/dev/null || skip "gcc not installed"
command -v unshare >/dev/null || skip "unshare not installed"
unshare --mount --propagation private true 2>/dev/null ||
	skip "cannot make a mount namespace here"

T=$(mktemp -d /tmp/rb-t-sec-cache-XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
unset RB_BUILD_CACHE XDG_CACHE_HOME
mkdir -p "$T/home" "$T/vartmp"
chmod 1777 "$T/vartmp"

git init -q "$T/repo"
cd "$T/repo"
git config user.name "Jane Doe"
git config user.email "jane.doe@example.org"
cat >Makefile <<'EOF'
O ?= .
defconfig:
	echo CONFIG_FROB=y > $(O)/.config
%.o: %.c
	$(CC) -Wall -c $< -o $(O)/$@
EOF
printf 'int frob(int x)\n{\n\treturn x;\n}\n' >frob.c
git add Makefile frob.c
git commit -q -m "frob: add frob()"
BASE=$(git rev-parse HEAD)
printf 'int frob(int x)\n{\n\treturn x + 1;\n}\n' >frob.c
git commit -q -a -m "frob: add one" -m "Signed-off-by: Jane Doe <jane.doe@example.org>"
git format-patch -q -1 --stdout >"$T/p.eml"
git reset -q --hard "$BASE"

# root's directories that the attacker wants to own.
for v in victim1 victim2 victim3; do
	mkdir "$T/$v"
	chmod 700 "$T/$v"
done
owner() { stat -c %u "$1"; }

# 1. The default location, prepared by another user (uid 65534 here).
key=$BASE-$(printf defconfig | sha256sum | cut -c1-12)
atk=$T/vartmp/reviewbot-build
mkdir -p "$atk/$key"
ln -s "$T/victim1" "$atk/ccache"
ln -s "$T/victim2" "$atk/$key/out"
chown -R -h 65534:65534 "$atk"
HOME=$T/home unshare --mount --propagation private bash -c '
	mount --bind "$1" /var/tmp && exec timeout 300 "$2" check \
		--tree "$3" --base "$4" --checkers build --json "$5"' \
	sh "$T/vartmp" "$RB_BIN" "$T/repo" "$BASE" "$T/p.eml" \
	>"$T/out1" 2>&1 || true
cat "$T/out1"
[ "$(owner "$T/victim1")" = 0 ] || fail "chown() followed the planted ccache symlink"
[ "$(owner "$T/victim2")" = 0 ] || fail "chown() followed the planted KEY/out symlink"
[ ! -e "$atk/$key.lock" ] || fail "the build used the shared /var/tmp cache"

# 2. A cache directory named in the environment that is not ours.
mkdir "$T/shared"
ln -s "$T/victim3" "$T/shared/ccache"
chown -R -h 65534:65534 "$T/shared"
RB_BUILD_CACHE=$T/shared timeout 300 "$RB_BIN" check --tree "$T/repo" \
	--base "$BASE" --checkers build --json "$T/p.eml" >"$T/out2" 2>&1 || true
cat "$T/out2"
[ "$(owner "$T/victim3")" = 0 ] || fail "chown() followed a symlink in a cache that is not ours"
grep -q '"category":"checker-problem".*not to us' "$T/out2" ||
	fail "a cache directory that is not ours is not refused"

# 3. The default is private: 0700 and ours.
c=$T/home/.cache/reviewbot/build
[ -d "$c" ] || fail "no cache under \$HOME/.cache"
[ "$(stat -c '%a %u' "$c")" = "700 0" ] ||
	fail "the cache is not private: $(stat -c '%a %u' "$c")"
[ -d "$c/$key/out" ] || fail "the build did not run in the private cache: $(cat "$T/out1")"
echo "ok"
