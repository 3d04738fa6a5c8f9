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
  pick STORE N SEED             a seeded choice of N reviewed series of
                                STORE (how labels/cp-series.txt was made)
  export STORE DIR LIST         writes the patches of each series of LIST
                                (labels/cp-series.txt) from STORE as
                                DIR/NNNN/MM.eml; prints "DIR/NNNN SERIES"
  tag SRC                       stdin: "PATH<TAB>json" (reviewbot check
                                --json output prefixed with the patch
                                file); stdout: a run file
  sample RUN LABELS SEED        the stratified sample (see QUOTA) of RUN
                                that LABELS does not hold yet, as label
                                rows with an empty label
  topup ALL LABELS SEED N RULE...
                                stage 2 of the sampling: label rows for
                                up to N labels of each RULE (rules that
                                may be on by default), other patches
                                first
  report RUN ALL EMITTED LABELS NA NC TABLE
                                the per-rule table (Markdown) of RUN (the
                                raw run), ALL (after filter and dedup,
                                every rule on) and EMITTED (the default),
                                with NA and NC the patches of the archive
                                and of the checkpatch sample and TABLE the
                                defaults (findings-post --table); the
                                unlabelled findings the default emits on
                                stderr
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


def emit(f):
    f["key"] = key_of(f)
    sys.stdout.write(json.dumps(f, ensure_ascii=False) + "\n")


def kernel_series(db, tree):
    """Series whose patches touch only paths under the kernel tree's top
    directories (arch/, mm/, include/, tools/, ...). The daemon runs the
    checkers only on a series that applied to a configured kernel tree, so
    the glibc, coreutils and man-pages patches that also reach linux-api
    never get findings from it: they are not in the population the
    default is measured on."""
    top = set(os.listdir(tree)) if tree else None
    out = {}
    rows = db.execute("""
        SELECT p.series_id, m.raw FROM patches p
        JOIN messages m ON m.message_id = p.message_id WHERE p.idx > 0""")
    for sid, raw in rows:
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "replace")
        paths = re.findall(rb"(?m)^(?:\+\+\+ b|--- a)/(\S+)", raw or b"")
        ok = all(p.split(b"/")[0].decode("utf-8", "replace") in top
                 for p in paths) if top is not None else True
        out[sid] = out.get(sid, True) and ok
    return out


def cmd_archive(store, tree=None):
    db = sqlite3.connect(store)
    kernel = kernel_series(db, tree)
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
        emit({"src": "archive", "kernel": kernel.get(r[0], True),
              "series": r[0], "previous": r[1],
              "version": r[2], "total": r[3], "patch": r[4], "msgid": r[5],
              "checker": r[6], "category": r[7], "severity": r[8],
              "file": r[9], "line": r[10] or 0, "code": r[11],
              "message": r[12], "fingerprint": r[13], "state": r[14]})


def cmd_pick(store, n, seed):
    """The seeded choice of N reviewed series (how cp-series.txt was
    made), as "series<TAB>patch Message-IDs"."""
    db = sqlite3.connect(store)
    series = [r[0] for r in db.execute(
        "SELECT id FROM series WHERE state = 'reviewed' ORDER BY id")]
    pick = random.Random(int(seed)).sample(series, min(int(n), len(series)))
    for sid in sorted(pick):
        ids = [r[0] for r in db.execute(
            "SELECT message_id FROM patches WHERE series_id = ? AND idx > 0"
            " ORDER BY idx", (sid,))]
        if ids:
            print("%s\t%s" % (sid, " ".join(ids)))


def cmd_export(store, out, listfile):
    """Writes the patches of each series of LIST (cp-series.txt) from
    the store's raw messages as DIR/NNNN/MM.eml, by Message-ID, so that
    the set does not move when series assembly changes."""
    db = sqlite3.connect(store)
    k = 0
    for l in open(listfile):
        if l.startswith("#") or not l.strip():
            continue
        sid, ids = l.rstrip("\n").split("\t")
        d = os.path.join(out, "%04d" % k)
        k += 1
        wrote = 0
        for i, mid in enumerate(ids.split(), 1):
            r = db.execute("SELECT raw FROM messages WHERE message_id = ?",
                           (mid,)).fetchone()
            if not r:
                continue
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "%02d.eml" % i), "wb") as fh:
                fh.write(r[0])
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


