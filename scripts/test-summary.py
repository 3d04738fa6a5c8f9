#!/usr/bin/python3
# test-summary.py [--forbid REGEX] JUNIT.xml - after "make test": the
# tests that were skipped (exit 77) and the tests that skipped a part,
# each with the reason lines it printed ("SKIP: ..."), read from ctest's
# JUnit report (ctest --output-junit). ctest itself names skipped tests
# but does not show why, and --output-on-failure shows only failures.
# With --forbid, exits 1 when a reason matches REGEX (CI: the shared data
# and the kernel tree are there, so nothing may skip for want of them).
import re
import sys
import xml.etree.ElementTree as ET


def reasons(case):
    out = case.findtext("system-out") or ""
    seen = []
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("SKIP:") and line not in seen:
            seen.append(line[5:].strip())
    return seen


def main():
    args = sys.argv[1:]
    forbid = None
    if len(args) == 3 and args[0] == "--forbid":
        forbid = re.compile(args[1])
        args = args[2:]
    if len(args) != 1:
        print("usage: test-summary.py [--forbid REGEX] JUNIT.xml",
              file=sys.stderr)
        return 2
    try:
        root = ET.parse(args[0]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"test-summary: cannot read {args[0]}: {e}", file=sys.stderr)
        return 2
    whole, part = [], []
    total = 0
    for case in root.iter("testcase"):
        total += 1
        name = case.get("name")
        why = reasons(case)
        if case.get("status") == "notrun" or case.find("skipped") is not None:
            whole.append((name, why or ["(the test printed no reason)"]))
        elif why:
            part.append((name, why))
    print()
    print(f"Skipped: {len(whole)} of {total} tests, and parts of {len(part)} more.")
    for title, rows in (("Skipped tests:", whole),
                        ("Tests that skipped a part:", part)):
        if not rows:
            continue
        print(title)
        for name, why in rows:
            for i, w in enumerate(why):
                print(f"  {name if i == 0 else '':<22} {w}")
    bad = [(n, w) for n, why in whole + part for w in why
           if forbid and forbid.search(w)]
    for n, w in bad:
        print(f"test-summary: {n} must not skip here: {w}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
