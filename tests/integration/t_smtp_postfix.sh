#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_smtp_postfix.sh - the SMTP sender through a private Postfix instance
# (its own config dir, queue and ports on 127.0.0.1, from
# tests/data/rig/postfix-*.cf) relaying into the aiosmtpd sink:
#  A. a reply goes through Postfix and arrives;
#  B. Postfix is stopped: the send fails with EAGAIN; Postfix restarted,
#     the same send succeeds;
#  C. the sink is down: Postfix queues the reply; Postfix is stopped and
#     restarted with the reply in its queue, the sink comes back, and the
#     reply arrives.
# In the end each of A, B and C arrived exactly once, with the right
# headers and envelope (check_mail.py). Skipped without postfix.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
drv=${RB_BUILD:?}/tests/test_compose
[ -x "$drv" ] || rb_skip "no $drv"
[ -x /usr/sbin/postfix ] || rb_skip "postfix not installed"
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || rb_skip "no aiosmtpd"
[ "$(id -u)" = 0 ] || rb_skip "a private Postfix instance needs root"
rig=$RB_RIG

pf=$RB_TEST_DIR/postfix
pfetc=$pf/etc
# Stop this instance (by its own master's pid file) before lib.sh's cleanup.
trap 'postfix -c "$pfetc" stop >/dev/null 2>&1; rb_cleanup' EXIT

# Postfix daemons run as the postfix user: they must reach the queue.
chmod 0755 "$RB_TEST_DIR"
mkdir -p "$pfetc" "$pf/spool" "$pf/data" "$RB_TEST_DIR/sink/tmp" \
	"$RB_TEST_DIR/sink/new" "$RB_TEST_DIR/sink/cur"
chown postfix "$pf/data"

rb_start_aiosmtpd "$RB_TEST_DIR/sink"
sink_port=$RB_SMTP_PORT
pf_port=$(rb_free_port)
sed -e "s#@RIG@#$RB_TEST_DIR#g" -e "s/10025/$sink_port/" \
	-e '/^transport_maps/d' "$rig/postfix-main.cf" >"$pfetc/main.cf"
sed -e "s/10026/$pf_port/" "$rig/postfix-master.cf" >"$pfetc/master.cf"

pf_start()
{
	postfix -c "$pfetc" start >>"$RB_TEST_DIR/postfix.out" 2>&1 ||
		{ cat "$pf/maillog"; rb_fail "postfix did not start"; }
	rb_wait_port "$pf_port" || rb_fail "postfix is not listening"
}

pf_stop()
{
	postfix -c "$pfetc" stop >>"$RB_TEST_DIR/postfix.out" 2>&1
	local i=0
	while (exec 3<>"/dev/tcp/127.0.0.1/$pf_port") 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 200 ] && rb_fail "postfix did not stop"
		sleep 0.05
	done
}

# drive MODE TAG: runs the driver against Postfix.
drive()
{
	RB_SMTP_MODE=$1 RB_SMTP_TAG=$2 RB_SMTP_PORT=$pf_port \
		RB_SMTP_OUT=$RB_TEST_DIR/sent "$drv" \
		>"$RB_TEST_DIR/driver-$1-$2.log" 2>&1 ||
		{ cat "$RB_TEST_DIR/driver-$1-$2.log"; rb_fail "driver $1 $2"; }
}

# wait_for N: waits (up to 30 s) until the sink holds N messages.
wait_for()
{
	local i=0
	until [ "$(ls "$RB_TEST_DIR/sink/new" | wc -l)" -ge "$1" ]; do
		i=$((i + 1))
		if [ $i -gt 300 ]; then
			tail -n 20 "$pf/maillog"
			rb_fail "$1 messages did not arrive"
		fi
		sleep 0.1
	done
}

pf_start
# A: straight through.
drive postfix A
wait_for 1

# B: Postfix is down at the moment of sending.
pf_stop
drive down B
pf_start
drive postfix B
wait_for 2

# C: queued in Postfix across a restart while the sink is down.
rb_stop aiosmtpd
drive postfix C
pf_stop
pf_start
rb_start aiosmtpd2 /usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$sink_port" \
	-c aiosmtpd.handlers.Mailbox "$RB_TEST_DIR/sink"
rb_wait_port "$sink_port" || rb_fail "the sink did not come back"
postfix -c "$pfetc" flush >>"$RB_TEST_DIR/postfix.out" 2>&1
wait_for 3

# Give a duplicate the time to show up, then check everything.
sleep 1
[ "$(wc -l <"$RB_TEST_DIR/sent")" = 3 ] || rb_fail "3 sends recorded"
/usr/bin/python3 "$here/check_mail.py" "$RB_TEST_DIR/sink" \
	"$RB_TEST_DIR/sent" || rb_fail "the delivered mail is not right"
echo "PASS"