def label_for(labels, k):
    return labels.get(k)


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
    by_rule = defaultdict(dict)
    for f in fs:
        by_rule[rule_of(f)].setdefault(f["key"], f)
    rnd = random.Random(int(seed))
    print("\t".join(LABEL_COLS))
    for rule in sorted(by_rule):
        fr = by_rule[rule]
        keys = sorted(fr)
        quota = QUOTA.get(fr[keys[0]]["checker"], 5)
        lab = lambda k: label_for(labels, k)
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


def cmd_topup(run, labels_path, seed, n, *rules):
    """Stage 2: the rules that may be on get up to N labels each, from
    patches not labelled for the rule yet first (one finding a patch),
    seeded; run on the "after filter and dedup" file of a run."""
    fs = read_run(run)
    labels = read_labels(labels_path)
    rnd = random.Random(int(seed))
    print("\t".join(LABEL_COLS))
    for rule in rules:
        fr = {}
        for f in fs:
            if rule_of(f) == rule:
                fr.setdefault(f["key"], f)
        keys = sorted(fr)
        done = [k for k in keys if label_for(labels, k)]
        have = set(fr[k]["msgid"] for k in done)
        todo = [k for k in keys if not label_for(labels, k)]
        rnd.shuffle(todo)
        # One finding a patch first (patches not labelled for the rule
        # yet), then the rest, in the shuffled order.
        first, rest, used = [], [], set(have)
        for k in todo:
            if fr[k]["msgid"] in used:
                rest.append(k)
            else:
                first.append(k)
                used.add(fr[k]["msgid"])
        pick = (first + rest)[:max(0, int(n) - len(done))]
        for k in sorted(pick):
            f = fr[k]
            p = k.split("|")
            code = " ".join((f.get("code") or "").split())[:160]
            print("\t".join([p[0], p[1], p[2], p[3], p[4], p[5], "", "",
                             f["src"], code]))


def pct(a, b):
    return "%.0f%%" % (100.0 * a / b) if b else "-"


def counts(fs, labels):
    """Label counts per rule over the distinct keys of @fs."""
    lab = defaultdict(Counter)
    seen = set()
    for f in fs:
        if f["key"] in seen:
            continue
        seen.add(f["key"])
        l = label_for(labels, f["key"])
        lab[rule_of(f)][l["label"] if l and l["label"] else "none"] += 1
    return lab


def strict(c):
    n = c["true"] + c["debatable"] + c["false"]
    return c["true"], n


def daemon_reaches(f):
    """The daemon reviews only series that applied to a kernel tree."""
    return f.get("kernel", True)


