#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_ratelimit.sh - issue 38: rate limits that fit a list, on the
# running daemon ("reviewbot run", Dovecot in, the SMTP sink out), with
# the default limits (config.yaml: 60 an hour in all, 10 to a
# person a poster chose, 60 to a list).
#
# A burst arrives at once: 30 one-patch series to lib/ring.c, each by
# its own author, each To: the list and Cc: Grace (RING BUFFER's M:),
# as every mm series Cc's Andrew Morton and linux-mm; and 11 by one
# author, Olive. Every review goes to its author, Grace, Alan (R:) and
# the list. Before, Grace's per-recipient count held all but 10 of the
# 41 reviews for an hour; now every one of the 30 goes out at once,
# Grace and the list on each, and Olive still gets 10, the 11th waiting
# for her limit. An hour later (the store's clock, RB_NOW, with one
# "reviewbot run --once" pass) the 11th goes.
#
# No timing is asserted: the daemon settles (accept_lib.sh acc_settle:
# nothing due, event=run.idle), and the store and the sink are read.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_demo
acc_helpers
acc_servers
acc_config "  default:
    mode: \"off\"
  subsystems:
    RING BUFFER:
      mode: advisory
      send_when_empty: true"
grep -q rate_per "$d/config.yaml" && rb_fail "the config sets a rate limit"

# The burst: 30 authors once each, then Olive 11 times.
(
	cd "$d/demo/tree"
	one() # N NAME EMAIL
	{
		echo "/* note $1 */" >>lib/ring.c
		GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$3 \
			GIT_COMMITTER_NAME=$2 GIT_COMMITTER_EMAIL=$3 \
			GIT_AUTHOR_DATE="2026-11-03T09:00:$(printf %02d $(($1 % 60)))Z" \
			git commit -q -s -a -m "ring: note $1"
		git format-patch -q -1 --stdout HEAD |
			sed -e "0,/^Subject:/s//Message-ID: <burst-$1@example.net>\nTo: demo-list@example.org\nCc: Grace Hopper <grace@example.org>\nList-Id: <demo-list.example.org>\nSubject:/"
		git reset -q --hard HEAD~1
	}
	for i in $(seq 1 30); do
		one "$i" "Dev $i" "dev$i@example.net"
	done
	for i in $(seq 31 41); do
		one "$i" "Olive Poster" olive@example.net
	done
) >"$d/burst.mbox"
[ "$(grep -c '^Message-ID: <burst-' "$d/burst.mbox")" = 41 ] ||
	rb_fail "the burst has $(grep -c '^Message-ID: <burst-' "$d/burst.mbox") patches, not 41"

acc_start
acc_feed "$d/burst.mbox" ""
acc_settle

acc_check <<'PY' || exit 1
ms = acc.mails()
def author(m):
    return [a for a in m["rcpt"] if a.endswith("@example.net")]
devs = [m for m in ms if any(a.startswith("dev") for a in author(m))]
olive = [m for m in ms if author(m) == ["olive@example.net"]]
acc.check(len(devs) == 30, "%d of the 30 authors' reviews went out:\n%s"
          % (len(devs), acc.show(ms)))
acc.check(len({tuple(author(m)) for m in devs}) == 30,
          "not one review per author:\n" + acc.show(devs))
for m in devs + olive:
    acc.check({"grace@example.org", "alan@example.org",
               "demo-list@example.org"} <= set(m["rcpt"]),
              "a review without the maintainers or the list: %s -> %s"
              % (m["subject"], m["rcpt"]))
    acc.check(m["policy"] == "advisory" and "Cc" not in m["to"],
              "a review is not the advisory reply: %r" % m)
# The person a poster chose is still limited: 10 of Olive's 11.
acc.check(len(olive) == 10, "Olive got %d reviews, not 10:\n%s"
          % (len(olive), acc.show(olive)))
w = acc.q("SELECT state, last_error FROM outbox WHERE rcpts LIKE"
          " 'olive@example.net%' AND state <> 'sent'")
acc.check(w == [("queued", "rate limit reached for a recipient")],
          "Olive's 11th review is not waiting for her limit: %s" % w)
acc.check(acc.q1("SELECT COUNT(*) FROM outbox WHERE state = 'sent'") == 40,
          "not 40 mails sent: %s" % acc.q("SELECT state, last_error,"
          " COUNT(*) FROM outbox GROUP BY 1, 2"))
# What each mail counted, as stored: the author as a person, the list
# as a list; Grace and Alan, from MAINTAINERS, not at all.
rows = acc.q("SELECT kind, addr, COUNT(*) FROM outbox_rcpts"
             " GROUP BY kind, addr ORDER BY 3 DESC, 2")
acc.check(rows[0] == ("list", "demo-list@example.org", 41),
          "the list is not counted as a list on every mail: %s" % rows[:3])
acc.check(("person", "olive@example.net", 11) in rows,
          "Olive is not counted 11 times: %s" % rows[:3])
acc.check(not [r for r in rows if "grace" in r[1] or "alan" in r[1]],
          "a maintainer is counted: %s" % rows)
PY
echo "ok 1: 30 series by 30 authors, Cc'd to one maintainer and the list, all sent at once"
echo "ok 2: the 11th review to one author in the hour waits"

# An hour later, one pass of the store's clock: the 11th goes.
acc_stop
RB_NOW=$(($(date +%s) + 3700)) "$RB_BIN" run --once -c "$d/config.yaml" \
	>"$d/once.log" 2>&1 || rb_fail "run --once: $(tail -5 "$d/once.log")"
acc_check <<'PY' || exit 1
olive = [m for m in acc.mails() if "olive@example.net" in m["rcpt"]]
acc.check(len(olive) == 11, "an hour later Olive has %d reviews, not 11"
          % len(olive))
acc.check(acc.q1("SELECT COUNT(*) FROM outbox WHERE state <> 'sent'") == 0,
          "mail left: %s" % acc.q("SELECT state, last_error FROM outbox"
                                  " WHERE state <> 'sent'"))
PY
echo "ok 3: an hour later the 11th goes"
echo PASS
