// SPDX-License-Identifier: GPL-2.0-only
/* IMAP and NNTP sources: not implemented yet (issue 9); fail visibly. */
#include "mail/source.h"
#include "util/err.h"
#include "util/banned.h"

int rb_source_imap_new(struct rb_source **out, const struct rb_source_opts *o)
{
	(void)out;
	return rb_err(RB_ECONFIG,
		      "source %s: IMAP sources are not implemented yet",
		      o->name ? o->name : "?");
}

int rb_source_nntp_new(struct rb_source **out, const struct rb_source_opts *o)
{
	(void)out;
	return rb_err(RB_ECONFIG,
		      "source %s: NNTP sources are not implemented yet",
		      o->name ? o->name : "?");
}
