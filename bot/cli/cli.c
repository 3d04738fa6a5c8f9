// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>

#include "bot/cli/cli.h"
#include "bot/config.h"
#include "bot/store/store.h"
#include "util/err.h"
#include "util/banned.h"

bool rb_cli_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

int rb_cli_load_config(struct rb_config **out, const char *path)
{
	struct rb_config_errors errs = { 0 };
	int ret;

	ret = rb_config_load_or_defaults(out, path, &errs);
	if (ret) {
		if (errs.n)
			rb_config_errors_print(
				&errs, path ? path : "config.yaml", stderr);
		else
			fprintf(stderr, "reviewbot: %s\n", rb_errmsg());
		rb_config_errors_release(&errs);
		return RB_EXIT_USAGE;
	}
	rb_config_errors_release(&errs);
	/* Never silent about where the settings come from (issue 22). */
	if (path)
		fprintf(stderr, "reviewbot: config %s\n", path);
	else if ((*out)->file)
		fprintf(stderr,
			"reviewbot: config ./%s (found in the working "
			"directory; -c FILE picks another)\n",
			(*out)->file);
	else
		fprintf(stderr, "reviewbot: no config (no -c FILE, no "
				"./config.yaml): the embedded defaults\n");
	return RB_EXIT_OK;
}

int rb_cli_open_store(struct rb_store **out, const struct rb_config *cfg,
		      const char *override, bool shared)
{
	const char *where = override	   ? override :
			    cfg->store_url ? cfg->store_url :
					     cfg->store_path;
	int ret = rb_store_open(out, where, shared);

	if (ret) {
		fprintf(stderr, "reviewbot: store: %s\n", rb_errmsg());
		return ret == -RB_ELOCKED ? RB_EXIT_FAIL : RB_EXIT_USAGE;
	}
	return RB_EXIT_OK;
}
