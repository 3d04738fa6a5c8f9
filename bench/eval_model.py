#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""eval_model.py - a SCRIPTED MODEL for bench/eval.sh, NOT A REAL MODEL.

It gives "reviewbot eval" plausible findings on the buggy patches of an
evaluation set (reviewbot eval --build-set), derived deterministically
from each pair, so that the set builder, the model stage's validators,
the scorer and the report are driven end to end without a model:

  - for two pairs in three (by a hash of the buggy patch's Message-ID) a
    finding that quotes a line the fix later changed: a planted hit;
  - for every pair a finding on the first added line away from those
    lines: a planted miss.

Its recall and precision are what it was written to give; they say that
the scoring works, nothing about any model.

  eval_model.py script SET.json OUT.json
      writes a tests/model_server.py script (one finder step per pair,
      matched by a line of its patch; every verifier call confirms, with
      the finding's line and one more line it was shown as evidence).
  eval_model.py command SET.json
      the "command" provider: the prompt on stdin, the answer on stdout.
  eval_model.py cases CASES.json LABELS.json OUT.json
      a tests/model_server.py script for "reviewbot eval --inject" (the
      cases written by --cases, the hand labels of --labels): per case,
      matched by a line of its commit message, a first turn that calls
      read_file on the 41 lines around the first line the fix changed
      (read_file needs no index of the tree, so a replay stays quick),
      then on
      two cases in three a finding on a line the fix changed with a
      category the label accepts (a strict hit), on the others one with
      a category it does not (a finding near the bug that the strict
      scorer refuses); per control, matched by a line of the fix's
      message, a finding on its first added line on one control in two
      (a false positive), else none. Every verifier call confirms.

Python standard library only.
"""
import hashlib
import json
import os
import re
import sys

CATEGORIES = ["error-handling", "locking", "memory-safety", "logic", "race",
              "api-misuse"]
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def added_lines(patch):
    """(file, new-side line, text) of every '+' line of a unified diff."""
    out, path, new = [], None, 0
    for line in patch.split("\n"):
        if line.startswith("+++ "):
            p = line[4:].strip()
            path = p[2:] if p.startswith("b/") else p
            continue
        if line.startswith("diff --git") or line.startswith("--- "):
            continue
        m = HUNK.match(line)
        if m:
            new = int(m.group(1))
            continue
        if not path or not new:
            continue
        if line.startswith("+"):
            out.append((path, new, line[1:]))
            new += 1
        elif line.startswith(" ") or line == "":
            new += 1
    return out


def usable(text):
    """A line the validators accept as a quote, and plain ASCII."""
    t = text.strip()
    return len(t) >= 12 and t.isascii() and sum(c.isalnum() for c in t) >= 6


def finding(path, line, text, category, question):
    return {"file": path, "side": "new", "line": line,
            "quoted_code": text.strip(), "category": category,
            "severity": "medium", "confidence": 0.7,
            "introduced_by_patch": True,
            "trigger_scenario": "scripted model: no scenario",
            "question": question}


def plan(pairs):
    """[(match string, findings)] per pair."""
    texts = [p["buggy"]["patch"] for p in pairs]
    out = []
    for i, p in enumerate(pairs):
        adds = [a for a in added_lines(p["buggy"]["patch"]) if usable(a[2])]
        others = texts[:i] + texts[i + 1:]
        match = next((a[2] for a in adds
                      if not any(a[2] in t for t in others)),
                     adds[0][2] if adds else None)
        h = int(hashlib.sha256(p["buggy"]["message_id"].encode())
                .hexdigest(), 16)
        cat = CATEGORIES[h % len(CATEGORIES)]
        changed = {(c["file"], n) for c in p["changed"] for n in c["lines"]}
        near = {(f, n + d) for f, n in changed for d in range(-3, 4)}
        fs = []
        if h % 3:
            hit = next((a for a in adds if (a[0], a[1]) in changed), None)
            if hit:
                fs.append(finding(hit[0], hit[1], hit[2], cat,
                                  "Scripted question on a line the fix "
                                  "changed later?"))
        miss = next((a for a in adds if (a[0], a[1]) not in near), None)
        if miss:
            fs.append(finding(miss[0], miss[1], miss[2],
                              CATEGORIES[(h >> 8) % len(CATEGORIES)],
                              "Scripted question on another line?"))
        if match:
            out.append((match, fs))
    return out


NEW_LINES = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def new_side(patch):
    """{(file, new-side line): text} of the '+' and ' ' lines of a diff."""
    out, path, new = {}, None, 0
    for line in patch.split("\n"):
        if line.startswith("+++ "):
            p = line[4:].strip()
            path = p[2:] if p.startswith("b/") else p
            continue
        if line.startswith("diff --git") or line.startswith("--- "):
            continue
        m = NEW_LINES.match(line)
        if m:
            new = int(m.group(1))
            continue
        if not path or not new:
            continue
        if line.startswith("+") or line.startswith(" "):
            out[(path, new)] = line[1:]
            new += 1
        elif line == "":
            new += 1
    return out


def diff_match(patch, others):
    """A '+' or '-' line of @patch, sign included, that no other diff
    holds: what "match" keys on. The finder's prompt holds the diff but
    not always the commit message (model.blind_focuses), and the server
    matches the request's text, tabs and all."""
    for line in patch.split("\n"):
        if line[:1] not in "+-" or line[:3] in ("+++", "---"):
            continue
        t = line.rstrip()
        if len(t.strip("+- \t")) >= 12 and t.isascii() and \
                not any(t in o for o in others):
            return t
    return None


def cases_script(cases, labels):
    cats = {lab["fix_message_id"]: lab.get("categories", [])
            for lab in labels}
    diffs = [c["patch"] for c in cases] + [c["control"] for c in cases]
    steps = []
    for i, c in enumerate(cases):
        h = int(hashlib.sha256(("%d %s" % (c["pair"], c["case"]))
                               .encode()).hexdigest(), 16)
        fit = next((k for k in cats.get(c.get("fix_message_id"), [])
                    if k != "commit-message"), None) or "logic"
        misfit = next(k for k in ["deadlock", "integer-overflow",
                                  "uninitialized"]
                      if k not in cats.get(c.get("fix_message_id"), []))
        side = new_side(c["patch"])
        fs = []
        for ch in c["changed"]:
            for ln in ch["lines"]:
                t = side.get((ch["file"], ln), "")
                if usable(t):
                    fs.append(finding(ch["file"], ln, t,
                                      fit if h % 3 else misfit,
                                      "Scripted question on a line the "
                                      "fix changed?"))
                    break
            if fs:
                break
        match = diff_match(c["patch"], diffs[:i] + diffs[i + 1:])
        first = next(((ch["file"], ch["lines"][0]) for ch in c["changed"]
                      if ch["lines"]), None)
        if match:
            answer = {"kind": "finder", "match": match, "repeat": True,
                      "answer_json": {"findings": fs}}
            if first:
                answer["match_result"] = ""
                steps.append(answer)
                steps.append({"kind": "finder", "match": match,
                              "repeat": True, "tool_calls": [
                                  {"name": "read_file",
                                   "arguments": {
                                       "path": first[0],
                                       "start": max(1, first[1] - 20),
                                       "end": first[1] + 20},
                                   "id": "call-%d" % c["pair"]}]})
            else:
                steps.append(answer)
        cside = new_side(c["control"])
        cadd = [(f, ln, t) for (f, ln), t in sorted(cside.items())
                if usable(t) and "+" + t in c["control"]]
        cfs = []
        if h % 2 and cadd:
            f, ln, t = cadd[0]
            cfs.append(finding(f, ln, t, fit,
                               "Scripted question on the fix itself?"))
        cmatch = diff_match(c["control"], diffs[:len(cases) + i] +
                            diffs[len(cases) + i + 1:])
        if cmatch:
            steps.append({"kind": "finder", "match": cmatch, "repeat": True,
                          "answer_json": {"findings": cfs}})
    steps.append({"kind": "finder", "repeat": True,
                  "answer_json": {"findings": []}})
    # It confirms with a line it was shown besides the finding's own
    # (review/model/model_evidence.c drops any other confirmation).
    steps.append({"kind": "verifier", "repeat": True,
                  "verdict": "confirmed", "evidence": "auto"})
    return {"steps": steps}


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "cases":
        with open(sys.argv[2], encoding="utf-8") as f:
            cases = json.load(f)["cases"]
        with open(sys.argv[3], encoding="utf-8") as f:
            labels = json.load(f).get("labels", [])
        with open(sys.argv[4], "w", encoding="utf-8") as f:
            json.dump(cases_script(cases, labels), f, indent=1)
        return
    if len(sys.argv) < 3 or sys.argv[1] not in ("script", "command"):
        sys.exit(__doc__)
    with open(sys.argv[2], encoding="utf-8") as f:
        pairs = json.load(f)["pairs"]
    steps = plan(pairs)
    if sys.argv[1] == "script":
        script = {"steps": [{"kind": "finder", "match": m, "repeat": True,
                             "answer_json": {"findings": fs}}
                            for m, fs in steps]}
        script["steps"].append({"kind": "finder", "repeat": True,
                                "answer_json": {"findings": []}})
        script["steps"].append({"kind": "verifier", "repeat": True,
                                "verdict": "confirmed",
                                "evidence": "auto"})
        with open(sys.argv[3], "w", encoding="utf-8") as f:
            json.dump(script, f, indent=1)
        return
    prompt = sys.stdin.read()
    if '"verdicts"' in prompt:
        # Each confirmation quotes the finding's own line and one more
        # line of the prompt the claim rests on (review/model/model_evidence.c
        # drops a confirmation whose evidence is only the finding's own
        # line): the scripted verifier of tests/model_server.py.
        sys.path.insert(0, os.path.join(os.path.dirname(
            os.path.abspath(__file__)), "..", "tests"))
        import model_server
        print(model_server.verifier_answer(
            {"verdict": "confirmed", "evidence": "auto"}, prompt))
        return
    for m, fs in steps:
        if m in prompt:
            print(json.dumps({"findings": fs}))
            return
    print(json.dumps({"findings": []}))


if __name__ == "__main__":
    main()
