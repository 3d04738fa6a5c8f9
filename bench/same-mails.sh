#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/same-mails.sh - does a change leave the mails alone (issue 35)?
# The whole real archive (shared/corpus/linux-api.mbox.xz, 30,571 mails)
# through "reviewbot run --once" with OLD_BIN and then with NEW_BIN, as
# bench/list-replay.sh runs it: one config (bench_replay_config: an mbox
# source, the linux 6.1 tree, every subsystem advisory, a Maildir outbox,
# no model), a fresh store and outbox for each run, in the same
# directory, so that no path differs. Then the two outboxes are compared mail by mail.
#
# What is left out of the comparison, and why:
#   - the Date: header: rb_now() at composing, so it differs per run;
#   - the Message-ID: header: the acceptance of issue 35 leaves it out.
#     It is a hash of the mail's content (mail/compose.c), so it only
#     changes when the content does, and that shows in the diff anyway;
#   - the Maildir file names (time, sequence and host), and the order the
#     mails were written in: the mails are compared as a sorted set.
# Everything else is compared byte for byte, headers unfolded.
#
# usage: bench/same-mails.sh OLD_BIN NEW_BIN
#   Each BIN is a reviewbot with its reviewbot-core beside it (a build's
#   bot/ folder, or copies of both). A run takes 5 to 20 minutes on 2
#   shared cores (the apply of 1,600 series on the tree).
#   Prints how many mails each run wrote and that they are the same (exit
#   0), or a unified diff of the differing mails (exit 1). Exit 2 when a
#   run fails. Without the shared folder (RB_SHARED, else ../shared beside
#   the main checkout) or the kernel tree, prints one line and exits 0.
#   SAME_MAILS_WORK=DIR keeps the runs (DIR/old, DIR/new: store, outbox,
#   logs, mails.txt).
set -eu -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
[ $# -eq 2 ] || {
	echo "usage: $0 OLD_BIN NEW_BIN" >&2
	exit 2
}
old=$(bench_bin "$1")
new=$(bench_bin "$2")

# The shared folder: RB_SHARED, else ../shared beside this checkout or,
# from a git worktree, beside the main checkout.
shared=${RB_SHARED:-}
if [ -z "$shared" ]; then
	common=$(git -C "$here" rev-parse --path-format=absolute \
		--git-common-dir 2>/dev/null || true)
	for d in "$here/../shared" "${common:+$(dirname "$common")/../shared}"; do
		[ -n "$d" ] && [ -d "$d" ] && shared=$d && break
	done
fi
corpus=${shared:+$shared/corpus/linux-api.mbox.xz}
if [ -z "$corpus" ] || [ ! -r "$corpus" ]; then
	echo "same-mails.sh: skipped: no shared/corpus/linux-api.mbox.xz (set RB_SHARED=/path/to/shared)"
	exit 0
fi
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
if [ ! -d "$tree/.git" ] || [ ! -f "$tree/MAINTAINERS" ]; then
	echo "same-mails.sh: skipped: no linux 6.1 tree at $tree (scripts/setup-linux-tree.sh)"
	exit 0
fi
bench_need xz python3

if [ -n "${SAME_MAILS_WORK:-}" ]; then
	work=$(realpath -m "$SAME_MAILS_WORK")
	mkdir -p "$work"
	rm -rf "$work/run" "$work/old" "$work/new"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/rb-same-mails.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi

# run NAME BIN: one run in $work/run (the same path for both binaries),
# moved to $work/NAME, its mails normalised into $work/NAME/mails.txt.
run()
{
	local name=$1 bin=$2 r=$work/run
	mkdir -p "$r"
	bench_replay_config "$r" "$corpus" "$tree"
	"$bin" check-config -c "$r/config.yaml" >/dev/null 2>"$r/check.log" || {
		echo "same-mails.sh: $name: the config does not check: $(tail -3 "$r/check.log")" >&2
		exit 2
	}
	echo "same-mails.sh: $name: $bin run --once ..." >&2
	"$bin" run --once -c "$r/config.yaml" >"$r/run.out" 2>"$r/run.log" || {
		echo "same-mails.sh: $name: reviewbot run failed: $(tail -3 "$r/run.log")" >&2
		exit 2
	}
	mv "$r" "$work/$name"
	python3 - "$work/$name/outbox" "$work/$name/count" \
		>"$work/$name/mails.txt" <<'PY'
import os, re, sys
# Each mail of the Maildir, headers unfolded, Date: and Message-ID: left
# out, CRLF as LF; the mails sorted and separated by a line of '='.
drop = {"date", "message-id"}
mails = []
for sub in ("new", "cur"):
    d = os.path.join(sys.argv[1], sub)
    if not os.path.isdir(d):
        continue
    for f in os.listdir(d):
        raw = open(os.path.join(d, f), "rb").read()
        raw = raw.replace(b"\r\n", b"\n").decode("utf-8", "replace")
        head, _, body = raw.partition("\n\n")
        head = re.sub(r"\n[ \t]+", " ", head)
        keep = [l for l in head.split("\n")
                if l.split(":", 1)[0].strip().lower() not in drop]
        mails.append("\n".join(keep) + "\n\n" + body)
mails.sort()
for m in mails:
    sys.stdout.write("=" * 72 + "\n" + m.rstrip("\n") + "\n")
open(sys.argv[2], "w").write("%d\n" % len(mails))
PY
}

run old "$old"
run new "$new"
n_old=$(cat "$work/old/count")
n_new=$(cat "$work/new/count")
echo "same-mails.sh: compared $n_old mails of $old with $n_new mails of $new (Date: and Message-ID: left out)"
if diff -u --label "old ($old)" --label "new ($new)" \
	"$work/old/mails.txt" "$work/new/mails.txt"; then
	echo "same-mails.sh: the same $n_old mails"
	exit 0
fi
echo "same-mails.sh: the mails differ (above)" >&2
exit 1
