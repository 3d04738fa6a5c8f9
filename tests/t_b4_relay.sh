#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_b4_relay.sh - the real author of a relayed patch (issue 18): B4 Relay
# sends an author's patches as "Ada Lovelace via B4 Relay
# <devnull+ada.example.org@kernel.org>", with the author's own From: as
# the first line of the body, as git am reads it. Through "reviewbot
# run", the review of such a patch goes to the author, not to the relay's
# devnull address. The relay signs its mail (d=kernel.org), and the
# default policy (require_dkim) believes the relay only with that
# signature: a test key for kernel.org stands in for DNS (RB_DKIM_KEYS).
. "$(dirname "$0")/integration/lib.sh"
d=$RB_TEST_DIR
rb_need opendkim-genkey
rb_need openssl
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
mkdir -p "$d/k" "$d/mails"
opendkim-genkey -D "$d/k" -d kernel.org -s rbtest
python3 - "$d/k/rbtest.txt" >"$d/keys" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
print("rbtest._domainkey.kernel.org " + "".join(re.findall(r'"([^"]*)"', t)))
PY
export RB_DKIM_KEYS=$d/keys
/usr/bin/python3 - "$d/demo/series.mbox" "$d/mails" <<'PY'
import re, sys
src, dst = sys.argv[1:3]
parts = re.split(r"(?m)^(?=From [0-9a-f]{40} )", open(src).read())
n = 0
for p in parts:
    if not p:
        continue
    p = p.split("\n", 1)[1]  # the mbox From_ line
    head, _, body = p.partition("\n\n")
    m = re.search(r"(?m)^From: (.*)$", head)
    author = m.group(1)
    head = head.replace("From: " + author,
                        "From: Ada Lovelace via B4 Relay "
                        "<devnull+ada.example.org@kernel.org>")
    if "Subject: [PATCH 0/" not in head:
        body = "From: %s\n\n%s" % (author, body)
    n += 1
    open("%s/%02d.eml" % (dst, n), "w").write(head + "\n\n" + body)
PY
for f in "$d/mails"/*.eml; do
	python3 "$RB_SRC/tests/security/mail_dkim_sign.py" "$f" "$f.signed" \
		kernel.org "$d/k/rbtest.private" ||
		rb_fail "cannot sign $f"
	printf 'From relay@kernel.org Thu Jan  1 00:00:00 1970\n' >>"$d/relayed.mbox"
	cat "$f.signed" >>"$d/relayed.mbox"
	printf '\n' >>"$d/relayed.mbox"
done
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
