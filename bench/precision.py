#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""precision.py - the helpers of bench/precision.sh.

A finding of a run is one JSON object per line (a "run file"):
  src       p112 (corpus/apply-6.1, checked on linux 6.1), archive (the
            linux-api archive through "reviewbot review"), archive-cp
            (checkpatch --no-apply on a seeded sample of archive series)
  series    the series id (cover or first patch Message-ID)
  previous  the series id of the previous version, or ""
  msgid     the Message-ID of the patch (the series id for series-wide
            findings, patch 0)
  patch, total, checker, category, severity, file, line, code, message,
  fingerprint, state (archive: raised/dropped by the old policy cap)
  key       msgid|checker|category|file|line|sha256(code, whitespace
            collapsed)[:12]: what a label is matched on

Subcommands:
  archive STORE                 the findings table of a "reviewbot review"
                                store, as a run file on stdout
  export STORE DIR N SEED       writes N seeded reviewed series of STORE as
                                DIR/NNNN/MM.eml; prints "DIR/NNNN SERIES"
  tag SRC                       stdin: "PATH<TAB>json" (reviewbot check
                                --json output prefixed with the patch
                                file); stdout: a run file
  sample RUN LABELS SEED        the stratified sample (see QUOTA) of RUN
                                that LABELS does not hold yet, as label
                                rows with an empty label
  report RUN EMITTED LABELS     the per-rule table and the default's
                                precision (Markdown), and the unlabelled
                                findings of RUN and EMITTED on stderr
