#!/bin/bash
# Kill test (isync's model): kill "reviewbot review" with SIGKILL right
# after each stage's commit (RB_FAULT=STAGE:N), run it again, and compare
# the outbox with the one of an uninterrupted run: exactly the same mails,
# byte for byte, and each exactly once.
. "$(dirname "$0")/integration/lib.sh"
set -e
d=$RB_TEST_DIR
bash "$RB_SRC/scripts/demo.sh" --make-only "$d/demo" >/dev/null
export RB_NOW=1793700000

run() { # run DIR [FAULT]
	RB_FAULT=${2:-} "$RB_BIN" review --tree "$d/demo/tree" \
		--store "$1/rb.db" --outbox "$1/outbox" "$d/demo/series.mbox" \
		>"$1/out.log" 2>&1
}

digest() { # the outbox's mails, as sorted content hashes
	cat "$1"/outbox/new/* 2>/dev/null | wc -c >/dev/null
	for f in "$1"/outbox/new/*; do sha256sum <"$f"; done | sort
}

mkdir -p "$d/clean"
set +e
run "$d/clean"
rc=$?
set -e
[ $rc -le 1 ] || rb_fail "uninterrupted run failed ($rc): $(cat "$d/clean/out.log")"
want=$(digest "$d/clean")
n=$(echo "$want" | grep -c . || true)
[ "$n" -ge 1 ] || rb_fail "the uninterrupted run wrote no reply"
echo "uninterrupted: $n mail(s)"

for fault in ingest:1 ingest:3 parse:1 parse:4 assemble:1 review:1 send:1; do
	k=$d/k-${fault/:/-}
	mkdir -p "$k"
	set +e
	run "$k" "$fault"
	rc=$?
	set -e
	[ $rc -eq 137 ] || rb_fail "$fault: expected SIGKILL (137), got $rc: $(cat "$k/out.log")"
	set +e
	run "$k"
	rc=$?
	set -e
	[ $rc -le 1 ] || rb_fail "$fault: rerun failed ($rc): $(cat "$k/out.log")"
	got=$(digest "$k")
	if [ "$got" != "$want" ]; then
		echo "want: $want"
		echo "got:  $got"
		rb_fail "$fault: the outbox differs from the uninterrupted run"
	fi
	echo "$fault: killed, resumed, same $n mail(s)"
done
echo "1 passed, 0 failed"
