// SPDX-License-Identifier: GPL-2.0-only
/*
 * trailer.c - the table of trailer names reviewbot never writes.
 */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "mail/trailer.h"
#include "util/banned.h"

static const struct {
	const char *name; /* lower case, without the colon */
	size_t len;
	unsigned int set;
} names[] = {
	{ "reviewed-by", 11, RB_TRAILER_REVIEW },
	{ "acked-by", 8, RB_TRAILER_REVIEW },
	{ "tested-by", 9, RB_TRAILER_REVIEW },
	{ "signed-off-by", 13, RB_TRAILER_SIGNOFF },
};

#define N_NAMES (sizeof(names) / sizeof(names[0]))

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

size_t rb_trailer_name_at(const char *s, size_t n, unsigned int sets)
{
	size_t k;

	for (k = 0; k < N_NAMES; k++) {
		size_t l = names[k].len;

		if ((names[k].set & sets) && n > l && s[l] == ':' &&
		    !strncasecmp(s, names[k].name, l))
			return l;
	}
	return 0;
}

size_t rb_trailer_colon(const char *s, size_t n, unsigned int sets)
{
	size_t k, lead = 0;

	while (lead < n && is_blank(s[lead]))
		lead++;
	for (k = 0; k < N_NAMES; k++) {
		size_t l = names[k].len, i = lead + l;

		if (!(names[k].set & sets) || n - lead < l ||
		    strncasecmp(s + lead, names[k].name, l))
			continue;
		while (i < n && is_blank(s[i]))
			i++;
		if (i < n && s[i] == ':')
			return i + 1;
	}
	return 0;
}
