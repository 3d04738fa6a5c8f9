# bench/lib.sh - sourced by the bench/*.sh scripts: paths made absolute
# before a script changes directory, failures that say what is wrong
# instead of an empty table, and the one build folder of every script,
# build-bench/ (bench_build, bench_reviewbot). Defines functions, and
# PYTHONPATH so that the scripts' Python imports bench/mbox_feed.py.

PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

bench_die()
{
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# bench_bin PATH: prints the absolute path of the reviewbot at PATH
# (relative to the directory the script was started from), or dies.
bench_bin()
{
	local p
	p=$(realpath -e -- "$1" 2>/dev/null) && [ -f "$p" ] && [ -x "$p" ] ||
		bench_die "no executable reviewbot at '$1'"
	echo "$p"
}

# bench_out PATH: prints the absolute path of a report to write, or dies
# when its directory does not exist. /dev/stdout stays as it is.
bench_out()
{
	local d
	case $1 in
	/dev/stdout | /dev/stderr | /dev/null) echo "$1"; return ;;
	esac
	d=$(dirname -- "$1")
	[ -d "$d" ] || bench_die "no directory '$d' for the report '$1'"
	realpath -m -- "$1"
}

# bench_shared DIR PATH...: prints DIR made absolute, or dies when DIR
# does not hold each PATH (the shared data: ../shared, or RB_SHARED).
bench_shared()
{
	local dir=$1 p
	shift
	for p in "$@"; do
		[ -e "$dir/$p" ] ||
			bench_die "needs shared/$p, not found in '$dir': set RB_SHARED=/path/to/shared"
	done
	realpath -e -- "$dir"
}

# bench_need CMD...: dies unless each program (a peer) is installed.
bench_need()
{
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			bench_die "needs '$c', which is not installed (scripts/install-deps.sh test)"
	done
}

# bench_build TARGET...: builds each TARGET in the one build folder of
# every bench script, build-bench/ beside bench/ (clang, Release, no
# sanitizers, RB_BENCH=ON for the bench/ programs; configured here when
# missing), and prints its absolute path, or dies. A lock keeps two
# scripts from building it at once; an up-to-date build costs a second.
bench_build()
{
	local top b
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	b=$top/build-bench
	bench_need cmake clang flock
	mkdir -p "$b" || bench_die "cannot make '$b'"
	(
		flock 9
		if ! grep -qs '^RB_BENCH:BOOL=ON' "$b/CMakeCache.txt"; then
			cmake -S "$top" -B "$b" -DCMAKE_C_COMPILER=clang \
				-DCMAKE_BUILD_TYPE=Release -DRB_BENCH=ON \
				-DRB_SANITIZE=OFF -DRB_FUZZ=OFF >/dev/null ||
				exit 1
		fi
		cmake --build "$b" -j2 --target "$@" >/dev/null
	) 9>"$b/.bench.lock" || bench_die "cannot build $* in '$b'"
	echo "$b"
}

# bench_reviewbot [PATH]: prints the absolute path of the reviewbot to
# measure: PATH when given (as bench_bin), else build-bench/bot/reviewbot,
# built first (bench_build).
bench_reviewbot()
{
	local b
	if [ -n "${1:-}" ]; then
		bench_bin "$1"
		return
	fi
	b=$(bench_build reviewbot) || exit 1
	bench_bin "$b/bot/reviewbot"
}

# bench_replay_config DIR CORPUS TREE: DIR/config.yaml, the whole-archive
# replay of list-replay.sh and same-mails.sh: the mbox CORPUS as the one
# source, TREE as the one tree, the store DIR/rb.db and the Maildir
# DIR/outbox, rate limits no archive reaches, every subsystem advisory.
bench_replay_config()
{
	cat >"$1/config.yaml" <<EOC
store:
  path: $1/rb.db
sources:
  - type: mbox
    name: linux-api
    path: $2
trees:
  - name: mainline
    path: $3
outbox:
  maildir: $1/outbox
  rate_per_hour: 100000
  rate_per_recipient_hour: 10000
  rate_per_list_hour: 100000
list_ids: [linux-api.vger.kernel.org]
admins: [admin@example.org]
policy:
  default:
    mode: advisory
EOC
}
