#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_build_sandbox_limits.sh - the build sandbox's limits (issue 17):
# a patched Makefile reports, as a compiler-style warning, what it sees
# from inside: the size of /tmp (a tmpfs, capped: it was half of the
# machine's memory), the address-space and process limits, the processes
# it can see (its own pid namespace), its environment (cleared: the bot's
# API key is not there) and /etc (not bound: no secret of the host).
set -eu
: "${RB_BIN:?}"
command -v bwrap >/dev/null || { echo "SKIP: bwrap not installed"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: gcc not installed"; exit 77; }

T=$(mktemp -d /tmp/rb-t-sec-limits-XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
export RB_BUILD_CACHE=$T/cache
export REVIEWBOT_TEST_API_KEY=sk-secret-model-key
fail() { echo "FAIL: $*" >&2; exit 1; }

git init -q "$T/repo"
cd "$T/repo"
git config user.name "Mallory"
git config user.email "mallory@example.org"
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
cat >Makefile <<'EOF'
O ?= .
defconfig:
	echo CONFIG_FROB=y > $(O)/.config
%.o: %.c
	@echo "frob.c:1:1: warning: seen tmpfs_kb=$$(df -k /tmp | awk 'NR==2 {print $$2}') as=$$(awk '/^Max address space/ {print $$4}' /proc/self/limits) nproc=$$(awk '/^Max processes/ {print $$3}' /proc/self/limits) pids=$$(ls /proc | grep -c '^[0-9]') key=$${REVIEWBOT_TEST_API_KEY:-none} etc=$$(ls /etc | tr '\n' ,)"
	$(CC) -Wall -c $< -o $(O)/$@
EOF
printf 'int frob(int x)\n{\n\treturn x + 1;\n}\n' >frob.c
git commit -q -a -m "frob: look around" -m "Signed-off-by: Mallory <mallory@example.org>"
git format-patch -q -1 --stdout >"$T/p.eml"
git reset -q --hard "$BASE"

out=$(timeout 300 "$RB_BIN" check --tree "$T/repo" --base "$BASE" \
	--checkers build --json "$T/p.eml") || fail "check: exit $?"
echo "$out"
line=$(echo "$out" | grep -o 'seen tmpfs_kb=[^"]*' | head -1)
[ -n "$line" ] || fail "the sandbox did not report"
val() { echo "$line" | grep -o " $1=[^ \\]*" | cut -d= -f2; }
tmpfs=$(val tmpfs_kb) as=$(val as) nproc=$(val nproc) pids=$(val pids)
[ "$tmpfs" -le $((512 * 1024)) ] || fail "/tmp is not capped: $tmpfs KiB"
[ "$as" != unlimited ] && [ "$as" -le $((4096 << 20)) ] ||
	fail "no memory cap: RLIMIT_AS $as"
[ "$nproc" != unlimited ] && [ "$nproc" -le 1024 ] ||
	fail "no process limit: RLIMIT_NPROC $nproc"
[ "$pids" -le 20 ] || fail "the sandbox sees $pids processes: no pid namespace"
[ "$(val key)" = none ] || fail "the bot's environment reached the sandbox"
case "$(val etc)" in
"" | alternatives,) ;;
*) fail "/etc of the host is visible: $(val etc)" ;;
esac
echo "ok"
