#!/bin/bash
# t_bench_plot.sh - bench/plot.py, the chart writer of bench/collect.sh
# (the bench scripts themselves are run by hand, not here): a TSV of
# points becomes an SVG that XML parsers read, with one line per column,
# the peer dashed, a point not measured left out, log axes, and a clear
# error for a log axis with a zero.
set -u
: "${RB_SRC:?}"
. "$RB_SRC/tests/need.sh"
command -v python3 >/dev/null 2>&1 || rb_skip "python3 not installed"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

printf '# title: a <curve> & more\n# x: patches\n# y: seconds\n# xscale: log\n# yscale: log\n# note: load 1.5\npatches\tours\tgit am (peer)\tlinear (ideal)\n1\t0.3\t2\t0.3\n5\t0.5\t-\t1.5\n100\t4\t90\t30\n' >"$tmp/c.tsv"
python3 "$RB_SRC/bench/plot.py" "$tmp/c.tsv" >"$tmp/out" ||
	fail "plot.py failed: $(cat "$tmp/out")"
[ -s "$tmp/c.svg" ] || fail "no c.svg"
python3 - "$tmp/c.svg" <<'PY' || exit 1
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
lines = root.findall(ns + "polyline")
if len(lines) != 3:
    sys.exit("FAIL: %d lines, want 3" % len(lines))
pts = [len(l.get("points").split()) for l in lines]
if pts != [3, 2, 3]:
    sys.exit("FAIL: points per line %s, want [3, 2, 3]" % pts)
if "stroke-dasharray" not in lines[1].attrib or \
        lines[1].get("stroke-dasharray") == lines[2].get("stroke-dasharray"):
    sys.exit("FAIL: the peer is not dashed apart from the ideal")
text = " ".join(t.text or "" for t in root.iter(ns + "text"))
for want in ("a <curve> & more", "git am (peer)", "load 1.5", "log scale"):
    if want not in text:
        sys.exit("FAIL: no %r in the chart's text" % want)
PY

printf '# yscale: log\nx\ty\n1\t0\n' >"$tmp/bad.tsv"
if python3 "$RB_SRC/bench/plot.py" "$tmp/bad.tsv" 2>"$tmp/err"; then
	fail "a zero on a log axis was drawn"
fi
grep -q 'log axis' "$tmp/err" || fail "no reason: $(cat "$tmp/err")"
echo "ok"
