#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_build_claim.sh - with acceptance 7: a review never claims a
# check that did not run. RING BUFFER asks for the build, but the demo
# tree's Makefile has no defconfig target, so the build checker cannot
# configure the base and does not run ("checker-problem"). The running
# daemon's review of 2/3 (its missing Signed-off-by) must then not say
# "Checks: commit message and build", as if the patch had built cleanly:
# it names only what ran, or says that the build did not run.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_need_cmd bwrap bubblewrap
acc_need_cmd gcc gcc
acc_need_cmd make make
acc_demo
acc_helpers
acc_servers
mkdir -p "$d/build-cache"
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
      checkers: [commit-msg, checkpatch, build]' "checkers:
  build_cache_dir: $d/build-cache
  build_jobs: 1
  timeout_seconds: 300"
acc_start
acc_feed "$d/demo/series.mbox" ""
acc_settle 300

acc_check "$d/demo/series.mbox" <<'PY' || exit 1
cover = acc.msgid(sys.argv[1], 0).strip("<>")
r = acc.q("SELECT state, message FROM findings WHERE series_id = ? AND"
          " checker = 'build'", cover)
acc.check(len(r) == 1 and "did not run" in r[0][1], "this test needs a"
          " build that cannot run; the build checker gave: %s" % r)
b = acc.review_to(acc.msgid(sys.argv[1], 2))["body"]
fb = acc.flat(b)
ran = re.search(r"Checks: ([^.]*)\.", fb)
acc.check(ran, "the review does not say what ran:\n" + b)
acc.check("build" not in ran.group(1) or
          re.search(r"build[^.]*(did not|could not|not run|failed)", fb,
                    re.I),
          "the review claims a build that did not run (%s):\n%s" %
          (r[0][1].strip(), b))
PY
echo "ok: the review does not claim the build that did not run"
acc_stop
echo PASS
