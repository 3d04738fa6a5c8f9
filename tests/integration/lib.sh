# lib.sh - helpers for integration tests: free loopback ports, servers
# started, waited for and stopped by PID. Source it from a t_*.sh test.
# Every server listens on 127.0.0.1 only. Exit 77 means "skipped".

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../need.sh"
# The loopback server configs (a copy of shared/rig/, kept in the project
# so that a fresh clone runs the server tests).
RB_RIG=$(cd "$(dirname "${BASH_SOURCE[0]}")/../data/rig" && pwd)
RB_TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rb-test.XXXXXX")
RB_PIDS=""

rb_cleanup()
{
	local p
	for p in $RB_PIDS; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in $RB_PIDS; do
		local i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		kill -KILL "$p" 2>/dev/null || true
	done
	[ -n "${RB_KEEP:-}" ] || rm -rf "$RB_TEST_DIR"
}
trap rb_cleanup EXIT

# rb_free_port: prints a TCP port on 127.0.0.1 that nothing listens on.
rb_free_port()
{
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# rb_wait_port PORT [TRIES]: waits until 127.0.0.1:PORT accepts.
rb_wait_port()
{
	local i=0 max=${2:-400}
	until (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt "$max" ] && { echo "port $1 did not come up" >&2; return 1; }
		sleep 0.025
	done
}

# rb_start NAME CMD...: starts a server in the background, logs to
# $RB_TEST_DIR/NAME.log, remembers its PID for rb_cleanup; prints the PID.
rb_start()
{
	local name=$1
	shift
	"$@" >"$RB_TEST_DIR/$name.log" 2>&1 &
	local pid=$!
	RB_PIDS="$RB_PIDS $pid"
	echo "$pid" >"$RB_TEST_DIR/$name.pid"
}

# rb_stop NAME: stops the server started as NAME, by its PID.
rb_stop()
{
	local pid
	pid=$(cat "$RB_TEST_DIR/$1.pid")
	kill -TERM "$pid" 2>/dev/null || true
	local i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

rb_fail() { echo "FAIL: $*" >&2; exit 1; }
rb_need() { command -v "$1" >/dev/null 2>&1 || rb_skip "$1 not installed (scripts/install-deps.sh test)"; }

# rb_cfg_quiet: the config.yaml lines after the sources of a test that
# only ingests: a Maildir outbox in the test's directory, every policy
# off. In a here-document: $(rb_cfg_quiet).
rb_cfg_quiet()
{
	printf '%s\n' outbox: "  maildir: $RB_TEST_DIR/outbox" policy: \
		'  default:' '    mode: "off"'
}

# rb_start_aiosmtpd DIR: an SMTP sink writing a Maildir; sets RB_SMTP_PORT.
rb_start_aiosmtpd()
{
	RB_SMTP_PORT=$(rb_free_port)
	mkdir -p "$1/tmp" "$1/new" "$1/cur" # mailbox.Maildir needs all three
	rb_start aiosmtpd /usr/bin/python3 -m aiosmtpd -n \
		-l "127.0.0.1:$RB_SMTP_PORT" -c aiosmtpd.handlers.Mailbox "$1"
	rb_wait_port "$RB_SMTP_PORT"
}

# rb_start_dovecot [tls] [detail]: Dovecot IMAP+LMTP from tests/data/rig on
# free ports; sets RB_IMAP_PORT, RB_LMTP_PORT (and RB_IMAPS_PORT with tls)
# and RB_DOVECOT_CONF. The user is bot / botpass. With detail, LMTP
# deliveries to bot+NAME land in the mailbox NAME (made when missing).
rb_start_dovecot()
{
	local rig=$RB_RIG conf=dovecot.conf d=$RB_TEST_DIR/dovecot detail= a
	for a in "$@"; do
		case $a in
		tls) conf=dovecot-tls.conf ;;
		detail) detail='s/^lmtp_save_to_detail_mailbox = no/lmtp_save_to_detail_mailbox = yes\nrecipient_delimiter = +\nlda_mailbox_autocreate = yes/' ;;
		*) rb_fail "rb_start_dovecot: unknown option $a" ;;
		esac
	done
	rb_need dovecot
	mkdir -p "$d/run" "$d/state" "$RB_TEST_DIR/mail"
	# Dovecot's auth process must read the passwd file when run as root.
	chmod 0755 "$RB_TEST_DIR"
	chmod 0777 "$RB_TEST_DIR/mail"
	cp "$rig/passwd" "$d/passwd"
	RB_IMAP_PORT=$(rb_free_port)
	RB_LMTP_PORT=$(rb_free_port)
	RB_IMAPS_PORT=$(rb_free_port)
	sed -e "s#@RIG@#$RB_TEST_DIR#g" -e "s/10143/$RB_IMAP_PORT/" \
		-e "s/10024/$RB_LMTP_PORT/" -e "s/10993/$RB_IMAPS_PORT/" \
		${detail:+-e "$detail"} "$rig/$conf" >"$d/dovecot.conf"
	RB_DOVECOT_CONF=$d/dovecot.conf
	rb_start dovecot dovecot -F -c "$d/dovecot.conf"
	rb_wait_port "$RB_IMAP_PORT"
	rb_wait_port "$RB_LMTP_PORT"
}

# rb_start_pg: a private PostgreSQL 15 (Debian's postgresql) in a fresh
# data directory on a free loopback port, run as an unprivileged user
# (nobody when we are root). Sets RB_PG_PORT and RB_PG_URL (database
# "reviewbot", user "reviewbot", trust auth on loopback only).
rb_start_pg()
{
	local bin=/usr/lib/postgresql/15/bin d=$RB_TEST_DIR/pg run=
	[ -x "$bin/initdb" ] || rb_skip "PostgreSQL 15 is not installed"
	mkdir -p "$d"
	if [ "$(id -u)" -eq 0 ]; then
		chown nobody:nogroup "$d"
		chmod 0755 "$RB_TEST_DIR"
		run="runuser -u nobody --"
	fi
	RB_PG_PORT=$(rb_free_port)
	$run "$bin/initdb" -D "$d/data" -U reviewbot -A trust \
		--no-sync >"$RB_TEST_DIR/initdb.log" 2>&1 ||
		rb_fail "initdb failed: $(cat "$RB_TEST_DIR/initdb.log")"
	rb_start postgres $run "$bin/postgres" -D "$d/data" \
		-c listen_addresses=127.0.0.1 -c port="$RB_PG_PORT" \
		-c unix_socket_directories="$d" -c fsync=off \
		-c max_connections=50
	rb_wait_port "$RB_PG_PORT" 800
	local i=0
	until psql -h 127.0.0.1 -p "$RB_PG_PORT" -U reviewbot -d postgres \
		-qc 'SELECT 1' >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -gt 200 ] && rb_fail "PostgreSQL did not accept connections"
		sleep 0.05
	done
	psql -h 127.0.0.1 -p "$RB_PG_PORT" -U reviewbot -d postgres \
		-qc 'CREATE DATABASE reviewbot' >/dev/null
	RB_PG_URL="postgresql://reviewbot@127.0.0.1:$RB_PG_PORT/reviewbot"
}
