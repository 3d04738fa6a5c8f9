#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/send.sh - reply composition and the senders against their real
# peers, side by side in one run:
#
#  1. compose: rb_compose() of a review reply (the mail/compose.h shape,
#     recipients, threading, a 2 KB body) against Python's email package
#     (EmailMessage, policy SMTP, as_bytes()) building the same headers;
#  2. SMTP: N replies sent one after another to an aiosmtpd sink on
#     127.0.0.1 (handler Sink: the server's cost is the same for both),
#     each on a fresh connection, by the SMTP sender (libcurl) and by
#     Python's smtplib; also the curl command line for N/10 replies
#     (a process per mail, as a shell script would do it);
#     Sending is timed over messages composed beforehand.
#  3. Maildir outbox: N replies into a Maildir (tmp, fsync, rename, fsync
#     of new/) against Python's mailbox.Maildir.add() (which does not
#     fsync: it is the upper bound of what a filesystem allows without
#     durability).
#
# usage: bench/send.sh [RESULTS.md]   (N=messages, default 500)
# The C driver, bench/bench_send.c, is built in build-bench/ (Release, no
# sanitizers; bench/lib.sh).
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need python3 curl
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null ||
	bench_die "needs python3-aiosmtpd (scripts/install-deps.sh test)"
out=$(bench_out "${1:-/dev/stdout}") || exit 1
n=${N:-500}
ncompose=${NCOMPOSE:-20000}
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-send.XXXXXX")
pids=""
cleanup()
{
	local p
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The bench driver (bench/bench_send.c): the same reply as
# tests/test_compose.c, body grown.
bench=$(bench_build bench_send)/bench/bench_send || exit 1

# The peer: Python's email package and smtplib, the same message.
cat >"$work/peer.py" <<'EOF'
import email.policy, mailbox, smtplib, sys
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
import datetime, hashlib, time
def build(i):
    m = EmailMessage(policy=email.policy.SMTP)
    m["From"] = "reviewbot <reviewbot@example.org>"
    m["To"] = '"Lorenzo Stoakes (Oracle)" <ljs@kernel.org>'
    m["Cc"] = "Andrew Morton <akpm@linux-foundation.org>, linux-mm@kvack.org"
    m["Subject"] = "Re: [PATCH v2 4/9] mm/huge_memory: handle buggy PMD entry in zap_huge_pmd()"
    m["Date"] = format_datetime(datetime.datetime.fromtimestamp(1700000000, datetime.timezone.utc))
    body = "[F1] (medium) Returning true here tells the caller that the\n" * 30 + "Reply %d.\n" % i
    m["Message-ID"] = "<rb-%s@example.org>" % hashlib.sha256(body.encode()).hexdigest()
    m["In-Reply-To"] = "<patch-4.ljs@kernel.org>"
    m["References"] = "<cover.1700000000.git.ljs@kernel.org> <patch-4.ljs@kernel.org>"
    m["Auto-Submitted"] = "auto-replied"
    m["X-Reviewbot-Policy"] = "advisory"
    m["X-Reviewbot-Series"] = "v2-zap-huge-pmd"
    m.set_content(body, charset="utf-8", cte="8bit")
    return m
mode, n = sys.argv[1], int(sys.argv[2])
if mode == "maildir":
    box = mailbox.Maildir(sys.argv[3], create=True)
# Timed like the C driver: composing all, or sending all (pre-composed).
t0 = time.perf_counter()
msgs = [build(i).as_bytes() for i in range(n)]
if mode != "compose":
    t0 = time.perf_counter()
for data in msgs:
    if mode == "smtp":
        with smtplib.SMTP("127.0.0.1", int(sys.argv[3])) as s:
            s.sendmail("reviewbot@example.org", ["ljs@kernel.org", "akpm@linux-foundation.org", "linux-mm@kvack.org"], data)
    elif mode == "maildir":
        box.add(data)
print("%.3f %d" % (time.perf_counter() - t0, len(msgs[0])))
EOF

row() { echo "| $1 | $2 | $3 | $(rate "$2" "$3") |"; }

# Each driver prints "SECONDS SIZE" for its timed phase.
# 1. compose
read -r rb_c size_rb < <("$bench" compose "$ncompose")
read -r py_c size_py < <(/usr/bin/python3 "$work/peer.py" compose "$ncompose")

# 2. SMTP to one sink
port=$(freeport)
/usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$port" -c aiosmtpd.handlers.Sink \
	>"$work/sink.log" 2>&1 &
pids="$pids $!"
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do sleep 0.05; done
read -r rb_s _ < <("$bench" smtp "$n" "smtp://127.0.0.1:$port")
read -r py_s _ < <(/usr/bin/python3 "$work/peer.py" smtp "$n" "$port")
ncurl=$((n / 10))
"$bench" maildir 1 "$work/md-one" >/dev/null
cp "$work"/md-one/new/* "$work/one.eml"
t0=$(now)
for i in $(seq "$ncurl"); do
	curl -s "smtp://127.0.0.1:$port" --mail-from reviewbot@example.org \
		--mail-rcpt ljs@kernel.org --mail-rcpt akpm@linux-foundation.org \
		--mail-rcpt linux-mm@kvack.org -T "$work/one.eml"
done
t1=$(now)
curl_s=$(secs "$t0" "$t1")

# 3. Maildir
read -r rb_m _ < <("$bench" maildir "$n" "$work/md-rb")
read -r py_m _ < <(/usr/bin/python3 "$work/peer.py" maildir "$n" "$work/md-py")
got=$(ls "$work/md-rb/new" | wc -l)
[ "$got" = "$n" ] || { echo "maildir: $got files, want $n" >&2; exit 1; }

{
	echo "## Reply composition and sending (bench/send.sh)"
	echo
	echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores, one run, N=$n."
	echo "Message: $size_rb bytes composed by reviewbot, $size_py by Python's email."
	echo
	echo "| what | messages | seconds | messages/s |"
	echo "| --- | ---: | ---: | ---: |"
	row "compose: rb_compose()" "$ncompose" "$rb_c"
	row "compose: Python email (policy SMTP)" "$ncompose" "$py_c"
	row "SMTP to aiosmtpd: reviewbot (libcurl), fresh connection each" "$n" "$rb_s"
	row "SMTP to aiosmtpd: Python smtplib, fresh connection each" "$n" "$py_s"
	row "SMTP to aiosmtpd: curl CLI, a process each (same bytes)" "$ncurl" "$curl_s"
	row "Maildir: reviewbot (tmp, fsync, rename, fsync dir)" "$n" "$rb_m"
	row "Maildir: Python mailbox.Maildir.add (no fsync)" "$n" "$py_m"
	echo
	echo "Repeat: \`bench/send.sh bench/RESULTS-send.md\` (N=, NCOMPOSE= to change sizes)."
} >"$out"
