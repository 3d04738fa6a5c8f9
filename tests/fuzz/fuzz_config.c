// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_config.c - rb_config_load_mem() on arbitrary bytes: it must return
 * a config or a list of errors, each with a message, and never crash,
 * leak or hang (libyaml's slow paths are cut off by the loader's depth and
 * anchor limits).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "bot/config.h"
#include "util/err.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_config_errors errs = { 0 };
	struct rb_config *cfg = NULL;
	size_t i;
	int ret;

	ret = rb_config_load_mem(&cfg, "fuzz.yaml", (const char *)data, size,
				 &errs);
	if (ret == 0 && (!cfg || errs.n))
		abort();
	if (ret && (cfg || (ret != -RB_ENOMEM && !errs.n)))
		abort();
	for (i = 0; i < errs.n; i++)
		if (!errs.v[i].msg || !errs.v[i].msg[0])
			abort();
	rb_config_errors_release(&errs);
	rb_config_free(cfg);
	return 0;
}
