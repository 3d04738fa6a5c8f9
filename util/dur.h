/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dur.h - a duration in the unit a person reads it in ("3 hours",
 * "1.5 h"). The units are the caller's: a mail to an author and a
 * dashboard cell do not say it the same way.
 */
#ifndef RB_UTIL_DUR_H
#define RB_UTIL_DUR_H

#include <stddef.h>

/* One unit of a table, smallest first; the last one has under == 0. */
struct rb_dur_unit {
	double under; /* this unit for durations below it (seconds) */
	double secs; /* seconds in one unit */
	/* Digits after the point; -1: whole units, rounded down. */
	int decimals;
	const char *name; /* "hours", "h" */
};

/*
 * Writes @secs (a negative one as 0) into @out as "N NAME" in the first
 * unit of @units it is under, else the last.
 */
void rb_dur_format(char *out, size_t size, double secs,
		   const struct rb_dur_unit *units);

#endif
