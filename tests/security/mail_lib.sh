# SPDX-License-Identifier: GPL-2.0-only
# mail_lib.sh - staging shared by the mail-side security tests (issue 17):
# the demo tree, a patch from its author, a daemon config over an mbox
# file source, DKIM keys served from a key file, and helpers to append
# mail, run the daemon once and query the store. Source it after
# tests/integration/lib.sh.

# sec_setup: the demo tree in $d/demo, $d/config.yaml (RING BUFFER
# advisory, require_dkim), the source mbox $d/in.mbox (empty), RB_NOW.
sec_setup()
{
	d=$RB_TEST_DIR
	export RB_NOW=${RB_NOW:-1793780000}
	bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
	: >"$d/in.mbox"
	cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: mbox
    name: list
    path: $d/in.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox
admins: [root@example.net]
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
      require_dkim: true
      max_findings: 10
EOC
}

# sec_patch NAME MSGID [FROM]: a one-patch mail $d/NAME.eml against the
# demo tree, with three commit-message findings (as t_feedback_e2e).
sec_patch()
{
	local name=$1 msgid=$2 from=${3:-Ada Lovelace <ada@example.org>}
	(
		cd "$d/demo/tree"
		export GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org
		export GIT_COMMITTER_NAME='Ada Lovelace' GIT_COMMITTER_EMAIL=ada@example.org
		export GIT_AUTHOR_DATE=2026-11-03T09:00:00Z GIT_COMMITTER_DATE=2026-11-03T09:00:00Z
		sed -i 's/r->tail = 0;/r->tail = 0; \/* empty *\//' lib/ring.c
		printf '%s\n\n%s\n\n%s\n%s\n' 'ring: note that a new ring is empty' \
			'Say so where the indices are reset.' 'Fixes: 1234abc (ring)' \
			'Cc: stable@vger.kernel.org 6.1+' >../msg
		git commit -q -a -F ../msg
		git format-patch -q -1 --stdout HEAD >"../$name.patch"
		git reset -q --hard HEAD~1
	)
	python3 - "$d/demo/$name.patch" "$d/$name.eml" "$msgid" "$from" <<'PY'
import sys
src, dst, msgid, frm = sys.argv[1:5]
head, body = open(src).read().split("\n\n", 1)
if head.startswith("From "):  # format-patch's mbox From_ line
    head = head.split("\n", 1)[1]
out = []
for l in head.split("\n"):
    if l.startswith("From: "):
        l = "From: " + frm
    if l.startswith("Subject:"):
        out += ["To: demo-list@example.org", "Message-ID: <%s>" % msgid]
    out.append(l)
open(dst, "w").write("\n".join(out) + "\n\n" + body)
PY
}

# sec_keys DOMAIN...: DKIM keys (selector rbtest) in $d/k-DOMAIN, all
# published in the key file $RB_DKIM_KEYS.
sec_keys()
{
	local dom
	rb_need opendkim-genkey
	rb_need openssl
	for dom in "$@"; do
		mkdir -p "$d/k-$dom"
		opendkim-genkey -D "$d/k-$dom" -d "$dom" -s rbtest
		python3 - "$d/k-$dom/rbtest.txt" "$dom" >>"$d/keys" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
print("rbtest._domainkey." + sys.argv[2] + " " + "".join(re.findall(r'"([^"]*)"', t)))
PY
	done
	export RB_DKIM_KEYS=$d/keys
}

# sec_sign IN OUT DOMAIN [ARGS...]: mail_dkim_sign.py with DOMAIN's key.
sec_sign()
{
	local in=$1 out=$2 dom=$3
	shift 3
	python3 "$RB_SRC/tests/security/mail_dkim_sign.py" "$in" "$out" "$dom" \
		"$d/k-$dom/rbtest.private" "$@"
}

# sec_append FILE...: appends mails to the source mbox (mboxo From_ line).
sec_append()
{
	local f
	for f in "$@"; do
		printf 'From sec@example Thu Jan  1 00:00:00 1970\n' >>"$d/in.mbox"
		cat "$f" >>"$d/in.mbox"
		printf '\n' >>"$d/in.mbox"
	done
}

# sec_run LOG: one pass of the daemon over the source.
sec_run()
{
	"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/$1" ||
		rb_fail "reviewbot run --once failed: $(tail -n 20 "$d/$1")"
}

# q SQL: the first column of the first row, from the store.
q()
{
	python3 -c 'import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone(); print(r[0] if r else "")' "$d/rb.db" "$1"
}

# sec_reply NAME FROM BODY [EXTRA-HEADERS]: a reply $d/NAME.raw to our
# review $review (set by the caller).
sec_reply()
{
	{
		printf 'From: %s\nTo: reviewbot <reviewbot@localhost>\n' "$2"
		printf 'Subject: Re: [PATCH] ring: note that a new ring is empty\n'
		printf 'Date: Thu, 5 Nov 2026 10:00:00 +0000\n'
		printf 'Message-ID: <%s@example.org>\n' "$1"
		printf 'In-Reply-To: %s\nReferences: %s\n' "$review" "$review"
		[ -z "${4:-}" ] || printf '%b\n' "$4"
		printf '\n%b' "$3"
	} >"$d/$1.raw"
}
