#!/usr/bin/python3
# dashboard_check.py - the dashboard's answers on a store filled from the
# linux-api archive, checked against the store itself (sqlite3): paging,
# newest first, search by title, author and Message-ID, the filters by
# section, state, mode and "has findings", the series JSON against its
# page, and the stats' latency from receipt. Prints one line per check
# and each request's time (for the record: timing is bench/dashboard.sh's
# job, never a pass/fail here).
#
# usage: dashboard_check.py BASE_URL STORE LATENCY_S
import html
import json
import sqlite3
import sys
import time
import urllib.parse
import urllib.request

base, store, latency = sys.argv[1], sys.argv[2], int(sys.argv[3])
db = sqlite3.connect(store)
db.text_factory = lambda b: b.decode("utf-8", "replace")
q = lambda s, *a: db.execute(s, a).fetchall()
failed = []


def get(path):
    t0 = time.monotonic()
    with urllib.request.urlopen(base + path, timeout=60) as r:
        body = r.read().decode()
        ctype = r.headers["Content-Type"]
    print("  %6.1f ms %s" % ((time.monotonic() - t0) * 1000, path))
    return json.loads(body) if ctype.startswith("application/json") else body


def check(what, ok, detail=""):
    print("%s: %s%s" % ("ok" if ok else "FAIL", what,
                        "" if ok else " (%s)" % detail))
    if not ok:
        failed.append(what)


def api(**kw):
    return get("/api/series?" + urllib.parse.urlencode(kw))


def ids_all(**kw):
    """Every id a filter returns, over all its pages."""
    out, page = [], 1
    while True:
        j = api(page=page, **kw)
        out += [s["id"] for s in j["series"]]
        if page >= j["pages"]:
            return out, j["total"]
        page += 1


# When a series arrived, as the dashboard defines it.
DATE = ("CASE WHEN last_date > 0 AND last_date < first_seen THEN last_date"
        " ELSE first_seen END")
total = q("SELECT COUNT(*) FROM series")[0][0]
order = [r[0] for r in q("SELECT id FROM series ORDER BY %s DESC, id" % DATE)]

# Paging: 50 a page, newest first, every series once.
j = api()
check("total is every series (%d)" % total, j["total"] == total,
      j["total"])
check("50 series on page 1", len(j["series"]) == 50, len(j["series"]))
check("page 1 is the 50 newest", [s["id"] for s in j["series"]] ==
      order[:50])
dates = [s["date_unix"] for s in j["series"]]
check("newest first", dates == sorted(dates, reverse=True))
j2 = api(page=2)
check("page 2 is the next 50", [s["id"] for s in j2["series"]] ==
      order[50:100])
page = get("/")
check("the HTML page has 50 rows", page.count("<tr><td>") == 50,
      page.count("<tr><td>"))
check("the HTML page links to page 2", 'href="/?page=2">older' in page)
check("no script in the page", "<script" not in page.lower())

# Search: by title, author, Message-ID; compared with the store.
def expect(word):
    w = word.lower()
    ids = set(r[0] for r in q("SELECT id FROM series WHERE"
                              " INSTR(LOWER(title), ?) > 0 OR"
                              " INSTR(LOWER(author), ?) > 0 OR id IN (?, ?)"
                              " OR id IN (SELECT series_id FROM patches"
                              " WHERE message_id IN (?, ?))",
                              w, w, word.strip("<>"),
                              "<%s>" % word.strip("<>"), word.strip("<>"),
                              "<%s>" % word.strip("<>")))
    return ids


for word in ("mount", "syscall", "clone3"):
    got, n = ids_all(q=word)
    want = expect(word)
    check("search title %r: %d series" % (word, len(want)),
          set(got) == want and n == len(want), (n, len(want)))
    check("search %r newest first" % word,
          got == [i for i in order if i in want])
author = q("SELECT author FROM series GROUP BY author ORDER BY COUNT(*)"
           " DESC LIMIT 1")[0][0]
got, n = ids_all(q=author.upper())
want = expect(author)
check("search author %s: %d series" % (author, len(want)),
      set(got) == want, (n, len(want)))
# A Message-ID of a later patch, with and without <>.
sid, mid = q("SELECT series_id, message_id FROM patches WHERE idx = 2"
             " ORDER BY series_id LIMIT 1")[0]
for form in (mid, mid.strip("<>"), "<%s>" % mid.strip("<>")):
    got, n = ids_all(q=form)
    check("search Message-ID %s" % form, got == [sid], got)

# Filters, alone and together.
def count(where, *a):
    return q("SELECT COUNT(*) FROM series s WHERE " + where, *a)[0][0]


