/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * testenv.h - the test interface: every environment variable by which a
 * test steers reviewbot's own code is read here, and nowhere else. The
 * library calls these functions at the one place each knob matters;
 * without the variables (production) each returns "not set" and the code
 * does what it would do anyway. The variables are read on every call, so
 * a unit test may setenv() and unsetenv() between calls.
 *
 * RB_NOW=SECONDS
 *	The clock (rb_now() in util/clock.c): every timestamp
 *	written, every lease, backoff, embargo and rate-limit window. Makes
 *	dates in mail and expectations reproducible and lets a test step
 *	time. Unit: test_store, test_metrics, test_feedback, test_http.
 *	Shell: t_run_once, t_run_incomplete, t_run_commit_rules,
 *	t_review_badinput, t_review_kill, integration/t_feedback_e2e,
 *	t_accept_incomplete, t_review_model, t_dashboard_browser and most of
 *	security/ (mail_lib.sh); scripts/demo.sh and bench/feedback.sh.
 *
 * RB_DKIM_KEYS=FILE
 *	The DKIM public keys from a key file ("SELECTOR._domainkey.DOMAIN
 *	v=DKIM1; k=rsa; p=..." lines, mail/dkim.h) instead of DNS, for the
 *	feedback stage's check of a verdict's signature (bot/stages/feedback.c).
 *	Set, even empty, it replaces DNS.
 *	Tests: test_feedback, integration/t_feedback_e2e, t_accept_spoof
 *	(accept_lib.sh), security/t_sec_verdict_admin_dkim (mail_lib.sh).
 *
 * RB_BUILD_CACHE=DIR
 *	The build checker's cache of base builds (review/checks/check_build.c),
 *	after --build-cache and before $XDG_CACHE_HOME/reviewbot/build:
 *	keeps each test's builds in its own directory. Tests:
 *	t_check_sandbox, security/t_sec_build_cache_symlink,
 *	t_sec_build_quote_host_file, t_sec_apply_tree_unwritten,
 *	t_sec_build_sandbox_limits; bench/checks.sh.
 *
 * RB_FAULT=STAGE:N[:KEY]
 *	The kill tests' fault point (util/fault.h): the process kills itself
 *	right after the N-th commit of STAGE, or (STAGE "job") when the N-th
 *	job whose key holds KEY starts, or (STAGE "store.pend") between the
 *	N-th message's row and its asm_pending row. Tests: t_review_kill,
 *	t_ingest_kill, integration/t_daemon_kill,
 *	security/t_sec_job_quarantine.
 *
 * RB_ASSEMBLE_BUDGET=N
 *	The work an incremental assembly may do before it assembles the
 *	whole store instead (bot/stages/assemble.h), lowered so that a
 *	test reaches the fallback with a few messages. Tests:
 *	test_assemble, security/t_sec_assemble_refs.
 *
 * RB_IMAP_WATCH_MS=N
 *	How often, in milliseconds, an IMAP source that waits in IDLE on its
 *	first mailbox asks the others for new mail (mail/source_imap.c,
 *	WATCH_MS: 30 s), lowered so that a test need not wait 30 s. Test:
 *	integration/t_imap_watch.
 *
 * The tests' own variables (RB_BIN, RB_SRC, RB_SHARED, RB_BUILD; set by
 * ctest, tests/CMakeLists.txt) are read by the tests, not by reviewbot.
 */
#ifndef RB_UTIL_TESTENV_H
#define RB_UTIL_TESTENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* RB_NOW: true and *out set (seconds since the epoch) when set. */
bool rb_test_now(int64_t *out);

/* RB_DKIM_KEYS: the key file to use instead of DNS, or NULL. */
const char *rb_test_dkim_key_file(void);

/* RB_BUILD_CACHE: the build cache directory, or NULL when unset or "". */
const char *rb_test_build_cache(void);

/* RB_FAULT: "STAGE:N[:KEY]", or NULL when unset or "". */
const char *rb_test_fault(void);

/* RB_ASSEMBLE_BUDGET: *budget set when it is a number above 0. */
void rb_test_assemble_budget(size_t *budget);

/* RB_IMAP_WATCH_MS: *ms set when it is a number from 1 to 3,600,000. */
void rb_test_imap_watch_ms(int *ms);

#endif