def cmd_report(run, all_rules, emitted, labels_path, patches_arch,
               patches_cp, table=None):
    fs = read_run(run)
    al = read_run(all_rules)
    em = read_run(emitted)
    n_out = sum(1 for f in fs if not daemon_reaches(f))
    fs = [f for f in fs if daemon_reaches(f)]
    al = [f for f in al if daemon_reaches(f)]
    em = [f for f in em if daemon_reaches(f)]
    labels = read_labels(labels_path)
    dflt = {}
    if table:
        for l in open(table):
            checker, cat, on, prec, n = l.rstrip("\n").split("\t")
            r = cat if checker == "commit-msg" else checker + ":" + cat
            dflt[r] = on == "on"
    n_run = Counter(rule_of(f) for f in fs)
    n_all = Counter(rule_of(f) for f in al)
    n_em = Counter(rule_of(f) for f in em)
    lab = counts(al, labels)
    w = print
    w("Per rule: its findings in the run; what is left of them after the")
    w("checkpatch filter and rb_findings_postprocess() with every rule on")
    w("(the rule as the bot would say it); the labels of those; and how")
    w("many the shipped default emits. Strict precision = true / labelled.")
    w("A rule is on by default when it reaches 90% on 3 or more labels.")
    w("Left out: %d findings of the archive on series that touch paths no"
      " kernel tree has (glibc, coreutils, man-pages ...): the daemon"
      " reviews a series only once it applied to a configured tree, so it"
      " never says them." % n_out)
    w("")
    w("| rule | in the run | after filter and dedup | labelled | true | "
      "debatable | false | strict precision | default | emitted |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    rules = sorted(set(n_run) | set(n_all),
                   key=lambda r: (r.startswith("checkpatch"), r))
    tot = Counter()
    for r in rules:
        c = lab[r]
        t, n = strict(c)
        on = dflt.get(r)
        w("| %s | %d | %d | %d | %d | %d | %d | %s | %s | %d |" % (
            r, n_run[r], n_all[r], n, t, c["debatable"], c["false"],
            pct(t, n), "on" if on else "off", n_em[r]))
        tot.update(c)
    t, n = strict(tot)
    w("| all | %d | %d | %d | %d | %d | %d | %s | | %d |" % (
        len(fs), len(al), n, t, tot["debatable"], tot["false"], pct(t, n),
        len(em)))
    w("")
    # The run as it was before any of this, every rule on, no filter.
    raw = counts(fs, labels)
    rt = Counter()
    for c in raw.values():
        rt.update(c)
    t, n = strict(rt)
    w("Every rule on, no filter, no dedup (the old behaviour): %d findings,"
      " %d labelled, strict precision %s." % (len(fs), n, pct(t, n)))
    ec = Counter()
    unl = []
    for f in em:
        l = label_for(labels, f["key"])
        if l and l["label"]:
            ec[l["label"]] += 1
        else:
            unl.append(f)
    t, n = ec["true"], ec["true"] + ec["debatable"] + ec["false"]
    w("")
    w("**The shipped default** emits %d findings; %d of them are labelled:"
      " %d true, %d debatable, %d false: strict precision **%s**; %d not"
      " labelled." % (len(em), n, t, ec["debatable"], ec["false"],
                      pct(t, n), len(unl)))
    w("")
    w("| set | patches | findings, every rule on, before | "
      "emitted by default | per patch, before | per patch, default |")
    w("| --- | ---: | ---: | ---: | ---: | ---: |")
    for src, what, np in (("p112", "corpus/apply-6.1 (both checkers)", 112),
                          ("archive", "linux-api archive (commit-msg)",
                           int(patches_arch)),
                          ("archive-cp", "150 archive series (checkpatch)",
                           int(patches_cp))):
        b = sum(1 for f in fs if f["src"] == src)
        e = sum(1 for f in em if f["src"] == src)
        w("| %s | %d | %d | %d | %.2f | %.3f |" % (
            what, np, b, e, b / np if np else 0, e / np if np else 0))
    for f in unl:
        sys.stderr.write("unlabelled emitted: %s\t%s\n" % (
            f["key"], " ".join((f.get("code") or "").split())[:100]))
    nl = set(f["key"] for f in al if not label_for(labels, f["key"]))
    sys.stderr.write("%d findings after filter and dedup are not labelled\n"
                     % len(nl))


def cmd_tree_report(run, labels_path):
    """The tree checkers (issue 32): per rule, the findings of @run,
    their labels and the strict precision; unlabelled keys on stderr."""
    fs = read_run(run)
    labels = read_labels(labels_path)
    lab = counts(fs, labels)
    print("| rule | findings | true | debatable | false | unlabelled |"
          " strict precision |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for rule in sorted(lab):
        c = lab[rule]
        t, n = strict(c)
        print("| %s | %d | %d | %d | %d | %d | %s |" % (
            rule, sum(c.values()), c["true"], c["debatable"], c["false"],
            c["none"], pct(t, n)))
    seen = set()
    for f in fs:
        if f["key"] in seen or label_for(labels, f["key"]):
            continue
        seen.add(f["key"])
        sys.stderr.write("\t".join([f["msgid"], f["checker"],
                                     f["category"], f.get("file") or "-",
                                     str(f.get("line") or 0),
                                     code_hash(f.get("code")), "", "",
                                     f["src"], " ".join(
                                         (f.get("message") or "").split())
                                     [:300]]) + "\n")


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
    elif cmd == "pick":
        cmd_pick(*a)
    elif cmd == "export":
        cmd_export(*a)
    elif cmd == "tag":
        cmd_tag(*a)
    elif cmd == "sample":
        cmd_sample(*a)
    elif cmd == "topup":
        cmd_topup(*a)
    elif cmd == "report":
        cmd_report(*a)
    elif cmd == "tree-report":
        cmd_tree_report(*a)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
