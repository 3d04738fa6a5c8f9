#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_checkpatch_base_commit.sh - attack 1 of issue 17, staged through
# the daemon as a list poster would do it:
#
#  1. series 1 changes scripts/checkpatch.pl into a script that writes a
#     marker file and dumps its environment (the model API key is in the
#     bot's environment). The bot reviews it: the applied commit's id is
#     deterministic (author and date from the mail, committer reviewbot);
#  2. a later mail says "base-commit: <that applied commit>".
#
# Before the fix, reviews wrote every applied series into the configured
# tree's object store, base selection trusted any commit in that store,
# and checkpatch.pl came from the base and ran outside any sandbox: the
# evil script ran with the bot's environment. Now the tree is never
# written (git count-objects -v is unchanged), the base-commit is unknown
# because it is on no configured branch, and checkpatch.pl comes from the
# configured branch tip, in the sandbox.
. "$(dirname "$0")/../integration/lib.sh"
set -e
rb_need git
rb_need sqlite3
d=$RB_TEST_DIR
chmod 755 "$d"
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
tree=$d/demo/tree
export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL="ada@example.org"
export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL="ada@example.org"
export GIT_AUTHOR_DATE="2026-11-04T10:00:00Z" GIT_COMMITTER_DATE="2026-11-04T10:00:00Z"

# The tree ships a checkpatch.pl, as a kernel tree does: a quiet stand-in.
mkdir -p "$tree/scripts"
cat >"$tree/scripts/checkpatch.pl" <<'EOF'
#!/usr/bin/perl
# A stand-in for the kernel's checkpatch.pl: it finds nothing.
exit 0;
EOF
git -C "$tree" add scripts/checkpatch.pl
git -C "$tree" commit -q -m "scripts: add checkpatch.pl"

# The attacker's series 1: checkpatch.pl runs whatever she wants.
git clone -q "$tree" "$d/atk"
cat >"$d/atk/scripts/checkpatch.pl" <<EOF
#!/usr/bin/perl
open(my \$m, '>', '$d/PWNED'); print \$m "ran\n"; close(\$m);
open(my \$e, '>', '$d/ENV');
print \$e map { "\$_=\$ENV{\$_}\n" } sort keys %ENV; close(\$e);
exit 0;
EOF
git -C "$d/atk" commit -q -a -s -m "scripts: checkpatch: speed it up

Do less work per line."
mk_mail() { # repo -> mbox on stdout
	git -C "$1" format-patch -q -1 --thread=shallow --stdout |
		sed -e '0,/^Subject:/s//To: demo-list@example.org\nList-Id: <demo-list.example.org>\nSubject:/'
}
mk_mail "$d/atk" >"$d/s1.mbox"

export RB_NOW=1793700000
export REVIEWBOT_TEST_API_KEY=sk-secret-model-key
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    path: $d/inbox.mbox
trees:
  - name: demo
    path: $tree
outbox:
  maildir: $d/outbox
admins: [admin@example.org]
policy:
  default:
    mode: advisory
EOC
before=$(git -C "$tree" count-objects -v)
tip=$(git -C "$tree" rev-parse HEAD)

cp "$d/s1.mbox" "$d/inbox.mbox"
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run1.log" ||
	rb_fail "run 1 failed: $(tail -5 "$d/run1.log")"
applied=$(sqlite3 "$d/rb.db" "SELECT applied_commit FROM series WHERE applied_commit IS NOT NULL")
[ -n "$applied" ] || rb_fail "series 1 was not applied: $(tail -5 "$d/run1.log")"
[ ! -e "$d/PWNED" ] || rb_fail "the patched checkpatch.pl ran on series 1"

# Series 2: any patch, on the attacker's base.
git clone -q "$tree" "$d/atk2"
echo "/* ring buffer */" >>"$d/atk2/lib/ring.c"
git -C "$d/atk2" commit -q -a -s -m "ring: a comment"
mk_mail "$d/atk2" | awk -v id="$applied" '
	/^-- $/ && !done { print "base-commit: " id; done = 1 } { print }' \
	>"$d/s2.mbox"
grep -q "^base-commit: $applied" "$d/s2.mbox" || rb_fail "no base-commit line"
cat "$d/s1.mbox" "$d/s2.mbox" >"$d/inbox.mbox"
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run2.log" ||
	rb_fail "run 2 failed: $(tail -5 "$d/run2.log")"

if [ -e "$d/PWNED" ]; then
	grep -q REVIEWBOT_TEST_API_KEY "$d/ENV" 2>/dev/null &&
		echo "the script saw the bot's environment (API key)" >&2
	rb_fail "the attacker's checkpatch.pl ran"
fi
n=$(sqlite3 "$d/rb.db" "SELECT count(*) FROM series WHERE state = 'reviewed'")
[ "$n" = 2 ] || rb_fail "expected 2 reviewed series, got $n: $(tail -5 "$d/run2.log")"
# The base-commit is unknown; the review is on the configured tip.
sqlite3 "$d/rb.db" "SELECT reason FROM attempts" |
	grep -q "base-commit $applied is not on any configured branch" ||
	rb_fail "the unknown base-commit is not reported: $(sqlite3 "$d/rb.db" 'SELECT * FROM attempts')"
base=$(sqlite3 "$d/rb.db" "SELECT base_commit FROM series WHERE applied_commit IS NOT NULL AND id != (SELECT id FROM series WHERE applied_commit = '$applied')")
[ "$base" = "$tip" ] || rb_fail "series 2 was reviewed on $base, not on the tip $tip"
# The configured tree was only read.
after=$(git -C "$tree" count-objects -v)
[ "$before" = "$after" ] ||
	rb_fail "the tree's object store changed: $before / $after"
git -C "$tree" cat-file -e "$applied" 2>/dev/null &&
	rb_fail "the applied commit of series 1 is in the tree"
echo "1 passed, 0 failed"
