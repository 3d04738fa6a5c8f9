#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_b4_relay.sh - the real author of a relayed patch (issue 18): B4 Relay
# sends an author's patches as "Ada Lovelace via B4 Relay
# <devnull+ada.example.org@kernel.org>", with the author's own From: as
# the first line of the body, as git am reads it. Through "reviewbot
# run", the review of such a patch goes to the author, not to the relay's
# devnull address.
. "$(dirname "$0")/integration/lib.sh"
d=$RB_TEST_DIR
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
/usr/bin/python3 - "$d/demo/series.mbox" "$d/relayed.mbox" <<'PY'
import re, sys
src, dst = sys.argv[1:3]
parts = re.split(r"(?m)^(?=From [0-9a-f]{40} )", open(src).read())
out = []
for p in parts:
    if not p:
        continue
    head, _, body = p.partition("\n\n")
    m = re.search(r"(?m)^From: (.*)$", head)
    author = m.group(1)
    head = head.replace("From: " + author,
                        "From: Ada Lovelace via B4 Relay "
                        "<devnull+ada.example.org@kernel.org>")
    if "Subject: [PATCH 0/" not in head:
        body = "From: %s\n\n%s" % (author, body)
    out.append(head + "\n\n" + body)
open(dst, "w").write("".join(out))
PY
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    path: $d/relayed.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox
admins: [admin@example.org]
policy:
  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
"$RB_BIN" run --once -c "$d/config.yaml" 2>"$d/run.log" ||
	rb_fail "run: $(tail -5 "$d/run.log")"
n=$(ls "$d/outbox/new" 2>/dev/null | wc -l)
[ "$n" -ge 1 ] || rb_fail "no review: $(tail -5 "$d/run.log")"
for f in "$d/outbox/new"/*; do
	to=$(tr -d '\r' <"$f" | sed -n 's/^To: //p')
	case $to in
	*ada@example.org*) ;;
	*) rb_fail "the review goes to '$to', not to the author" ;;
	esac
	tr -d '\r' <"$f" | grep -q 'devnull+ada' &&
		rb_fail "the relay's devnull address is a recipient: $(tr -d '\r' <"$f" | sed -n '/^To:/,/^Subject:/p')"
done
echo "the review of a relayed patch goes to its author"
echo PASS
