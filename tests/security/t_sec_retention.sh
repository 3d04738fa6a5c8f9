#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 33: nothing was ever deleted. Every mail any poster sent to a
# list the bot reads, and every model exchange, stayed on disk for ever.
# With retention.raw_days: 30 and retention.exchanges_days: 30:
#  1. the daemon ("reviewbot run --once"), 40 days after Ada's series,
#     empties the raw bytes of her mails (the rows stay: the same mbox
#     read again gives no new series and no new mail), keeps Bob's new
#     patch whole, and deletes the exchange files older than 30 days,
#     not the newer one, nor a symlink's target;
#  2. "reviewbot prune", 40 days after that, empties Bob's too.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/mail_lib.sh"
set -e
sec_setup
cat >>"$d/config.yaml" <<'EOC'
retention:
  raw_days: 30
  exchanges_days: 30
EOC
T0=$RB_NOW
cp "$d/demo/series.mbox" "$d/in.mbox"
sec_run r1.log
cover=$(q "SELECT id FROM series WHERE author = 'ada@example.org'")
[ -n "$cover" ] || rb_fail "Ada's series was not taken in"
n_mail=$(q "SELECT COUNT(*) FROM outbox")
[ "$(q "SELECT MIN(LENGTH(raw)) FROM messages")" -gt 0 ] ||
	rb_fail "raw mail was emptied before its time"

mkdir -p "$d/ex"
echo '{}' >"$d/ex/old.json"
echo '{}' >"$d/ex/new.json"
echo 'keep me' >"$d/outside.json"
touch -d "@$((T0 - 86400))" "$d/ex/old.json" "$d/outside.json"
ln -s "$d/outside.json" "$d/ex/link.json"
touch -h -d "@$((T0 - 86400))" "$d/ex/link.json"

# 1. Forty days on: the daemon prunes.
export RB_NOW=$((T0 + 40 * 86400))
touch -d "@$RB_NOW" "$d/ex/new.json"
sec_patch bob bob-1@example.org 'Bob <bob@example.org>'
sec_append "$d/bob.eml"
"$RB_BIN" run -c "$d/config.yaml" --once --record "$d/ex" 2>"$d/r2.log" ||
	rb_fail "run 2: $(tail -5 "$d/r2.log")"
grep -q 'event=retention.pruned' "$d/r2.log" ||
	rb_fail "1: the daemon did not prune: $(grep -i retention "$d/r2.log")"
[ "$(q "SELECT MAX(LENGTH(raw)) FROM messages WHERE message_id IN (SELECT message_id FROM patches WHERE series_id = '$cover')")" = 0 ] ||
	rb_fail "1: Ada's raw mail was kept past 30 days"
[ "$(q "SELECT LENGTH(raw) > 0 FROM messages WHERE message_id = 'bob-1@example.org'")" = 1 ] ||
	rb_fail "1: Bob's new patch was emptied"
[ -e "$d/ex/old.json" ] && rb_fail "1: the old exchange was kept"
[ -e "$d/ex/new.json" ] || rb_fail "1: the new exchange was deleted"
[ "$(cat "$d/outside.json")" = "keep me" ] || rb_fail "1: a symlink was followed"
[ "$(q "SELECT COUNT(*) FROM reviews WHERE series_id = 'bob-1@example.org'")" -ge 1 ] ||
	rb_fail "1: Bob's patch was not reviewed"
n_mail2=$(q "SELECT COUNT(*) FROM outbox")
# The same mbox again: the emptied rows keep the mail from coming back.
sec_run r3.log
[ "$(q "SELECT COUNT(*) FROM series")" = 2 ] ||
	rb_fail "1: the pruned mail came back as a new series: $(q "SELECT group_concat(id, ' ') FROM series")"
[ "$(q "SELECT COUNT(*) FROM outbox")" = "$n_mail2" ] ||
	rb_fail "1: the pruned series was mailed again"
[ "$n_mail2" -gt "$n_mail" ] || rb_fail "1: Bob's review is not in the outbox"

# 2. "reviewbot prune", forty days later again.
export RB_NOW=$((T0 + 80 * 86400))
"$RB_BIN" prune -c "$d/config.yaml" --exchanges "$d/ex" >"$d/prune.out" 2>&1 ||
	rb_fail "2: prune: $(cat "$d/prune.out")"
grep -q '^pruned: [1-9][0-9]* raw mails, 1 model exchanges$' "$d/prune.out" ||
	rb_fail "2: prune said: $(cat "$d/prune.out")"
[ "$(q "SELECT LENGTH(raw) FROM messages WHERE message_id = 'bob-1@example.org'")" = 0 ] ||
	rb_fail "2: Bob's raw mail was kept past 30 days"
echo "1 passed, 0 failed"
