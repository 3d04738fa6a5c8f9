#!/bin/bash
# The store test suite on a real PostgreSQL 15, started here on a free
# loopback port: the same tests as on SQLite (tests/test_store.c, and
# the dashboard's, tests/test_http.c).
. "$(dirname "$0")/lib.sh"
set -e
rb_start_pg
RB_TEST_PG_URL=$RB_PG_URL "$RB_BUILD/tests/test_store" ||
	rb_fail "the store tests failed on PostgreSQL"
# The dashboard's queries (search, filters, paging) on it too.
RB_TEST_PG_URL=$RB_PG_URL "$RB_BUILD/tests/test_http" ||
	rb_fail "the dashboard tests failed on PostgreSQL"
# Migrations are idempotent on PostgreSQL too.
"$RB_BIN" migrate --store "$RB_PG_URL"
"$RB_BIN" migrate --store "$RB_PG_URL"
echo "1 passed, 0 failed"
