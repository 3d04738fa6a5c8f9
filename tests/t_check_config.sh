#!/bin/bash
# t_check_config.sh - "reviewbot check-config": exit codes and the
# FILE:LINE:COL: key.path: message format, on the issue's acceptance cases
# (a misspelled key under a policy, a missing secret file).
set -u
: "${RB_BIN:?}" "${RB_SRC:?}"
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

# The shipped reference and the test config with every key: valid.
expect 0 "shipped config.yaml" "$RB_BIN" check-config -c "$RB_SRC/config.yaml"
grep -q "config.yaml: ok$" "$tmp/out" ||
	{ echo "FAIL: shipped config.yaml: no 'ok'"; fail=1; }
grep -q "MEMORY MANAGEMENT: shadow" "$tmp/out" ||
	{ echo "FAIL: shipped config.yaml: no policy summary"; fail=1; }
expect 0 "full.yaml" "$RB_BIN" check-config --config="$data/full.yaml"
# Secrets are read but never printed.
if grep -q "test-password\|model-test-key" "$tmp/out" "$tmp/err"; then
	echo "FAIL: a secret was printed"
	fail=1
fi

[ $fail = 0 ] && echo "t_check_config: all passed"
exit $fail
