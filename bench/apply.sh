#!/bin/bash
# bench/apply.sh - reviewbot's in-memory apply against the real peer, git,
# on linux 6.1.192 (scripts/setup-linux-tree.sh), in one run:
#
#  1. parity: each of the 112 mails in corpus/apply-6.1 must apply, and
#     "reviewbot apply --write-tree" must print the tree id that
#     "git apply --cached" + "git write-tree" gives on a fresh index;
#  2. a negative set: patch mails from corpus/linux-api.mbox.xz, decoded
#     with "git mailinfo"; whatever "git apply --cached --check" rejects
#     must be rejected too, and whatever it accepts must give git's tree;
#  3. a series that "git am" applies in sequence gives git am's tree;
#  4. speed: checking that series against 5 candidate bases, reviewbot
#     (in memory, as every review applies: the repository is only read)
#     beside "git worktree add" + "git am" per base, and beside "git
#     checkout" + "git am" in one worktree kept between series (what a
#     bot that keeps a checkout runs), alternated base by base, with the
#     load average before and after.
#
# usage: bench/apply.sh [RESULTS.md]   (NEG_MAX=N patch mails, default 300)
# RB_BIN: the reviewbot to measure (default build-bench/bot/reviewbot,
# built first: bench/lib.sh).
set -eu -o pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
bench_need git xz
shared=$(bench_shared "${RB_SHARED:-$(cd "$src/.." && pwd)/shared}" \
	corpus/apply-6.1 corpus/linux-api.mbox.xz) || exit 1
bin=$(bench_reviewbot "${RB_BIN:-}") || exit 1
out=$(bench_out "${1:-/dev/stdout}") || exit 1
neg_max=${NEG_MAX:-300}
tree=$("$src/scripts/setup-linux-tree.sh") ||
	bench_die "no kernel tree (scripts/setup-linux-tree.sh failed)"
corpus=$shared/corpus/apply-6.1
work=$(mktemp -d "${TMPDIR:-/tmp}/rb-bench-apply.XXXXXX")
cleanup() {
	git -C "$work/clone.git" worktree prune 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@reviewbot.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@reviewbot.invalid
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# A private clone sharing the objects: the bases and am's commits go there.
git clone -q --bare --shared "$tree" "$work/clone.git"
repo=$work/clone.git
GIT_INDEX_FILE=$work/base.index git -C "$repo" read-tree HEAD

# ---- 1. parity on the 112 mails -------------------------------------------
p_ok=0 p_bad=0 p_n=0 t_git=0 t_rb=0
for m in "$corpus"/*.eml; do
	p_n=$((p_n + 1))
	t0=$(now)
	cp "$work/base.index" "$work/i"
	if GIT_INDEX_FILE=$work/i git -C "$repo" apply --cached "$m" 2>/dev/null
	then
		want=$(GIT_INDEX_FILE=$work/i git -C "$repo" write-tree)
	else
		want=rejected
	fi
	t1=$(now)
	got=$("$bin" apply --tree "$repo" --check --no-3way --write-tree "$m" |
		tail -n 1) || got=rejected
	t2=$(now)
	t_git=$(awk -v s="$t_git" -v d="$(secs "$t0" "$t1")" 'BEGIN{print s+d}')
	t_rb=$(awk -v s="$t_rb" -v d="$(secs "$t1" "$t2")" 'BEGIN{print s+d}')
	if [ "$want" = "$got" ] && [ "$want" != rejected ]; then
		p_ok=$((p_ok + 1))
	else
		p_bad=$((p_bad + 1))
		echo "parity: $(basename "$m"): git $want, reviewbot $got" >&2
	fi
done

# ---- 2. the negative set from linux-api ------------------------------------
mkdir -p "$work/split" "$work/neg"
python3 -m mbox_feed files "$shared/corpus/linux-api.mbox.xz" "$work/split" \
	>/dev/null
mapfile -t pm < <(grep -l -m1 '^diff --git ' "$work/split"/* |
	xargs grep -l -m1 -i '^Subject:.*PATCH')
step=$(( ${#pm[@]} / neg_max )); [ "$step" -ge 1 ] || step=1
n_acc=0 n_rej=0 agree_rej=0 agree_acc=0 differ=0 n_neg=0
for ((k = 0; k < ${#pm[@]} && n_neg < neg_max; k += step)); do
	mail=${pm[$k]}
	p=$work/neg/$(basename "$mail").patch
	git mailinfo -k /dev/null "$p" <"$mail" >/dev/null 2>&1 || continue
	[ -s "$p" ] || continue
	n_neg=$((n_neg + 1))
	cp "$work/base.index" "$work/i"
	if GIT_INDEX_FILE=$work/i git -C "$repo" apply --cached "$p" \
		2>/dev/null; then
		want=$(GIT_INDEX_FILE=$work/i git -C "$repo" write-tree)
		n_acc=$((n_acc + 1))
	else
		want=rejected
		n_rej=$((n_rej + 1))
	fi
	got=$("$bin" apply --tree "$repo" --check --no-3way --write-tree "$p" \
		2>/dev/null | tail -n 1) || got=rejected
	if [ "$want" = rejected ] && [ "$got" = rejected ]; then
		agree_rej=$((agree_rej + 1))
	elif [ "$want" = "$got" ]; then
		agree_acc=$((agree_acc + 1))
	else
		differ=$((differ + 1))
		echo "negative set: $(basename "$mail"): git $want," \
			"reviewbot $got" >&2
	fi
done

# ---- 3. a series that git am applies in sequence ---------------------------
# The CET shadow stack v3 mails of the corpus, in order, keeping those that
# apply in sequence with git apply (some of the 37 are not in the corpus).
series=()
cp "$work/base.index" "$work/i"
while read -r id; do
	if GIT_INDEX_FILE=$work/i git -C "$repo" apply --cached \
		"$corpus/$id.eml" 2>/dev/null; then
		series+=("$corpus/$id.eml")
	fi
done < <(grep '\[PATCH v3 [0-9]*/37\]' "$corpus/INDEX.txt" |
	awk -F'|' '{ print $4 "|" $1 }' | sort -u | awk -F'|' '{ print $2 }' |
	tr -d ' ')
