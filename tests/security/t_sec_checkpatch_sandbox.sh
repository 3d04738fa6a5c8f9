#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_checkpatch_sandbox.sh - issue 17: checkpatch.pl runs in the
# bubblewrap sandbox, or not at all. It used to run as plain perl with the
# bot's whole environment (the model API key, PGPASSWORD) and every file
# the bot can read.
#
#  1. The tree's checkpatch.pl reports what it sees as a checkpatch
#     warning: a cleared environment, no /etc or $HOME of the host, no
#     network, uid nobody when the bot is root, the configured tree's git
#     directory read-only for commit-id lookups.
#  2. With a bwrap that cannot make a sandbox (first in PATH), checkpatch
#     is not run: a "checker-problem" finding says so.
set -eu
: "${RB_BIN:?}"
command -v bwrap >/dev/null || { echo "SKIP: bwrap not installed"; exit 77; }
T=$(mktemp -d /tmp/rb-t-sec-cpsb-XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }
export REVIEWBOT_TEST_API_KEY=sk-secret-model-key

git init -q "$T/repo"
cd "$T/repo"
git config user.name "Jane Doe"
git config user.email "jane.doe@example.org"
mkdir scripts
cat >scripts/checkpatch.pl <<EOF
#!/usr/bin/perl
# Reports its surroundings as one warning per patch file.
open(my \$m, '>', '$T/RAN'); close(\$m);
my \$env = join(',', sort keys %ENV);
my \$etc = join(',', map { s|.*/||r } glob('/etc/*'));
my \$secret = -r '$T/secret' ? 'readable' : 'hidden';
my \$net = system('/usr/bin/python3', '-c',
	'import socket; socket.create_connection(("1.1.1.1", 53), 2)') == 0 ?
	'up' : 'down';
my \$git = \`git log --format=%s -1 2>/dev/null\`;
chomp \$git;
foreach my \$f (grep { !/^-/ } @ARGV) {
	print "\$f:1: WARNING:SEEN: uid=\$< env=\$env etc=\$etc secret=\$secret net=\$net git=\$git\n";
	print "#1: FILE: frob.c:1:\n+x\n\n";
}
exit 1;
EOF
printf 'int frob;\n' >frob.c
echo "hunter2" >"$T/secret"
chmod 600 "$T/secret"
git add -A
git commit -q -m "frob: add frob"
BASE=$(git rev-parse HEAD)
printf 'int frob;\nint frob2;\n' >frob.c
git commit -q -am "frob: add frob2" -m "Signed-off-by: Jane Doe <jane.doe@example.org>"
git format-patch -q -1 --stdout >"$T/p.eml"
git reset -q --hard "$BASE"

# 1. Sandboxed.
out=$("$RB_BIN" check --tree "$T/repo" --checkers checkpatch --json \
	"$T/p.eml") || fail "check: exit $?"
echo "$out"
line=$(echo "$out" | grep -o 'uid=[^"]*' | head -1)
[ -n "$line" ] || fail "checkpatch did not run"
[ ! -e "$T/RAN" ] || fail "checkpatch wrote on the host"
case " $line " in *REVIEWBOT_TEST_API_KEY*) fail "the bot's environment reached checkpatch: $line" ;; esac
case " $line " in *secret=readable*) fail "a file of the host was readable: $line" ;; esac
case " $line " in *net=up*) fail "checkpatch reached the network: $line" ;; esac
case " $line " in *"git=frob: add frob "*) ;; *) fail "no read-only GIT_DIR: $line" ;; esac
etc=$(echo "$line" | grep -o 'etc=[^ ]*' | cut -d= -f2)
[ -z "$etc" ] || [ "$etc" = alternatives ] || fail "/etc of the host is visible: $etc"
if [ "$(id -u)" = 0 ]; then
	case " $line " in *" uid=65534 "*) ;; *) fail "not run as nobody: $line" ;; esac
fi

# 2. No sandbox: not run at all, and said so.
mkdir "$T/bin"
printf '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' >"$T/bin/bwrap"
chmod 755 "$T/bin/bwrap"
out=$(PATH=$T/bin:$PATH "$RB_BIN" check --tree "$T/repo" --checkers checkpatch \
	--json "$T/p.eml") || fail "check without a sandbox: exit $?"
echo "$out"
[ ! -e "$T/RAN" ] || fail "checkpatch ran without a sandbox"
echo "$out" | grep -q '"category":"checker-problem".*cannot create a sandbox' ||
	fail "no checker-problem says that checkpatch did not run"
echo "$out" | grep -q 'uid=' && fail "checkpatch ran without a sandbox"
echo "ok"
