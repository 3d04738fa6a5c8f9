// SPDX-License-Identifier: GPL-2.0-only
/*
 * mode.c - the names of the policy modes.
 */
#include <string.h>

#include "mail/mode.h"
#include "util/banned.h"

static const char *const names[] = { "off", "shadow", "advisory", "blocking" };

const char *rb_mode_name(enum rb_mode m)
{
	return (unsigned int)m <= RB_MODE_BLOCKING ? names[m] : "off";
}

int rb_mode_parse(const char *s)
{
	int i;

	for (i = 0; s && i <= RB_MODE_BLOCKING; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}
