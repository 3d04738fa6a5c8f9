#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/dashboard_same.py - two dashboards serving one store answer the
same: every page of the list (first, second, last, past the end,
searches and filters), /stats, /notes, /metrics, the JSON, the errors,
and /series for 60 random series and 30 with findings. Pages are
compared with the line breaks between two tags taken out (issue 35 moved
the HTML into templates/web/, which break lines between rows).

usage: bench/dashboard_same.py URL_A URL_B STORE.db
(each URL a "reviewbot serve" of STORE.db, e.g. main's and a branch's).
Prints each page that differs with the first lines of its diff; exits 1
when any does."""
import difflib, re, sqlite3, sys, urllib.error, urllib.parse, urllib.request
a, b, store = sys.argv[1:4]
db = sqlite3.connect(store)
q = lambda s, *x: db.execute(s, x).fetchall()
enc = lambda s: urllib.parse.quote(s, safe="")
n = q("SELECT COUNT(*) FROM series")[0][0]
paths = ["/", "/?page=2", "/?page=%d" % ((n + 49) // 50), "/?page=999", "/?q=mount", "/?q=brauner",
         "/?state=reviewed&findings=1", "/?mode=advisory", "/stats", "/notes", "/metrics", "/series", "/series?id=nope",
         "/api/series", "/api/stats", "/nope"]
for (sid,) in q("SELECT id FROM series ORDER BY random() LIMIT 60"):
    paths.append("/series?id=" + enc(sid))
for (sid,) in q("SELECT DISTINCT series_id FROM findings LIMIT 30"):
    paths.append("/series?id=" + enc(sid))
for (sec,) in q("SELECT DISTINCT subsystem FROM series WHERE subsystem IS NOT NULL LIMIT 5"):
    paths.append("/?section=" + enc(sec))
def get(u):
    try:
        with urllib.request.urlopen(u, timeout=600) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
norm = lambda s: re.sub(r">\n<", "><", s)
bad = 0
for p in paths:
    sa, ta = get(a + p)
    sb, tb = get(b + p)
    if sa != sb or norm(ta) != norm(tb):
        bad += 1
        print("DIFF", p, sa, sb)
        na, nb = norm(ta).replace("><", ">\n<").split("\n"), norm(tb).replace("><", ">\n<").split("\n")
        for l in list(difflib.unified_diff(na, nb, lineterm="", n=0))[:12]:
            print("   ", l[:200])
print("%d paths, %d differ" % (len(paths), bad))
sys.exit(1 if bad else 0)
