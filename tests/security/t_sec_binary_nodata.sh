#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: "Binary files differ" takes any object the repository has.
#
# A binary patch without data can only be applied from an object the
# repository already has, and the apply took whichever one its index
# line named: a mail could make a file of the tree under review any blob
# of the configured repository (another branch's, an unreleased fix's),
# which the checkers and the model then read. Mallory's two patches name
# the blob of the tree's MAINTAINERS as the new content of lib/ring.c,
# and as a new file lib/secret.bin. Each must fail to apply with the reason
# (no review of the planted content), while Bob's patch in the same
# pass is reviewed.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
printf '    THE REST:\n      mode: advisory\n' >>"$d/config.yaml"
tree=$d/demo/tree
planted=$(git -C "$tree" rev-parse HEAD:MAINTAINERS)
ring=$(git -C "$tree" rev-parse HEAD:lib/ring.c)
zero=0000000000000000000000000000000000000000

# binary NAME SECTION: Mallory's patch with one binary section, no data.
binary()
{
	{
		cat <<EOM
From: Mallory <mallory@evil.example>
To: demo-list@example.org
Date: Tue, 3 Nov 2026 12:00:00 +0000
Message-ID: <$1@evil.example>
Subject: [PATCH] ring: $1

Signed-off-by: Mallory <mallory@evil.example>
---
EOM
		printf '%b' "$2"
	} >"$d/$1.eml"
}
binary swap "diff --git a/lib/ring.c b/lib/ring.c\nindex $ring..$planted 100644\nBinary files a/lib/ring.c and b/lib/ring.c differ\n"
binary plant "diff --git a/lib/secret.bin b/lib/secret.bin\nnew file mode 100644\nindex $zero..$planted\nBinary files /dev/null and b/lib/secret.bin differ\n"
sec_patch bob bob-1@example.org 'Bob <bob@example.org>'
sec_append "$d/swap.eml" "$d/plant.eml" "$d/bob.eml"
sec_run run.log
for n in swap plant; do
	r=$(q "SELECT coalesce(group_concat(reason, ' | '), '') FROM attempts WHERE series_id = '$n@evil.example'")
	case $r in
	*"without data"*"not that file in the tree"*) ;;
	*) rb_fail "$n: the binary patch without data: attempts '$r', series $(q "SELECT state || ': ' || coalesce(detail, '') FROM series WHERE id = '$n@evil.example'")" ;;
	esac
	[ "$(q "SELECT COUNT(*) FROM attempts WHERE series_id = '$n@evil.example' AND ok = 1")" = 0 ] ||
		rb_fail "$n: applied on some base"
done
[ "$(q "SELECT COUNT(*) FROM reviews WHERE series_id = 'bob-1@example.org'")" -ge 1 ] ||
	rb_fail "Bob's patch, in the same pass, got no review: $(q "SELECT group_concat(id || ' ' || state, '; ') FROM series")"
echo "1 passed, 0 failed"
