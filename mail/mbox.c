// SPDX-License-Identifier: GPL-2.0-only
#include "mail/mbox.h"
#include "util/err.h"
#include "util/banned.h"

int rb_mail_walk(const char *path, size_t max_size, rb_mail_fn fn,
		 void *payload)
{
	(void)max_size;
	(void)fn;
	(void)payload;
	return rb_err(RB_EFAIL, "%s: not implemented yet", path);
}
