#!/usr/bin/python3
# test-summary.py JUNIT.xml - after "make test": the tests that were
# skipped (exit 77) and the tests that skipped a part, each with the
# reason lines it printed ("SKIP: ..."), read from ctest's JUnit report
# (ctest --output-junit). ctest itself names skipped tests but does not
# show why, and --output-on-failure shows only failures.
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
    if len(sys.argv) != 2:
        print("usage: test-summary.py JUNIT.xml", file=sys.stderr)
        return 2
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"test-summary: cannot read {sys.argv[1]}: {e}", file=sys.stderr)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
