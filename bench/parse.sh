#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/parse.sh - message parsing speed on the whole linux-api corpus
# (30,571 messages, 315 MB), in one run beside the real peers:
#
#  - reviewbot: bench/bench_parse.c, built here in the Release build
#    of build-bench/ (bench/lib.sh), parses every message
#    (headers, RFC 2047, MIME, body split) on one core; the CPU time of
#    the parse calls alone is reported, and the whole run is timed;
#  - git mailsplit --mboxrd: git's splitter, which only splits the mbox
#    into files (a lower bound on what git am does before parsing);
#  - git mailinfo: git's parser of one message, over the first
#    RB_MAILINFO_SAMPLE messages (default 2,000), one process each as
#    git am runs it; its rate is per message.
#
# usage: bench/parse.sh [RESULTS.md]   (default bench/RESULTS-msg.md)
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need xz git taskset bc /usr/bin/time
shared=$(bench_shared "${RB_SHARED:-$(cd "$src/.." && pwd)/shared}" \
	corpus/linux-api.mbox.xz) || exit 1
out=$(bench_out "${1:-$src/bench/RESULTS-msg.md}") || exit 1
sample=${RB_MAILINFO_SAMPLE:-2000}
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-parse.XXXXXX")
trap 'rm -rf "$work"' EXIT

rel=$(bench_build bench_parse) || exit 1

xz -dc "$shared/corpus/linux-api.mbox.xz" >"$work/corpus.mbox"
size=$(stat -c %s "$work/corpus.mbox")
n=$(grep -c '^From ' "$work/corpus.mbox")

timed() {
	local name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$work/$name.time" "$@"
}

# Warm the page cache so that no tool pays for the first read.
cat "$work/corpus.mbox" >/dev/null
# Exit 1 means some corpus mail was refused (fails=N in its line, which
# the report shows); no line is a failure.
timed rb taskset -c 0 "$rel/bench/bench_parse" "$work/corpus.mbox" \
	>"$work/rb.out" 2>"$work/rb.err" ||
	grep -q 'msg_per_s=' "$work/rb.out" ||
	bench_die "bench_parse gave no figures: $(tail -n 3 "$work/rb.err")"
mkdir "$work/split"
timed split taskset -c 0 git mailsplit --mboxrd -o"$work/split" \
	"$work/corpus.mbox" >/dev/null
ls "$work/split" >"$work/all"
head -n "$sample" "$work/all" >"$work/sample"
start=$(date +%s.%N)
while read -r f; do
	git mailinfo "$work/mi.msg" "$work/mi.patch" \
		<"$work/split/$f" >/dev/null 2>&1 || true
done <"$work/sample"
mi_secs=$(printf "%.2f" "$(echo "$(date +%s.%N) - $start" | bc)")

# The last line: /usr/bin/time puts "Command exited with ..." before it.
read -r rb_wall rb_rss < <(tail -n 1 "$work/rb.time")
read -r sp_wall sp_rss <"$work/split.time"
rb_line=$(cat "$work/rb.out")
get() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" <<<"$rb_line"; }
rb_rate=$(get msg_per_s)
rb_cpu=$(get parse_cpu_s)
sp_rate=$(echo "$n / $sp_wall" | bc)
mi_rate=$(echo "$sample / $mi_secs" | bc)
verdict=FAIL
[ "${rb_rate%.*}" -ge 20000 ] && verdict=PASS

cat >"$out" <<EOT
## Message parsing (bench/parse.sh, helper msg)

Corpus: linux-api.mbox.xz, $n messages, $((size / 1000000)) MB; $(date -u +%Y-%m-%d),
$(nproc) cores shared with other work, one core used (taskset -c 0).
Repeat with: \`bench/parse.sh\`.

| tool | what it does | messages/s | wall s | peak RSS |
| --- | --- | ---: | ---: | ---: |
| reviewbot rb_message_parse (release) | full parse: headers, RFC 2047, MIME, body split, trailers, patch | **$rb_rate** (parse CPU $rb_cpu s) | $rb_wall (incl. reading and mboxrd unquoting) | $((rb_rss / 1024)) MB (messages streamed) |
| git mailsplit --mboxrd | split only, one file per message | $sp_rate | $sp_wall | $((sp_rss / 1024)) MB |
| git mailinfo | one message per process, as git am runs it ($sample messages) | $mi_rate | $mi_secs | - |

Target >= 20,000 messages/s on one core: **$verdict**.

reviewbot's own counts over the corpus: \`$rb_line\`

Notes: only multipart mail goes through libetpan's mailmime_parse()
(after the boundary guard); single-part bodies are decoded directly.
Address lists take a fast path for the plain "Name <a@b>, ..." form and
fall back to mailimf for anything else; mailimf alone spent about 60% of
the parse time on the long Cc lists of kernel mail (23,000 messages/s
before the fast path, measured the same way). test_message checks on
the corpus that both paths give the same addresses. git mailsplit only
splits; git mailinfo parses one message per process, so its rate is
dominated by process start-up and is given for scale, not as a rival.
EOT
cat "$out"
