#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17: a 20 MB patch is refused at ingest, with its reason, in
# bounded memory. The largest of the 30,571 real mails of linux-api is
# 357 KB, and a review stops at 10,000 changed lines anyway; a 20 MB
# patch of short lines took the daemon's review to 480 MB (690 MB with
# the sanitizers), and was then answered with a "too big" note. The
# default limits.max_message_size is now 4 MiB: the mail is recorded as
# malformed, "over the size cap", nobody is mailed about it, and the
# rest of the list (the demo series, sent in the same batch) is reviewed.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
sed -i '/^policy:/,$d' "$d/config.yaml" # no limits: key, the default cap
cat >>"$d/config.yaml" <<EOC
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
    THE REST:
      mode: advisory
EOC
# A new file of 20 MB of one-character lines: each line costs the diff
# parser most, and the patch is in THE REST (F: *), so it would be
# answered.
python3 - "$d/big.eml" <<'PY'
import sys
n = 20 * 1024 * 1024 // 3
with open(sys.argv[1], "w") as f:
    f.write("From: Mallory <mallory@evil.example>\n"
            "To: demo-list@example.org\n"
            "Date: Tue, 3 Nov 2026 12:00:00 +0000\n"
            "Message-ID: <big@evil.example>\n"
            "Subject: [PATCH] regs: add the register map\n\n"
            "Generated.\n\nSigned-off-by: Mallory <mallory@evil.example>\n"
            "---\n"
            "diff --git a/include/regs.h b/include/regs.h\n"
            "new file mode 100644\nindex 0000000..1111111\n"
            "--- /dev/null\n+++ b/include/regs.h\n"
            "@@ -0,0 +1,%d @@\n" % n)
    f.write("+x\n" * n)
    f.write("-- \n2.39.2\n")
PY
cp "$d/demo/series.mbox" "$d/in.mbox"
sec_append "$d/big.eml"
size=$(stat -c %s "$d/big.eml")
[ "$size" -gt $((20 << 20)) ] || rb_fail "the patch mail is only $size bytes"

# The peak RSS of the daemon's pass (the children's maximum).
rss=$(python3 - "$RB_BIN" "$d/config.yaml" "$d/run1.log" <<'PY'
import resource, subprocess, sys
with open(sys.argv[3], "w") as log:
    r = subprocess.run([sys.argv[1], "run", "-c", sys.argv[2], "--once"],
                       stdout=log, stderr=log)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024,
      r.returncode)
PY
)
echo "peak RSS of the pass: ${rss% *} MB (exit ${rss#* })"
[ "${rss#* }" = 0 ] || rb_fail "run --once failed: $(tail -n 20 "$d/run1.log")"

why=$(q "SELECT COALESCE(reason, state) FROM messages WHERE state = 'malformed'")
case $why in
*"message of 2097"[0-9][0-9][0-9][0-9]" bytes is over the size cap of 4194304 bytes"*) ;;
*) rb_fail "the 20 MB mail is not refused as too big: \"$why\"" ;;
esac
grep -q 'over the size cap' "$d/run1.log" || rb_fail "the reason is not logged"
[ "$(q "SELECT COUNT(*) FROM messages WHERE message_id = 'big@evil.example'")" = 0 ] ||
	rb_fail "the 20 MB mail was stored as a message"
[ "$(q "SELECT COUNT(*) FROM outbox WHERE rcpts LIKE '%mallory%'")" = 0 ] ||
	rb_fail "mail about the 20 MB patch"
[ "$(q "SELECT COUNT(*) FROM series")" = 1 ] ||
	rb_fail "expected the demo series alone: $(q "SELECT group_concat(id, ' ') FROM series")"
[ "$(q "SELECT COUNT(*) FROM outbox")" -ge 1 ] ||
	rb_fail "the demo series in the same batch was not reviewed"
# Refused before parsing: the pass costs about the mail's size, not a
# multiple of it (sanitizer builds double what a release build uses).
[ "${rss% *}" -lt 200 ] || rb_fail "the pass peaked at ${rss% *} MB"
echo "1 passed, 0 failed"
