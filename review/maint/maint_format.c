// SPDX-License-Identifier: GPL-2.0-only
/*
 * maint_format.c - a result as text: get_maintainer.pl's lines, with or
 * without roles, and the listing of the touched sections.
 */
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/banned.h"

int rb_maint_format(struct rb_buf *out, const struct rb_maint_result *r,
		    unsigned int flags)
{
	size_t i;
	int err = 0;

	for (i = 0; i < r->nto && !err; i++) {
		if (flags & RB_MAINT_FMT_ROLES)
			err = rb_buf_printf(out, "%s (%s)\n", r->to[i].addr,
					    r->to[i].role);
		else
			err = rb_buf_printf(out, "%s\n", r->to[i].addr);
	}
	return err;
}

int rb_maint_format_sections(struct rb_buf *out,
			     const struct rb_maint_result *r)
{
	size_t i, j;
	int err = 0;

	for (i = 0; i < r->nsections && !err; i++) {
		const struct rb_maint_section *s = r->sections[i];

		err = rb_buf_printf(out, "%s\n\tstatus: %s\n", s->name,
				    s->status);
		for (j = 0; j < s->ntrees && !err; j++)
			err = rb_buf_printf(out, "\ttree: %s\n", s->trees[j]);
		for (j = 0; j < s->nlists && !err; j++)
			err = rb_buf_printf(out, "\tlist: %s\n", s->lists[j]);
		for (j = 0; j < s->nmaintainers && !err; j++)
			err = rb_buf_printf(out, "\tmaintainer: %s\n",
					    s->maintainers[j]);
		for (j = 0; j < s->nreviewers && !err; j++)
			err = rb_buf_printf(out, "\treviewer: %s\n",
					    s->reviewers[j]);
	}
	return err;
}
