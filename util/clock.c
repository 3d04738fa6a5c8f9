// SPDX-License-Identifier: GPL-2.0-only
/*
 * clock.c - the clock (see clock.h).
 */
#include <time.h>

#include "util/clock.h"
#include "util/testenv.h"
#include "util/banned.h"

int64_t rb_now(void)
{
	int64_t now;

	if (rb_test_now(&now))
		return now;
	return (int64_t)time(NULL);
}
