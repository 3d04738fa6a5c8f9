#!/bin/bash
# t_check_config.sh - "reviewbot check-config": exit codes and the
# FILE:LINE:COL: key.path: message format, on the issue's acceptance cases
# (a misspelled key under a policy, a missing secret file), what it checks
# on the machine (issue 22: a misspelled MAINTAINERS section on the demo
# tree and, when it is set up, on the kernel tree; a missing tree, a
# missing branch, a bad source path), and that every command says which
# config it uses; a posting address in list_ids and a policy that never
# takes effect are refused (issue 34).
set -u
: "${RB_BIN:?}" "${RB_SRC:?}"
. "$RB_SRC/tests/need.sh"
data=$RB_SRC/tests/data/config
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-check-config.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect CODE DESCRIPTION CMD... : runs CMD, stdout/stderr in $tmp/out, err
expect() {
	local want=$1 what=$2 got
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: $what: exit $got, want $want"
		sed 's/^/  stderr: /' "$tmp/err"
		fail=1
	fi
}

# grep_err PATTERN DESCRIPTION : an extended regex that stderr must match
grep_err() {
	if ! grep -Eq -- "$1" "$tmp/err"; then
		echo "FAIL: $2: stderr does not match /$1/"
		sed 's/^/  stderr: /' "$tmp/err"
		fail=1
	fi
}

# The misspelled key, as config.yaml in the working directory (the
# default -c), and through -c.
cp "$data/mdoe.yaml" "$tmp/config.yaml"
expect 2 "mdoe, default file" bash -c "cd '$tmp' && exec '$RB_BIN' check-config"
grep_err "^config\.yaml:5:7: policy\.subsystems\.MEMORY MANAGEMENT\.mdoe: unknown key \(did you mean 'mode'\?\)$" \
	"mdoe, default file"
expect 2 "mdoe, -c" "$RB_BIN" check-config -c "$data/mdoe.yaml"
grep_err "^$data/mdoe\.yaml:5:7: policy\..*mdoe" "mdoe, -c"

# A missing secret file, reported the same way.
cat >"$tmp/secret.yaml" <<'YAML'
smtp:
  url: smtp://127.0.0.1:25
  user: bot
  password_file: secrets/none
YAML
expect 2 "missing secret" "$RB_BIN" check-config -c "$tmp/secret.yaml"
grep_err "^$tmp/secret\.yaml:4:18: smtp\.password_file: cannot read '$tmp/secrets/none': No such file or directory$" \
	"missing secret"

# Every error, one per line, in file order.
expect 2 "several errors" "$RB_BIN" check-config -c "$data/errors.yaml"
n=$(grep -Ec "^$data/errors\.yaml:[0-9]+:[0-9]+: " "$tmp/err")
if [ "$n" != 7 ]; then
	echo "FAIL: several errors: $n error lines, want 7"
	fail=1
fi
if ! grep -Eo '^[^:]+:[0-9]+' "$tmp/err" | cut -d: -f2 | sort -nc; then
	echo "FAIL: several errors: not in file order"
	fail=1
fi

# A file that does not exist, a directory, bad usage, --help.
expect 2 "no such file" "$RB_BIN" check-config -c "$tmp/nope.yaml"
grep_err "^$tmp/nope\.yaml: cannot read '$tmp/nope\.yaml': No such file or directory$" \
	"no such file"
expect 2 "a directory" "$RB_BIN" check-config -c "$tmp"
grep_err "not a regular file" "a directory"
expect 2 "bad option" "$RB_BIN" check-config --frobnicate
grep_err "usage: reviewbot check-config" "bad option"
expect 0 "--help" "$RB_BIN" check-config --help
grep -q "usage: reviewbot check-config" "$tmp/out" ||
	{ echo "FAIL: --help: no usage on stdout"; fail=1; }

