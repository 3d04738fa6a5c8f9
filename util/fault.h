/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fault.h - the kill points of the kill tests, the one test interface in
 * the pipeline and the store. With RB_FAULT=STAGE:N in the environment, the process kills
 * itself (SIGKILL, no cleanup) right after the N-th commit of STAGE:
 * "ingest", "parse", "assemble", "feedback", "review" (any job) or
 * "send"; when the N-th job starts ("job", below); or inside the store,
 * between the N-th stored message's row and its asm_pending row
 * ("store.pend", before their commit). Without RB_FAULT nothing happens.
 * tests/t_review_kill.sh, tests/t_ingest_kill.sh and
 * tests/integration/t_daemon_kill.sh compare the outcome with an
 * uninterrupted run.
 */
#ifndef RB_UTIL_FAULT_H
#define RB_UTIL_FAULT_H

/* Kills the process when RB_FAULT names @stage and this is its N-th call. */
void rb_fault_point(const char *stage);

/*
 * The same for a point that concerns one job: with RB_FAULT=STAGE:N:KEY
 * only the calls whose @key holds KEY count. "job" is called when a
 * claimed job starts, after the claim's commit and before its work: a
 * job that kills the worker every time it runs (t_sec_job_quarantine.sh).
 */
void rb_fault_point_key(const char *stage, const char *key);

#endif
