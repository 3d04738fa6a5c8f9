# need.sh - what a shell test needs beyond the project, and a one-line
# skip (exit 77) naming what is missing and how to get it. Source it; it
# defines functions only. tests/integration/lib.sh sources it too.
#
# - The shared data folder (../shared beside the project; RB_SHARED, set
#   by ctest from CMake's RB_SHARED_DIR): the real-mail corpus and the
#   seed series, too large or not ours to copy into tests/data.
# - The linux 6.1 git tree (RB_LINUX_TREE, default
#   ~/.cache/reviewbot/linux-6.1), made by scripts/setup-linux-tree.sh.
# The summary after "make test" (scripts/test-summary.py) lists every
# "SKIP:" line a test printed.

rb_skip() { echo "SKIP: $*"; exit 77; }

# rb_need_shared PATH...: each PATH (relative to the shared folder, e.g.
# corpus/linux-api.mbox.xz) must exist, or the test is skipped.
rb_need_shared()
{
	local p
	for p in "$@"; do
		[ -n "${RB_SHARED:-}" ] && [ -e "$RB_SHARED/$p" ] && continue
		rb_skip "needs shared/$p, not found (RB_SHARED=${RB_SHARED:-unset}): set RB_SHARED=/path/to/shared"
	done
}

# rb_need_linux_tree: sets RB_LINUX_TREE to the linux 6.1 git tree, or
# skips the test when it has not been set up.
rb_need_linux_tree()
{
	RB_LINUX_TREE=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
	[ -d "$RB_LINUX_TREE/.git" ] && [ -f "$RB_LINUX_TREE/MAINTAINERS" ] ||
		rb_skip "needs the linux 6.1 git tree, not found at $RB_LINUX_TREE: run scripts/setup-linux-tree.sh (or set RB_LINUX_TREE)"
}
