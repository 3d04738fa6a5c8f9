// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "bot/cli.h"
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
