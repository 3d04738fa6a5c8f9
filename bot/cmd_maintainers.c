// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until its issue lands: fails visibly. */
#include <stdio.h>

#include "bot/cli.h"
#include "util/banned.h"

int cmd_maintainers(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "reviewbot: this command is not implemented yet\n");
	return RB_EXIT_FAIL;
}
