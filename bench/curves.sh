#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/curves.sh - cost curves (issue 20): how the cost grows with the
# work, each curve measured in one run, written as TSV points under
# bench/charts/ and drawn as SVG by bench/plot.py (standard library only).
#
#  ingest   time and peak RSS of "reviewbot review" storing and assembling
#           (policy off: no review) 1/4, 1/2 and all of the linux-api
#           corpus, and the corpus twice over (a copy with every
#           Message-ID, In-Reply-To and References id renamed), beside git
#           mailsplit splitting the same mbox (the peer; split only).
#  apply    time to apply (commit-msg only) and to apply and check (plus
#           checkpatch) one series of 1, 5, 20 and 100 patches through
#           "reviewbot review" with 1, 3 and 10 trees configured, in the
#           worst case: the series' base is in no tree (the base guess
#           fails), and it applies only on the last tree (each earlier
#           one conflicts with its last patch). The peer: one worktree,
#           "git checkout" of each base and "git am" until one applies,
#           then checkpatch.pl per patch (the worktree is made before the
#           clock starts, once: it is kept in ~/.cache/reviewbot/bench-am,
#           or RB_BENCH_AM_TREE, as deleting 70,000 files takes minutes).
#  latency  "reviewbot run" (role all, SQLite) over IMAP (Dovecot), Maildir
#           outbox: with 0, 10 and 100 demo series and then one more in
#           the mailbox when the daemon starts, the time from its start to
#           the last series' reply and to the first reply; and, for scale,
#           the daemon idle in IMAP IDLE, the last patch delivered by LMTP
#           to its reply.
#  workers  the chart of bench/RESULTS-workers.md (bench/workers.sh).
#  burst    first and last reply of a burst of 5, 10, 20 and 30 series
#           against a 1 s and a 3 s scripted model (bench/burst.sh
#           --curve: reviewbot run, Dovecot in, an SMTP sink out).
#  pass     CPU time and peak RSS of one "reviewbot run --once" pass with
#           one new message (a reply into a stored thread), policy off,
#           at 0, 5,000, 15,000, 30,571 stored messages (the oldest of
#           the corpus first) and 305,710 (the corpus replayed under ten
#           List-Ids, every id renamed in nine of the copies): the
#           median of PASS_RUNS (3) passes after one warm-up, each with a
#           message of its own; with RB_BIN_BEFORE (another build, e.g.
#           main's) the same passes on a store that build filled, in the
#           same run.
#  lists    one daemon following 1, 10 and 100 IMAP folders (LISTS), each
#           its own List-Id, the corpus dealt over them: the first pass,
#           a pass with one new message and one with none (CPU, wall,
#           peak RSS).
#  index    the chart of bench/RESULTS-code-index.md (bench/code-index.sh)
#           against the number of bases: CPU to index them, RSS open.
#
# usage: bench/curves.sh [ingest|apply|latency|workers|pass|burst|lists|index|all]...
#   (default all: not pass, lists nor index). Writes bench/charts/NAME.tsv and .svg and prints the
#   tables for bench/RESULTS-curves.md. The load average is recorded with
#   each point. APPLY_N="1 5 20 100", APPLY_BASES="1 3 10", QUEUED="0 10
#   100" change the points; PASS_SIZES="0 5000 15000 30571 305710" too.
# RB_BIN: the reviewbot to measure (default build-bench/bot/reviewbot,
# built first: bench/lib.sh).
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need python3 git xz /usr/bin/time
RB_SHARED=$(bench_shared "${RB_SHARED:-$(cd "$src/.." && pwd)/shared}" \
	corpus/linux-api.mbox.xz) || exit 1
RB_BIN=$(bench_reviewbot "${RB_BIN:-}") || exit 1
charts=$src/bench/charts
mkdir -p "$charts"
what=${*:-all}
w=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-curves.XXXXXX")
chmod 0755 "$w"
cleanup() {
	rm -rf "$w"
}
trap cleanup EXIT
export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.org
export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.org
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
load() { cut -d' ' -f1 /proc/loadavg; }
day=$(date -u +%F)
ver=$("$RB_BIN" --version | head -n 1)
plot() { python3 "$src/bench/plot.py" "$@" >/dev/null; }

