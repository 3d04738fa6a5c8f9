#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_build_quote_host_file.sh - attack 6 of issue 17: the build checker
# quotes the source line a compiler diagnostic points at, and the patch
# chooses what the diagnostic names:
#
#  1. '#line 1 "drivers/../../../(...)/imap-password"' before code that
#     warns: the checker opened the host file outside the sandbox and put
#     its first line (the IMAP password) in the finding;
#  2. the same through a symlink the patch adds to the tree;
#  3. a name that is a FIFO on the host: the checker blocked forever.
#
# Now only a regular file inside the patched sources, by real path, with a
# size cap, is quoted; the warnings are still reported.
set -eu
: "${RB_BIN:?}"
command -v bwrap >/dev/null || { echo "SKIP: bwrap not installed"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: gcc not installed"; exit 77; }

T=$(mktemp -d /tmp/rb-t-sec-quote-XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
export RB_BUILD_CACHE=$T/cache
fail() { echo "FAIL: $*" >&2; exit 1; }

# What the bot's host holds and the sandbox must not give away.
mkdir -p "$T/etc/reviewbot"
echo "hunter2-imap-secret" >"$T/etc/reviewbot/imap-password"
chmod 600 "$T/etc/reviewbot/imap-password"
mkfifo "$T/fifo"
up=$(printf '../%.0s' $(seq 1 40)) # more than any depth: /.. is /

git init -q "$T/repo"
cd "$T/repo"
git config user.name "Mallory"
git config user.email "mallory@example.org"
cat >Makefile <<'EOF'
O ?= .
defconfig:
	echo CONFIG_FROB=y > $(O)/.config
%.o: %.c
	$(CC) -Wall $(if $(W),-Wextra) -c $< -o $(O)/$@
EOF
printf 'int frob(int x)\n{\n\treturn x;\n}\n' >frob.c
mkdir drivers
printf '/* drivers */\n' >drivers/README
git add Makefile frob.c drivers
git commit -q -m "frob: add frob()"
BASE=$(git rev-parse HEAD)

patch_of() { # name: commits what is staged, writes $T/name.eml
	git add -A
	git commit -q -m "frob: $1" -m "Signed-off-by: Mallory <mallory@example.org>"
	git format-patch -q -1 --stdout >"$T/$1.eml"
	git reset -q --hard "$BASE"
}

# 1: #line out of the tree.
printf '#line 1 "drivers/%s%s"\nint leak(void) { int unused_a; return 0; }\n' \
	"$up" "${T#/}/etc/reviewbot/imap-password" >>frob.c
patch_of escape
# 2: a symlink in the tree to the host file, named by #line.
ln -s "$T/etc/reviewbot/imap-password" drivers/link.h
printf '#line 1 "drivers/link.h"\nint leak(void) { int unused_b; return 0; }\n' >>frob.c
patch_of symlink
# 3: a FIFO on the host.
printf '#line 1 "drivers/%s%s"\nint stall(void) { int unused_c; return 0; }\n' \
	"$up" "${T#/}/fifo" >>frob.c
patch_of fifo

check() { # name -> findings on stdout; a hang is a failure
	timeout 120 "$RB_BIN" check --tree "$T/repo" --base "$BASE" \
		--checkers build --json --timeout 100 "$T/$1.eml" ||
		fail "check $1: exit $? (124: it hung)"
}

for p in ${RB_CASES:-escape symlink fifo}; do
	out=$(check $p)
	echo "$out"
	echo "$out" | grep -q hunter2 && fail "$p: the finding quotes the host file"
	echo "$out" | grep -q '"category":"build-warning".*unused_' ||
		fail "$p: the new warning is not reported"
done
echo "ok"
