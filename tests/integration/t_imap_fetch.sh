#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_imap_fetch.sh - the IMAP source against a real Dovecot: real list mail
# (a slice of the linux-api corpus) delivered by LMTP is stored once each,
# nothing is marked \Seen (BODY.PEEK), the last UID is kept in the store,
# a second pass fetches only what is new, several mailboxes are read,
# AUTHENTICATE PLAIN is used when offered (LOGIN is tested against
# public-inbox-imapd in t_nntp_archive.sh), messages over the size cap are
# recorded and skipped, and wrong credentials are refused with a clear
# reason.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
d=$RB_TEST_DIR
corpus=$RB_SHARED/corpus/linux-api.mbox.xz
rb_need_shared corpus/linux-api.mbox.xz
rb_need sqlite3
rb_need doveadm


chmod 0755 "$d"
# Deliveries to bot+Archive land in the mailbox Archive.
rb_start_dovecot detail

/usr/bin/python3 "$here/lmtp_corpus.py" "$RB_LMTP_PORT" 0 30 >/dev/null ||
	rb_fail "LMTP delivery"
/usr/bin/python3 "$here/lmtp_corpus.py" "$RB_LMTP_PORT" 30 5 Archive >/dev/null ||
	rb_fail "LMTP delivery to Archive"
printf 'botpass\n' >"$d/imap-pass"
cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: imap
    name: lists
    url: imap://127.0.0.1:$RB_IMAP_PORT
    user: bot
    password_file: $d/imap-pass
    mailboxes: [INBOX, Archive]
    starttls: "off"
    poll_seconds: 10
$(rb_cfg_quiet)
EOC
"$RB_BIN" check-config -c "$d/config.yaml" >/dev/null 2>"$d/cc.log" ||
	rb_fail "config: $(cat "$d/cc.log")"
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run1.log" ||
	rb_fail "run: $(cat "$d/run1.log")"
q() { sqlite3 "$d/rb.db" "$1"; }
n=$(q "SELECT count(*) FROM messages WHERE origin LIKE 'imap://%'")
[ "$n" -eq 35 ] || rb_fail "expected 35 stored messages, got $n: $(tail -5 "$d/run1.log")"
grep -q 'event=imap.login.*method="\?AUTHENTICATE PLAIN' "$d/run1.log" ||
	rb_fail "AUTHENTICATE PLAIN not used: $(grep imap "$d/run1.log")"
last=$(q "SELECT last FROM source_state WHERE source='lists' AND mailbox='INBOX'")
[ "$last" = 30 ] || rb_fail "last UID of INBOX is '$last', not 30"
last=$(q "SELECT last FROM source_state WHERE source='lists' AND mailbox='Archive'")
[ "$last" = 5 ] || rb_fail "last UID of Archive is '$last', not 5"
seen=$(doveadm -c "$RB_DOVECOT_CONF" search -u bot mailbox INBOX SEEN | wc -l)
[ "$seen" -eq 0 ] || rb_fail "$seen messages were marked \\Seen"

# Only what is new is fetched: 7 more, one pass, 42 in all; the store
# reports no duplicates (nothing was fetched twice).
/usr/bin/python3 "$here/lmtp_corpus.py" "$RB_LMTP_PORT" 35 7 >/dev/null
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run2.log" ||
	rb_fail "run 2: $(cat "$d/run2.log")"
n=$(q "SELECT count(*) FROM messages")
[ "$n" -eq 42 ] || rb_fail "expected 42 stored messages, got $n"
last=$(q "SELECT last FROM source_state WHERE source='lists' AND mailbox='INBOX'")
[ "$last" = 37 ] || rb_fail "last UID of INBOX is '$last', not 37"

# The size cap: RFC822.SIZE is checked before fetching; a bigger message
# is recorded as too big and skipped, and the last UID moves past it.
sed -e "s#$d/rb.db#$d/small.db#" -e 's/^outbox:/limits:\n  max_message_size: 4K\noutbox:/' \
	"$d/config.yaml" >"$d/small.yaml"
"$RB_BIN" run -c "$d/small.yaml" --once 2>"$d/small.log" ||
	rb_fail "run (small): $(tail -3 "$d/small.log")"
qs() { sqlite3 "$d/small.db" "$1"; }
big=$(qs "SELECT count(*) FROM messages WHERE reason LIKE '%over the size cap%'")
all=$(qs "SELECT count(*) FROM messages")
[ "$big" -gt 0 ] && [ "$big" -lt "$all" ] ||
	rb_fail "size cap: $big of $all recorded as too big"
[ "$all" -eq 42 ] || rb_fail "size cap: $all of 42 messages accounted for"
[ "$(qs "SELECT last FROM source_state WHERE mailbox='INBOX'")" = 37 ] ||
	rb_fail "size cap: the last UID did not move past the big ones"

# Wrong credentials are refused with a clear reason, and nothing breaks.
printf 'wrong\n' >"$d/imap-pass"
"$RB_BIN" run -c "$d/config.yaml" --once 2>"$d/run4.log"
grep -q 'refused' "$d/run4.log" ||
	rb_fail "no clear reason for refused credentials: $(cat "$d/run4.log")"
echo PASS
