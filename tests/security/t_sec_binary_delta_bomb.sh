#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: the binary-delta memory bomb. A 4 KB patch mail of git binary
# "delta" sections, each about 150 bytes that make a 64 MiB file (1,023
# one-byte ops that copy 64 KiB each), with every blob id right, so that
# git apply takes it too. Before, every section became a 64 MiB blob in
# memory with no total cap: 16 sections, 1 GiB, and a daemon in a 600 MiB
# limit was OOM-killed on every restart. Now the apply counts the bytes of
# the blobs it makes over the series (limits.max_apply_bytes) and checks a
# section's declared size before it inflates anything: the third section
# is refused, the author is told which limit the series hit, the series
# is tried on no other base, and the demo series sent with it is reviewed.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
# The section tells authors of what it could not apply (the default tells
# the admins only): the bomb's author hears which limit it hit.
sed -i 's/^    mode: off$/    mode: advisory\n    report_apply_failures: author/' "$d/config.yaml"
# A second tree: a series over a limit is tried on one base only.
git clone -q "$d/demo/tree" "$d/other"
sed -i "/^trees:/a\\  - name: other\\n    path: $d/other" "$d/config.yaml"
cat >>"$d/config.yaml" <<EOC
limits:
  max_apply_bytes: 140M
EOC
python3 "$RB_SRC/tests/security/hostile_patch.py" delta-bomb "$d/bomb.eml" 16
size=$(stat -c %s "$d/bomb.eml")
[ "$size" -lt 4500 ] || rb_fail "the bomb is $size bytes, not about 4 KB"
cp "$d/demo/series.mbox" "$d/in.mbox"
sec_append "$d/bomb.eml"

# The peak RSS of the daemon's pass (the children's maximum); in a
# sanitizer build, with a small quarantine of freed memory, so that it
# counts what the pass holds.
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}quarantine_size_mb=16
rss=$(python3 - "$RB_BIN" "$d/config.yaml" "$d/run1.log" <<'PY'
import resource, subprocess, sys
with open(sys.argv[3], "w") as log:
    r = subprocess.run([sys.argv[1], "run", "-c", sys.argv[2], "--once"],
                       stdout=log, stderr=log)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024,
      r.returncode)
PY
)
echo "a $size-byte mail of 16 sections (1 GiB of blobs); peak RSS of the pass: ${rss% *} MB (exit ${rss#* })"
[ "${rss#* }" = 0 ] || rb_fail "run --once failed: $(tail -n 20 "$d/run1.log")"

[ "$(q "SELECT state FROM series WHERE id = 'bomb@evil.example'")" = apply_failed ] ||
	rb_fail "the bomb: $(q "SELECT state || ': ' || COALESCE(detail, '') FROM series WHERE id = 'bomb@evil.example'")"
n=$(q "SELECT COUNT(*) FROM attempts WHERE series_id = 'bomb@evil.example' AND base_commit NOT LIKE '0000000%'")
[ "$n" = 1 ] || rb_fail "the bomb was tried on $n bases, not one"
why=$(q "SELECT reason FROM attempts WHERE series_id = 'bomb@evil.example' AND base_commit NOT LIKE '0000000%'")
case $why in
*"memory budget: the files it makes would pass 140 MiB (lib/blob.bin needs 67043329 bytes,"*) ;;
*) rb_fail "the bomb's attempt does not name the memory budget: $why" ;;
esac
# The author is told, plainly, once.
python3 - "$d/outbox/new" <<'PY' || exit 1
import email, email.policy, os, sys
bomb, demo = [], []
for f in os.listdir(sys.argv[1]):
    m = email.message_from_binary_file(open(os.path.join(sys.argv[1], f), "rb"),
                                       policy=email.policy.default)
    (bomb if "mallory" in m["To"] else demo).append(m)
if len(bomb) != 1:
    sys.exit("%d mails about the bomb" % len(bomb))
b = " ".join(bomb[0].get_body(("plain",)).get_content().split())
for want in ("has not reviewed this patch",
             "the series exceeds the review's memory budget",
             "lib/blob.bin needs 67043329 bytes"):
    if want not in b:
        sys.exit("the notice lacks %r:\n%s" % (want, b))
if not demo:
    sys.exit("the demo series sent with the bomb was not reviewed")
print("the notice names the memory budget; the demo series has %d mail(s)"
      % len(demo))
PY
# 140 MiB of blobs, one 64 MiB result being made and the rest of the
# pass: generously under the 1 GiB the blobs would take.
[ "${rss% *}" -lt 600 ] || rb_fail "the pass peaked at ${rss% *} MB"
echo "1 passed, 0 failed"
