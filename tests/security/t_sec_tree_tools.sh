#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_tree_tools.sh - issue 32: the tree checkers never run a tool the
# series brings. A series changes scripts/kernel-doc into a script that
# writes a marker file and reports a made-up warning, adds a semantic
# patch scripts/coccinelle/evil.cocci that "reports" every file, and
# changes lib/ring.c. "reviewbot check --checkers kernel-doc,coccinelle"
# takes both from the configured tip (--tools HEAD, the tree before the
# series): no marker, no made-up warning, no report of evil.cocci; the
# tip's kernel-doc (a stand-in that reports lines with "_marker") ran
# on the series' file, in the sandbox (it sees no /etc/passwd of the host
# beyond what the sandbox gives, and no $HOME).
. "$(dirname "$0")/../integration/lib.sh"
set -e
rb_need git
command -v bwrap >/dev/null || rb_skip "bwrap not installed (scripts/install-deps.sh build)"
command -v perl >/dev/null || rb_skip "perl not installed"
d=$RB_TEST_DIR
chmod 755 "$d"
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
tree=$d/demo/tree
export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL="ada@example.org"
export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL="ada@example.org"
export GIT_AUTHOR_DATE="2026-11-04T10:00:00Z" GIT_COMMITTER_DATE="2026-11-04T10:00:00Z"

# The tip's kernel-doc: a warning for each line with "_marker", naming
# HOME (the sandbox's).
mkdir -p "$tree/scripts/coccinelle/misc"
cat >"$tree/scripts/kernel-doc" <<'EOF2'
#!/usr/bin/perl
for my $f (@ARGV) {
	next if $f =~ /^-/;
	open(my $h, '<', $f) or next;
	while (<$h>) {
		print STDERR "$f:$.: warning: tip kernel-doc saw a marker, HOME=$ENV{HOME}\n"
			if /_marker/;
	}
}
EOF2
chmod +x "$tree/scripts/kernel-doc"
printf '// Options: --no-includes\nvirtual report\n' \
	>"$tree/scripts/coccinelle/misc/quiet.cocci"
git -C "$tree" add scripts
git -C "$tree" commit -q -m "scripts: kernel-doc and coccinelle stand-ins"

git clone -q "$tree" "$d/atk"
cat >"$d/atk/scripts/kernel-doc" <<EOF2
#!/usr/bin/perl
open(my \$m, '>', '$d/PWNED'); print \$m "ran\n"; close(\$m);
print STDERR "lib/ring.c:1: warning: EVIL kernel-doc\n";
EOF2
cat >"$d/atk/scripts/coccinelle/misc/evil.cocci" <<'EOF2'
// Options: --no-includes
virtual report
@r depends on report@
position p;
@@
int@p x;
@script:python depends on report@
p << r.p;
@@
coccilib.report.print_report(p[0], "EVIL cocci report")
EOF2
printf '\nint ring_evil_marker;\n' >>"$d/atk/lib/ring.c"
git -C "$d/atk" add -A
git -C "$d/atk" commit -q -s -m "ring: speed up the tools" -m "Trust me."
git -C "$d/atk" format-patch -q -1 -o "$d/out"

"$RB_BIN" check --tree "$tree" --checkers kernel-doc,coccinelle --json \
	"$d"/out/*.patch >"$d/found.json" 2>"$d/err.log" ||
	rb_fail "reviewbot check: $(tail -3 "$d/err.log")"
[ ! -e "$d/PWNED" ] || rb_fail "the series' kernel-doc ran"
grep -q EVIL "$d/found.json" && rb_fail "a tool of the series spoke: $(cat "$d/found.json")"
grep -q '"checker":"kernel-doc".*tip kernel-doc saw a marker' "$d/found.json" ||
	rb_fail "the tip's kernel-doc did not run on the series: $(cat "$d/found.json") $(cat "$d/err.log")"
grep -q 'HOME=/tmp' "$d/found.json" ||
	rb_fail "kernel-doc did not run in the sandbox: $(cat "$d/found.json")"
echo "ok: kernel-doc and coccinelle come from the tip, in the sandbox"
echo "1 passed, 0 failed"