# The test config with every key is valid; what it names does not exist
# on this machine (three paths), and that is all check-config reports.
expect 2 "full.yaml" "$RB_BIN" check-config --config="$data/full.yaml"
n=$(grep -c "" "$tmp/err")
if [ "$n" != 4 ] || [ "$(grep -c "' does not exist$" "$tmp/err")" != 3 ]; then
	echo "FAIL: full.yaml: want 3 paths that do not exist and nothing else"
	sed 's/^/  stderr: /' "$tmp/err"
	fail=1
fi
# Secrets are read but never printed.
if grep -q "test-password\|model-test-key" "$tmp/out" "$tmp/err"; then
	echo "FAIL: a secret was printed"
	fail=1
fi

tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
bash "$RB_SRC/scripts/demo.sh" --make-only "$tmp/demo" >/dev/null ||
	{ echo "FAIL: demo.sh --make-only"; exit 1; }

# The machine: a misspelled section of the demo tree's MAINTAINERS, a
# tree that does not exist, a branch the tree does not have, a source
# path that does not exist; each at its line and column.
cat >"$tmp/machine.yaml" <<YAML
sources:
  - type: mbox
    path: $tmp/no-such.mbox
trees:
  - name: demo
    path: $tmp/demo/tree
    branch: master
  - name: gone
    path: $tmp/no-such-tree
  - name: mm-unstable
    path: $tmp/demo/tree
    branch: mm-unstable
admins: [admin@example.org]
policy:
  subsystems:
    RING BUFER:
      mode: shadow
YAML
expect 2 "machine" "$RB_BIN" check-config -c "$tmp/machine.yaml"
m=$tmp/machine\.yaml
grep_err "^$m:3:11: sources\[0\]\.path: '$tmp/no-such\.mbox' does not exist$" \
	"bad source path"
grep_err "^$m:9:11: trees\[1\]\.path: '$tmp/no-such-tree' does not exist$" \
	"missing tree"
grep_err "^$m:12:13: trees\[2\]\.branch: no branch 'mm-unstable' in '$tmp/demo/tree'$" \
	"missing branch"
grep_err "^$m:16:5: policy\.subsystems\.RING BUFER: not a MAINTAINERS section of the tree demo, nor one of list_ids \(did you mean 'RING BUFFER'\?\)$" \
	"misspelled section (demo tree)"
grep_err "^$m: 4 errors$" "machine: the count"
# Fixed, it is clean.
sed -i -e "s#$tmp/no-such.mbox#$tmp/demo/series.mbox#" \
	-e "s#$tmp/no-such-tree#$tmp/demo/tree#" -e 's/mm-unstable$/master/' \
	-e 's/RING BUFER/RING BUFFER/' "$tmp/machine.yaml"
expect 0 "machine, fixed" "$RB_BIN" check-config -c "$tmp/machine.yaml"

# The kernel: MEMORY MANAGMENT, and the reference config.yaml with its
# commented-out tree (the one scripts/setup-linux-tree.sh makes) and a
# section in shadow mode.
if [ -d "$tree/.git" ] && [ -f "$tree/MAINTAINERS" ]; then
	cat >"$tmp/mm.yaml" <<YAML
trees:
  - name: mainline
    path: $tree
admins: [admin@example.org]
policy:
  subsystems:
    MEMORY MANAGMENT:
      mode: shadow
YAML
	expect 2 "MEMORY MANAGMENT" "$RB_BIN" check-config -c "$tmp/mm.yaml"
	grep_err "^$tmp/mm\.yaml:7:5: policy\.subsystems\.MEMORY MANAGMENT: not a MAINTAINERS section of the tree mainline, nor one of list_ids \(did you mean 'MEMORY MANAGEMENT'\?\)$" \
		"MEMORY MANAGMENT"
	mkdir -p "$tmp/ref"
	sed -e 's/^admins: \[\]/admins: [admin@example.org]/' \
		-e 's/^policy:$/policy:\n  subsystems:\n    MEMORY MANAGEMENT:\n      mode: shadow/' \
		"$RB_SRC/config.yaml" >"$tmp/ref/config.yaml"
	printf 'trees:\n  - name: mainline\n    path: %s\n' "$tree" \
		>>"$tmp/ref/config.yaml"
	expect 0 "config.yaml" "$RB_BIN" check-config -c "$tmp/ref/config.yaml"
	grep -q "MEMORY MANAGEMENT: shadow" "$tmp/out" ||
		{ echo "FAIL: config.yaml: no policy summary"; fail=1; }
else
	echo "SKIP: the kernel part: no linux 6.1 git tree at $tree: run scripts/setup-linux-tree.sh (or set RB_LINUX_TREE)"
fi

# Issue 34: a posting address where a List-Id belongs is refused, with the
# List-Id it probably means (linux-mm@kvack.org would drop every mail);
# a section whose mode the list's mode never lets it have is refused;
# the summary says how a list's entry and a section's combine.
cat >"$tmp/listid.yaml" <<'YAML'
list_ids: [linux-mm@kvack.org]
YAML
expect 2 "list_ids posting address" "$RB_BIN" check-config -c "$tmp/listid.yaml"
grep_err "^$tmp/listid\.yaml:1:12: list_ids\[0\]: 'linux-mm@kvack\.org' is a posting address, not a List-Id: .*\(did you mean 'linux-mm\.kvack\.org'\?\)$" \
	"list_ids posting address"
cat >"$tmp/combine.yaml" <<'YAML'
admins: [admin@example.org]
list_ids: [linux-mm.kvack.org]
policy:
  subsystems:
    linux-mm.kvack.org:
      mode: shadow
    MEMORY MANAGEMENT:
      mode: advisory
YAML
expect 2 "a section above its list" "$RB_BIN" check-config -c "$tmp/combine.yaml"
grep_err "^$tmp/combine\.yaml:7:5: policy\.subsystems\.MEMORY MANAGEMENT: mode advisory never takes effect: .*\(linux-mm\.kvack\.org: shadow\)" \
	"a section above its list"
sed -i 's/mode: advisory/mode: shadow\n      report_apply_failures: author/' "$tmp/combine.yaml"
expect 0 "the section as its list" "$RB_BIN" check-config -c "$tmp/combine.yaml"
grep -q "^how they combine (policy.resolve: home): " "$tmp/out" &&
	grep -q "^  linux-mm.kvack.org is a list: its series get at most shadow; its sections without an entry of their own are shadow$" "$tmp/out" &&
	grep -q "^apply failures go to: default admins, MEMORY MANAGEMENT author (shadow mode: the admins)$" "$tmp/out" ||
	{ echo "FAIL: the summary does not say how policies combine:"; sed 's/^/  /' "$tmp/out"; fail=1; }

# No silent configuration: a command says which config it uses, or that
# it uses none; ./config.yaml is the only file read without -c.
mkdir -p "$tmp/cwd"
expect 0 "stats, no config" bash -c "cd '$tmp/cwd' && exec '$RB_BIN' stats"
grep_err "^reviewbot: no config \(no -c FILE, no \./config\.yaml\): the embedded defaults$" \
	"stats, no config"
printf 'store:\n  path: here.db\n' >"$tmp/cwd/config.yaml"
expect 0 "stats, ./config.yaml" bash -c "cd '$tmp/cwd' && exec '$RB_BIN' stats"
grep_err "^reviewbot: config \./config\.yaml \(found in the working directory; -c FILE picks another\)$" \
	"stats, ./config.yaml"
expect 0 "stats, -c" "$RB_BIN" stats -c "$tmp/cwd/config.yaml"
grep_err "^reviewbot: config $tmp/cwd/config\.yaml$" "stats, -c"

[ $fail = 0 ] && echo "t_check_config: all passed"
exit $fail
