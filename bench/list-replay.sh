#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/list-replay.sh - a week on the list, measured (issues 15, 34): the
# whole linux-api archive (30,571 mails, 2019 to 2026) through the daemon,
# "reviewbot run --once" over a file source, with the linux 6.1 tree and
# the default config but every subsystem advisory, as a new user would
# run it. Then, from the store and the outbox:
#   - series by state, mails by kind (bench/replay_report.py);
#   - issue 34's acceptance: mails about another project's series, mails
#     that miss the poster, addresses no mail can reach, author notices
#     where no section opted in: each 0;
#   - the share of the mails for people that reach the list (linux-api
#     in the envelope);
#   - findings per review mail and words of commentary per review mail;
#   - recipients the cap trimmed; version links across authors;
#   - the precision of the findings that were sent, by the labels of
#     bench/labels/findings.tsv (unlabelled ones are listed to be labelled).
# The archive's patches are based on trees from 2019 to 2026, and only
# 6.1 is here, so most series do not apply: the apply-failure mails are
# the part of this figure that depends on the tree, not on the bot.
#
# usage: bench/list-replay.sh [REVIEWBOT] [OUT]
#   REVIEWBOT default build/bot/reviewbot; OUT default
#   bench/RESULTS-replay.md. REPLAY_WORK=DIR keeps the run;
#   REPLAY_BEFORE=STORE adds a "before" column from an earlier run's store.
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
bench_replay_config "$work" "$corpus" "$tree"
"$bin" check-config -c "$work/config.yaml" >/dev/null ||
	bench_die "the replay config does not check"
t0=$(date +%s)
"$bin" run --once -c "$work/config.yaml" >"$work/run.out" 2>"$work/run.log" ||
	bench_die "reviewbot run failed: $(tail -3 "$work/run.log")"
secs=$(($(date +%s) - t0))

python3 - "$work/rb.db" "$here/bench/labels/findings.tsv" "$here/bench" \
	"$tree" "$secs" "$("$bin" --version | head -1)" "${REPLAY_BEFORE:-}" \
	"$work/run.out" >"$out" <<'PY'
import collections, sqlite3, sys
db_path, labels_path, bench, tree, secs, version, before, summary = sys.argv[1:9]
sys.path.insert(0, bench)
import precision, replay_report
db = sqlite3.connect(db_path)
db.text_factory = lambda b: b.decode("utf-8", "replace")
out = sys.stdout
w = lambda *a: print(*a, file=out)
after = replay_report.figures(db_path, tree)
old = replay_report.figures(before, tree) if before else None
w("## A week on the list: the linux-api archive through the daemon")
w("")
w("Run with %s: `bench/list-replay.sh`, %s s on 2 shared cores. The"
  " whole archive (30,571 mails) through `reviewbot run --once` over a"
  " file source, linux 6.1 as the only tree, the default config with"
  " every subsystem advisory (so apply failures go to the admins, the"
  " default, and no section opted into author notices)." % (version, secs))
w("")
if old:
    w("| figure | before | after |")
    w("| --- | ---: | ---: |")
    for k in list(dict.fromkeys(list(old) + list(after))):
        w("| %s | %s | %s |" % (k, old.get(k, 0), after.get(k, 0)))
else:
    w("| figure | value |")
    w("| --- | ---: |")
    for k, v in after.items():
        w("| %s | %s |" % (k, v))
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
w("")
w("| findings sent (after) | |")
w("| --- | ---: |")
w("| findings sent | %d |" % (n + len(unl)))
w("| of them labelled: true / debatable / false | %d / %d / %d |" % (
    sent["true"], sent["debatable"], sent["false"]))
w("| strict precision of what was sent (labelled) | %s |" %
  ("%.0f%%" % (100.0 * sent["true"] / n) if n else "-"))
w("| sent but not labelled | %d |" % len(unl))
w("")
w("`run --once` said at the end:")
w("")
w("```")
w(open(summary).read().rstrip())
w("```")
w("")
for f, msg in unl:
    sys.stderr.write("sent, not labelled: %s %s %s:%s %s\n" % (
        f["msgid"], f["category"], f["file"], f["line"],
        " ".join((msg or "").split())[:120]))
PY
cat "$out"
