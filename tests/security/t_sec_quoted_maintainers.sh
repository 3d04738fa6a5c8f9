#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_sec_quoted_maintainers.sh - attack 5 of issue 17, through the daemon:
# a series changes lib/ring.c (RING BUFFER, advisory) and, under a
# C-quoted name, scripts/checkpatch.pl ("b/scripts/checkpatch\056pl"),
# whose CHECKPATCH section has its own policy. git apply (and reviewbot's
# apply) write scripts/checkpatch.pl; the MAINTAINERS matcher used to look
# up the quoted text, so the series was reviewed and mailed as if only
# RING BUFFER were touched, and CHECKPATCH's maintainer was not told.
# Now policy and recipients see the paths apply writes: with CHECKPATCH
# in shadow mode (and most of the series' lines) the review goes to the
# admins only; with it advisory its maintainer is in Cc.
. "$(dirname "$0")/../integration/lib.sh"
set -e
rb_need git
rb_need sqlite3

d=$RB_TEST_DIR
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
tree=$d/demo/tree
export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL="ada@example.org"
export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL="ada@example.org"
export GIT_AUTHOR_DATE="2026-11-04T10:00:00Z" GIT_COMMITTER_DATE="2026-11-04T10:00:00Z"

# The tree gains checkpatch.pl and its MAINTAINERS section.
mkdir -p "$tree/scripts"
printf '#!/usr/bin/perl\nexit 0;\n' >"$tree/scripts/checkpatch.pl"
python3 - "$tree/MAINTAINERS" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("RING BUFFER\n", "CHECKPATCH\nM:\tJoe Checker <joe@example.org>\n"
	      "S:\tMaintained\nF:\tscripts/checkpatch.pl\n\nRING BUFFER\n", 1)
open(p, "w").write(s)
EOF
git -C "$tree" add -A
git -C "$tree" commit -q -m "scripts: add checkpatch.pl, with its section"

# The attacker's patch, with the checkpatch.pl name C-quoted by hand.
git clone -q "$tree" "$d/atk"
echo "/* ring buffer */" >>"$d/atk/lib/ring.c"
printf '#!/usr/bin/perl\nuse strict;\nuse warnings;\nprint "hi\\n";\nexit 0;\n' \
	>"$d/atk/scripts/checkpatch.pl"
# No Signed-off-by: the review has a finding, so it is mailed.
git -C "$d/atk" commit -q -a -m "ring: a comment" -m "Say what the file is."
git -C "$d/atk" format-patch -q -1 --thread=shallow --stdout |
	sed -e '0,/^Subject:/s//To: demo-list@example.org\nList-Id: <demo-list.example.org>\nSubject:/' \
	    -e 's|^diff --git a/scripts/checkpatch.pl b/scripts/checkpatch.pl$|diff --git "a/scripts/checkpatch\\056pl" "b/scripts/checkpatch\\056pl"|' \
	    -e 's|^--- a/scripts/checkpatch.pl$|--- "a/scripts/checkpatch\\056pl"|' \
	    -e 's|^+++ b/scripts/checkpatch.pl$|+++ "b/scripts/checkpatch\\056pl"|' \
	    >"$d/series.mbox"
grep -q '^+++ "b/scripts/checkpatch\\056pl"$' "$d/series.mbox" ||
	rb_fail "the quoted name is not in the mail"

# It is a valid patch: git apply writes scripts/checkpatch.pl.
git -C "$tree" apply --check "$d/series.mbox" ||
	rb_fail "git apply refuses the staged patch"

export RB_NOW=1793700000
config() { # mode of CHECKPATCH
	cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb-$1.db
sources:
  - type: mbox
    path: $d/series.mbox
trees:
  - name: demo
    path: $tree
outbox:
  maildir: $d/outbox-$1
admins: [admin@example.org]
policy:
  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
    CHECKPATCH:
      mode: "$1"
EOC
}

# CHECKPATCH is in shadow mode: the review goes to the admins only.
config shadow
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/shadow.log" ||
	rb_fail "run failed: $(tail -5 "$d/shadow.log")"
# What the bot queued (sent or held for later), headers unfolded.
headers() { # store
	sqlite3 "$1" "SELECT CAST(bytes AS TEXT) FROM outbox" | tr -d '\r' |
		sed ':a;N;$!ba;s/\n[ \t]/ /g' | grep -i '^\(to\|cc\|x-reviewbot-policy\):'
}
n=$(sqlite3 "$d/rb-shadow.db" "SELECT count(*) FROM outbox")
[ "$n" -ge 1 ] || rb_fail "no review: $(tail -5 "$d/shadow.log")"
headers "$d/rb-shadow.db" | grep -q '^X-Reviewbot-Policy: shadow' ||
	rb_fail "a series touching a shadow subsystem under a quoted name was reviewed as $(headers "$d/rb-shadow.db" | grep -i '^X-Reviewbot-Policy')"
headers "$d/rb-shadow.db" | grep -q 'demo-list@example.org' &&
	rb_fail "the shadow review went to the list"

# CHECKPATCH is advisory: its maintainer gets the review.
config advisory
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/adv.log" ||
	rb_fail "run failed: $(tail -5 "$d/adv.log")"
n=$(sqlite3 "$d/rb-advisory.db" "SELECT count(*) FROM outbox")
[ "$n" -ge 1 ] || rb_fail "no review: $(tail -5 "$d/adv.log")"
headers "$d/rb-advisory.db" | grep -q 'joe@example.org' ||
	rb_fail "CHECKPATCH's maintainer is not a recipient"

# The CLI says the same.
"$RB_BIN" maintainers --tree "$tree" --sections "$d/series.mbox" |
	grep -q '^CHECKPATCH' || rb_fail "reviewbot maintainers misses CHECKPATCH"
echo "1 passed, 0 failed"
