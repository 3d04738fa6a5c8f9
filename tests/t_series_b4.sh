#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_series_b4.sh - parity of `reviewbot series` with b4 (Debian b4 0.12).
#
# Takes a fixed slice of ../shared/corpus/linux-api.mbox.xz (its first
# RB_B4_SLICE messages, default 5000), runs `reviewbot series --json` on
# it, checks every series of the slice against b4's assembly called
# in-process (as in bench mode, below), then for a fixed sample of
# RB_B4_CLI_SAMPLE series (default 40, spread evenly over the slice) runs
#     b4 am -C -m THREAD.mbox -v VERSION -o DIR MSGID
# where MSGID is the first message (in mbox order) of the series' thread,
# and THREAD.mbox holds the messages of the slice connected to MSGID by
# Message-ID, In-Reply-To and References. b4 handles a thread in the order
# its get_strict_thread finds messages from MSGID (a patch it is asked
# about comes before the cover it replies to), and its version inference
# depends on that order; asking about the first message makes b4's order
# the arrival order, which is the order reviewbot (a list subscriber) uses.
# `b4 am -m` itself reduces its mbox to that thread (get_strict_thread), so
# this is the same input as the whole slice, and 5x faster. The ordered
# patch Message-IDs b4 writes, and the numbers it reports missing, must
# equal reviewbot's `patches` for at least RB_B4_MIN of the sample
# (default 0.99). b4 runs offline: HOME and git config in a temporary
# directory, -C (no cache), attestation off, a working directory outside
# any git tree.
#
# RB_B4_MODE=bench (bench/series.sh) checks every series of the mbox
# (RB_B4_MBOX, default the whole corpus) with b4's own assembly code
# called in-process (b4.get_strict_thread, LoreMailbox.add_message and
# get_series: what `b4 am` runs before it writes files), checks a CLI
# sample as well, and writes a Markdown report to RB_B4_REPORT.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${RB_SRC:-$here/..}
shared=${RB_SHARED:-$src/../shared}
bin=${RB_BIN:-$src/build/bot/reviewbot}
mode=${RB_B4_MODE:-test}
corpus=$shared/corpus/linux-api.mbox.xz

# The CLI first, without b4: the seed series (no Message-ID, no threading
# headers; 8/9 was never sent) comes out as one series, v2 of 9, missing 8,
# from the files and from an mbox on stdin; bad mail is named and skipped.
[ -x "$bin" ] || { echo "no reviewbot binary at $bin"; exit 1; }
. "$here/need.sh"
RB_SHARED=$shared rb_need_shared seeds
seeds=$(ls "$shared"/seeds/00[1-9]-*)
check_seeds() {
	"${py0:-python3}" -c '
import json, sys
s = [json.loads(l) for l in sys.stdin]
assert len(s) == 1, s
s = s[0]
assert (s["version"], s["total"], s["complete"], s["missing"]) == \
    (2, 9, False, [8]), s
assert s["cover"] and s["patches"][7] is None and all(
    p for i, p in enumerate(s["patches"]) if i != 7), s
assert s["author"] == "ljs@kernel.org" and s["unthreaded"], s
print("seed series: v2, 9 parts, missing [8]")'
}
# shellcheck disable=SC2086
"$bin" series --json $seeds | check_seeds
for f in $seeds; do printf 'From seed Thu Jan  1 00:00:00 1970\n'; cat "$f"; done |
	"$bin" series --json - | check_seeds
printf 'From a\nnot a header\n\n' >"${TMPDIR:-/tmp}/rb-bad.$$"
"$bin" series --json "${TMPDIR:-/tmp}/rb-bad.$$" 2>&1 >/dev/null |
	grep -q "rb-bad.$$:1: " || { echo "bad mail not named FILE:N"; exit 1; }
rm -f "${TMPDIR:-/tmp}/rb-bad.$$"
if "$bin" series >/dev/null 2>&1; then echo "no usage error"; exit 1; fi

command -v b4 >/dev/null || rb_skip "b4 is not installed (scripts/install-deps.sh test)"
RB_SHARED=$shared rb_need_shared corpus/linux-api.mbox.xz

