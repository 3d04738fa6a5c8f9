#!/bin/bash
# kill-under-load.sh [BUILD] [N] - runs t_daemon_kill N times (default 10)
# in the test build BUILD (default build-test) with a CPU hog on each
# core beside it, and counts the runs that passed (a skip is no pass).
# Issue 16's measure of kill safety under load; logs in /tmp/kill-I.log.
set -u
b=${1:-build-test}
n=${2:-10}
hogs=$(nproc 2>/dev/null || echo 2)
pass=0
for i in $(seq "$n"); do
	pids=""
	for _ in $(seq "$hogs"); do
		yes >/dev/null &
		pids="$pids $!"
	done
	if (cd "$b" && ctest -R '^t_daemon_kill$' --output-on-failure -V) \
		>"/tmp/kill-$i.log" 2>&1 &&
		grep -q 'Test #.*t_daemon_kill .*Passed' "/tmp/kill-$i.log"; then
		pass=$((pass + 1))
		echo "run $i: passed ($(grep -o '[0-9]* SIGKILLs' "/tmp/kill-$i.log"))"
	else
		echo "run $i: FAILED or skipped (/tmp/kill-$i.log)"
	fi
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
done
echo "$pass/$n passed"
[ "$pass" = "$n" ]