"""
import email
import email.policy
import hashlib
import io
import json
import os
import random
import re
import sqlite3
import sys
from collections import Counter, defaultdict

LABEL_COLS = ["msgid", "checker", "rule", "file", "line", "code_hash",
              "label", "reason", "src", "code"]


def code_hash(code):
    norm = " ".join((code or "").split())
    return hashlib.sha256(norm.encode("utf-8", "replace")).hexdigest()[:12]


def key_of(f):
    return "|".join([f["msgid"], f["checker"], f["category"],
                     f.get("file") or "-", str(f.get("line") or 0),
                     code_hash(f.get("code"))])


def loose_key(k):
    """The key without its line: a label survives a line shift."""
    p = k.split("|")
    return "|".join(p[:4] + p[5:])


def emit(f):
    f["key"] = key_of(f)
    sys.stdout.write(json.dumps(f, ensure_ascii=False) + "\n")


def cmd_archive(store):
    db = sqlite3.connect(store)
    db.text_factory = lambda b: b.decode("utf-8", "replace")
    rows = db.execute("""
        SELECT f.series_id, COALESCE(s.previous, ''), s.version, s.total,
               f.patch_idx, COALESCE(p.message_id, f.series_id), f.checker,
               f.category, f.severity, f.file, f.line, f.code, f.message,
               f.fingerprint, f.state
        FROM findings f JOIN series s ON s.id = f.series_id
        LEFT JOIN patches p ON p.series_id = f.series_id
                           AND p.idx = f.patch_idx AND f.patch_idx > 0
        ORDER BY s.first_seen, s.rowid, f.id""")
    for r in rows:
        emit({"src": "archive", "series": r[0], "previous": r[1],
              "version": r[2], "total": r[3], "patch": r[4], "msgid": r[5],
              "checker": r[6], "category": r[7], "severity": r[8],
              "file": r[9], "line": r[10] or 0, "code": r[11],
              "message": r[12], "fingerprint": r[13], "state": r[14]})


def cmd_export(store, out, n, seed):
    db = sqlite3.connect(store)
    series = [r[0] for r in db.execute(
        "SELECT id FROM series WHERE state = 'reviewed' ORDER BY id")]
    pick = random.Random(int(seed)).sample(series, min(int(n), len(series)))
    for k, sid in enumerate(sorted(pick)):
        d = os.path.join(out, "%04d" % k)
        os.makedirs(d, exist_ok=True)
        rows = db.execute("""
            SELECT p.idx, m.raw FROM patches p
            JOIN messages m ON m.message_id = p.message_id
            WHERE p.series_id = ? AND p.idx > 0 ORDER BY p.idx""", (sid,))
        wrote = 0
        for idx, raw in rows:
            with open(os.path.join(d, "%02d.eml" % idx), "wb") as fh:
                fh.write(raw)
            wrote += 1
        if wrote:
            print(d, sid)


_msgids = {}


def msgid_of(path):
    if path not in _msgids:
        with open(path, "rb") as fh:
            m = email.message_from_binary_file(fh, policy=email.policy.compat32)
        mid = (m.get("Message-ID") or m.get("Message-Id") or "").strip()
        _msgids[path] = mid.strip("<>").strip() or os.path.basename(path)
    return _msgids[path]


def cmd_tag(src):
    """stdin: "SERIES<TAB>PATCHFILE...<TAB>json", files space-separated."""
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        series, files, js = line.split("\t", 2)
        files = files.split(" ")
        f = json.loads(js)
        p = f.get("patch") or 0
        f = {"src": src, "series": series, "previous": "", "version": 0,
             "total": len(files), "patch": p,
             "msgid": msgid_of(files[p - 1]) if 0 < p <= len(files)
             else series,
             "checker": f["checker"], "category": f["category"],
             "severity": f["severity"], "file": f.get("file"),
             "line": f.get("line") or 0, "code": f.get("code"),
             "message": f["message"], "fingerprint": f.get("fingerprint"),
             "state": "raised"}
        emit(f)


def read_run(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        return [json.loads(l) for l in fh if l.strip()]


def read_labels(path):
    labels = {}
    if not os.path.exists(path):
        return labels
    with open(path, encoding="utf-8", errors="replace") as fh:
        for l in fh:
            if l.startswith("#") or not l.strip():
                continue
            c = l.rstrip("\n").split("\t")
            if c[0] == "msgid":
                continue
            row = dict(zip(LABEL_COLS, c))
            k = "|".join([row["msgid"], row["checker"], row["rule"],
                          row["file"], row["line"], row["code_hash"]])
            labels[k] = row
    return labels


def label_for(labels, loose, k):
    if k in labels:
        return labels[k]
    return loose.get(loose_key(k))


def loose_index(labels):
    return {loose_key(k): v for k, v in labels.items()}


def rule_of(f):
    return f["category"] if f["checker"] == "commit-msg" else \
        "%s:%s" % (f["checker"], f["category"])


# Findings to label per rule: every one up to the quota, a seeded sample
# above it; a commit-msg rule gets 30, a checkpatch type 5 (70 types came
# up on the archive sample). Every finding on the 112 patches of
# corpus/apply-6.1 (the set the issue was measured on) is labelled.
QUOTA = {"commit-msg": 30, "checkpatch": 5}


def cmd_sample(run, labels_path, seed):
    fs = read_run(run)
    labels = read_labels(labels_path)
    loose = loose_index(labels)
    by_rule = defaultdict(dict)
    for f in fs:
        by_rule[rule_of(f)].setdefault(f["key"], f)
    rnd = random.Random(int(seed))
    print("\t".join(LABEL_COLS))
    for rule in sorted(by_rule):
        fr = by_rule[rule]
        keys = sorted(fr)
        quota = QUOTA.get(fr[keys[0]]["checker"], 5)
        lab = lambda k: label_for(labels, loose, k)
        must = [k for k in keys if fr[k]["src"] == "p112" and not lab(k)]
        done = [k for k in keys if lab(k)]
        todo = [k for k in keys if not lab(k) and k not in must]
        want = max(0, min(quota, len(keys)) - len(done) - len(must))
        rnd.shuffle(todo)
        for k in sorted(must + todo[:want]):
            f = fr[k]
            p = k.split("|")
            code = " ".join((f.get("code") or "").split())[:160]
            print("\t".join([p[0], p[1], p[2], p[3], p[4], p[5], "", "",
                             f["src"], code]))


def pct(a, b):
    return "%.0f%%" % (100.0 * a / b) if b else "-"


def cmd_report(run, emitted, labels_path):
    fs = read_run(run)
    em = read_run(emitted)
    labels = read_labels(labels_path)
    loose = loose_index(labels)
    out = []
    w = out.append
    rules = sorted(set(rule_of(f) for f in fs))
    n_run = Counter(rule_of(f) for f in fs)
    n_em = Counter(rule_of(f) for f in em)
    lab = defaultdict(Counter)
    seen = set()
    for f in fs:
        if f["key"] in seen:
            continue
        seen.add(f["key"])
        l = label_for(labels, loose, f["key"])
        if l and l["label"]:
            lab[rule_of(f)][l["label"]] += 1
    w("| rule | findings in the run | emitted by default | labelled | "
      "true | debatable | false | strict precision |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    tot = Counter()
    for r in sorted(rules, key=lambda r: (r.startswith("checkpatch"), r)):
        c = lab[r]
        n = c["true"] + c["debatable"] + c["false"]
        w("| %s | %d | %d | %d | %d | %d | %d | %s |" % (
            r, n_run[r], n_em[r], n, c["true"], c["debatable"], c["false"],
            pct(c["true"], n)))
        tot.update(c)
        tot["run"] += n_run[r]
        tot["em"] += n_em[r]
    n = tot["true"] + tot["debatable"] + tot["false"]
    w("| all | %d | %d | %d | %d | %d | %d | %s |" % (
        tot["run"], tot["em"], n, tot["true"], tot["debatable"],
        tot["false"], pct(tot["true"], n)))
    # What the default emits, judged by the labels.
    ec = Counter()
    unl = []
    for f in em:
        l = label_for(labels, loose, f["key"])
        if l and l["label"]:
            ec[l["label"]] += 1
        else:
            ec["unlabelled"] += 1
            unl.append(f)
    n = ec["true"] + ec["debatable"] + ec["false"]
    patches = len(set((f["src"], f["msgid"]) for f in fs if f["patch"]))
    stats = {
        "emitted": len(em), "labelled": n, "true": ec["true"],
        "debatable": ec["debatable"], "false": ec["false"],
        "unlabelled": ec["unlabelled"],
        "precision": pct(ec["true"], n),
        "run": len(fs)}
    json.dump(stats, open(emitted + ".stats", "w"))
    print("\n".join(out))
    print()
    print("Emitted by the default: %d findings, %d labelled: %d true, %d "
          "debatable, %d false; strict precision %s; %d not labelled." % (
              len(em), n, ec["true"], ec["debatable"], ec["false"],
              pct(ec["true"], n), ec["unlabelled"]))
    for f in unl:
        sys.stderr.write("unlabelled emitted: %s %s\n" % (
            f["key"], (f.get("code") or "")[:80]))
    nl = [f for f in fs if not label_for(labels, loose, f["key"])]
    sys.stderr.write("%d of %d findings in the run are not labelled "
                     "(%d keys)\n" % (len(nl), len(fs),
                                      len(set(f["key"] for f in nl))))


def main():
    # Mail is not always UTF-8: a bad byte becomes U+FFFD, on both sides.
    sys.stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8",
                                 errors="replace")
    sys.stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8",
                                  errors="replace")
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    cmd, a = a[0], a[1:]
    if cmd == "archive":
        cmd_archive(*a)
    elif cmd == "export":
        cmd_export(*a)
    elif cmd == "tag":
        cmd_tag(*a)
    elif cmd == "sample":
        cmd_sample(*a)
    elif cmd == "report":
        cmd_report(*a)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
