#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_check_build_slow.sh - the build check's acceptance on the real linux
# 6.1 tree (bench/checks.sh part 2: a corpus patch gives no new warning,
# the same patch with an unused local gives exactly one, at its line).
# A kernel build: runs only with RB_SLOW=1.
set -eu
[ "${RB_SLOW:-0}" = 1 ] || { echo "SKIP: the full kernel build takes minutes: set RB_SLOW=1 to run it"; exit 77; }
: "${RB_BIN:?}" "${RB_SRC:?}"
command -v bwrap >/dev/null || { echo "SKIP: bwrap not installed (scripts/install-deps.sh build)"; exit 77; }
CHECKS_PARITY=0 exec bash "$RB_SRC/bench/checks.sh" "$RB_BIN"
