#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/plot.py - draws a line chart as SVG from a TSV of measured points,
with the Python standard library only (no matplotlib or gnuplot, which
neither the machines nor CI have).

usage: bench/plot.py FILE.tsv... (writes FILE.svg beside each)

The TSV: "# key: value" lines first, then a header row and the points.

    # title: Ingest and assemble: wall time
    # x: messages          (the x axis label)
    # y: seconds           (the y axis label)
    # xscale: log          (optional: log or linear, the default)
    # yscale: log          (optional)
    # note: load 3.1 ...   (optional, repeatable: printed under the chart)
    messages<TAB>reviewbot<TAB>git mailsplit (peer)
    7642<TAB>6.4<TAB>0.3

The first column is x; each other column is one line, named by its header.
An empty cell or "-" is a point not measured. A header ending in "(peer)"
is drawn dashed, and "(ideal)" dotted, so a peer and an ideal stand out
without colour.
"""
import html
import math
import sys

W, H = 720, 440
ML, MR, MT, MB = 70, 30, 40, 60  # margins: legend and notes go below
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
           "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]


def read(path):
    meta, notes, rows = {}, [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                key, _, val = line[1:].partition(":")
                key, val = key.strip().lower(), val.strip()
                if key == "note":
                    notes.append(val)
                elif key:
                    meta[key] = val
                continue
            rows.append(line.split("\t"))
    if len(rows) < 2:
        raise SystemExit("%s: a header row and at least one point" % path)
    head, pts = rows[0], rows[1:]
    series = []
    for c in range(1, len(head)):
        xy = []
        for r in pts:
            if c < len(r) and r[c].strip() not in ("", "-"):
                xy.append((float(r[0]), float(r[c])))
        series.append((head[c], xy))
    return meta, notes, head[0], series


def nice_step(span, n=5):
    """A 1-2-5 step giving about @n ticks over @span."""
    raw = span / n if span > 0 else 1
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def ticks(lo, hi, log):
    if log:
        out, e = [], math.floor(math.log10(lo))
        while 10 ** e <= hi * 1.0001:
            for m in (1, 2, 5):
                v = m * 10 ** e
                if lo / 1.0001 <= v <= hi * 1.0001:
                    out.append(v)
            e += 1
        return out
    step = nice_step(hi - lo)
    v, out = math.floor(lo / step) * step, []
    while v <= hi + step * 1e-6:
        if v >= lo - step * 1e-6:
            out.append(v)
        v += step
    return out


def fmt(v):
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return "{:,.0f}".format(v)
    if abs(v) >= 10 or v == int(v):
        return "%g" % round(v, 1)
    return "%.3g" % v


def axis(vals, log):
    lo, hi = min(vals), max(vals)
    if log:
        lo, hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(
            math.log10(hi))
        return lo, hi if hi > lo else lo * 10
    lo = min(lo, 0)
    if hi == lo:
        hi = lo + 1
    step = nice_step(hi - lo)
    return lo, math.ceil(hi / step) * step


def draw(path):
    meta, notes, xname, series = read(path)
    xlog = meta.get("xscale") == "log"
    ylog = meta.get("yscale") == "log"
    xs = [x for _, xy in series for x, _ in xy]
    ys = [y for _, xy in series for _, y in xy]
    if not xs:
        raise SystemExit("%s: no point" % path)
    if (xlog and min(xs) <= 0) or (ylog and min(ys) <= 0):
        raise SystemExit("%s: a log axis needs values above 0" % path)
    x0, x1 = axis(xs, xlog)
    y0, y1 = axis(ys, ylog)
    pw, ph = W - ML - MR, H - MT - MB

    def sx(x):
        if xlog:
            return ML + pw * (math.log10(x) - math.log10(x0)) / (
                math.log10(x1) - math.log10(x0))
        return ML + pw * (x - x0) / (x1 - x0)

    def sy(y):
        if ylog:
            return MT + ph - ph * (math.log10(y) - math.log10(y0)) / (
                math.log10(y1) - math.log10(y0))
        return MT + ph - ph * (y - y0) / (y1 - y0)

    e = html.escape
    hh = H + 18 * len(series) + 16 * len(notes) + 8
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">'
         % (W, hh, W, hh),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>'
         % (ML, e(meta.get("title", path)))]
    for v in ticks(y0, y1, ylog):
        y = sy(v)
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                 % (ML, y, ML + pw, y))
        o.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                 % (ML - 6, y + 4, fmt(v)))
    xt = ticks(x0, x1, xlog) if xlog or len(set(xs)) > 6 else sorted(set(xs))
    for v in xt:
        x = sx(v)
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>'
                 % (x, MT, x, MT + ph))
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                 % (x, MT + ph + 16, fmt(v)))
    o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
             'stroke="#333"/>' % (ML, MT, pw, ph))
    o.append('<text x="%d" y="%d" text-anchor="middle">%s%s</text>'
             % (ML + pw / 2, MT + ph + 40, e(meta.get("x", xname)),
                " (log scale)" if xlog else ""))
    o.append('<text transform="translate(16,%d) rotate(-90)" '
             'text-anchor="middle">%s%s</text>'
             % (MT + ph / 2, e(meta.get("y", "")),
                " (log scale)" if ylog else ""))
    for i, (name, xy) in enumerate(series):
        col = COLOURS[i % len(COLOURS)]
        dash = ""
        if name.endswith("(peer)"):
            dash = ' stroke-dasharray="7,4"'
        elif name.endswith("(ideal)"):
            dash = ' stroke-dasharray="2,3"'
        if xy:
            pts = " ".join("%.1f,%.1f" % (sx(x), sy(y)) for x, y in xy)
            o.append('<polyline points="%s" fill="none" stroke="%s" '
                     'stroke-width="2"%s/>' % (pts, col, dash))
            for x, y in xy:
                o.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s">'
                         '<title>%s: %s, %s</title></circle>'
                         % (sx(x), sy(y), col, e(name), fmt(x), fmt(y)))
        ly = H + 18 * i
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" '
                 'stroke-width="2"%s/>' % (ML, ly, ML + 28, ly, col, dash))
        o.append('<text x="%d" y="%d">%s</text>'
                 % (ML + 36, ly + 4, e(name)))
    for i, n in enumerate(notes):
        o.append('<text x="%d" y="%d" font-size="11" fill="#555">%s</text>'
                 % (ML, H + 18 * len(series) + 8 + 16 * i, e(n)))
    o.append("</svg>")
    out = path[:-4] + ".svg" if path.endswith(".tsv") else path + ".svg"
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(o) + "\n")
    return out


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: bench/plot.py FILE.tsv...\n")
        return 2
    for p in argv[1:]:
        print(draw(p))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
