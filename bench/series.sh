#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/series.sh - `reviewbot series` against the real peers, in one run,
# on the whole linux-api corpus (30,571 messages, 315 MB):
#
#  1. speed and memory: parse + assemble the corpus with reviewbot, beside
#     `git mailsplit --mboxrd` (split only) and `b4 am -m` (which parses
#     the whole mbox to find one thread), each under /usr/bin/time -v;
#  2. parity with b4 on every series reviewbot finds (b4's assembly code
#     in-process), plus a sample through the `b4 am` command itself
#     (tests/t_series_b4.sh in bench mode), every disagreement listed.
#
# usage: bench/series.sh [RESULTS.md]   (default bench/RESULTS-series.md)
# RB_BIN: a reviewbot built without sanitizers; by default
# build-bench/bot/reviewbot, built first (Release; bench/lib.sh).
# RB_B4_CLI_SAMPLE: series checked through `b4 am` itself (default 300).
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need xz git b4 python3 /usr/bin/time
shared=$(bench_shared "${RB_SHARED:-$(cd "$src/.." && pwd)/shared}" \
	corpus/linux-api.mbox.xz seeds) || exit 1
out=$(bench_out "${1:-$src/bench/RESULTS-series.md}") || exit 1
corpus=$shared/corpus/linux-api.mbox.xz
bin=$(bench_reviewbot "${RB_BIN:-}") || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-series.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
printf '[b4]\n\tattestation-policy = off\n' >"$work/home/.gitconfig"

xz -dc "$corpus" >"$work/corpus.mbox"
n=$(grep -c '^From ' "$work/corpus.mbox")

# timed NAME CMD...: runs CMD under /usr/bin/time -v, keeps the figures.
timed() {
	local name=$1
	shift
	/usr/bin/time -v -o "$work/$name.time" "$@"
}
fig() { # fig NAME: "wall user+sys rss_mb"
	awk -F': ' '
	/Elapsed \(wall clock\)/ { n = split($2, t, ":"); w = 0
		for (i = 1; i <= n; i++) w = w * 60 + t[i] }
	/User time/ { u = $2 } /System time/ { s = $2 }
	/Maximum resident/ { r = $2 / 1024 }
	END { printf "%.2f %.2f %.1f\n", w, u + s, r }' "$work/$1.time"
}

# Warm the page cache so that every tool reads from memory.
cat "$work/corpus.mbox" >/dev/null
# The machine is shared: each of the fast tools runs 3 times, the run
# with the least CPU time counts.
best() { # best NAME CMD...: keeps the run with the least CPU time
	local name=$1 i
	shift
	for i in 1 2 3; do
		timed "$name.$i" "$@"
	done
	for i in 1 2 3; do
		echo "$(fig "$name.$i" | cut -d' ' -f2) $i"
	done | sort -n | head -n 1 | while read -r _ i; do
		cp "$work/$name.$i.time" "$work/$name.time"
	done
}
best rb "$bin" series --json --stats "$work/corpus.mbox" \
	>"$work/rb.jsonl" 2>"$work/rb.err"
best rbxz "$bin" series --json "$corpus" >"$work/rbxz.jsonl" 2>/dev/null
cmp -s "$work/rb.jsonl" "$work/rbxz.jsonl" || {
	echo "reviewbot gives other series on the .xz file" >&2
	exit 1
}
# mailsplit will not overwrite: a fresh directory for each run.
best split sh -c 'd=$(mktemp -d "$1/msplit.XXXXXX") &&
	exec git mailsplit --mboxrd -o"$d" "$2"' sh "$work" "$work/corpus.mbox" \
	>/dev/null
rm -rf "$work"/msplit.*
first=$(head -n 1 "$work/rb.jsonl" | sed 's/^{"id":"\([^"]*\)".*/\1/')
mkdir "$work/b4"
(cd "$work/b4" && HOME=$work/home GIT_CONFIG_GLOBAL=$work/home/.gitconfig \
	GIT_CONFIG_NOSYSTEM=1 GIT_CEILING_DIRECTORIES=$work \
	http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
	timed b4 b4 am -C -m "$work/corpus.mbox" -o "$work/b4" "$first" \
	>/dev/null 2>&1) || true

