#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/code-index.sh - the code index on disk (issue 38,
# review/code/code_index.h) on linux 6.1: a build from nothing, a build for a
# base one commit away, a load by a second process, lookups, the memory
# of three bases in one process; then issue 38's scenario, six series on
# three bases that differ by one file, interleaved, reviewed by one
# "reviewbot run" with the scripted model calling the search tools, with
# a reviewbot built before the code index (BEFORE) and after, with an
# empty index directory (cold) and with one holding linux 6.1's (warm,
# as a daemon has it from the day before): CPU, peak memory, and the
# memory of the daemon once idle.
#
# The bases are commits made in a clone that shares the tree's objects
# (git clone --shared: the tree is only read, new objects go to the
# clone): b1 changes mm/huge_memory.c, b2 also mm/mempolicy.c, b3 also
# mm/memory.c. Each series is one real-looking patch made here from the
# base's text (a cond_resched() in a function of an mm file the bases do
# not change), with a base-commit: trailer; the tree's branch is b3, so
# all three are on it. The scripted model answers each finder pass with
# a grep and a find_definition, then with no finding; the checkers are
# the commit message's only. Figures are "scripted": the model's latency
# is not in them.
#
# With a linux 6.12 tree beside it, also 6.12's index built from 6.1's
# file (a new release: 41% of its blobs are 6.1's) and from nothing.
#
# usage: bench/code-index.sh [OUT]
#   RB_LINUX_TREE  the linux 6.1 tree (default ~/.cache/reviewbot/linux-6.1)
#   RB_LINUX_TREE_6_12  the linux 6.12 tree (default ~/.cache/reviewbot/linux-6.12;
#                  its rows are left out when there is none)
#   BEFORE=path/to/reviewbot-core  one built before the code index
#   NO_SCENARIO=1  the index alone, without the daemon's scenario
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need python3 git
[ $# -lt 1 ] || bench_out "$1" >/dev/null || exit 1
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
tree612=${RB_LINUX_TREE_6_12:-$HOME/.cache/reviewbot/linux-6.12}
[ -d "$tree/.git" ] ||
	bench_die "needs the linux 6.1 git tree at $tree (scripts/setup-linux-tree.sh, or RB_LINUX_TREE)"
b=$(bench_build reviewbot-core) || exit 1
bin=$b/bot/reviewbot-core
before=${BEFORE:+$(bench_bin "$BEFORE")}
m=$src/bench/proc_rss.py
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-cidx.XXXXXX")
pid=
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# ---- the bases ----
git clone -q --shared --no-checkout "$tree" "$work/linux"
(
	cd "$work/linux"
	git read-tree HEAD
	prev=$(git rev-parse HEAD)
	i=0
	for f in mm/huge_memory.c mm/mempolicy.c mm/memory.c; do
		i=$((i + 1))
		{
			git show "$prev:$f"
			printf '\n/* base %d */\nint bench_base_%d;\n' $i $i
		} >"$work/f"
		blob=$(git hash-object -w "$work/f")
		git update-index --cacheinfo "100644,$blob,$f"
		c=$(echo "base $i" | git commit-tree "$(git write-tree)" -p "$prev")
		git update-ref "refs/heads/b$i" "$c"
		prev=$c
	done
)

# json FILE KEY: a number of proc_rss.py's output, one decimal.
json() {
	python3 -c 'import json,sys; print("%.1f" % json.load(open(sys.argv[1])).get(sys.argv[2], 0))' "$1" "$2"
}

# idx LABEL DIR REVS [WORD...]: one "reviewbot code-index" on IDX_TREE
# (default the clone); a table row.
idx() {
	local label=$1 dir=$2 revs=$3 how read
	shift 3
	python3 "$m" run "$work/r.json" "$bin" code-index \
		--tree "${IDX_TREE:-$work/linux}" \
		--rev "$revs" --cache-dir "$dir" "$@" >"$work/out.txt" ||
		bench_die "$label: code-index failed"
	cat "$work/out.txt" >>"$work/all.txt"
	how=$(grep -o ': \(built\|updated\|loaded\)' "$work/out.txt" |
		cut -c3- | tr '\n' ' ')
	read=$(grep -o '[0-9]* blobs read' "$work/out.txt" |
		awk '{ s += $1 } END { print s }')
	echo "| $label | $how| $(json "$work/r.json" wall) | $(json "$work/r.json" cpu) | $read | $(json "$work/r.json" peak_anon) | $(json "$work/r.json" peak_file) | $(json "$work/r.json" hwm) |"
}

words="page folio_put spin_lock_irqsave zap_huge_pmd _huge_pmd mmap_lock"
{
	echo "# code-index $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "## The index alone (reviewbot code-index)"
	echo
	echo "| run | how | wall s | CPU s | blobs read | peak anon MiB | peak file MiB | VmHWM MiB |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	idx "linux 6.1, from nothing" "$work/idx" HEAD
	idx "b1, one file away, from 6.1's" "$work/idx" b1
	idx "b1 again, a second process" "$work/idx" b1
	idx "b2 and b3 in one process, each from the one before" \
		"$work/idx" b2,b3
	idx "b1, b2, b3 in a second process, 6 lookups on each" \
		"$work/idx" b1,b2,b3 $words
	echo
	echo "The process of the last row, after each base (its own /proc/self/status):"
	echo
	grep '^rss with' "$work/out.txt" | sed 's/^/    /'
	echo
	echo "Lookups on b3 in that process: blobs that hold the word (its"
	echo "postings), then the blobs a grep for it would read (the candidates"
	echo "of the word as a piece of any word: a scan of the whole table):"
	echo
	echo "| word | blobs | word lookup ms | grep reads | candidates ms |"
	echo "| --- | ---: | ---: | ---: | ---: |"
	tail -n 7 "$work/out.txt" | grep -v '^rss' |
		sed -E 's/^(.*): in ([0-9]+) blobs \(([0-9.]+) ms\); a grep reads ([0-9]+) \(([0-9.]+) ms\)$/| \1 | \2 | \3 | \4 | \5 |/'
	echo
	echo "The files: $(ls "$work/idx"/*.cidx | wc -l) of $(du -b "$work/idx"/*.cidx | head -n1 | cut -f1) bytes each"
	if [ -d "$tree612/.git" ]; then
		mkdir -p "$work/idx612" "$work/idx612n"
		cp "$work/idx/$(git -C "$work/linux" rev-parse 'HEAD^{tree}').cidx" \
			"$work/idx612/"
		echo
		echo "## A new release: linux 6.12 ($tree612)"
		echo
		echo "| run | how | wall s | CPU s | blobs read | peak anon MiB | peak file MiB | VmHWM MiB |"
		echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
		IDX_TREE=$tree612 idx "6.12 from nothing" "$work/idx612n" HEAD
		IDX_TREE=$tree612 idx "6.12 from 6.1's file" "$work/idx612" HEAD
		IDX_TREE=$tree612 idx "6.12 again, a second process" \
			"$work/idx612" HEAD
		if cmp -s "$work/idx612n/$(git -C "$tree612" rev-parse 'HEAD^{tree}').cidx" \
			"$work/idx612/$(git -C "$tree612" rev-parse 'HEAD^{tree}').cidx"; then
			echo
			echo "The file built from 6.1's is byte for byte the one built from nothing."
		else
			echo
			echo "The file built from 6.1's DIFFERS from the one built from nothing."
		fi
	fi
} | tee "$work/report"

[ -z "${NO_SCENARIO:-}" ] || {
	[ $# -lt 1 ] || cp "$work/report" "$1"
	exit 0
}

# ---- the scenario: six series on three bases, interleaved ----
python3 - "$work/linux" "$work/series.mbox" <<'PY'
import difflib, re, subprocess, sys
repo, out = sys.argv[1:3]
files = ["mm/filemap.c", "mm/page_alloc.c", "mm/vmscan.c", "mm/slub.c",
         "mm/shmem.c", "mm/rmap.c"]
mails = []
for i, path in enumerate(files):
    base = "b%d" % (i % 3 + 1)
    sha = subprocess.check_output(["git", "-C", repo, "rev-parse", base],
                                  text=True).strip()
    text = subprocess.check_output(["git", "-C", repo, "show",
                                    "%s:%s" % (base, path)], text=True)
    lines = text.split("\n")
    # The first statement of the 5th function of the file.
    heads = [k for k, l in enumerate(lines) if l == "{"]
    at = heads[min(4, len(heads) - 1)] + 1
    new = lines[:at] + ["\tcond_resched();"] + lines[at:]
    diff = difflib.unified_diff([l + "\n" for l in lines],
                                [l + "\n" for l in new],
                                "a/" + path, "b/" + path, n=3)
    body = "".join(diff)
    mails.append(f"""From bench@example.org Mon Jan  1 00:00:00 2024
From: Bench Author {i} <author{i}@example.org>
To: linux-mm@kvack.org
Subject: [PATCH] mm: bench: yield in {path} ({base})
Date: Mon, 1 Jan 2024 00:0{i}:00 +0000
Message-ID: <bench-cidx-{i}@example.org>
List-Id: <linux-mm.kvack.org>

Yield the CPU in a loop of {path}, for the bench.

Signed-off-by: Bench Author {i} <author{i}@example.org>
---
diff --git a/{path} b/{path}
{body}
base-commit: {sha}
-- 
2.40.1

""")
open(out, "w").write("".join(mails))
PY

cat >"$work/script.json" <<'EOS'
{"steps": [
 {"kind": "finder", "repeat": true, "match_result": ":",
  "answer_json": {"findings": []}},
 {"kind": "finder", "repeat": true,
  "tool_calls": [{"name": "grep", "arguments": {"pattern": "cond_resched"}},
                 {"name": "find_definition",
                  "arguments": {"symbol": "cond_resched"}}]},
 {"kind": "finder", "repeat": true, "answer_json": {"findings": []}},
 {"kind": "verifier", "repeat": true, "verdict": "confirmed"}
]}
EOS
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
/usr/bin/python3 "$src/tests/model_server.py" --port "$port" \
	--script "$work/script.json" --log "$work/requests.log" &
pid=$!
for _ in $(seq 200); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.025
done

# scenario LABEL BIN XDG: one daemon over the six series; a table row.
scenario() {
	local label=$1 b=$2 xdg=$3 dir builds
	dir=$(mktemp -d "$work/run.XXXXXX")
	cat >"$dir/config.yaml" <<EOC
store:
  path: $dir/rb.db
sources:
  - type: mbox
    path: $work/series.mbox
    poll_seconds: 10
trees:
  - name: linux
    path: $work/linux
    branch: b3
    fetch_minutes: 0
outbox:
  maildir: $dir/outbox
model:
  provider: openai
  url: http://127.0.0.1:$port/v1/chat/completions
  name: scripted
  timeout_seconds: 120
  tools:
    enabled: true
policy:
  default:
    mode: advisory
    send_when_empty: true
    checkers: [commit-msg]
EOC
	XDG_CACHE_HOME=$xdg python3 "$m" daemon "$dir/r.json" "$dir/run.log" \
		"$dir/outbox" 6 "$b" run -c "$dir/config.yaml"
	[ "$(ls "$dir/outbox/new" 2>/dev/null | wc -l)" -ge 6 ] ||
		bench_die "$label: not six reviews: $(tail -5 "$dir/run.log")"
	builds=$(grep -c 'event=model.tools_index\|event=code_index.built' \
		"$dir/run.log" || true)
	echo "| $label | $builds | $(json "$dir/r.json" wall) | $(json "$dir/r.json" cpu) | $(json "$dir/r.json" hwm) | $(json "$dir/r.json" peak_anon) | $(json "$dir/r.json" peak_file) | $(json "$dir/r.json" idle_rss) ($(json "$dir/r.json" idle_anon) + $(json "$dir/r.json" idle_file)) |"
	grep 'event=code_index.built\|event=model.tools_index' "$dir/run.log" |
		sed 's/^ts=[^ ]* //' >>"$work/builds.txt"
}

mkdir -p "$work/cold" "$work/warm/reviewbot/code-index"
cp "$work/idx/$(git -C "$work/linux" rev-parse 'HEAD^{tree}').cidx" \
	"$work/warm/reviewbot/code-index/"
{
	echo
	echo "## Six series on three bases, interleaved (reviewbot run)"
	echo
	echo "| run | index builds | wall to idle s | CPU s | VmHWM MiB | peak anon MiB | peak file MiB | idle RSS MiB (anon + file) |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	if [ -n "$before" ]; then
		scenario "before (index in memory)" "$before" "$work/cold"
	fi
	scenario "after, empty index directory" "$bin" "$work/cold"
	scenario "after, 6.1's index there" "$bin" "$work/warm"
	echo
	echo "The builds, as logged:"
	echo
	sed 's/^/    /' "$work/builds.txt"
} | tee -a "$work/report"
[ $# -lt 1 ] || cp "$work/report" "$1"
