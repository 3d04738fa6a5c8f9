#!/bin/sh
# install-deps.sh - install the Debian 12 packages reviewbot needs, and only
# those that are missing. Idempotent: a second run installs nothing.
#
# Facts from DESIGN.md: libetpan-dev pulls in libcurl4-gnutls-dev (which
# conflicts with libcurl4-openssl-dev), and libetpan's pkg-config file needs
# libdpkg-perl.
#
# usage: install-deps.sh [build|test|all]   (default: all)
set -eu

# "build": what "make demo" needs, the build and scripts/demo.sh (python3).
build_pkgs="build-essential cmake pkg-config git clang python3
libetpan-dev libcurl4-gnutls-dev libdpkg-perl libgit2-dev libssl-dev
libyaml-dev libsqlite3-dev libjansson-dev libopendkim-dev libcmocka-dev
libmicrohttpd-dev libpq-dev zlib1g-dev libpcre2-dev bubblewrap"

# "test" adds the real peers the tests and bench/ talk to on loopback
# (DESIGN.md, "Real peers"; isync's mbsync for bench/ingest.sh), which
# "make test" installs and "make demo" does not.
test_pkgs="dovecot-imapd dovecot-lmtpd python3-aiosmtpd public-inbox b4
postgresql opendkim-tools xz-utils procps iproute2 chromium chromium-driver
postfix sqlite3 flex bison bc libelf-dev ccache isync sparse coccinelle"

case "${1:-all}" in
build) want="$build_pkgs" ;;
test | all) want="$build_pkgs $test_pkgs" ;;
*)
	echo "usage: $0 [build|test|all]" >&2
	exit 2
	;;
esac

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi

echo "install-deps: installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# Postfix, pulled in by some mail packages, must not ask questions or start
# a system instance on port 25.
echo 'postfix postfix/main_mailer_type select No configuration' |
	$SUDO debconf-set-selections 2>/dev/null || true
$SUDO apt-get update -q >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