read -r rb_w rb_c rb_r <<<"$(fig rb)"
read -r xz_w xz_c xz_r <<<"$(fig rbxz)"
read -r sp_w sp_c sp_r <<<"$(fig split)"
read -r b4_w b4_c b4_r <<<"$(fig b4)"
rate() { awk -v n="$n" -v t="$1" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }'; }
stats=$(tail -n 1 "$work/rb.err")

# Parity: every series, b4's assembly in-process, and a CLI sample.
RB_B4_MODE=bench RB_B4_MBOX=$work/corpus.mbox RB_B4_REPORT=$work/parity.md \
	RB_B4_CLI_SAMPLE=${RB_B4_CLI_SAMPLE:-300} RB_SRC=$src RB_SHARED=$shared \
	RB_BIN=$bin bash "$src/tests/t_series_b4.sh" >"$work/parity.out" 2>&1 || {
	cat "$work/parity.out" >&2
	exit 1
}

{
	echo "## Series assembly (bench/series.sh)"
	echo
	echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores shared with other"
	echo "work; the corpus (\`linux-api.mbox.xz\`, $n messages, $(du -m "$work/corpus.mbox" | cut -f1) MB"
	echo "unpacked) read from the page cache. reviewbot: $stats."
	echo
	echo "| tool | what it does | wall s | CPU s | messages/s (CPU) | peak RSS MB |"
	echo "| --- | --- | --- | --- | --- | --- |"
	echo "| \`reviewbot series --json\` | parse every message (libetpan), assemble all series | $rb_w | $rb_c | $(rate "$rb_c") | $rb_r |"
	echo "| \`reviewbot series --json FILE.xz\` | the same, through xz(1) | $xz_w | $xz_c | $(rate "$xz_c") | $xz_r |"
	echo "| \`git mailsplit --mboxrd\` | split into files only, no parsing | $sp_w | $sp_c | $(rate "$sp_c") | $sp_r |"
	echo "| \`b4 am -C -m MBOX MSGID\` | parse the mbox to find one thread, assemble it | $b4_w | $b4_c | $(rate "$b4_c") | $b4_r |"
	echo
	echo "Targets: >= 20,000 messages/s on one core (reviewbot is single-threaded,"
	echo "so CPU seconds are one core's), peak RSS < 150 MB."
	echo
	echo "### Parity with b4 0.12"
	echo
	cat <<'EOF'
How the disagreements arise, and where b4 is the one that is wrong:

- **Unthreaded series** (most of them): parts sent without In-Reply-To or
  References (mutt, quilt without threading). reviewbot joins them as
  patchwork does (same sender, version and total, each within 12 h of the
  previous part); b4 only follows threads, so `b4 am` on patch 1 yields
  patch 1 alone and reports the rest missing. The issue asks for the
  patchwork rule; these series are listed, and the 99% target is checked
  on the threaded series.
- **b4's answer depends on the message it is asked about**: b4 adds a
  thread's messages in the order `get_strict_thread` finds them from
  MSGID, and its version inference reads only what it has seen. Asked
  about patch 1 of `[PATCHSET RFC v3 00/18]` whose patches say
  `[PATCH 01/18]`, it adds patch 1 before the cover and calls the series
  v1; asked about the cover, v3. Its rule "an unnumbered [PATCH] from the
  same author after another is a new version" also renumbers companion
  patches (man-pages, xfsprogs) sent into a series' thread differently
  for each message asked. reviewbot uses arrival order, which is what
  b4 does when asked about the thread's first message; the table gives
  both figures.
- **b4 am crashes** on every series whose patch Subject is folded over
  two lines (b4 0.12 `get_am_message` copies the raw folded header into
  an `EmailMessage`: "ValueError: Header values may not contain linefeed
  or carriage return characters"); it has already assembled the series,
  so those are compared with its assembly run in-process.
- **Patches in `application/octet-stream` attachments**: b4 reads only
  `*/plain` and `*/x-patch` parts, so such a patch is not a patch to b4;
  reviewbot's parser finds the diff in the attachment.
- **[GIT PULL]** with a diff is a patch to b4; to reviewbot it is a pull
  request, not a series (the issue says so): these are the "series b4
  finds that reviewbot does not report" below, with a thread in which b4
  and reviewbot pick a different first unnumbered patch.

EOF
	grep -E 'agree|crashed' "$work/parity.out" | sed 's/^/    /'
	echo
	cat "$work/parity.md"
} >"$out"
echo "wrote $out"
