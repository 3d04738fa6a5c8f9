// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until the mail issue lands: fails visibly. */
#include <stdlib.h>

#include "mail/series.h"
#include "util/err.h"
#include "util/banned.h"

int rb_series_set_new(struct rb_series_set **out)
{
	(void)out;
	return rb_err(RB_EFAIL, "series assembly is not implemented yet");
}

void rb_series_set_free(struct rb_series_set *set)
{
	(void)set;
}

int rb_series_set_add(struct rb_series_set *set, const struct rb_message *m)
{
	(void)set;
	(void)m;
	return rb_err(RB_EFAIL, "series assembly is not implemented yet");
}

int rb_series_set_assemble(struct rb_series_set *set)
{
	(void)set;
	return rb_err(RB_EFAIL, "series assembly is not implemented yet");
}

size_t rb_series_set_count(const struct rb_series_set *set)
{
	(void)set;
	return 0;
}

const struct rb_series *rb_series_set_get(const struct rb_series_set *set,
					  size_t i)
{
	(void)set;
	(void)i;
	return NULL;
}

size_t rb_series_missing(const struct rb_series *s, int *out, size_t max)
{
	(void)s;
	(void)out;
	(void)max;
	return 0;
}
