// SPDX-License-Identifier: GPL-2.0-only
/*
 * fault.c - the kill points of the kill tests. See fault.h.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/stages/fault.h"
#include "util/testenv.h"
#include "util/banned.h"

void rb_fault_point(const char *stage)
{
	static char name[64];
	static long target = -1, count;
	const char *env = rb_test_fault();
	const char *colon;

	if (!env || !*env)
		return;
	if (target < 0) {
		colon = strchr(env, ':');
		if (!colon || (size_t)(colon - env) >= sizeof(name))
			return;
		snprintf(name, sizeof(name), "%.*s", (int)(colon - env), env);
		target = strtol(colon + 1, NULL, 10);
	}
	if (strcmp(name, stage))
		return;
	if (++count == target) {
		fprintf(stderr, "reviewbot: RB_FAULT: killed after %s:%ld\n",
			stage, count);
		raise(SIGKILL);
	}
}
