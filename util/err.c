// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>

#include "err.h"

static _Thread_local char last[1024];

int rb_verr(int code, const char *fmt, va_list ap)
{
	vsnprintf(last, sizeof(last), fmt, ap);
	return code > 0 ? -code : code;
}

int rb_err(int code, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = rb_verr(code, fmt, ap);
	va_end(ap);
	return ret;
}

const char *rb_errmsg(void)
{
	return last;
}

void rb_err_clear(void)
{
	last[0] = '\0';
}

const char *rb_errname(int code)
{
	static const char *const names[RB__EMAX] = {
		[RB_OK] = "OK",		  [RB_ENOMEM] = "ENOMEM",
		[RB_EINVAL] = "EINVAL",	  [RB_ENOTFOUND] = "ENOTFOUND",
		[RB_EAGAIN] = "EAGAIN",	  [RB_EIO] = "EIO",
		[RB_EPARSE] = "EPARSE",	  [RB_ETOOBIG] = "ETOOBIG",
		[RB_ECONFIG] = "ECONFIG", [RB_EEXISTS] = "EEXISTS",
		[RB_ESTORE] = "ESTORE",	  [RB_ELOCKED] = "ELOCKED",
		[RB_EFAIL] = "EFAIL",	  [RB_ETIMEOUT] = "ETIMEOUT",
		[RB_EQUOTA] = "EQUOTA",
	};

	if (code < 0)
		code = -code;
	if (code >= RB__EMAX)
		return "EUNKNOWN";
	return names[code];
}
