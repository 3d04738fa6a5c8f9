// SPDX-License-Identifier: GPL-2.0-only
/*
 * testenv.c - the test interface's environment variables. See testenv.h.
 */
#include <stdlib.h>

#include "util/testenv.h"
#include "util/banned.h"

/* The variable's value, or NULL when it is unset or empty. */
static const char *knob(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

bool rb_test_now(int64_t *out)
{
	const char *v = knob("RB_NOW");

	if (!v)
		return false;
	*out = strtoll(v, NULL, 10);
	return true;
}

const char *rb_test_dkim_key_file(void)
{
	/* Set, even empty, it replaces DNS: never DNS by mistake. */
	return getenv("RB_DKIM_KEYS");
}

const char *rb_test_build_cache(void)
{
	return knob("RB_BUILD_CACHE");
}

const char *rb_test_fault(void)
{
	return knob("RB_FAULT");
}

void rb_test_assemble_budget(size_t *budget)
{
	const char *v = knob("RB_ASSEMBLE_BUDGET");
	long long n = v ? strtoll(v, NULL, 10) : 0;

	if (n > 0)
		*budget = (size_t)n;
}

void rb_test_imap_watch_ms(int *ms)
{
	const char *v = knob("RB_IMAP_WATCH_MS");
	long long n = v ? strtoll(v, NULL, 10) : 0;

	if (n > 0 && n <= 3600000)
		*ms = (int)n;
}
