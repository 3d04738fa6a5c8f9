// SPDX-License-Identifier: GPL-2.0-only
/*
 * mode.c - the names of the policy modes.
 */
#include <string.h>

#include "mail/mode.h"
#include "util/banned.h"

const char *const rb_mode_names[] = { "off", "shadow", "advisory", "blocking",
				      NULL };

const char *rb_mode_name(enum rb_mode m)
{
	return (unsigned int)m <= RB_MODE_BLOCKING ? rb_mode_names[m] : "off";
}

int rb_mode_parse(const char *s)
{
	int i;

	for (i = 0; s && i <= RB_MODE_BLOCKING; i++)
		if (!strcmp(s, rb_mode_names[i]))
			return i;
	return -1;
}
