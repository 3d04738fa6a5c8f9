#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 17: what the bot keeps is private to its user, whatever the umask.
#
# The store holds every mail it read (and the outbox, the verdicts); the
# Maildir outbox every reply; the model exchanges every prompt. Another
# local user must not read them. With umask 000, "reviewbot run --once"
# (a file source, the demo tree) and "reviewbot review" with a model must
# create the SQLite file, its -wal, -shm and .lock 0600, the Maildir and
# the exchanges directory 0700 and their files 0600.
. "$(dirname "$0")/../integration/lib.sh"
set -e
d=$RB_TEST_DIR
export RB_NOW=1793700000
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
mkdir -p "$d/st"
# A model that finds nothing: a command provider.
printf '#!/bin/sh\ncat >/dev/null\necho '"'"'{"findings": []}'"'"'\n' >"$d/model.sh"
chmod +x "$d/model.sh"
cat >"$d/config.yaml" <<EOC
store:
  path: $d/st/rb.db
sources:
  - type: mbox
    path: $d/demo/series.mbox
trees:
  - name: demo
    path: $d/demo/tree
outbox:
  maildir: $d/outbox
policy:
  default:
    mode: off
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
sed -e "s|$d/st/rb.db|$d/st/review.db|" -e "s|$d/outbox|$d/outbox2|" \
	"$d/config.yaml" >"$d/review.yaml"
cat >>"$d/review.yaml" <<EOC
model:
  provider: command
  command: $d/model.sh
EOC

umask 000
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run.log" 2>&1 ||
	rb_fail "run: $(tail -5 "$d/run.log")"
# A reader keeps the WAL and its index in place while a second run writes.
rb_start serve "$RB_BIN" serve -c "$d/config.yaml" --listen 127.0.0.1:0
for _ in $(seq 400); do
	grep -q 'http://' "$RB_TEST_DIR/serve.log" && break
	sleep 0.025
done
cp "$d/demo/series.mbox" "$d/later.mbox"
sed -i 's/^Message-Id: <\(.*\)>/Message-Id: <later-\1>/' "$d/later.mbox"
sed -i "s|path: $d/demo/series.mbox|path: $d/later.mbox|" "$d/config.yaml"
"$RB_BIN" run -c "$d/config.yaml" --once >"$d/run2.log" 2>&1 ||
	rb_fail "run 2: $(tail -5 "$d/run2.log")"
"$RB_BIN" review -c "$d/review.yaml" "$d/demo/series.mbox" >"$d/review.log" 2>&1 ||
	[ $? -eq 1 ] || rb_fail "review: $(tail -5 "$d/review.log")"
umask 022

mode() { stat -c %a "$1"; }
bad=
for f in "$d"/st/rb.db "$d"/st/rb.db.lock "$d"/st/review.db; do
	[ -e "$f" ] || rb_fail "$f is missing"
	[ "$(mode "$f")" = 600 ] || bad="$bad $f:$(mode "$f")"
done
for f in "$d"/st/*-wal "$d"/st/*-shm; do
	[ -e "$f" ] || continue
	[ "$(mode "$f")" = 600 ] || bad="$bad $f:$(mode "$f")"
done
ls "$d"/st/rb.db-wal >/dev/null 2>&1 || rb_fail "no WAL to look at: $(ls "$d/st")"
[ -d "$d/st/review.db.exchanges" ] ||
	rb_fail "no model exchanges recorded: $(tail -5 "$d/review.log")"
for dir in "$d/outbox" "$d/outbox2" "$d/st/review.db.exchanges"; do
	while read -r f; do
		if [ -d "$f" ]; then
			[ "$(mode "$f")" = 700 ] || bad="$bad $f:$(mode "$f")"
		else
			[ "$(mode "$f")" = 600 ] || bad="$bad $f:$(mode "$f")"
		fi
	done < <(find "$dir")
done
n=$(find "$d/outbox/new" "$d/st/review.db.exchanges" -type f | wc -l)
[ "$n" -ge 2 ] || rb_fail "expected a reply and an exchange, found $n files"
[ -z "$bad" ] || rb_fail "readable by others:$bad"
echo "1 passed, 0 failed"
