#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_parallel.sh - issue 38: series reviewed at once, in the order
# they arrived, each reply sent as soon as its series is done; on the
# running daemon ("reviewbot run", Dovecot in, the SMTP sink out, the
# scripted model server), review.parallel_series at its default (4).
#
# A burst of 12 one-patch series to lib/ring.c, each by its own author,
# delivered in an order that is the reverse of their Message-IDs' (jobs
# used to run in Message-ID order). The model reviews with one focus, so
# that each series makes one request at a time, and every request is held
# by the server until two are in flight at once (or 20 s pass), then
# answered after a delay of a second. Checked, without timing:
#  - all 12 reviews are sent, one to each author;
#  - the jobs are claimed in the order the series were delivered;
#  - reviews overlapped: the server's log shows requests of two series
#    in flight at once (its "in_flight" ids), never more series than
#    review.parallel_series, nor more requests than model.concurrency;
#  - the first reply was sent before the job after the first four was
#    claimed: a reply leaves as its series ends, not after the burst.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_demo
acc_helpers

N=12
acc_model_script '{"steps": [
 {"kind": "finder", "repeat": true, "usage": [1000, 20],
  "hold": {"in_flight": 2, "seconds": 20}, "delay": 1,
  "answer_json": {"findings": []}}
]}'
acc_servers model
ACC_MODEL_YAML="$ACC_MODEL_YAML
  concurrency: 4
  focuses: [correctness]
  tools:
    enabled: false"
acc_config "  default:
    mode: \"off\"
  subsystems:
    RING BUFFER:
      mode: advisory
      send_when_empty: true"
grep -q parallel_series "$d/config.yaml" && rb_fail "the config sets parallel_series"

# The burst: series i has Message-ID <par-(N+1-i)@...>, so Message-ID
# order is the reverse of delivery order.
(
	cd "$d/demo/tree"
	for i in $(seq 1 $N); do
		k=$(printf %02d $((N + 1 - i)))
		echo "/* note $i */" >>lib/ring.c
		GIT_AUTHOR_NAME="Dev $i" GIT_AUTHOR_EMAIL="dev$i@example.net" \
			GIT_COMMITTER_NAME="Dev $i" \
			GIT_COMMITTER_EMAIL="dev$i@example.net" \
			GIT_AUTHOR_DATE="2026-11-03T09:00:$(printf %02d "$i")Z" \
			git commit -q -s -a -m "ring: note $i"
		git format-patch -q -1 --stdout HEAD |
			sed -e "0,/^Subject:/s//Message-ID: <par-$k@example.net>\nTo: demo-list@example.org\nList-Id: <demo-list.example.org>\nSubject:/"
		git reset -q --hard HEAD~1
	done
) >"$d/burst.mbox"
[ "$(grep -c '^Message-ID: <par-' "$d/burst.mbox")" = $N ] ||
	rb_fail "the burst has $(grep -c '^Message-ID: <par-' "$d/burst.mbox") patches, not $N"

acc_start
acc_feed "$d/burst.mbox" ""
acc_settle 600

acc_check "$N" <<'PY' || exit 1
import json, re
n = int(sys.argv[1])
ms = acc.mails()
authors = sorted(a for m in ms for a in m["rcpt"] if a.endswith("@example.net"))
acc.check(len(ms) == n and authors == sorted("dev%d@example.net" % i
                                             for i in range(1, n + 1)),
          "%d reviews, not one to each of the %d authors:\n%s"
          % (len(ms), n, acc.show(ms)))

log = open(os.path.join(acc.D, "daemon.log"), errors="replace").read()
lines = log.splitlines()
claimed = [re.search(r"series=<?par-(\d+)@", l).group(1) for l in lines
           if "event=worker.claimed" in l and "par-" in l]
want = ["%02d" % (n + 1 - i) for i in range(1, n + 1)]
acc.check(claimed == want, "claimed in the order %s, not as delivered %s"
          % (claimed, want))

# Which series each model request is for: its patch's subject.
reqs = [json.loads(l) for l in open(os.path.join(acc.D,
                                                 "model-requests.log"))]
def series(e):
    m = re.search(r"ring: note (\d+)", json.dumps(e["body"]))
    return int(m.group(1)) if m else 0
of = {e["id"]: series(e) for e in reqs}
acc.check(all(of.values()), "a request for no series: %s" % of)
acc.check(sorted(set(of.values())) == list(range(1, n + 1)),
          "not every series reached the model: %s" % sorted(set(of.values())))
overlap = [(e["id"], e["in_flight"]) for e in reqs
           if any(of.get(o) != of[e["id"]] for o in e["in_flight"])]
acc.check(overlap, "no request came in while another series' was in"
          " flight: the reviews ran one at a time")
most = max(len({of[o] for o in e["in_flight"]} | {of[e["id"]]})
           for e in reqs)
acc.check(most <= 4, "%d series in flight at once, over"
          " review.parallel_series (4)" % most)
acc.check(max(len(e["in_flight"]) + 1 for e in reqs) <= 4,
          "more requests in flight than model.concurrency (4)")

# The first reply left before the fifth job was claimed.
first_sent = next(i for i, l in enumerate(lines) if "event=send.sent" in l)
fifth = [i for i, l in enumerate(lines) if "event=worker.claimed" in l][4]
acc.check(first_sent < fifth, "the first reply was sent after the fifth"
          " claim (line %d, claim at %d)" % (first_sent, fifth))
print("ok: %d series; claimed as delivered; %d requests overlapped another"
      " series'; at most %d series in flight" % (n, len(overlap), most))
PY
acc_stop
echo PASS