states = [r[0] for r in q("SELECT DISTINCT state FROM series")]
for st in states:
    got, n = ids_all(state=st)
    check("state %s: %d" % (st, count("state = ?", st)),
          n == count("state = ?", st) and len(got) == n)
sections = [r[0] for r in q("SELECT subsystem FROM series WHERE subsystem"
                            " IS NOT NULL GROUP BY 1 ORDER BY COUNT(*) DESC"
                            " LIMIT 3")]
for sec in sections:
    got, n = ids_all(section=sec)
    check("section %s: %d" % (sec, count("subsystem = ?", sec)),
          n == count("subsystem = ?", sec))
FIND = ("EXISTS (SELECT 1 FROM findings f WHERE f.series_id = s.id AND"
        " f.state = 'raised' AND f.fid IS NOT NULL)")
got, n = ids_all(findings=1)
check("has findings: %d" % count(FIND), n == count(FIND), n)
MODE = ("EXISTS (SELECT 1 FROM reviews r WHERE r.series_id = s.id AND"
        " r.policy = ?)")
got, n = ids_all(mode="advisory")
check("mode advisory: %d" % count(MODE, "advisory"),
      n == count(MODE, "advisory"))
got, n = ids_all(mode="blocking")
check("mode blocking: none", n == 0, n)
if sections:
    want = count("subsystem = ? AND state = 'reviewed' AND " + FIND,
                 sections[0])
    got, n = ids_all(section=sections[0], state="reviewed", findings=1)
    check("section + state + findings: %d" % want, n == want, n)

# A series with findings (else one that failed to apply): its JSON is
# what its page shows.
rows = q("SELECT series_id FROM findings WHERE state = 'raised' AND fid IS"
         " NOT NULL GROUP BY series_id ORDER BY COUNT(*) DESC, series_id"
         " LIMIT 1") or q("SELECT series_id FROM attempts WHERE ok = 0"
                          " ORDER BY series_id LIMIT 1")
sid = rows[0][0]
path = "/series?id=" + urllib.parse.quote(sid, safe="")
j = get(path + "&format=json")
page = get(path)
esc = lambda s: html.escape(s or "", quote=True).replace("&#x27;", "&#39;")
check("the series JSON names it", j["id"] == sid)
check("its title on the page", esc(j["title"]) in page)
n_parts = q("SELECT COUNT(*) FROM patches WHERE series_id = ?", sid)[0][0]
check("every part listed (%d)" % n_parts, len(j["patches"]) == n_parts)
for p in j["patches"]:
    check("part %d's subject on the page" % p["idx"],
          esc(p["subject"] or p["message_id"]) in page)
n_att = q("SELECT COUNT(*) FROM attempts WHERE series_id = ?", sid)[0][0]
check("every apply attempt listed (%d)" % n_att,
      len(j["attempts"]) == n_att)
for a in j["attempts"]:
    check("attempt on %s on the page" % a["base"],
          esc(a["base"]) in page and (a["applied"] or (
              esc(a["failed_file"]) in page and esc(a["reason"]) in page)))
n_find = q("SELECT COUNT(*) FROM findings WHERE series_id = ?", sid)[0][0]
check("every finding listed (%d)" % n_find, len(j["findings"]) == n_find)
for f in j["findings"]:
    check("finding %s on the page with its outcome" % f["fid"],
          esc(f["message"]) in page and esc(f["quote"] or "") in page
          and f["outcome"] in ("open", "valid", "false_positive", "fixed",
                               "fixed_later", None))
check("the thread link", esc(j["thread"]) in page and
      j["thread"].startswith("https://lore.kernel.org/r/"))
for m in j["mails"]:
    check("mail %s's body on the page" % m["message_id"],
          esc(m["body"]) in page)

# Stats: latency from receipt, in human units, though Date: is years old.
s = get("/api/stats")
sl = s["send_latency"]
old = q("SELECT MIN(date) FROM messages WHERE date > 0")[0][0]
recv = q("SELECT MAX(received_at) FROM messages")[0][0]
check("the archive's Date: is years before receipt",
      recv - old > 3 * 365 * 86400)
check("latency median from receipt = %d s" % latency,
      sl["median_s"] == latency, sl)
check("latency p95 from receipt = %d s" % latency, sl["p95_s"] == latency,
      sl)
days = s["mails_by_series_day"]
check("mails counted by the day their series arrived (%d days)" %
      len(days), len(days) > 10)
page = get("/stats")
check("median shown in hours", 'id="latency-median">1.5 h<' in page)
check("p95 shown in hours", 'id="latency-p95">1.5 h<' in page)
check("three charts with a reading each", page.count("<svg") == 3 and
      page.count('class="reading"') >= 2)

print("%d checks failed" % len(failed) if failed else "all checks passed")
sys.exit(1 if failed else 0)
