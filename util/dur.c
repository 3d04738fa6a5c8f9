// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>

#include "dur.h"
#include "banned.h"

void rb_dur_format(char *out, size_t size, double secs,
		   const struct rb_dur_unit *units)
{
	const struct rb_dur_unit *u = units;
	double v;

	if (secs < 0)
		secs = 0;
	/* Not "secs >= under": NaN goes to the last unit too. */
	while (u->under > 0 && !(secs < u->under))
		u++;
	v = secs / u->secs;
	/* Whole units by the cast only where it is defined (not NaN, not
	 * past long long); else rounded, which no caller's range reaches. */
	if (u->decimals < 0 && v < 9e18)
		snprintf(out, size, "%lld %s", (long long)v, u->name);
	else
		snprintf(out, size, "%.*f %s",
			 u->decimals < 0 ? 0 : u->decimals, v, u->name);
}
