#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_check_sandbox.sh - "reviewbot check --checkers build" on a tiny,
# kernel-shaped tree (make O=... W=1 file.o): a new warning is found at its
# file and line, an old one that moved is not; a patched Makefile that
# writes outside its output directory or opens a network connection fails
# inside the sandbox, is reported as a finding, and leaves nothing behind;
# the build runs as nobody, with a read-only source and a memory limit.
set -eu
: "${RB_BIN:?}"
command -v bwrap >/dev/null || { echo "SKIP: bwrap not installed (scripts/install-deps.sh build)"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: gcc not installed (scripts/install-deps.sh build)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }

T=$(mktemp -d /tmp/rb-t-sandbox-XXXXXX)
LISTENER=
cleanup() {
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
chmod 755 "$T"
# The sandbox runs as nobody: the cache must be reachable.
export RB_BUILD_CACHE=$T/cache

fail() { echo "FAIL: $*"; exit 1; }

git init -q "$T/repo"
cd "$T/repo"
git config user.name "Jane Doe"
git config user.email "jane.doe@example.org"
cat > Makefile <<'EOF'
# A kernel-shaped build: "make O=DIR defconfig", "make O=DIR W=1 x.o".
O ?= .
defconfig:
	echo CONFIG_FROB=y > $(O)/.config
%.o: %.c
	$(CC) -Wall $(if $(W),-Wextra) -c $< -o $(O)/$@
EOF
cat > frob.c <<'EOF'
int frob_count(int *v, int n)
{
	int i, total = 0;
	int old_unused;

	for (i = 0; i < n; i++)
		total += v[i];
	return total;
}
EOF
git add Makefile frob.c
git commit -q -m "frob: add frob_count()"
BASE=$(git rev-parse HEAD)

patch_of() { # commit message -> mail file
	git add -A
	git commit -q -m "$1" -m "Signed-off-by: Jane Doe <jane.doe@example.org>"
	git format-patch -q -1 --stdout > "$T/$2.eml"
	git reset -q --hard "$BASE"
}

# 1: a new unused variable two lines below the old one (which moves).
sed -i 's/^\tint old_unused;/\tint added;\n\tint old_unused;/' frob.c
sed -i 's/^\tfor (i = 0/\tint new_unused;\n\n\tfor (i = 0/' frob.c
patch_of "frob: add a new unused variable" warn
# 2: a harmless change.
sed -i 's/total += v\[i\];/total += v[i]; \/* sum *\//' frob.c
patch_of "frob: comment the sum" clean
# 3: a Makefile that writes outside its output directory (with a change to
# frob.c: only the objects a series touches are built).
cat > Makefile <<EOF
O ?= .
defconfig:
	echo CONFIG_FROB=y > \$(O)/.config
%.o: %.c
	-echo pwned > /cache/pwned
	mkdir -p $T/outside && echo pwned > $T/outside/file
	echo pwned > /src/pwned || echo pwned > $T/repo/pwned
	\$(CC) -c \$< -o \$(O)/\$@
EOF
sed -i 's/total += v\[i\];/total += v[i]; \/* sum *\//' frob.c
patch_of "frob: build it differently" write
# 4: a Makefile that calls home.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > Makefile <<EOF
O ?= .
defconfig:
	echo CONFIG_FROB=y > \$(O)/.config
%.o: %.c
	curl -s --max-time 5 -o \$(O)/got http://127.0.0.1:$PORT/
	\$(CC) -c \$< -o \$(O)/\$@
EOF
sed -i 's/total += v\[i\];/total += v[i]; \/* sum *\//' frob.c
patch_of "frob: fetch the build settings" net

# 5: a recipe that checks who it runs as (nobody) and that /src is
# read-only: passes, so no finding.
cat > Makefile <<'EOF'
O ?= .
defconfig:
	echo CONFIG_FROB=y > $(O)/.config
%.o: %.c
	test "$$(id -u)" = 65534
	! touch /src/x 2>/dev/null
	$(CC) -c $< -o $(O)/$@
EOF
sed -i 's/total += v\[i\];/total += v[i]; \/* sum *\//' frob.c
patch_of "frob: check the build user" uid
# 6: a recipe that wants 6 GiB: over the address-space limit.
cat > Makefile <<'EOF'
O ?= .
defconfig:
	echo CONFIG_FROB=y > $(O)/.config
%.o: %.c
	/usr/bin/python3 -c 'b = bytearray(6 << 30)'
	$(CC) -c $< -o $(O)/$@
EOF
sed -i 's/total += v\[i\];/total += v[i]; \/* sum *\//' frob.c
patch_of "frob: use a big buffer" mem

python3 - "$PORT" "$T/connections" <<'EOF' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(5)
while True:
    c, _ = s.accept()
    open(sys.argv[2], "a").write("connection\n")
    c.close()
EOF
LISTENER=$!
sleep 0.5

check() { # name -> findings on stdout
	"$RB_BIN" check --tree "$T/repo" --base "$BASE" --checkers build \
		--json --timeout 120 "$T/$1.eml"
}

out=$(check warn) || fail "check warn: exit $?"
echo "$out"
[ "$(echo "$out" | grep -c '"category":"build-warning"')" = 2 ] ||
	fail "want 2 new warnings (added, new_unused)"
echo "$out" | grep -q '"file":"frob.c","line":4,"code":"\\tint added;"' ||
	fail "warning for 'added' not at frob.c:4"
echo "$out" | grep -q '"file":"frob.c","line":7,.*new_unused' ||
	fail "warning for 'new_unused' not at frob.c:7"
echo "$out" | grep -q "old_unused" && fail "an old warning reported as new"

out=$(check clean) || fail "check clean: exit $?"
[ -z "$out" ] || fail "findings for a clean patch: $out"

out=$(check write) || fail "check write: exit $?"
echo "$out"
echo "$out" | grep -q '"category":"build-failed"' ||
	fail "writing outside the output directory did not fail the build"
[ ! -e "$T/outside" ] || fail "the build wrote $T/outside"
[ ! -e "$T/repo/pwned" ] || fail "the build wrote into the repository"
find "$RB_BUILD_CACHE" -name pwned | grep -q . &&
	fail "wrote into /src or the shared ccache"

out=$(check net) || fail "check net: exit $?"
echo "$out"
echo "$out" | grep -q '"category":"build-failed"' ||
	fail "a network connection did not fail the build"
[ ! -e "$T/connections" ] || fail "the sandbox reached 127.0.0.1:$PORT"

# Only root can switch to nobody (setpriv); otherwise bwrap's own userns.
if [ "$(id -u)" = 0 ]; then
	out=$(check uid) || fail "check uid: exit $?"
	[ -z "$out" ] ||
		fail "the build does not run as nobody with a read-only /src: $out"
fi

out=$(check mem) || fail "check mem: exit $?"
echo "$out" | grep -q '"category":"build-failed".*MemoryError' ||
	fail "6 GiB did not hit the memory limit: $out"

# ccache, where installed, is filled by base builds only.
if [ -x /usr/bin/ccache ]; then
	[ -n "$(find "$RB_BUILD_CACHE/ccache" -type f -name '*R')" ] ||
		fail "ccache is installed but holds no result"
fi

# The base build output is kept for the next series; run dirs are gone.
ls -d "$RB_BUILD_CACHE"/*/out >/dev/null || fail "no kept base output"
ls -d "$RB_BUILD_CACHE"/run-* 2>/dev/null && fail "a run directory is left"
echo "ok"
