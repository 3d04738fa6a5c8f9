#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/list-replay.sh - a week on the list, measured (issue 15): the
# whole linux-api archive (30,571 mails, 2019 to 2026) through the daemon,
# "reviewbot run --once" over a file source, with the linux 6.1 tree and
# the default config but every subsystem advisory, as a new user would
# run it. Then, from the store and the outbox:
#   - mails per 100 series, by kind (review, apply-failure, incomplete);
#   - findings per review mail and words of commentary per review mail;
#   - the share of mails that reach the list (linux-api in the envelope);
#   - recipients the cap trimmed;
#   - the precision of the findings that were sent, by the labels of
#     bench/labels/findings.tsv (unlabelled ones are listed to be labelled).
# The archive's patches are based on trees from 2019 to 2026, and only
# 6.1 is here, so most series do not apply: the apply-failure mails are
# the part of this figure that depends on the tree, not on the bot.
#
# usage: bench/list-replay.sh [REVIEWBOT] [OUT]
#   REVIEWBOT default build/bot/reviewbot; OUT default
#   bench/RESULTS-replay.md. REPLAY_WORK=DIR keeps the run.
set -eu -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
bin=$(bench_bin "${1:-$here/build/bot/reviewbot}")
out=$(realpath -m "${2:-$here/bench/RESULTS-replay.md}")
shared=${RB_SHARED:-$here/../shared}
corpus=$shared/corpus/linux-api.mbox.xz
[ -r "$corpus" ] || bench_die "no $corpus (set RB_SHARED)"
tree=$("$here/scripts/setup-linux-tree.sh")
if [ -n "${REPLAY_WORK:-}" ]; then
	work=$REPLAY_WORK
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/rb-replay.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
rm -rf "$work/rb.db"* "$work/outbox" "$work/build-cache"
cat >"$work/config.yaml" <<EOC
store:
  path: $work/rb.db
sources:
  - type: mbox
    name: linux-api
    path: $corpus
trees:
  - name: mainline
    path: $tree
outbox:
  maildir: $work/outbox
  rate_per_hour: 100000
  rate_per_recipient_hour: 10000
  rate_per_list_hour: 100000
list_ids: [linux-api.vger.kernel.org]
admins: [admin@example.org]
policy:
  default:
    mode: advisory
EOC
"$bin" check-config -c "$work/config.yaml" >/dev/null ||
	bench_die "the replay config does not check"
t0=$(date +%s)
"$bin" run --once -c "$work/config.yaml" 2>"$work/run.log" ||
	bench_die "reviewbot run failed: $(tail -3 "$work/run.log")"
secs=$(($(date +%s) - t0))

python3 - "$work/rb.db" "$here/bench/labels/findings.tsv" "$here/bench" \
	"$tree" "$secs" "$("$bin" --version | head -1)" >"$out" <<'PY'
import collections, sqlite3, subprocess, sys, json, os
db_path, labels_path, bench, tree, secs, version = sys.argv[1:7]
sys.path.insert(0, bench)
import precision
db = sqlite3.connect(db_path)
db.text_factory = lambda b: b.decode("utf-8", "replace")
q = lambda s: db.execute(s).fetchall()
series = q("SELECT COUNT(*) FROM series")[0][0]
states = dict(q("SELECT state, COUNT(*) FROM series GROUP BY state"))
kinds = dict(q("SELECT kind, COUNT(*) FROM reviews GROUP BY kind"))
mails = sum(kinds.values())
rv = q("SELECT COUNT(*), COALESCE(SUM(findings),0), COALESCE(SUM(words),0)"
       " FROM reviews WHERE kind = 'review'")[0]
to_list = q("SELECT COUNT(*) FROM outbox WHERE rcpts LIKE"
            " '%linux-api@vger.kernel.org%'")[0][0]
capped = q("SELECT COALESCE(SUM(capped),0), COALESCE(SUM(capped > 0),0)"
           " FROM reviews")[0]
out = sys.stdout
w = lambda *a: print(*a, file=out)
w("## A week on the list: the linux-api archive through the daemon")
w("")
w("Run with %s: `bench/list-replay.sh`, %s s on 2 shared cores. The"
  " whole archive (30,571 mails) through `reviewbot run --once` over a"
  " file source, linux 6.1 as the only tree, the default config with"
  " every subsystem advisory." % (version, secs))
w("")
w("| figure | value |")
w("| --- | ---: |")
w("| series | %d |" % series)
for k, v in sorted(states.items()):
    w("| series %s | %d |" % (k, v))
for k in ("review", "apply-failure", "incomplete", "summary"):
    n = kinds.get(k, 0)
    w("| %s mails per 100 series | %.1f (%d) |" % (k, 100.0 * n / series
                                                   if series else 0, n))
w("| findings per review mail | %.2f |" % (rv[1] / rv[0] if rv[0] else 0))
w("| words of commentary per review mail | %.1f |" %
  (rv[2] / rv[0] if rv[0] else 0))
w("| mails that reach the list | %d of %d (%.0f%%) |" % (
    to_list, mails, 100.0 * to_list / mails if mails else 0))
w("| people trimmed by max_recipients | %d, in %d mails |" % capped)
# Precision of what was sent, by the labels.
labels = precision.read_labels(labels_path)
sent = collections.Counter()
unl = []
rows = db.execute("""
    SELECT COALESCE(p.message_id, f.series_id), f.checker, f.category,
           f.file, f.line, f.code, f.message
    FROM findings f JOIN reviews r ON r.message_id = f.review_msgid
    LEFT JOIN patches p ON p.series_id = f.series_id AND p.idx = f.patch_idx
                       AND f.patch_idx > 0
    WHERE f.state = 'raised'""")
for r in rows:
    f = {"msgid": r[0], "checker": r[1], "category": r[2], "file": r[3],
         "line": r[4] or 0, "code": r[5]}
    l = precision.label_for(labels, precision.key_of(f))
    if l and l["label"]:
        sent[l["label"]] += 1
    else:
        unl.append((f, r[6]))
n = sent["true"] + sent["debatable"] + sent["false"]
w("| findings sent | %d |" % (n + len(unl)))
w("| of them labelled: true / debatable / false | %d / %d / %d |" % (
    sent["true"], sent["debatable"], sent["false"]))
w("| strict precision of what was sent (labelled) | %s |" %
  ("%.0f%%" % (100.0 * sent["true"] / n) if n else "-"))
w("| sent but not labelled | %d |" % len(unl))
w("")
for f, msg in unl:
    sys.stderr.write("sent, not labelled: %s %s %s:%s %s\n" % (
        f["msgid"], f["category"], f["file"], f["line"],
        " ".join((msg or "").split())[:120]))
PY
cat "$out"
