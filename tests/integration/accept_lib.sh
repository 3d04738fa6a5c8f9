# accept_lib.sh - shared set-up of the acceptance tests (t_accept_*.sh):
# the daemon, "reviewbot run -c CONF" (not --once, not "review"), between
# real peers on free loopback ports: Dovecot (IMAP with IDLE; mail comes
# in by LMTP, as a list delivers it), the aiosmtpd sink (its Mailbox
# handler writes each mail to a Maildir with X-RcptTo: the envelope
# recipients), the scripted model server, and the demo tree and series of
# scripts/demo.sh (RING BUFFER: M: grace@example.org, R: alan@example.org,
# L: demo-list@example.org; a cover and 3 patches by ada@example.org,
# patch 2 without its Signed-off-by).
#
# The tests never sleep for a fixed time: acc_settle waits until the
# daemon's store shows that it has done everything due and the daemon
# logged event=run.idle.
#
# Source it from a test; it sources lib.sh (servers by PID, rb_skip).

ACC_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$ACC_HERE/lib.sh"
d=$RB_TEST_DIR
PY=/usr/bin/python3
ACC_FED=0 # messages delivered so far (each with a new Message-ID)
ACC_IDLE0=0 # run.idle lines in the daemon's log before the last delivery
ACC_POLL=${ACC_POLL:-300}
ACC_TIMEOUT=${ACC_TIMEOUT:-120} # seconds for one step under load
: "${RB_BIN:?RB_BIN: the reviewbot binary}"
: "${RB_SRC:=$(cd "$ACC_HERE/../.." && pwd)}"

# acc_need_cmd CMD PACKAGE: CMD, or a one-line skip naming its package.
acc_need_cmd()
{
	command -v "$1" >/dev/null 2>&1 ||
		rb_skip "$1 not installed: install $2 (scripts/install-deps.sh test)"
}

# acc_need: what every acceptance test needs, or a one-line skip.
acc_need()
{
	acc_need_cmd dovecot "dovecot-imapd and dovecot-lmtpd"
	acc_need_cmd git git
	[ -x "$PY" ] || rb_skip "/usr/bin/python3 not installed: install python3"
	$PY -c 'import aiosmtpd' 2>/dev/null ||
		rb_skip "aiosmtpd (the SMTP sink) not installed: install python3-aiosmtpd (scripts/install-deps.sh test)"
	chmod 0755 "$d"
}

# acc_demo: the demo tree and series in $d/demo (tree, series.mbox).
acc_demo()
{
	bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null ||
		rb_fail "scripts/demo.sh --make-only failed"
}