# ---- ingest -----------------------------------------------------------------
curve_ingest() {
	local f n t0 wall rss st rest sw srss ld series
	xz -dc "$RB_SHARED/corpus/linux-api.mbox.xz" >"$w/all.mbox"
	# 1/4, 1/2 (the oldest messages first, as the archive holds them) and
	# the corpus followed by a copy of itself with every id renamed.
	python3 - "$w" <<'PY'
import sys
from mbox_feed import raw, renamed
w = sys.argv[1]
msgs = raw(w + "/all.mbox")
n = len(msgs)
open(w + "/q1.mbox", "wb").write(b"".join(msgs[:n // 4]))
open(w + "/q2.mbox", "wb").write(b"".join(msgs[:n // 2]))
with open(w + "/x2.mbox", "wb") as out:
    out.write(b"".join(msgs))
    for m in msgs:
        out.write(renamed(m, "x2"))
PY
	cat >"$w/off.yaml" <<EOC
store:
  path: $w/ingest.db
outbox:
  maildir: $w/ingest-outbox
policy:
  default:
    mode: "off"
EOC
	printf '| part | messages | reviewbot store s | reviewbot parse+assemble s | reviewbot all s | peak RSS MB | series | git mailsplit s | mailsplit RSS MB | load |\n' >"$w/ingest.md"
	printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n' >>"$w/ingest.md"
	: >"$w/ingest.rows"
	for f in q1 q2 all x2; do
		n=$(grep -c '^From ' "$w/$f.mbox")
		rm -rf "$w/ingest.db"* "$w/ingest-outbox" "$w/split"
		ld=$(load)
		# Exit 1 is normal: some corpus mail is malformed (recorded).
		/usr/bin/time -f '%e %M' -o "$w/time.txt" "$RB_BIN" review \
			-c "$w/off.yaml" "$w/$f.mbox" >"$w/out.txt" \
			2>"$w/err.txt" || true
		grep -q 'stored in [0-9.]* s' "$w/out.txt" ||
			bench_die "ingest $f: no timing line: $(tail -n 3 "$w/err.txt")"
		read -r wall rss < <(tail -n 1 "$w/time.txt")
		st=$(sed -n 's/.*stored in \([0-9.]*\) s.*/\1/p' "$w/out.txt")
		rest=$(sed -n 's/.*sent in \([0-9.]*\) s.*/\1/p' "$w/out.txt")
		series=$(sed -n 's/.*, \([0-9]*\) series,.*/\1/p' "$w/out.txt")
		mkdir "$w/split"
		/usr/bin/time -f '%e %M' -o "$w/stime.txt" git mailsplit \
			--mboxrd -o"$w/split" "$w/$f.mbox" >/dev/null
		read -r sw srss < <(tail -n 1 "$w/stime.txt")
		rm -rf "$w/split"
		echo "$f $n $st $rest $wall $((rss / 1024)) $series $sw $((srss / 1024)) $ld" >>"$w/ingest.rows"
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
			"$f" "$n" "$st" "$rest" "$wall" "$((rss / 1024))" \
			"$series" "$sw" "$((srss / 1024))" "$ld" >>"$w/ingest.md"
		echo "ingest $f: $n messages, $wall s, $((rss / 1024)) MB (load $ld)" >&2
	done
	rm -f "$w"/q1.mbox "$w"/q2.mbox "$w"/x2.mbox "$w/all.mbox"
	{
		echo "# title: Ingest and assemble the linux-api corpus: wall time"
		echo "# x: messages (1/4, 1/2, all, twice over)"
		echo "# y: seconds"
		echo "# note: bench/curves.sh ingest, $day, $ver; reviewbot review, SQLite, policy off (no review)"
		echo "# note: load average at each point: $(awk '{ printf "%s%s", s, $10; s = ", " }' "$w/ingest.rows")"
		printf 'messages\treviewbot: store + parse + assemble\treviewbot: store only\tgit mailsplit, split only (peer)\n'
		awk '{ printf "%s\t%s\t%s\t%s\n", $2, $5, $3, $8 }' "$w/ingest.rows"
	} >"$charts/ingest-time.tsv"
	{
		echo "# title: Ingest and assemble the linux-api corpus: peak RSS"
		echo "# x: messages (1/4, 1/2, all, twice over)"
		echo "# y: peak RSS, MB"
		echo "# note: bench/curves.sh ingest, $day, $ver; /usr/bin/time -f %M"
		printf 'messages\treviewbot: store + parse + assemble\tgit mailsplit (peer)\n'
		awk '{ printf "%s\t%s\t%s\n", $2, $6, $9 }' "$w/ingest.rows"
	} >"$charts/ingest-rss.tsv"
	plot "$charts/ingest-time.tsv" "$charts/ingest-rss.tsv"
	cat "$w/ingest.md"
}

# ---- apply ------------------------------------------------------------------
# A series of up to 100 one-line patches, each to its own .c file, made on
# a private commit P (a line appended at the end of each of those files)
# in a repository of its own: P's blobs are in no configured tree, so the
# base guess finds nothing and every tree is tried in order. For each
# series length N and base count B: B-1 trees whose head changes the
# context of patch N (it fails there, after N-1 patches applied), and a
# last tree where the whole series applies.
apply_setup() {
	ktree=$("$src/scripts/setup-linux-tree.sh") ||
		bench_die "no kernel tree (scripts/setup-linux-tree.sh failed)"
	git clone -q --bare --shared "$ktree" "$w/gen.git"
	git clone -q --bare --shared "$ktree" "$w/k.git"
	# 100 .c files of drivers/, spread over the tree, at least 20 lines.
	git -C "$w/gen.git" ls-tree -r --name-only HEAD drivers/ |
		grep '\.c$' | awk 'NR % 97 == 0' | head -n 200 >"$w/cands"
	# The commits in one git fast-import each (an index of 70,000
	# entries written per commit would take minutes): in gen.git, P
	# (refs/heads/prep) and the series s1..s100; in k.git, for each
	# length N, the bases n$N-b1..b9 (line 3 of the file of patch N, its
	# context, changed) and n$N-good (an unrelated file added).
	python3 - "$w" "${APPLY_N:-1 5 20 100}" <<'PY' || exit 1
import subprocess, sys
w, ns = sys.argv[1], [int(x) for x in sys.argv[2].split()]
def git(repo, *args, inp=None):
    return subprocess.run(["git", "-C", w + "/" + repo] + list(args),
                          input=inp, stdout=subprocess.PIPE,
                          check=True).stdout
def blob(path):
    return git("gen.git", "cat-file", "blob", "HEAD:" + path)
files = []
for f in open(w + "/cands").read().split():
    text = blob(f)
    if text.count(b"\n") >= 20:
        files.append((f, text))
    if len(files) == 100:
        break
if len(files) < 100:
    sys.exit("fewer than 100 files of 20 lines")
open(w + "/files", "w").write("".join(f + "\n" for f, _ in files))
who = b"Ada Lovelace <ada@example.org> 1764806400 +0000"
def commit(ref, parent, msg, changes, mark):
    out = [b"commit " + ref.encode(), b"mark :%d" % mark,
           b"author " + who, b"committer " + who,
           b"data %d" % len(msg), msg]
    out.append(b"from " + parent)
    for path, data in changes:
        out += [b"M 100644 inline " + path.encode(),
                b"data %d" % len(data), data]
    return b"\n".join(out) + b"\n\n"
head = git("gen.git", "rev-parse", "HEAD").strip()
cur = {f: t + b"/* reviewbot bench: the author's tree */\n" for f, t in files}
s = [commit("refs/heads/prep", head, b"bench: the author's tree\n",
            list(cur.items()), 1)]
for i, (f, _) in enumerate(files, 1):
    lines = cur[f].split(b"\n")
    lines.insert(3, b"/* reviewbot bench: note %d */" % i)
    cur[f] = b"\n".join(lines)
    name = f.rsplit("/", 1)[-1][:-2]
    msg = (b"%s: bench note %d\n\nPatch %d of the bench series: one "
           b"comment line.\n\nSigned-off-by: Ada Lovelace "
           b"<ada@example.org>\n" % (name.encode(), i, i))
    s.append(commit("refs/heads/s%d" % i, b":%d" % i, msg,
                    [(f, cur[f])], i + 1))
git("gen.git", "fast-import", "--quiet", inp=b"".join(s))
s, mark = [], 1
for n in ns:
    f, text = files[n - 1]
    for i in range(1, 10):
        lines = text.split(b"\n")
        lines[2] = b"/* base %d */" % i
        s.append(commit("refs/heads/n%d-b%d" % (n, i), head,
                        b"base %d\n" % i, [(f, b"\n".join(lines))], mark))
        mark += 1
    s.append(commit("refs/heads/n%d-good" % n, head, b"good base\n",
                    [("Documentation/reviewbot-bench.txt",
                      b"good base for %d\n" % n)], mark))
    mark += 1
git("k.git", "fast-import", "--quiet", inp=b"".join(s))
PY
}

# apply_conf N B CHECKERS: the config of one run.
apply_conf() {
	local n=$1 b=$2 i names=""
	{
		echo "store:"
		echo "  path: $w/apply.db"
		echo "outbox:"
		echo "  maildir: $w/apply-outbox"
		echo "trees:"
		for i in $(seq "$b"); do
			echo "  - name: b$i"
			echo "    path: $w/k.git"
			if [ "$i" = "$b" ]; then
				echo "    branch: refs/heads/n$n-good"
			else
				echo "    branch: refs/heads/n$n-b$i"
			fi
			echo "    fetch_minutes: 0"
			names="$names${names:+, }b$i"
		done
		echo "policy:"
		echo "  default:"
		echo "    mode: advisory"
		echo "    bases: [$names]"
		echo "    checkers: [$3]"
	} >"$w/apply.yaml"
}

curve_apply() {
	local ns=${APPLY_N:-1 5 20 100} bs=${APPLY_BASES:-1 3 10}
	local n b i kind t0 t1 ld ok wt at cpl cperr
	bench_need perl sqlite3
	t0=$(now)
	apply_setup
	# The peer's worktree is kept between runs: making one takes 40 s
	# here and deleting its 70,000 files minutes.
	wt=${RB_BENCH_AM_TREE:-$HOME/.cache/reviewbot/bench-am}
	if ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$wt"
		git clone -q --shared "$ktree" "$wt" ||
			bench_die "cannot make the peer's worktree $wt"
	fi
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" fetch -q "$w/k.git" '+refs/heads/*:refs/bench/*'
	echo "apply: set-up (series, bases, the peer's worktree) $(secs "$t0" "$(now)") s" >&2
	for n in $ns; do
		rm -rf "$w/mails$n"
		if [ "$n" = 1 ]; then
			git -C "$w/gen.git" format-patch -q -o "$w/mails$n" \
				--thread prep..s1
		else
			git -C "$w/gen.git" format-patch -q -o "$w/mails$n" \
				--cover-letter --thread "prep..s$n"
		fi
		cat "$w/mails$n"/*.patch >"$w/series$n.mbox"
		# The peer's check: checkpatch.pl per patch, in the tree, as
		# bench/checks.sh runs it directly.
		ld=$(load)
		t0=$(now)
		for p in "$w/mails$n"/*.patch; do
			case $p in */0000-*) continue ;; esac
			(cd "$wt" && perl scripts/checkpatch.pl --no-tree \
				--show-types --emacs --quiet --no-summary \
				--color=never "$p" >/dev/null) || true
		done
		t1=$(now)
		echo "cp $n $(secs "$t0" "$t1") $ld" >>"$w/apply.rows"
		echo "apply: checkpatch.pl x $n: $(secs "$t0" "$t1") s" >&2
	done
	for n in $ns; do
		for b in $bs; do
			for kind in apply check; do
				if [ $kind = apply ]; then
					apply_conf "$n" "$b" commit-msg
				else
					apply_conf "$n" "$b" "commit-msg, checkpatch"
				fi
				rm -rf "$w/apply.db"* "$w/apply-outbox"
				ld=$(load)
				t0=$(now)
				RB_LOG=1 "$RB_BIN" review -c "$w/apply.yaml" \
					"$w/series$n.mbox" >"$w/out.txt" \
					2>"$w/err.txt" || true
				t1=$(now)
				# checkpatch ran once, on the chosen base (or not at
				# all for "apply"); a checkpatch that failed is
				# recorded as such: its time is not a check's.
				cpl=$(grep -c 'event=check.done checker=checkpatch ' "$w/err.txt" || true)
				[ "$cpl" = "$([ $kind = check ] && echo 1 || echo 0)" ] ||
					bench_die "apply N=$n B=$b $kind: checkpatch ran $cpl times: $(grep check.done "$w/err.txt")"
				cperr=$(sed -n 's/.*event=check.done checker=checkpatch .*result=[A-Z].* error="\([^"]*\)".*/\1/p' "$w/err.txt" | tr ' ' '_')
				grep -q ' 1 reviewed, 0 failed to apply' "$w/out.txt" ||
					bench_die "apply N=$n B=$b: not reviewed: $(cat "$w/out.txt" "$w/err.txt" | tail -n 4)"
				# Every base tried: B-1 failing at patch N, the last ok.
				at=$(sqlite3 "$w/apply.db" "SELECT count(*), sum(ok), sum(failed_patch = $n) FROM attempts WHERE base_name GLOB 'b[0-9]*'")
				[ "$at" = "$b|1|$((b - 1))" ] ||
					bench_die "apply N=$n B=$b: attempts (tried, ok, failed at $n) $at: $(sqlite3 "$w/apply.db" "SELECT * FROM attempts")"
				echo "rb-$kind $n $b $(secs "$t0" "$t1") $ld $cperr" >>"$w/apply.rows"
				echo "apply: reviewbot $kind N=$n B=$b: $(secs "$t0" "$t1") s (load $ld)${cperr:+ checkpatch failed: $cperr}" >&2
			done
			# The peer: each base checked out in the one worktree, git am
			# until the series applies.
			ld=$(load)
			ok=0
			t0=$(now)
			for i in $(seq "$b"); do
				if [ "$i" = "$b" ]; then
					git -C "$wt" checkout -q -f --detach "refs/bench/n$n-good"
				else
					git -C "$wt" checkout -q -f --detach "refs/bench/n$n-b$i"
				fi
				if git -C "$wt" am -q $(ls "$w/mails$n"/*.patch | grep -v /0000-) \
					>/dev/null 2>&1; then
					ok=1
					break
				fi
				git -C "$wt" am --abort
			done
			t1=$(now)
			[ $ok = 1 ] && [ "$i" = "$b" ] ||
				bench_die "git am N=$n B=$b: applied on base $i of $b"
			echo "am $n $b $(secs "$t0" "$t1") $ld" >>"$w/apply.rows"
			echo "apply: git am N=$n B=$b: $(secs "$t0" "$t1") s (load $ld)" >&2
		done
	done
	python3 - "$w/apply.rows" "$charts" "$day" "$ver" "$ns" "$bs" <<'PY'
import sys
rows, charts, day, ver = sys.argv[1:5]
ns = [int(x) for x in sys.argv[5].split()]
bs = [int(x) for x in sys.argv[6].split()]
t, cp, loads, failed = {}, {}, [], {}
for line in open(rows):
    f = line.split()
    if f[0] == "cp":
        cp[int(f[1])] = float(f[2])
        continue
    loads.append(f[4])
    if len(f) > 5:
        # the checker failed: no point on the chart, the reason in the
        # table
        failed[(f[0], int(f[1]), int(f[2]))] = f[5].replace("_", " ")
        continue
    t[(f[0], int(f[1]), int(f[2]))] = float(f[3])
def bsn(b):
    return "%d base%s" % (b, "" if b == 1 else "s")
def tsv(name, title, cols):
    with open("%s/%s.tsv" % (charts, name), "w") as o:
        o.write("# title: %s\n# x: patches in the series\n# y: seconds\n"
                "# xscale: log\n# yscale: log\n" % title)
        o.write("# note: bench/curves.sh apply, %s, %s; linux 6.1, the "
                "series applies on the last base only\n" % (day, ver))
        o.write("# note: load average %s to %s over the run\n"
                % (min(loads, key=float), max(loads, key=float)))
        if name == "apply-check":
            for (k, n, b), why in sorted(failed.items()):
                o.write("# note: no point: %d patches, %d bases: checkpatch"
                        " failed: %s\n" % (n, b, why))
        o.write("patches\t" + "\t".join(c[0] for c in cols) + "\n")
        for n in ns:
            o.write("%d\t%s\n" % (n, "\t".join(
                "%.3f" % c[1](n) if c[1](n) is not None else "-"
                for c in cols)))
get = lambda k, n, b: t.get((k, n, b))
add = lambda a, b: None if a is None or b is None else a + b
tsv("apply", "Apply one series, the last of B bases: reviewbot review "
    "(commit-msg only)",
    [("reviewbot, " + bsn(b), lambda n, b=b: get("rb-apply", n, b))
     for b in bs] +
    [("git checkout + am, " + bsn(b) + " (peer)",
      lambda n, b=b: get("am", n, b)) for b in bs])
tsv("apply-check", "Apply and check one series (checkpatch): reviewbot "
    "review",
    [("reviewbot, " + bsn(b), lambda n, b=b: get("rb-check", n, b))
     for b in bs] +
    [("git am + checkpatch.pl, " + bsn(b) + " (peer)",
      lambda n, b=b: add(get("am", n, b), cp.get(n))) for b in bs])
print("| patches | bases | reviewbot apply s | reviewbot apply + checkpatch s"
      " | git checkout + am s | checkpatch.pl per patch s |")
print("| ---: | ---: | ---: | ---: | ---: | ---: |")
for n in ns:
    for b in bs:
        f = lambda v: "%.2f" % v if v is not None else "-"
        chk = f(get("rb-check", n, b))
        if ("rb-check", n, b) in failed:
            chk = "checkpatch failed: " + failed[("rb-check", n, b)]
        print("| %d | %d | %s | %s | %s | %s |" % (
            n, b, f(get("rb-apply", n, b)), chk,
            f(get("am", n, b)), f(cp.get(n))))
PY
	plot "$charts/apply.tsv" "$charts/apply-check.tsv"
	git -C "$wt" checkout -q -f --detach origin/HEAD
}

# ---- latency ----------------------------------------------------------------
curve_latency() {
	bench_need dovecot sqlite3
	local q qs=${QUEUED:-0 10 100} pend lat ld t0 first
	# A directory of our own for the servers (tests/integration/lib.sh).
	TMPDIR=$w
	. "$src/tests/integration/lib.sh"
	trap 'rb_cleanup; cleanup' EXIT
	local d=$RB_TEST_DIR
	chmod 0755 "$d"
	bash "$src/scripts/demo.sh" --make-only "$d/demo" >/dev/null
	rb_start_dovecot
	printf 'botpass\n' >"$d/pass"
	# feed.py PORT MBOX FIRST LAST TAG...: messages FIRST..LAST (0-based)
	# of MBOX by LMTP for each TAG, the TAG added to every id and to the
	# subject (each copy a series of its own, not a resend of the last).
	# With PROBE=DB,Q in the environment, it waits (in-process, so that
	# the queue is still there) until the store holds Q review jobs and
	# the first parts of the series, then delivers, and waits for the
	# reply in the outbox: prints "not-done-at-delivery seconds".
	cat >"$d/feed.py" <<'PY'
import os, re, smtplib, sqlite3, sys, time
from mbox_feed import split, tagged
port, mbox, first, last = sys.argv[1:5]
tags = sys.argv[5:]
msgs = split(mbox)
def wait_reply(new, tag, t0):
    """Seconds from t0 to the first mail in @new and to the reply to
    @tag's series."""
    pat = re.compile(rb"^In-Reply-To: .*\." + re.escape(tag.encode()) +
                     rb"@", re.M | re.I)
    seen, first = set(), None
    while time.time() < t0 + 900:
        for f in os.listdir(new) if os.path.isdir(new) else []:
            if f in seen:
                continue
            seen.add(f)
            if first is None:
                first = time.time() - t0
            if pat.search(open(os.path.join(new, f), "rb").read()):
                return first, time.time() - t0
        time.sleep(0.002)
    sys.exit("no reply in 900 s")
if os.environ.get("WAIT"):
    new, t0 = os.environ["WAIT"].split(",")
    first, last = wait_reply(new, tags[0], float(t0))
    print("%.3f %.3f" % (first, last))
    sys.exit(0)
probe = os.environ.get("PROBE")
if probe:
    db, q = probe.split(",")
    tag = tags[0]
    deadline = time.time() + 600
    while True:
        if time.time() > deadline:
            sys.exit("the queue was not stored in time")
        try:
            c = sqlite3.connect(db, timeout=5)
            jobs = c.execute("SELECT count(*) FROM jobs WHERE kind ="
                             " 'review'").fetchone()[0]
            have = c.execute("SELECT count(*) FROM messages WHERE"
                             " message_id LIKE ?",
                             ("%." + tag + "@%",)).fetchone()[0]
            c.close()
        except sqlite3.Error:
            jobs = have = -1
        if jobs == int(q) and have == int(first):
            break
        time.sleep(0.002)
    c = sqlite3.connect(db, timeout=5)
    pend = c.execute("SELECT count(*) FROM jobs WHERE kind = 'review' AND"
                     " state != 'done'").fetchone()[0]
    c.close()
lm = smtplib.LMTP("127.0.0.1", int(port))
t0 = time.time()
for tag in tags:
    for m in msgs[int(first):int(last) + 1]:
        lm.sendmail("list@example.org", ["bot"], tagged(m, tag, subject=True))
lm.quit()
if probe:
    first, last = wait_reply(os.path.join(os.path.dirname(db), "outbox",
                                          "new"), tag, t0)
    print(pend, "%.3f" % last)
PY
	sed -e 's/^\(Subject: \[PATCH\)/List-Id: <demo-list.example.org>\n\1/' \
		"$d/demo/series.mbox" >"$d/series.mbox"
	: >"$w/latency.rows"
	# live: the daemon idle in IMAP IDLE, the last patch delivered then.
	# Otherwise: Q series and then the whole probe series are in the
	# mailbox when the daemon starts (the clock starts with it): the
	# probe is the last of Q + 1 series that arrived together.
	for q in live $qs; do
		rm -rf "$d/mail"/* "$d/lat.db"* "$d/outbox"
		cat >"$d/lat.yaml" <<EOC
store:
  path: $d/lat.db
sources:
  - type: imap
    name: lists
    url: imap://127.0.0.1:$RB_IMAP_PORT
    user: bot
    password_file: $d/pass
    starttls: "off"
list_ids: [demo-list.example.org]
trees:
  - name: demo
    path: $d/demo/tree
    fetch_minutes: 0
outbox:
  maildir: $d/outbox
  rate_per_hour: 100000
  rate_per_recipient_hour: 10000
  rate_per_list_hour: 100000
model:
  provider: none
policy:
  default:
    mode: "off"
    bases: [demo]
  subsystems:
    RING BUFFER:
      mode: advisory
EOC
		"$RB_BIN" check-config -c "$d/lat.yaml" >/dev/null ||
			bench_die "latency: the config does not check"
		if [ "$q" = live ]; then
			python3 "$d/feed.py" "$RB_LMTP_PORT" "$d/series.mbox" \
				0 2 probe
			rb_start "lat$q" "$RB_BIN" run -c "$d/lat.yaml"
			ld=$(load)
			read -r pend lat < <(PROBE="$d/lat.db,0" python3 \
				"$d/feed.py" "$RB_LMTP_PORT" "$d/series.mbox" \
				3 3 probe) ||
				bench_die "latency: live: no figure: $(tail -n 3 "$d/lat$q.log")"
			first=$lat
		else
			[ "$q" = 0 ] || python3 "$d/feed.py" "$RB_LMTP_PORT" \
				"$d/series.mbox" 0 3 $(seq -f "q$q-%g" "$q")
			python3 "$d/feed.py" "$RB_LMTP_PORT" "$d/series.mbox" \
				0 3 probe
			ld=$(load)
			t0=$(now)
			rb_start "lat$q" "$RB_BIN" run -c "$d/lat.yaml"
			read -r first lat < <(WAIT="$d/outbox/new,$t0" python3 \
				"$d/feed.py" 0 "$d/series.mbox" 0 0 probe) ||
				bench_die "latency: $q queued: no figure: $(tail -n 3 "$d/lat$q.log")"
			pend=$q
		fi
		rb_stop "lat$q"
		echo "$q $pend $lat $ld $(ls "$d/outbox/new" | wc -l) $first" >>"$w/latency.rows"
		echo "latency: $q queued ($pend ahead): first reply $first s, the probe's $lat s (load $ld)" >&2
	done
	{
		echo "# title: Series ahead in the queue -> the last one's reply"
		echo "# x: series ahead of it (in the mailbox with it)"
		echo "# y: seconds from the daemon's start"
		echo "# note: bench/curves.sh latency, $day, $ver; reviewbot run, role all, SQLite, Dovecot IMAP"
		echo "# note: the demo series (3 patches, commit-msg checks), model off; load average $(awk '{ printf "%s%s", s, $4; s = ", " }' "$w/latency.rows")"
		echo "# note: live, daemon idle in IMAP IDLE, last patch delivered then: $(awk '$1 == "live" { print $3 }' "$w/latency.rows") s to its reply"
		printf "queued\tthe last series' reply\tthe first reply\n"
		awk '$1 != "live" { printf "%s\t%s\t%s\n", $1, $3, $6 }' "$w/latency.rows"
	} >"$charts/latency.tsv"
	plot "$charts/latency.tsv"
	echo "| series ahead | seconds to its reply | seconds to the first reply | replies in the outbox | load |"
	echo "| --- | ---: | ---: | ---: | ---: |"
	awk '{ printf "| %s | %s | %s | %s | %s |\n", $1 == "live" ? "live: 0, daemon in IDLE" : $1, $3, $6, $5, $4 }' "$w/latency.rows"
}

# ---- workers ----------------------------------------------------------------
# The figures of bench/RESULTS-workers.md (bench/workers.sh), drawn.
curve_workers() {
	local r=$src/bench/RESULTS-workers.md
	[ -r "$r" ] || bench_die "no $r: run bench/workers.sh first"
	python3 - "$r" "$charts/workers.tsv" <<'PY'
import re, sys
src, out = sys.argv[1:3]
text = open(src).read()
rows = re.findall(r"^\| (\d+) \| ([\d.]+) \| ([\d.]+) \| [\d.]+x \| \d+x \|",
                  text, re.M)
if not rows:
    raise SystemExit("no table in " + src)
head = text.split("\n\n")[1].replace("\n", " ")
if len(head) > 140:
    head = head[:head.rfind(",", 0, 140)] + " ..."
base = float(rows[0][2])
with open(out, "w") as o:
    o.write("# title: Review throughput, workers on one PostgreSQL store\n"
            "# x: workers\n# y: series per minute\n")
    o.write("# note: bench/workers.sh, figures from bench/RESULTS-workers.md"
            " (that run recorded no load average)\n")
    o.write("# note: %s\n" % head[:150])
    o.write("workers\treviewbot run --role worker\t"
            "linear from 1 worker (ideal)\n")
    for w, s, spm in rows:
        o.write("%s\t%s\t%.1f\n" % (w, spm, base * int(w)))
PY
	plot "$charts/workers.tsv"
	echo "workers: $charts/workers.svg" >&2
}

# ---- pass -------------------------------------------------------------------
# pass_fill BIN N: a store of N messages made by BIN (reviewbot review,
# policy off), in $w/pass.db.
pass_fill() {
	local bin=$1 n=$2 last t0
	rm -rf "$w/pass.db"* "$w/pass-outbox"
	echo "none@bench.example.org" >"$w/last-id"
	echo 0 >"$w/fill-s"
	[ "$n" = 0 ] && return 0
	# The first N messages; the new mail answers the last of them.
	last=$(python3 -m mbox_feed head "$n" "$w/x10.mbox" "$w/part.mbox")
	[ -z "$last" ] || echo "$last" >"$w/last-id"
	t0=$(now)
	"$bin" review -c "$w/pass-fill.yaml" "$w/part.mbox" >"$w/fill.txt" \
		2>"$w/fill.err" || true
	secs "$t0" "$(now)" >"$w/fill-s"
	grep -q 'stored in' "$w/fill.txt" ||
		bench_die "pass: filling $n with $bin: $(tail -n 3 "$w/fill.err")"
	echo "pass: filled $n with $bin in $(cat "$w/fill-s") s, store $(du -sm "$w/pass.db" | cut -f1) MB (load $(load))" >&2
	rm -f "$w/part.mbox"
}

# pass_new I: the I-th new message, a reply into the last stored thread.
pass_new() {
	cat >"$w/new.mbox" <<EOM
From bench@example.org Mon Jan  1 00:00:00 2024
From: Bench Reader <bench@example.org>
To: linux-api@vger.kernel.org
Subject: Re: one more word
Date: Mon, 1 Jan 2024 12:00:00 +0000
Message-ID: <pass-$1.$$@bench.example.org>
In-Reply-To: <$(cat "$w/last-id")>
References: <$(cat "$w/last-id")>
List-Id: <linux-api.vger.kernel.org>

One more word on this.
EOM
}

curve_pass() {
	local sizes=${PASS_SIZES:-0 5000 15000 30571 305710}
	local runs=${PASS_RUNS:-3} n bin tag i ld wall u s rss cpus rsss
	xz -dc "$RB_SHARED/corpus/linux-api.mbox.xz" >"$w/all.mbox"
	# The corpus, then nine copies under other List-Ids, ids renamed.
	python3 - "$w" <<'PY'
import sys
from mbox_feed import raw, renamed
w = sys.argv[1]
msgs = raw(w + "/all.mbox")
with open(w + "/x10.mbox", "wb") as out:
    out.write(b"".join(msgs))
    for k in range(1, 10):
        for m in msgs:
            out.write(renamed(m, "l%d" % k, "linux-api-%d.vger.kernel.org" % k))
PY
	rm -f "$w/all.mbox"
	cat >"$w/pass-fill.yaml" <<EOC
store:
  path: $w/pass.db
outbox:
  maildir: $w/pass-outbox
policy:
  default:
    mode: "off"
EOC
	cat >"$w/pass-run.yaml" <<EOC
store:
  path: $w/pass.db
sources:
  - type: mbox
    path: $w/new.mbox
outbox:
  maildir: $w/pass-outbox
policy:
  default:
    mode: "off"
EOC
	: >"$w/pass.rows"
	for n in $sizes; do
		for tag in after before; do
			bin=$RB_BIN
			if [ $tag = before ]; then
				[ -n "${RB_BIN_BEFORE:-}" ] || continue
				bin=$RB_BIN_BEFORE
			fi
			pass_fill "$bin" "$n"
			cpus= rsss=
			for i in $(seq 0 "$runs"); do
				pass_new "$i"
				ld=$(load)
				# getrusage of the child: CPU to the microsecond
				# (/usr/bin/time rounds to 10 ms, an empty
				# store's whole pass), and its peak RSS.
				python3 - "$w/time.txt" "$bin" run --once -c \
					"$w/pass-run.yaml" >"$w/out.txt" \
					2>"$w/err.txt" <<'PY' ||
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.call(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.3f %.4f %.4f %d\n" % (
    time.time() - t, r.ru_utime, r.ru_stime, r.ru_maxrss))
sys.exit(rc)
PY
					bench_die "pass $tag $n: $(tail -n 3 "$w/err.txt")"
				[ "$i" = 0 ] && continue # the warm-up
				read -r wall u s rss < <(tail -n 1 "$w/time.txt")
				cpus="$cpus $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.4f", u + s }')"
				rsss="$rsss $((rss / 1024))"
				echo "pass $tag $n: run $i: $wall s wall, $u+$s s CPU, $((rss / 1024)) MB (load $ld)" >&2
			done
			med() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
			echo "$tag $n $(echo "$cpus" | med) $(echo "$rsss" | med) $ld $(cat "$w/fill-s")" >>"$w/pass.rows"
		done
	done
	rm -f "$w/x10.mbox" "$w/pass.db"*
	{
		echo "# title: One pass with one new message: CPU time against the store"
		echo "# x: messages stored"
		echo "# y: CPU seconds (user + system, median of $runs)"
		echo "# note: bench/curves.sh pass, $day, $ver; reviewbot run --once, SQLite, policy off"
		echo "# note: 305,710: the corpus replayed under ten List-Ids; load average $(awk '{ printf "%s%s", s, $5; s = ", " }' "$w/pass.rows")"
		printf 'messages\tincremental assembly (this build)\tbefore (RB_BIN_BEFORE)\n'
		awk '{ v[$2, $1] = $3; if (!($2 in seen)) { seen[$2] = 1; o[++k] = $2 } }
		     END { for (i = 1; i <= k; i++) printf "%s\t%s\t%s\n", o[i], v[o[i], "after"], (o[i], "before") in v ? v[o[i], "before"] : "-" }' "$w/pass.rows"
	} >"$charts/pass-cpu.tsv"
	{
		echo "# title: One pass with one new message: peak RSS against the store"
		echo "# x: messages stored"
		echo "# y: peak RSS, MB (median of $runs)"
		echo "# note: bench/curves.sh pass, $day, $ver; /usr/bin/time -f %M"
		printf 'messages\tincremental assembly (this build)\tbefore (RB_BIN_BEFORE)\n'
		awk '{ v[$2, $1] = $4; if (!($2 in seen)) { seen[$2] = 1; o[++k] = $2 } }
		     END { for (i = 1; i <= k; i++) printf "%s\t%s\t%s\n", o[i], v[o[i], "after"], (o[i], "before") in v ? v[o[i], "before"] : "-" }' "$w/pass.rows"
	} >"$charts/pass-rss.tsv"
	plot "$charts/pass-cpu.tsv" "$charts/pass-rss.tsv"
	echo "| stored messages | build | CPU s (median) | x empty store | peak RSS MB | load | fill s |"
	echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
	awk '$2 == 0 { e[$1] = $3 } { r[NR] = $0 }
	     END { for (i = 1; i <= NR; i++) { split(r[i], f, " "); printf "| %s | %s | %s | %.1f | %s | %s | %s |\n", f[2], f[1], f[3], (e[f[1]] > 0 ? f[3] / e[f[1]] : 0), f[4], f[5], f[6] } }' "$w/pass.rows"
}

# ---- lists ------------------------------------------------------------------
# One daemon following N IMAP folders (LISTS="1 10 100"): the linux-api
# corpus dealt over N folders of a loopback Dovecot, each folder its own
# List-Id (message i to folder i mod N), all N in list_ids. For each N:
# the first pass (reviewbot run --once: every folder synced, the corpus
# stored, parsed and assembled), then PASS_RUNS passes with one new
# message in the last folder, and as many with none: wall, CPU and peak
# RSS of each (the median), policy off.
curve_lists() {
	bench_need dovecot sqlite3
	local n ns=${LISTS:-1 10 100} runs=${PASS_RUNS:-3} i k ld mb f
	TMPDIR=$w
	. "$src/tests/integration/lib.sh"
	trap 'rb_cleanup; cleanup' EXIT
	local d=$RB_TEST_DIR
	chmod 0755 "$d"
	rb_start_dovecot
	printf 'botpass\n' >"$d/pass"
	xz -dc "$RB_SHARED/corpus/linux-api.mbox.xz" >"$w/all.mbox"
	: >"$w/lists.rows"
	cat >"$d/rus.py" <<'EOP'
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL,
                     stderr=open(sys.argv[1] + ".err", "w"))
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.3f %.4f %d\n" % (
    time.time() - t, r.ru_utime + r.ru_stime, r.ru_maxrss // 1024))
sys.exit(rc)
EOP
	for n in $ns; do
		rm -rf "$d/mail/bot" "$d/lists.db"* "$d/lists-outbox"
		python3 - "$w/all.mbox" "$d/mail/bot/Maildir" "$n" <<'EOP'
import os, re, sys
src, md, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
starts = [m.start() for m in re.finditer(rb"^From ", data, re.M)]
lid = re.compile(rb"^list-id:[^\n]*\n", re.I | re.M)
for k in range(n):
    for sub in ("cur", "new", "tmp"):
        os.makedirs("%s/.list%d/%s" % (md, k, sub), exist_ok=True)
for sub in ("cur", "new", "tmp"):
    os.makedirs("%s/%s" % (md, sub), exist_ok=True)
for i, s in enumerate(starts):
    m = data[s:starts[i + 1] if i + 1 < len(starts) else len(data)]
    m = m.split(b"\n", 1)[1]  # the mbox From_ line
    m = re.sub(rb"^>(>*From )", rb"\1", m, flags=re.M)
    head, sep, body = m.partition(b"\n\n")
    head = lid.sub(b"", head + b"\n").rstrip(b"\n")
    head += b"\nList-Id: <list%d.bench.example.org>" % (i % n)
    open("%s/.list%d/new/%d.bench:2," % (md, i % n, i), "wb").write(
        head + sep + body)
EOP
		chmod -R a+rwX "$d/mail/bot"
		{
			echo "store:"
			echo "  path: $d/lists.db"
			echo "sources:"
			echo "  - type: imap"
			echo "    name: lists"
			echo "    url: imap://127.0.0.1:$RB_IMAP_PORT"
			echo "    user: bot"
			echo "    password_file: $d/pass"
			echo "    starttls: \"off\""
			echo "    mailboxes: [$(seq -f 'list%g' 0 $((n - 1)) | paste -sd, | sed 's/,/, /g')]"
			echo "list_ids: [$(seq -f 'list%g.bench.example.org' 0 $((n - 1)) | paste -sd, | sed 's/,/, /g')]"
			echo "outbox:"
			echo "  maildir: $d/lists-outbox"
			echo "model:"
			echo "  provider: none"
			echo "policy:"
			echo "  default:"
			echo "    mode: \"off\""
		} >"$d/lists.yaml"
		"$RB_BIN" check-config -c "$d/lists.yaml" >/dev/null 2>&1 ||
			bench_die "lists: the config does not check: $("$RB_BIN" check-config -c "$d/lists.yaml" 2>&1 | tail -n 2)"
		ld=$(load)
		python3 "$d/rus.py" "$d/t" "$RB_BIN" run --once -c "$d/lists.yaml" ||
			bench_die "lists $n: first pass: $(tail -n 3 "$d/t.err")"
		mb=$(sqlite3 "$d/lists.db" "SELECT COUNT(*) FROM messages")
		echo "$n first $(cat "$d/t") $ld $mb" >>"$w/lists.rows"
		echo "lists $n: first pass $(cat "$d/t") (wall, CPU, RSS MB), $mb stored (load $ld)" >&2
		for k in new idle; do
			for i in $(seq "$runs"); do
				if [ $k = new ]; then
					f="$d/mail/bot/Maildir/.list$((n - 1))/new/new$i.bench:2,"
					printf 'From: Bench <bench@example.org>\nTo: list@example.org\nSubject: Re: one more word\nDate: Mon, 1 Jan 2024 12:00:00 +0000\nMessage-ID: <lists-%s-%s@bench.example.org>\nList-Id: <list%s.bench.example.org>\n\nOne more word.\n' \
						"$n" "$i" $((n - 1)) >"$f"
					chmod a+rw "$f"
				fi
				ld=$(load)
				python3 "$d/rus.py" "$d/t" "$RB_BIN" run --once -c "$d/lists.yaml" ||
					bench_die "lists $n: pass: $(tail -n 3 "$d/t.err")"
				echo "$n $k $(cat "$d/t") $ld" >>"$w/lists.rows"
				echo "lists $n: $k pass $i: $(cat "$d/t") (load $ld)" >&2
			done
		done
		[ "$(sqlite3 "$d/lists.db" "SELECT COUNT(*) FROM messages")" = $((mb + runs)) ] ||
			bench_die "lists $n: the new messages were not all stored"
	done
	rm -f "$w/all.mbox"
	python3 - "$w/lists.rows" "$charts/lists.tsv" "$day" "$ver" "$runs" <<'EOP'
import statistics, sys
src, out, day, ver, runs = sys.argv[1:6]
rows = [l.split() for l in open(src) if l.strip()]
ns, at = [], {}
for r in rows:
    if r[0] not in ns:
        ns.append(r[0])
    at.setdefault((r[0], r[1]), []).append(r)
def med(n, k, col):
    return statistics.median_low(float(r[col]) for r in at[(n, k)])
print("| list ids (folders) | pass | wall s | CPU s | peak RSS MB | load |")
print("| ---: | --- | ---: | ---: | ---: | ---: |")
names = {"first": "first (the corpus, %s stored)", "new": "one new message",
         "idle": "nothing new"}
for n in ns:
    for k in ("first", "new", "idle"):
        rs = at[(n, k)]
        name = names[k] % rs[0][6] if k == "first" else names[k]
        print("| %s | %s | %.3f | %.3f | %d | %s |" % (
            n, name, med(n, k, 2), med(n, k, 3), med(n, k, 4), rs[-1][5]))
with open(out, "w") as o:
    o.write("# title: One daemon following N IMAP folders (list ids): one pass\n"
            "# x: folders followed (list ids)\n"
            "# y: CPU seconds (median of %s)\n# xscale: log\n" % runs)
    o.write("# note: bench/curves.sh lists, %s, %s; reviewbot run --once,"
            " SQLite, loopback Dovecot, policy off\n" % (day, ver))
    o.write("# note: the linux-api corpus (30,571) dealt over the folders;"
            " load average %s to %s\n" % (
                min((r[5] for r in rows), key=float),
                max((r[5] for r in rows), key=float)))
    o.write("folders\tone new message\tnothing new\n")
    for n in ns:
        o.write("%s\t%.4f\t%.4f\n" % (n, med(n, "new", 3), med(n, "idle", 3)))
EOP
	plot "$charts/lists.tsv"
}

# ---- index ------------------------------------------------------------------
# The figures of bench/RESULTS-code-index.md (bench/code-index.sh), drawn
# against the number of bases: the CPU to have 1, 2 and 3 bases indexed
# (linux 6.1 from nothing, then b1, then b2 and b3, each from the one
# before; before the code index, a whole build per base: the scenario's
# CPU over its builds), and the RSS of one process with 1, 2 and 3 bases
# open, beside the lookup times measured with 3 open.
curve_index() {
	local r=$src/bench/RESULTS-code-index.md
	[ -r "$r" ] || bench_die "no $r: run bench/code-index.sh first"
	python3 - "$r" "$charts" <<'EOP'
import re, sys
src, charts = sys.argv[1:3]
text = open(src).read()
def row(label):
    m = re.search(r"^\| " + re.escape(label) + r" \|([^\n]*)$", text, re.M)
    if not m:
        raise SystemExit("no row %r in %s" % (label, src))
    return [c.strip() for c in m.group(1).split("|")]
head = re.search(r"^# code-index (\S+), ([^\n]*)$", text, re.M)
when = "%s, %s" % (head.group(1), head.group(2)) if head else "?"
built = float(row("linux 6.1, from nothing")[2])
b1 = float(row("b1, one file away, from 6.1's")[2])
b23 = float(row("b2 and b3 in one process, each from the one before")[2])
loaded = float(row("b1 again, a second process")[2])
before = row("before (index in memory)")
per_build = float(before[2]) / int(before[0])
rss = [float(x) for x in re.findall(r"rss with \d open: ([\d.]+) MiB", text)]
looks = re.findall(r"^\| (\w+) \| \d+ \| ([\d.]+) \| \d+ \| ([\d.]+) \|$",
                   text, re.M)
with open(charts + "/index-build.tsv", "w") as o:
    o.write("# title: Code index: CPU to have N bases indexed\n"
            "# x: bases (linux 6.1, then commits one file apart)\n"
            "# y: CPU seconds, cumulative\n")
    o.write("# note: bench/code-index.sh, from bench/RESULTS-code-index.md"
            " (%s)\n" % when)
    o.write("# note: after: 6.1 built, b1 updated, b2 and b3 updated (one"
            " figure for both: %.1f s); a second process loads one in"
            " %.1f s CPU\n" % (b23, loaded))
    o.write("# note: before: a whole build per base, per process: %.1f s"
            " each (the scenario's CPU over its %s builds)\n"
            % (per_build, before[0]))
    o.write("bases\tafter: one file per base, updated from the nearest\t"
            "before: built in memory per base\n")
    o.write("1\t%.1f\t%.1f\n" % (built, per_build))
    o.write("2\t%.1f\t%.1f\n" % (built + b1, 2 * per_build))
    o.write("3\t%.1f\t%.1f\n" % (built + b1 + b23, 3 * per_build))
with open(charts + "/index-rss.tsv", "w") as o:
    o.write("# title: Code index: RSS of one process with N bases open\n"
            "# x: bases open (6 lookups on each)\n# y: RSS, MiB\n")
    o.write("# note: bench/code-index.sh, from bench/RESULTS-code-index.md"
            " (%s); /proc/self/status of the process\n" % when)
    o.write("# note: lookups with 3 open: word %s ms; grep candidates"
            " %s ms\n" % (
                " / ".join(l[1] for l in looks),
                " / ".join(l[2] for l in looks)))
    o.write("bases\tafter: RSS (anon + mapped files)\n")
    for i, v in enumerate(rss, 1):
        o.write("%d\t%.1f\n" % (i, v))
EOP
	plot "$charts/index-build.tsv" "$charts/index-rss.tsv"
	echo "index: $charts/index-build.svg $charts/index-rss.svg" >&2
}

# ---- burst ------------------------------------------------------------------
# bench/burst.sh --curve, drawn: x the burst's series, a line for the
# first and one for the last reply at each model delay.
curve_burst() {
	bash "$src/bench/burst.sh" --curve -o "$w/burst.rows" "$RB_BIN" ||
		bench_die "burst: bench/burst.sh failed"
	python3 - "$w/burst.rows" "$charts/burst.tsv" <<'PY'
import sys
src, out = sys.argv[1:3]
notes, rows = [], []
for l in open(src):
    if l.startswith("# note:"):
        notes.append(l[len("# note:"):].strip())
    elif l.strip() and not l.startswith("#"):
        rows.append(l.rstrip("\n").split("\t"))
delays = sorted({r[1] for r in rows}, key=float)
sizes = sorted({r[0] for r in rows}, key=int)
at = {(r[0], r[1]): r for r in rows}
with open(out, "w") as o:
    o.write("# title: A burst of series -> first and last reply\n"
            "# x: series arriving at once\n# y: seconds from the delivery\n")
    for n in notes:
        o.write("# note: %s\n" % n)
    o.write("# note: load average %s\n" % ", ".join(r[6] for r in rows))
    o.write("series\t" + "\t".join("%s, %s s model" % (w, d)
                                    for d in delays
                                    for w in ("first", "last")) + "\n")
    for n in sizes:
        cells = []
        for d in delays:
            r = at.get((n, d))
            cells += [r[2], r[4]] if r else ["-", "-"]
        o.write(n + "\t" + "\t".join(cells) + "\n")
PY
	plot "$charts/burst.tsv"
	echo "burst: $charts/burst.svg" >&2
}

for c in $what; do
	case $c in
	all) curve_ingest; curve_apply; curve_latency; curve_workers; curve_burst ;;
	ingest | apply | latency | workers | pass | burst | lists | index) "curve_$c" ;;
	*) bench_die "usage: bench/curves.sh [ingest|apply|latency|workers|pass|burst|lists|index|all]..." ;;
	esac
done
