# bench/lib.sh - sourced by the bench/*.sh scripts: paths made absolute
# before a script changes directory, and failures that say what is wrong
# instead of an empty table. Defines functions only.

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