# acc_helpers: $d/feed.py (LMTP delivery) and $d/acc.py (the sink and
# store readers the tests' checks import).
acc_helpers()
{
	# feed.py PORT MBOX-OR-EML TAG [HEADER=VALUE...]: delivers every
	# message of the file by LMTP; TAG (unless empty) is added to each
	# id in Message-ID, In-Reply-To and References (a new series, or a
	# reply to a tagged one), and the given headers are
	# replaced (or added). Prints how many messages went.
	cat >"$d/feed.py" <<'PY'
import re, smtplib, sys
port, path, tag = int(sys.argv[1]), sys.argv[2], sys.argv[3]
subst = [a.split("=", 1) for a in sys.argv[4:]]
data = open(path, "rb").read()
msgs = []
if data.startswith(b"From "):
    cur = None
    for line in data.splitlines(True):
        if line.startswith(b"From ") and (cur is None or cur[-1] == b"\n"):
            if cur is not None:
                msgs.append(b"".join(cur))
            cur = []
            continue
        cur.append(re.sub(rb"^>(>*From )", rb"\1", line))
    msgs.append(b"".join(cur))
else:
    msgs.append(data)
lm = smtplib.LMTP("127.0.0.1", port)
for m in msgs:
    head, _, body = m.partition(b"\n\n")
    if tag:
        fields = re.split(rb"\n(?![ \t])", head)
        for i, f in enumerate(fields):
            name = f.split(b":", 1)[0].strip().lower()
            if name in (b"message-id", b"in-reply-to", b"references"):
                fields[i] = re.sub(rb"<([^>@]+)@", lambda x: b"<" +
                                   x.group(1) + b"." + tag.encode() +
                                   b"@", f)
        head = b"\n".join(fields)
    for k, v in subst:
        pat = re.compile(rb"^" + re.escape(k.encode()) + rb":.*$",
                         re.M | re.I)
        if pat.search(head):
            head = pat.sub(lambda _: (k + ": " + v).encode(), head)
        else:
            head += ("\n" + k + ": " + v).encode()
    lm.sendmail("list@example.org", ["bot"], head + b"\n\n" + body)
lm.quit()
print(len(msgs))
PY
	cat >"$d/acc.py" <<'PY'
"""Readers for the acceptance tests: the sink's mails and the store."""
import email, email.policy, os, re, sqlite3, sys

D = os.environ["ACC_DIR"]


def mails():
    """Every mail in the SMTP sink, oldest first, as dicts."""
    out = []
    new = os.path.join(D, "sink", "new")
    for f in sorted(os.listdir(new),
                    key=lambda f: os.stat(os.path.join(new, f)).st_mtime_ns):
        raw = open(os.path.join(new, f), "rb").read()
        m = email.message_from_bytes(raw, policy=email.policy.compat32)
        body = m.get_payload(decode=True).decode("utf-8")
        body = body.replace("\r\n", "\n")
        one = lambda h: re.sub(r"\s+", " ", m.get(h, "")).strip()
        out.append({
            "file": f,
            "subject": one("Subject"),
            "from": one("From"),
            "to": one("To"),
            "cc": one("Cc"),
            "rcpt": sorted(a.strip() for a in one("X-RcptTo").split(",")
                           if a.strip()),
            "message_id": one("Message-ID"),
            "in_reply_to": one("In-Reply-To"),
            "references": one("References").split(),
            "policy": one("X-Reviewbot-Policy"),
            "auto": one("Auto-Submitted"),
            "body": body,
        })
    return out


def about(sub):
    """The mails whose subject holds @sub."""
    return [m for m in mails() if sub in m["subject"]]


def db():
    return sqlite3.connect(os.path.join(D, "rb.db"), timeout=30)


def q(sql, *args):
    """All rows of a query on the daemon's store."""
    c = db()
    try:
        return c.execute(sql, args).fetchall()
    finally:
        c.close()


def q1(sql, *args):
    r = q(sql, *args)
    return r[0][0] if r else None


def fail(why):
    print("FAIL: " + why, file=sys.stderr)
    log = os.path.join(D, "daemon.log")
    if os.path.exists(log):
        tail = open(log, errors="replace").read().splitlines()[-15:]
        print("daemon.log (end):\n  " + "\n  ".join(tail), file=sys.stderr)
    sys.exit(1)


def check(cond, why):
    if not cond:
        fail(why)


def show(ms):
    return "\n".join("%s -> %s" % (m["subject"], ",".join(m["rcpt"]))
                     for m in ms) or "(none)"


def tagged(mid, tag):
    """@mid as feed.py delivers it with @tag."""
    return mid.replace("@", "." + tag + "@", 1) if tag else mid


def review_to(pid):
    """Our one mail In-Reply-To @pid."""
    ms = [m for m in mails() if m["in_reply_to"] == pid]
    check(len(ms) == 1, "want one mail in reply to %s, got %d; all:\n%s"
          % (pid, len(ms), show(mails())))
    return ms[0]


def write_reply(path, m, frm, verdicts, mid, list_id=True, extra=()):
    """A reply to our mail @m as a person writes it: our review quoted in
    full (its footer's sample verdicts too), each line of @verdicts (a
    dict "F1" -> "F1: false positive") under the finding it judges."""
    import email.utils
    head = ["From: " + frm,
            "To: reviewbot <reviewbot@example.org>",
            "Cc: demo-list@example.org",
            "Subject: " + m["subject"],
            "Date: " + email.utils.formatdate(usegmt=True),
            "Message-ID: " + mid,
            "In-Reply-To: " + m["message_id"],
            "References: " + " ".join(m["references"] + [m["message_id"]])]
    if list_id:
        head.append("List-Id: <demo-list.example.org>")
    head += list(extra)
    out = ["On a recent day, reviewbot wrote:"]
    for para in m["body"].rstrip("\n").split("\n\n"):
        out += ["> " + l if l else ">" for l in para.split("\n")]
        fid = re.match(r"\[(F\d+)\]", para)
        if fid and fid.group(1) in verdicts:
            out += ["", verdicts[fid.group(1)]]
        out.append("")
    out += ["Thanks,", frm.split("<")[0].strip() or "me", ""]
    with open(path, "w") as f:
        f.write("\n".join(head) + "\n\n" + "\n".join(out))


def flat(body):
    """@body with its paragraphs unwrapped: one line each."""
    return re.sub(r"(?<!\n)\n(?!\n)", " ", body)


def stats():
    """reviewbot stats --json on the daemon's store, while it runs."""
    import json, subprocess
    r = subprocess.run([os.environ["RB_BIN"], "stats", "--json", "-c",
                        os.path.join(D, "config.yaml")],
                       capture_output=True, text=True)
    check(r.returncode == 0, "reviewbot stats: %s" % r.stderr)
    return json.loads(r.stdout)


def page(path):
    """A page of the dashboard ("reviewbot serve", acc_serve)."""
    import urllib.request
    url = "http://127.0.0.1:%s%s" % (os.environ["ACC_HTTP_PORT"], path)
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.read().decode("utf-8")


def table(html, tid):
    """The rows of <table id=@tid> as lists of cell texts."""
    import html as h
    t = re.search(r'<table id="%s">(.*?)</table>' % tid, html, re.S)
    check(t, "no table %s on the page" % tid)
    rows = []
    for tr in re.findall(r"<tr>(.*?)</tr>", t.group(1), re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        if cells:
            rows.append([h.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                         for c in cells])
    return rows


def msgid(path_or_text, n):
    """The n-th (0-based) Message-Id of an mbox, with angle brackets."""
    ids = re.findall(r"^Message-Id: (<[^>]+>)", open(path_or_text).read(),
                     re.M | re.I)
    return ids[n]
PY
	export ACC_DIR=$d RB_BIN
}

# acc_model_script JSON: (re)writes the model server's script.
acc_model_script() { printf '%s\n' "$1" >"$d/model.json"; }

# acc_model_ring_free: a model script with two findings on patch 3/3
# (ring_free()): "Should it also set size to 0" on "r->slots = NULL;"
# and "does not free r itself" on "free(r->slots);", both medium and
# confirmed by the verifier, each with a line of the diff beside its own
# as evidence (tests/model_server.py "auto"); no findings elsewhere.
# Fixed token counts.
acc_model_ring_free()
{
	cat <<'EOS'
{"steps": [
 {"kind": "finder", "match": "void ring_free(struct ring", "repeat": true,
  "usage": [1000, 200], "answer_json":
  {"findings": [
   {"file": "lib/ring.c", "side": "new", "line": 44,
    "quoted_code": "r->slots = NULL;", "category": "logic",
    "severity": "medium", "confidence": 0.9, "introduced_by_patch": true,
    "trigger_scenario": "ring_push() after ring_free(): head - tail is not size, so it stores through r->slots, now NULL.",
    "question": "ring_free() leaves size, head and tail as they were. Should it also set size to 0, or is pushing to a freed ring a caller bug?"},
   {"file": "lib/ring.c", "side": "new", "line": 43,
    "quoted_code": "free(r->slots);", "category": "api-misuse",
    "severity": "medium", "confidence": 0.9, "introduced_by_patch": true,
    "trigger_scenario": "A caller that embeds the ring frees the slots, then reads r->head.",
    "question": "Would a comment say that ring_free() does not free r itself, unlike the kfree() helpers?"}]}},
 {"kind": "finder", "repeat": true, "usage": [1000, 20],
  "answer_json": {"findings": []}},
 {"kind": "verifier", "repeat": true, "usage": [500, 50],
  "verdict": "confirmed", "evidence": "auto"}
]}
EOS
}

# acc_servers [model]: Dovecot, the SMTP sink and, with "model", the
# scripted model server ($d/model.json, see acc_model_script).
acc_servers()
{
	rb_start_dovecot
	rb_start_aiosmtpd "$d/sink"
	printf 'botpass\n' >"$d/pass"
	ACC_MODEL_YAML=
	if [ "${1:-}" = model ]; then
		ACC_MODEL_PORT=$(rb_free_port)
		[ -f "$d/model.json" ] || acc_model_script '{"steps": []}'
		rb_start model $PY "$RB_SRC/tests/model_server.py" \
			--port "$ACC_MODEL_PORT" --script "$d/model.json" \
			--log "$d/model-requests.log"
		rb_wait_port "$ACC_MODEL_PORT"
		export RB_TEST_KEY=test-key
		ACC_MODEL_YAML="model:
  provider: openai
  url: http://127.0.0.1:$ACC_MODEL_PORT/v1/chat/completions
  name: scripted
  api_key_env: RB_TEST_KEY
  timeout_seconds: 30
  max_retries: 1"
	fi
}

# acc_config POLICY [EXTRA]: writes $d/config.yaml. POLICY is the YAML of
# the policy: block (indented by two spaces), EXTRA more top-level YAML.
acc_config()
{
	cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: imap
    name: lists
    url: imap://127.0.0.1:$RB_IMAP_PORT
    user: bot
    password_file: $d/pass
    starttls: "off"
    poll_seconds: $ACC_POLL
smtp:
  url: smtp://127.0.0.1:$RB_SMTP_PORT
  from: reviewbot <reviewbot@example.org>
  starttls: "off"
list_ids: [demo-list.example.org]
trees:
  - name: demo
    path: $d/demo/tree
    fetch_minutes: 0
outbox:
  maildir: $d/outbox
admins: [admin@example.org]
${ACC_MODEL_YAML:-}
policy:
$1
${2:-}
EOC
	"$RB_BIN" check-config -c "$d/config.yaml" >"$d/check-config.log" 2>&1 ||
		rb_fail "the config is refused: $(cat "$d/check-config.log")"
}

# acc_wait_log PATTERN [SECONDS]: waits for a line of the daemon's log.
acc_wait_log()
{
	local i=0 max=$((${2:-$ACC_TIMEOUT} * 20))
	until grep -q -- "$1" "$d/daemon.log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt $max ] && rb_fail "no '$1' in the daemon's log after ${2:-$ACC_TIMEOUT} s: $(tail -15 "$d/daemon.log")"
		kill -0 "$(cat "$d/daemon.pid")" 2>/dev/null ||
			rb_fail "the daemon died: $(tail -15 "$d/daemon.log")"
		sleep 0.05
	done
}

# acc_start: starts the daemon and waits until it logged in to IMAP.
# Mail delivered from then on wakes it: IDLE, or, between IDLEs, the
# UIDNEXT it checks before each (mail/source_imap.c, imap_wait()).
acc_start()
{
	rb_start daemon "$RB_BIN" run -c "$d/config.yaml"
	acc_wait_log 'event=imap\.login'
}

# acc_feed FILE TAG [HEADER=VALUE...]: delivers an mbox or one mail file
# to the daemon's mailbox (feed.py above).
acc_feed()
{
	local n
	ACC_IDLE0=$(grep -c 'event=run\.idle' "$d/daemon.log" 2>/dev/null || true)
	n=$($PY "$d/feed.py" "$RB_LMTP_PORT" "$@") ||
		rb_fail "LMTP delivery of $1 failed"
	ACC_FED=$((ACC_FED + n))
}

# acc_settle [SECONDS]: waits until the daemon has done everything due
# after the last acc_feed, as its store shows it: every delivered message
# stored and parsed, every patch and cover assembled into a series (the
# jobs are queued in the same transaction), every reply looked at by the
# feedback stage, no job and no mail due or in hand; and the daemon has
# logged event=run.idle since the delivery (a pass found nothing to do).
# A job or mail due later (an incomplete series' wait) does not count.
# Fails after SECONDS. (The code before the one pipeline, 34471d1, logs
# no run.idle at all: with it, the store alone tells.)
acc_settle()
{
	local max=${1:-$ACC_TIMEOUT} t0 why
	t0=$(date +%s)
	while :; do
		why=$($PY - "$ACC_FED" "$ACC_IDLE0" <<'PY'
import os, sys, time
sys.path.insert(0, os.environ["ACC_DIR"])
import acc
fed, idle0 = int(sys.argv[1]), int(sys.argv[2])
now = int(time.time())
def idles():
    log = open(os.path.join(acc.D, "daemon.log"), errors="replace").read()
    return log.count("event=run.idle")
def why():
    if not os.path.exists(os.path.join(acc.D, "rb.db")):
        return "no store yet"
    try:
        n = acc.q1("SELECT COUNT(*) FROM messages")
        if n < fed:
            return "%d of %d messages stored" % (n, fed)
        n = acc.q1("SELECT COUNT(*) FROM messages WHERE state = 'new'")
        if n:
            return "%d messages not parsed" % n
        n = acc.q1("SELECT COUNT(*) FROM messages m WHERE m.state ="
                   " 'parsed' AND m.kind IN ('patch', 'cover') AND NOT"
                   " EXISTS (SELECT 1 FROM patches p WHERE p.message_id"
                   " = m.message_id)")
        if n:
            return "%d patches not assembled" % n
        r = acc.q("SELECT message_id FROM messages m WHERE m.state ="
                  " 'parsed' AND (m.kind = 'reply' OR (m.kind = 'ignored'"
                  " AND m.reason = 'List-Id not on the allow-list')) AND"
                  " NOT EXISTS (SELECT 1 FROM feedback f WHERE"
                  " f.message_id = m.message_id)")
        if r:
            return "replies the feedback stage did not look at: %s" % r
        r = acc.q("SELECT kind, key, state FROM jobs WHERE state IN"
                  " ('ready', 'running') AND (state = 'running' OR"
                  " not_before <= ?)", now)
        if r:
            return "jobs due: %s" % r
        r = acc.q("SELECT message_id, state FROM outbox WHERE state IN"
                  " ('queued', 'sending') AND (state = 'sending' OR"
                  " send_after <= ?)", now)
        if r:
            return "mails due: %s" % r
    except Exception as e:  # the store is busy or not made yet
        return "store: %s" % e
    n = idles()  # 0: a daemon that never logs it (34471d1)
    if n and n <= idle0:
        return "no run.idle since the delivery"
    return ""
print(why())
PY
)
		[ -z "$why" ] && return 0
		kill -0 "$(cat "$d/daemon.pid")" 2>/dev/null ||
			rb_fail "the daemon died: $(tail -15 "$d/daemon.log")"
		[ $(($(date +%s) - t0)) -ge "$max" ] &&
			rb_fail "the daemon did not settle in $max s: $why; log: $(tail -8 "$d/daemon.log")"
		sleep 0.1
	done
}

# acc_ring [POLICY-LINES] [model]: the set-up of most tests: the demo,
# the servers (with the model server and acc_model_ring_free's script
# when "model" is given), RING BUFFER advisory (plus POLICY-LINES, each
# indented by six spaces), every other subsystem off; the daemon started.
acc_ring()
{
	acc_need
	acc_demo
	acc_helpers
	if [ "${2:-}" = model ]; then
		acc_model_script "$(acc_model_ring_free)"
		acc_servers model
	else
		acc_servers
	fi
	acc_config "  default:
    mode: \"off\"
  subsystems:
    RING BUFFER:
      mode: advisory${1:+
$1}"
	acc_start
}

# acc_v2 OUT: v2 of the demo series, "[PATCH v2 n/3]" (deliver it with a
# tag of its own for new Message-IDs). Patches 2 and 3 change one line
# each ("if (size == 0)", the prototype's parameter named "ring"), so
# they are reviewed again; 1/3 keeps its patch-id and is not (issue 18).
acc_v2()
{
	sed -e 's/^Subject: \[PATCH \([0-3]\/3\]\)/Subject: [PATCH v2 \1/' \
		-e 's/^Date: .*/Date: Thu, 5 Nov 2026 09:00:00 +0000/' \
		-e 's/^+\tif (!size)$/+\tif (size == 0)/' \
		-e 's/^+void ring_free(struct ring \*r);$/+void ring_free(struct ring *ring);/' \
		"$d/demo/series.mbox" >"$1"
	[ "$(grep -c -e '^+.if (size == 0)$' -e '^+void ring_free(struct ring \*ring);$' "$1")" = 2 ] ||
		rb_fail "acc_v2: patches 2 and 3 of $1 did not change"
	[ "$(grep -c '^Subject: \[PATCH v2 [0-3]/3\]' "$1")" = 4 ] ||
		rb_fail "acc_v2: no v2 subjects in $1"
}

# acc_serve: the dashboard, "reviewbot serve", on a free port; sets and
# exports ACC_HTTP_PORT (acc.page() reads it).
acc_serve()
{
	ACC_HTTP_PORT=$(rb_free_port)
	export ACC_HTTP_PORT
	rb_start serve "$RB_BIN" serve --listen "127.0.0.1:$ACC_HTTP_PORT" \
		-c "$d/config.yaml"
	rb_wait_port "$ACC_HTTP_PORT" 800 ||
		rb_fail "reviewbot serve: $(cat "$d/serve.log")"
}

# acc_dkim DOMAIN...: a DKIM key pair per domain (opendkim-genkey), the
# public keys in $d/dkim-keys, exported as RB_DKIM_KEYS (the daemon reads
# it instead of DNS). Call it before acc_start.
acc_dkim()
{
	local dom
	acc_need_cmd opendkim-genkey opendkim-tools
	acc_need_cmd openssl openssl
	for dom in "$@"; do
		mkdir -p "$d/k-$dom"
		opendkim-genkey -D "$d/k-$dom" -d "$dom" -s rbtest ||
			rb_fail "opendkim-genkey $dom"
		$PY - "$d/k-$dom/rbtest.txt" "$dom" >>"$d/dkim-keys" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
print("rbtest._domainkey." + sys.argv[2] + " " +
      "".join(re.findall(r'"([^"]*)"', t)))
PY
	done
	export RB_DKIM_KEYS=$d/dkim-keys
}

# acc_sign IN OUT DOMAIN: OUT is IN with a DKIM-Signature by DOMAIN's key
# (rsa-sha256, relaxed/simple; RFC 6376 3.4 and 3.7, openssl for RSA).
acc_sign()
{
	$PY - "$1" "$2" "$3" "$d/k-$3/rbtest.private" <<'PY' ||
import base64, hashlib, re, subprocess, sys, time
src, dst, dom, key = sys.argv[1:5]
raw = open(src, "rb").read().replace(b"\r\n", b"\n")
head, body = raw.split(b"\n\n", 1)
body = body.replace(b"\n", b"\r\n").rstrip(b"\r\n") + b"\r\n"
bh = base64.b64encode(hashlib.sha256(body).digest()).decode()
fields = re.split(rb"\n(?![ \t])", head)
names = ["from", "to", "subject", "date", "message-id", "in-reply-to",
         "references"]
def relaxed(f):
    n, v = f.split(b":", 1)
    v = re.sub(rb"[ \t]+", b" ", v.replace(b"\n", b"")).strip()
    return n.strip().lower() + b":" + v
signed = []
for n in names:
    for f in fields:
        if f.split(b":", 1)[0].strip().lower() == n.encode():
            signed.append(relaxed(f) + b"\r\n")
            break
sig = ("v=1; a=rsa-sha256; c=relaxed/simple; d=%s; s=rbtest; t=%d;"
       " h=%s; bh=%s; b=" % (dom, int(time.time()), ":".join(names), bh))
data = b"".join(signed) + relaxed(b"DKIM-Signature: " + sig.encode())
b = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=data,
                   check=True, capture_output=True).stdout
out = b"DKIM-Signature: " + sig.encode() + base64.b64encode(b) + b"\n" + raw
open(dst, "wb").write(out)
PY
		rb_fail "acc_sign $1 $3"
}

# acc_reload: SIGHUP, and wait until the daemon read the new config.
acc_reload()
{
	local n
	n=$(grep -c 'event=run\.reload' "$d/daemon.log" || true)
	kill -HUP "$(cat "$d/daemon.pid")"
	local i=0
	while [ "$(grep -c 'event=run\.reload' "$d/daemon.log" || true)" -le "$n" ]; do
		i=$((i + 1))
		[ $i -gt $((ACC_TIMEOUT * 20)) ] && rb_fail "SIGHUP did not reload"
		sleep 0.05
	done
}

# acc_stop: SIGTERM; the daemon must exit 0.
acc_stop()
{
	local pid i=0
	pid=$(cat "$d/daemon.pid")
	kill -TERM "$pid"
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 400 ] && rb_fail "SIGTERM did not stop the daemon in 20 s"
		sleep 0.05
	done
}

# acc_check: runs the Python checks on stdin, with acc.py imported.
acc_check() { $PY -c 'import os, re, sys; sys.path.insert(0, os.environ["ACC_DIR"]); import acc; exec(sys.stdin.read())' "$@"; }
