#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_imap_uidvalidity.sh - a UIDVALIDITY change on a live Dovecot mailbox
# (doveadm mailbox update --uid-validity) is handled as mbsync does: the
# change is logged, the last UID is reset, the mailbox is read again and
# re-keyed by Message-ID, so every message is still stored exactly once
# and nothing already stored is processed again.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
d=$RB_TEST_DIR
rb_need_shared corpus/linux-api.mbox.xz
rb_need sqlite3
rb_need doveadm
chmod 0755 "$d"

rb_start_dovecot
/usr/bin/python3 "$here/lmtp_corpus.py" "$RB_LMTP_PORT" 100 20 >/dev/null ||
	rb_fail "LMTP delivery"
printf 'botpass\n' >"$d/pass"
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: imap
    name: lists
    url: imap://127.0.0.1:$RB_IMAP_PORT
    user: bot
    password_file: $d/pass
    starttls: "off"
$(rb_cfg_quiet)
EOC
q() { sqlite3 "$d/rb.db" "$1"; }
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run1.log" ||
	rb_fail "run: $(cat "$d/run1.log")"
[ "$(q 'SELECT count(*) FROM messages')" = 20 ] || rb_fail "20 not stored"
old=$(q "SELECT validity FROM source_state WHERE mailbox='INBOX'")
[ "$(q "SELECT last FROM source_state WHERE mailbox='INBOX'")" = 20 ] ||
	rb_fail "last UID is not 20"
q "SELECT message_id, received_at, state, kind FROM messages ORDER BY 1" >"$d/before"

new=$((old + 1000))
doveadm -c "$RB_DOVECOT_CONF" mailbox update --uid-validity "$new" \
	-u bot INBOX || rb_fail "doveadm mailbox update"
/usr/bin/python3 "$here/lmtp_corpus.py" "$RB_LMTP_PORT" 120 5 >/dev/null
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run2.log" ||
	rb_fail "run 2: $(cat "$d/run2.log")"
grep -q "event=imap.uidvalidity_changed.*old=$old.*new=$new" "$d/run2.log" ||
	rb_fail "the change is not logged: $(grep imap "$d/run2.log")"
[ "$(q 'SELECT count(*) FROM messages')" = 25 ] ||
	rb_fail "expected 25 stored messages, got $(q 'SELECT count(*) FROM messages')"
[ "$(q "SELECT validity FROM source_state WHERE mailbox='INBOX'")" = "$new" ] ||
	rb_fail "the new UIDVALIDITY is not kept"
[ "$(q "SELECT last FROM source_state WHERE mailbox='INBOX'")" = 25 ] ||
	rb_fail "the last UID is not 25 after the re-key"
# The 20 old messages were not processed again: same rows, same states.
q "SELECT message_id, received_at, state, kind FROM messages ORDER BY 1" >"$d/after"
same=$(grep -cxF -f "$d/before" "$d/after")
[ "$same" = 20 ] || rb_fail "old messages changed: $same of 20 the same"
# A third pass with the same UIDVALIDITY fetches nothing.
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run3.log"
grep -q uidvalidity_changed "$d/run3.log" && rb_fail "a spurious change"
echo PASS
