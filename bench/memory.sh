#!/bin/bash
# bench/memory.sh - the peak RSS of one review against the size of its
# patch: a one-patch series adding a file of 1, 5 and 20 MB (made with git
# format-patch on the demo tree, scripts/demo.sh), each through
# "reviewbot review" alone (fresh store, limits.max_message_size raised to
# 32M so that the 20 MB patch is taken; model off), beside a 1 KB patch
# (the fixed part: the binary, libgit2, SQLite, the tree). The bound:
# peak RSS <= 10 x the patch + the fixed amount FIXED_MB (default 64).
# Then the 5 MB patch under the default cap (4M): it must be refused with
# a reason that names the cap.
#
# usage: bench/memory.sh [RESULTS.md]
#   FIXED_MB=N   the fixed amount of the bound (default 64)
# RB_BIN: the reviewbot to measure (default build-bench/bot/reviewbot,
# built first: bench/lib.sh).
set -u -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need git /usr/bin/time
RB_BIN=$(bench_reviewbot "${RB_BIN:-}") || exit 1
out=$(bench_out "${1:-/dev/stdout}") || exit 1
fixed=${FIXED_MB:-64}
w=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$w"' EXIT
bash "$src/scripts/demo.sh" --make-only "$w/demo" >/dev/null ||
	bench_die "scripts/demo.sh --make-only failed"
t=$w/demo/tree
export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.org
export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.org

# patch NAME KB: a one-patch series adding lib/NAME.c of about KB KiB.
patch() {
	git -C "$t" checkout -q -b "$1" master
	# 9,000 lines (under the 10,000 changed lines a review takes, so
	# that the whole review runs), as wide as the size needs; past
	# 990 bytes a line (RFC 5322: 998) more lines instead, and the
	# review stops at the line cap after applying the patch.
	awk -v kb="$2" 'BEGIN {
		n = 9000
		wd = int(kb * 1024 / n)
		if (wd < 40)
			wd = 40
		if (wd > 990)
			wd = 990
		n = int(kb * 1024 / wd)
		pad = sprintf("%*s", wd - 37, "")
		gsub(/ /, "x", pad)
		for (i = 0; i < n; i++)
			printf "int table_%07d = %07d; /* %s */\n", i, i, pad
	}' >"$t/lib/$1.c"
	git -C "$t" add "lib/$1.c"
	git -C "$t" commit -q -s -m "lib: add the $1 table" \
		-m "A generated table of $2 KiB, to measure the memory of a review."
	git -C "$t" format-patch -q -1 --stdout |
		sed -e '/^Subject:/i To: demo-list@example.org' >"$w/$1.mbox"
	git -C "$t" checkout -q master
}

conf() {
	cat >"$w/$1.yaml" <<EOC
store:
  path: $w/$1.db
outbox:
  maildir: $w/$1-outbox
trees:
  - name: demo
    path: $t
    fetch_minutes: 0
model:
  provider: none
limits:
  max_message_size: $2
policy:
  default:
    mode: advisory
    bases: [demo]
EOC
}

# review NAME MBOX CAP: "peak_KB exit" of one review of MBOX (fresh store).
review() {
	local rc
	conf "$1" "$3"
	/usr/bin/time -f '%M' -o "$w/$1.rss" "$RB_BIN" review -c "$w/$1.yaml" \
		"$2" >"$w/$1.out" 2>"$w/$1.err"
	rc=$?
	echo "$(tail -1 "$w/$1.rss") $rc"
}

{
	echo "## Memory: a review's peak RSS against its patch (bench/memory.sh)"
	echo ""
	echo "Repeat with: \`bench/memory.sh bench/RESULTS-memory.md\` (RB_BIN=... for another"
	echo "build). One review each (fresh store, model off, the demo tree),"
	echo "limits.max_message_size 32M; the bound is 10 x the patch + $fixed MB."
	echo ""
	echo "| patch | mail bytes | lines | outcome | peak RSS MB | bound MB | RSS / mail | holds |"
	echo "| --- | ---: | ---: | --- | ---: | ---: | ---: | --- |"
} >"$w/report"
fail=0
for kb in 1 1024 5120 20480; do
	name=p$kb
	patch "$name" "$kb"
	bytes=$(stat -c %s "$w/$name.mbox")
	read -r rss rc <<<"$(review "$name" "$w/$name.mbox" 32M)"
	[ "$rc" -le 1 ] || bench_die "review of $name exited $rc: $(tail -3 "$w/$name.err")"
	lines=$(git -C "$t" show "$name:lib/$name.c" | wc -l)
	outcome=$(sqlite3 "$w/$name.db" "SELECT state FROM series" 2>/dev/null | head -1)
	[ "$outcome" = apply_failed ] && outcome="applied, then over the 10,000-line review cap"
	mb=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
	bound=$(awk -v b="$bytes" -v f="$fixed" 'BEGIN { printf "%.1f", 10 * b / 1048576 + f }')
	ratio=$(awk -v k="$rss" -v b="$bytes" 'BEGIN { if (b < 1048576) print "-"; else printf "%.1f", k * 1024 / b }')
	ok=$(awk -v m="$mb" -v b="$bound" 'BEGIN { print (m <= b) ? "yes" : "NO" }')
	[ "$ok" = yes ] || fail=1
	label=$([ "$kb" -lt 1024 ] && echo "$kb KB" || echo "$((kb / 1024)) MB")
	echo "| $label | $bytes | $lines | $outcome | $mb | $bound | $ratio | $ok |" >>"$w/report"
done
# Over the cap: the default 4M against the 5 MB patch.
read -r rss rc <<<"$(review over "$w/p5120.mbox" 4M)"
reason=$(grep -o 'over the size cap[^;]*' "$w/over.err" | head -1)
stored=$(sqlite3 "$w/over.db" "SELECT count(*) FROM messages WHERE state <> 'malformed'")
[ "$stored" = 0 ] || reason=
{
	echo ""
	if [ -n "$reason" ]; then
		echo "Over the cap (the 5 MB patch, limits.max_message_size 4M): refused, exit $rc"
		echo "(1: some input was malformed); nothing is stored but the record of it and"
		echo "nothing is reviewed; peak RSS $((rss / 1024)) MB. reviewbot says:"
		echo ""
		echo "    $(grep -o 'message of .*' "$w/over.err" | head -1 | sed "s#$w/##")"
	else
		echo "Over the cap (the 5 MB patch, limits.max_message_size 4M): NOT refused (exit $rc)."
		fail=1
	fi
	echo ""
} >>"$w/report"
cat "$w/report" >>"$out"
exit $fail
