#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_external.sh - issue 32: an external checker as a policy
# checker of the running daemon. checkers.external_command names a
# script (copied into the sandbox) that prints "FILE:LINE: warning: ..."
# for every line of lib/ring.c that calls or defines a ring_* function
# with "free" or "push" in its name. RING BUFFER's policy names
# [external]. The demo series' patch 3/3 adds ring_free(): the review of
# 3/3 reports that line, at its file and line; the lines with ring_push,
# which the base has too, are not reported (the command also runs on the
# base's tree), and neither patch 1 nor 2 gets a finding.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_need_cmd bwrap bubblewrap
acc_demo
acc_helpers
acc_servers
cat >"$d/ext.sh" <<'EOF2'
#!/bin/sh
# usage: ext.sh MBOX TREE
[ -f "$1" ] || exit 3
grep -n 'ring_[a-z]*\(free\|push\)' "$2/lib/ring.c" |
	sed 's/^\([0-9]*\):.*/lib\/ring.c:\1: warning: a ring_*free or ring_*push here/'
EOF2
chmod 0755 "$d/ext.sh"
grep -q ring_push "$d/demo/tree/lib/ring.c" ||
	rb_fail "the demo's lib/ring.c has no ring_push: the test needs one"
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
      checkers: [commit-msg, external]' "checkers:
  external_command: $d/ext.sh
  external_name: ringcheck"
acc_start
acc_feed "$d/demo/series.mbox" ""
acc_settle 120
acc_check "$d/demo/series.mbox" <<'PY' || exit 1
mbox = sys.argv[1]
r = acc.q("SELECT file, line, patch_idx, state, message FROM findings"
          " WHERE checker = 'ringcheck' ORDER BY id")
acc.check(len(r) == 1, "want one finding of the external checker, got %s"
          % (r,))
f = r[0]
acc.check(f[0] == "lib/ring.c" and f[2] == 3 and f[3] == "raised" and
          "ring_*free" in f[4], "the finding: %s" % (f,))
m = acc.review_to(acc.msgid(mbox, 3))
b = acc.flat(m["body"])
acc.check("a ring_*free or ring_*push here" in b and "external" in b,
          "the review of 3/3:\n" + b)
acc.check(re.search(r"^> \+void ring_free\(struct ring \*r\)$", m["body"],
                    re.M), "the line is not quoted:\n" + m["body"])
PY
echo "ok: the external checker reports only the line the series adds"
acc_stop
echo PASS
