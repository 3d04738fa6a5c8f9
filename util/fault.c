// SPDX-License-Identifier: GPL-2.0-only
/*
 * fault.c - the kill points of the kill tests. See fault.h.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fault.h"
#include "util/testenv.h"
#include "util/banned.h"

void rb_fault_point_key(const char *stage, const char *key)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char name[64], want[256];
	static long target = -1, count;
	const char *env = rb_test_fault();
	const char *colon, *rest;
	char *end;

	if (!env || !*env)
		return;
	/* The job threads (review.parallel_series) reach "job" at once. */
	pthread_mutex_lock(&lock);
	if (target < 0) {
		colon = strchr(env, ':');
		if (!colon || (size_t)(colon - env) >= sizeof(name))
			goto out;
		snprintf(name, sizeof(name), "%.*s", (int)(colon - env), env);
		target = strtol(colon + 1, &end, 10);
		rest = *end == ':' ? end + 1 : "";
		snprintf(want, sizeof(want), "%s", rest);
	}
	if (strcmp(name, stage))
		goto out;
	/* STAGE:N:KEY counts only the calls for a key that holds KEY. */
	if (want[0] && (!key || !strstr(key, want)))
		goto out;
	if (++count == target) {
		fprintf(stderr,
			"reviewbot: RB_FAULT: killed after %s:%ld%s%s\n", stage,
			count, key ? " " : "", key ? key : "");
		raise(SIGKILL);
	}
out:
	pthread_mutex_unlock(&lock);
}

void rb_fault_point(const char *stage)
{
	rb_fault_point_key(stage, NULL);
}