k=${#series[@]}

# 5 candidate bases: HEAD plus one unrelated commit each.
bases=()
for i in 1 2 3 4 5; do
	blob=$(echo "base $i" | git -C "$repo" hash-object -w --stdin)
	cp "$work/base.index" "$work/b"
	GIT_INDEX_FILE=$work/b git -C "$repo" update-index --add \
		--cacheinfo "100644,$blob,Documentation/reviewbot-bench-$i.txt"
	t=$(GIT_INDEX_FILE=$work/b git -C "$repo" write-tree)
	bases+=("$(git -C "$repo" commit-tree -p HEAD -m "base $i" "$t")")
done

# Three ways side by side, base by base, so that each base's three
# runs share the machine's load: git worktree add + git am in a fresh
# worktree (removed after); git checkout + git am in one worktree kept
# between series (what a bot that keeps its checkout would run; made
# once, before, and its making timed apart); reviewbot in memory.
load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(now)
git -C "$repo" worktree add -q --detach "$work/kept" HEAD
t_kept_add=$(secs "$t0" "$(now)")
t_wt=0 t_am=0 t_co=0 t_kam=0 t_rb5=0 git_trees=() kept_trees=() rb_trees=()
add() { awk -v s="$1" -v d="$2" 'BEGIN{print s+d}'; }
for i in 0 1 2 3 4; do
	t0=$(now)
	git -C "$repo" worktree add -q --detach "$work/wt$i" "${bases[$i]}"
	t1=$(now)
	git -C "$work/wt$i" am -q "${series[@]}" >/dev/null
	t2=$(now)
	git_trees+=("$(git -C "$work/wt$i" rev-parse 'HEAD^{tree}')")
	t_wt=$(add "$t_wt" "$(secs "$t0" "$t1")")
	t_am=$(add "$t_am" "$(secs "$t1" "$t2")")
	rm -rf "$work/wt$i"
	git -C "$repo" worktree prune

	t0=$(now)
	git -C "$work/kept" checkout -q --detach "${bases[$i]}"
	t1=$(now)
	git -C "$work/kept" am -q "${series[@]}" >/dev/null
	t2=$(now)
	kept_trees+=("$(git -C "$work/kept" rev-parse 'HEAD^{tree}')")
	t_co=$(add "$t_co" "$(secs "$t0" "$t1")")
	t_kam=$(add "$t_kam" "$(secs "$t1" "$t2")")

	t0=$(now)
	rb_trees+=("$("$bin" apply --tree "$repo" --check --write-tree \
		--base "${bases[$i]}" "${series[@]}" | tail -n 1)")
	t_rb5=$(add "$t_rb5" "$(secs "$t0" "$(now)")")
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
t_rb5=$(awk -v a="$t_rb5" 'BEGIN{printf "%.3f", a}')
# ... and writing the objects to the repository: only "apply --write-tree"
# does that, on request; reviews never write a tree (issue 17).
t0=$(now)
for i in 0 1 2 3 4; do
	"$bin" apply --tree "$repo" --write-tree --base "${bases[$i]}" \
		"${series[@]}" >/dev/null
done
t1=$(now)
t_rb5w=$(secs "$t0" "$t1")
s_ok=0 k_ok=0
for i in 0 1 2 3 4; do
	[ "${git_trees[$i]}" = "${rb_trees[$i]}" ] && s_ok=$((s_ok + 1))
	[ "${git_trees[$i]}" = "${kept_trees[$i]}" ] && k_ok=$((k_ok + 1))
done

t_git5=$(awk -v a="$t_wt" -v b="$t_am" 'BEGIN{printf "%.2f", a + b}')
t_kept5=$(awk -v a="$t_co" -v b="$t_kam" 'BEGIN{printf "%.2f", a + b}')
speedup=$(awk -v a="$t_git5" -v b="$t_rb5" 'BEGIN{printf "%.0f", a / b}')
speedup_k=$(awk -v a="$t_kept5" -v b="$t_rb5" 'BEGIN{printf "%.0f", a / b}')
kept_pp=$(awk -v t="$t_kept5" -v k="$k" 'BEGIN{printf "%.0f", t * 1000 / (5 * k)}')
per_patch=$(awk -v t="$t_rb5" -v k="$k" 'BEGIN{printf "%.1f", t * 1000 / (5 * k)}')
per_patch_w=$(awk -v t="$t_rb5w" -v k="$k" 'BEGIN{printf "%.1f", t * 1000 / (5 * k)}')
git_pp=$(awk -v t="$t_am" -v k="$k" 'BEGIN{printf "%.0f", t * 1000 / (5 * k)}')

cat >"$out" <<EOF
## apply: in-memory apply vs git apply / git worktree + git am

Measured $(date -u +%Y-%m-%d) at $(git -C "$src" rev-parse --short HEAD) on linux 6.1.192 ($(nproc) cores, shared
with other jobs), git $(git --version | cut -d' ' -f3), reviewbot
$(basename "$(dirname "$(dirname "$bin")")")/bot/reviewbot.
Repeat with: \`bench/apply.sh bench/RESULTS-apply.md\` (NEG_MAX=$neg_max).

Parity with git apply --cached + git write-tree on a fresh index:

| set | patches | same result as git | differ |
| --- | ---: | ---: | ---: |
| corpus/apply-6.1 (git accepts all) | $p_n | $p_ok | $p_bad |
| linux-api patch mails, git rejects | $n_rej | $agree_rej (rejected too) | see below |
| linux-api patch mails, git accepts | $n_acc | $agree_acc (same tree) | see below |
| linux-api, any disagreement | $n_neg | | $differ |
| CET v3 series ($k patches) on 5 bases vs git am | 5 | $s_ok | $((5 - s_ok)) |
| the same in the kept worktree (git checkout + git am) vs a fresh one | 5 | $k_ok | $((5 - k_ok)) |

Time for the 112 single patches, one process per patch: git apply
(index copy + apply + write-tree) ${t_git} s, reviewbot ${t_rb} s.

Checking one series of $k patches against 5 candidate bases, the three
ways alternated base by base (load average $load0 before, $load1 after):

| method | total | per patch per base | reviewbot in memory is |
| --- | ---: | ---: | ---: |
| git worktree add + git am, a fresh worktree per base | ${t_git5} s (worktrees ${t_wt} s, am ${t_am} s) | $(awk -v t="$t_git5" -v k="$k" 'BEGIN{printf "%.0f", t * 1000 / (5 * k)}') ms (am only: ${git_pp} ms) | ${speedup}x faster |
| git checkout + git am, one worktree kept between series | ${t_kept5} s (checkouts ${t_co} s, am ${t_kam} s) | ${kept_pp} ms | ${speedup_k}x faster |
| reviewbot apply, in memory (--check) | ${t_rb5} s | ${per_patch} ms | 1x |
| reviewbot apply --write-tree, writing objects (on request only), after | ${t_rb5w} s | ${per_patch_w} ms | |

The kept worktree was made once before (git worktree add of HEAD:
${t_kept_add} s), not charged to it. Targets: >= 20x overall, < 50 ms per
patch per base. Times include process start-up and reading the mails.
EOF