work=$(mktemp -d "${TMPDIR:-/tmp}/rb-series-b4.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
cat >"$work/home/.gitconfig" <<'EOF'
[b4]
	attestation-policy = off
	midmask = https://127.0.0.1/%s
	linkmask = https://127.0.0.1/%s
[user]
	name = reviewbot test
	email = test@example.invalid
EOF
export HOME=$work/home GIT_CONFIG_GLOBAL=$work/home/.gitconfig
export GIT_CONFIG_NOSYSTEM=1 GIT_CEILING_DIRECTORIES=$work
export XDG_CACHE_HOME=$work/home/.cache XDG_DATA_HOME=$work/home/.local
# Nothing may leave the machine: a proxy that does not exist.
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9

mbox=${RB_B4_MBOX:-}
if [ -z "$mbox" ]; then
	mbox=$work/slice.mbox
	if [ "$mode" = bench ]; then
		xz -dc "$corpus" >"$mbox"
	else
		# "From " starts a message: the corpus is mboxrd, body lines
		# are quoted as ">From ".
		xz -dc "$corpus" | awk -v n="${RB_B4_SLICE:-5000}" \
			'/^From /{c++; if (c > n) exit} {print}' >"$mbox" || true
	fi
fi

"$bin" series --json --stats "$mbox" >"$work/rb.jsonl" 2>"$work/rb.err" || {
	echo "reviewbot series failed:"
	tail -n 20 "$work/rb.err"
	exit 1
}
tail -n 1 "$work/rb.err"

cd "$work"
py=$(head -n 1 "$(command -v b4)" | sed -n "s/^#! *//p")
"${py:-/usr/bin/python3}" - "$mode" "$mbox" "$work/rb.jsonl" "$work" <<'PY'
import email.parser
import email.policy
import email.utils
import json
import logging
import mailbox
import os
import re
import subprocess
import sys
import time

import b4

mode, mbox_path, rb_path, work = sys.argv[1:5]
sample_n = int(os.environ.get('RB_B4_SAMPLE', '200'))
min_rate = float(os.environ.get('RB_B4_MIN', '0.99'))
report_path = os.environ.get('RB_B4_REPORT')
cli_n = int(os.environ.get('RB_B4_CLI_SAMPLE',
                           str(sample_n if mode == 'bench' else 40)))

b4.can_network = False
logging.getLogger('b4').setLevel(logging.CRITICAL + 1)

# --- threads of the mbox, by Message-ID, In-Reply-To and References ---
t0 = time.time()
mbx = mailbox.mbox(mbox_path, create=False)
keys = mbx.keys()
hp = email.parser.BytesHeaderParser(policy=email.policy.compat32)
parent = {}


def find(x):
    while parent.setdefault(x, x) != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def union(a, b):
    a, b = find(a), find(b)
    if a != b:
        parent[b] = a


key_mid = {}
mid_keys = {}
for k in keys:
    raw = mbx.get_bytes(k)
    end = raw.find(b'\n\n')
    hdr = hp.parsebytes(raw if end < 0 else raw[:end + 1])
    mid = b4.LoreMessage.get_clean_msgid(hdr)
    refs = []
    for h in ('in-reply-to', 'references'):
        refs += [x[1] for x in email.utils.getaddresses(
            [str(v) for v in hdr.get_all(h, [])]) if x[1]]
    node = mid if mid else f'nomsgid-{k}'
    key_mid[k] = node
    mid_keys.setdefault(node, []).append(k)
    for r in refs:
        union(node, r)
comp = {}
for k in keys:
    comp.setdefault(find(key_mid[k]), []).append(k)
t_index = time.time() - t0

series = [json.loads(line) for line in open(rb_path)]


def first_patch(s):
    for p in s['patches']:
        if p:
            return p
    return s['cover']


def thread_first(msgid):
    """The first message of @msgid's thread in the mbox."""
    ks = comp.get(find(msgid)) if msgid in parent else None
    return key_mid[ks[0]] if ks else msgid


def b4_inproc(msgid, version):
    """b4 am's own assembly, without writing files."""
    ks = comp.get(find(msgid)) if msgid in parent else None
    if not ks:
        return None
    msgs = [mbx.get_message(k) for k in ks]
    strict = b4.get_strict_thread(msgs, msgid)
    if not strict:
        return None
    lmbx = b4.LoreMailbox()
    for m in strict:
        lmbx.add_message(m)
    try:
        lser = lmbx.get_series(revision=version, reroll=True)
    except Exception as e:  # b4 itself fails (IndexError in reroll)
        return 'b4 failed: %r' % e
    if lser is None:
        return []
    return [p.msgid if p is not None else None for p in lser.patches[1:]]


def b4_cli(msgid, version, idx):
    """`b4 am` itself: the Message-IDs it writes, None where missing."""
    ks = comp.get(find(msgid)) if msgid in parent else None
    if not ks:
        return None
    d = os.path.join(work, 'b4-%d' % idx)
    os.makedirs(d)
    tmbox = os.path.join(d, 'thread.mbox')
    # The messages' own bytes, From_ lines included: re-serializing
    # through the mailbox module would requote lines and change them.
    with open(tmbox, 'wb') as out:
        for k in ks:
            raw = mbx.get_bytes(k, from_=True)
            out.write(raw if raw.endswith(b'\n') else raw + b'\n')
            out.write(b'\n')
    r = subprocess.run(['b4', 'am', '-C', '-m', tmbox, '-v', str(version),
                        '-o', d, msgid], cwd=d, capture_output=True,
                       text=True, errors='replace', timeout=120)
    if r.returncode and 'Traceback' in r.stderr:
        # b4 crashed after its assembly (0.12 raises ValueError copying a
        # folded Subject into its output): the caller falls back to the
        # assembly in-process and counts the crash.
        return ('crash', r.stderr.strip().splitlines()[-1])
    missing = [int(m.group(1)) for m in
               re.finditer(r'ERROR: missing \[(\d+)/(\d+)\]', r.stderr)]
    got = []
    for f in sorted(os.listdir(d)):
        if f.endswith('.mbx'):
            for m in mailbox.mbox(os.path.join(d, f)):
                got.append(b4.LoreMessage.get_clean_msgid(m))
    if not got:
        return []
    total = len(got) + len(missing)
    res, it = [], iter(got)
    for i in range(1, total + 1):
        res.append(None if i in missing else next(it))
    return res


def pick(n):
    if len(series) <= n:
        return list(range(len(series)))
    return sorted({(i * len(series)) // n for i in range(n)})


crashes = []


def check(idxs, fn, label, ask=thread_first):
    agree, bad = 0, []
    t = time.time()
    for i in idxs:
        s = series[i]
        mid = ask(first_patch(s))
        want = fn(mid, s['version'], i) if fn is b4_cli else \
            fn(mid, s['version'])
        if isinstance(want, tuple):
            crashes.append((s, mid, want[1]))
            want = b4_inproc(mid, s['version'])
        if want == s['patches']:
            agree += 1
        else:
            bad.append((s, mid, want))
    unthreaded = sum(1 for b in bad if b[0].get('unthreaded'))
    if unthreaded:
        print('  of the disagreements, %d are series joined by the '
              'unthreaded fallback' % unthreaded)
    joined = sum(1 for i in idxs if series[i].get('unthreaded'))
    dt = time.time() - t
    rate = agree / len(idxs) if idxs else 1.0
    print('%s: %d/%d series agree with b4 (%.2f%%), %.1f s' %
          (label, agree, len(idxs), 100 * rate, dt))
    # Series joined from unthreaded mail (patchwork's rule) are outside
    # what b4 can assemble: they are listed, and the target applies to
    # the threaded ones.
    threaded = len(idxs) - joined
    trate = (agree - (joined - unthreaded)) / threaded if threaded else 1.0
    print('  threaded series: %d/%d agree (%.2f%%)' %
          (agree - (joined - unthreaded), threaded, 100 * trate))
    check.threaded_rate = trate
    if fn is b4_cli and crashes:
        print('  b4 am crashed on %d of them (compared with its assembly '
              'in-process instead): %s' % (len(crashes), crashes[0][2]))
    return rate, bad, dt


def show(bad, limit=None):
    lines = []
    for s, mid, want in bad[:limit]:
        why = ''
        if s.get('unthreaded'):
            why = (' (unthreaded: reviewbot joined parts sent without '
                   'threading headers, as patchwork does; b4 only follows '
                   'threads)')
        lines.append('- v%d "%s" <%s>: asked `%s`%s' %
                     (s['version'], s['title'], s['author'], mid, why))
        lines.append('  - reviewbot: %s' % json.dumps(s['patches']))
        lines.append('  - b4:        %s' % json.dumps(want))
    return lines


if mode != 'bench':
    # Every series of the slice against b4's assembly in-process (fast),
    # and a smaller sample through the b4 CLI, which shows that the
    # in-process calls are what `b4 am` does.
    check(list(range(len(series))), b4_inproc,
          'b4 in-process, every series of the slice')
    rate_all = check.threaded_rate
    rate, bad, _ = check(pick(cli_n), b4_cli, 'b4 am (CLI)')
    rate = min(rate_all, check.threaded_rate)
    print('\n'.join(show(bad, 20)))
    if len(pick(cli_n)) < cli_n:
        print('only %d series in the slice, %d wanted: raise RB_B4_SLICE'
              % (len(series), cli_n))
        sys.exit(1)
    sys.exit(0 if rate >= min_rate else 1)

# bench: every series in-process, a sample through the CLI
rate, bad, dt = check(list(range(len(series))), b4_inproc, 'b4 in-process')
trate = check.threaded_rate
prate, pbad, _ = check(list(range(len(series))), b4_inproc,
                       'b4 in-process, asked about patch 1',
                       ask=lambda m: m)
crate, cbad, cdt = check(pick(cli_n), b4_cli, 'b4 am (CLI)')
# b4's series that reviewbot does not report (by thread and version)
rb_parts = set()
for s in series:
    for p in s['patches']:
        if p:
            rb_parts.add((p, s['version']))
b4_only = []
for root, ks in comp.items():
    msgs = [mbx.get_message(k) for k in ks]
    lmbx = b4.LoreMailbox()
    seen = set()
    for m in msgs:
        mid = b4.LoreMessage.get_clean_msgid(m)
        if mid in seen:
            continue
        seen.add(mid)
        lmbx.add_message(m)
    for rev in sorted(lmbx.series):
        ps = [p for p in lmbx.series[rev].patches[1:] if p is not None]
        if ps and not any((p.msgid, rev) in rb_parts for p in ps):
            b4_only.append((rev, ps[0].subject, ps[0].msgid))
with open(report_path or os.path.join(work, 'report.md'), 'w') as f:
    f.write('Series checked: %d (every series `reviewbot series` found in '
            'the mbox); threads indexed in %.1f s.\n\n' %
            (len(series), t_index))
    f.write('| check | series | agree | rate |\n| --- | --- | --- | --- |\n')
    f.write('| b4 assembly in-process (get_strict_thread, LoreMailbox, '
            'get_series) | %d | %d | %.2f%% |\n' %
            (len(series), len(series) - len(bad), 100 * rate))
    f.write('| the same, series formed by the unthreaded fallback left '
            'out | %d | %d | %.2f%% |\n' % (
                len(series) - sum(1 for x in series if x.get('unthreaded')),
                len(series) - sum(1 for x in series if x.get('unthreaded'))
                - sum(1 for b in bad if not b[0].get('unthreaded')),
                100 * trate))
    f.write('| `b4 am -C -m THREAD -v N -o DIR MSGID` (sample) | %d | %d | '
            '%.2f%% |\n\n' % (len(pick(cli_n)), len(pick(cli_n)) -
                              len(cbad), 100 * crate))
    f.write('MSGID is the first message of the series\' thread in the '
            'mbox (usually the cover letter or patch 1): b4 handles a '
            'thread in the order get_strict_thread finds its messages '
            'from MSGID, and some results depend on that order (see '
            'below). Asked about patch 1 of each series instead, b4 '
            'agrees on %d of %d (%.2f%%).\n\n' %
            (len(series) - len(pbad), len(series), 100 * prate))
    f.write('Series b4 finds in a thread that reviewbot does not report '
            '(pull requests with a diff, ...): %d\n\n' % len(b4_only))
    for rev, subj, mid in b4_only[:100]:
        f.write('- v%d "%s" `%s`\n' % (rev, subj, mid))
    f.write('\n### Every disagreement (in-process)\n\n')
    f.write('\n'.join(show(bad)) + '\n')
    f.write('\n### Disagreements when asked about patch 1 '
            '(in-process)\n\n')
    f.write('\n'.join(show(pbad)) + '\n')
    f.write('\n### Disagreements of the CLI sample\n\n')
    f.write('\n'.join(show(cbad)) + '\n')
print('report written')
PY
