// SPDX-License-Identifier: GPL-2.0-only
/*
 * front.c - the "reviewbot" executable.
 *
 * "reviewbot maintainers" runs here, in a program linked with libc alone:
 * git send-email --cc-cmd and scripts run it once per patch. Loading the
 * whole bot's libraries (51 shared objects) was a third of such a run,
 * and libgit2's loading and set-up two thirds of what was left, so this
 * program answers from the on-disk cache (cmd_maintainers.c) and hands
 * what needs the git tree (the first run on a commit, a .yaml file, a
 * Fixes: commit, --file, --rev) to reviewbot-core. Every other command
 * belongs to reviewbot-core (bot/cli/main.c) too, which this program
 * executes with the same arguments: from its own directory, else from
 * $PATH. The exec keeps the process id, so a service manager or a test
 * that signals "reviewbot run" signals the core.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/cli/cli.h"
#include "bot/cli/cmd_maintainers.h"
#include "util/banned.h"

#define CORE "reviewbot-core"

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	ssize_t n;
	char *slash;

	if (argc >= 2 && !strcmp(argv[1], "maintainers")) {
		/* From the cache, or -1: reviewbot-core does it with git. */
		int ret = rb_cli_maintainers(argc - 1, argv + 1, NULL);

		if (ret >= 0)
			exit(ret);
	}
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = '\0';
		slash = strrchr(path, '/');
		if (slash &&
		    (size_t)(slash + 1 - path) + sizeof(CORE) <= sizeof(path)) {
			memcpy(slash + 1, CORE, sizeof(CORE));
			execv(path, argv);
			if (errno != ENOENT) {
				fprintf(stderr, "reviewbot: %s: %s\n", path,
					strerror(errno));
				exit(RB_EXIT_USAGE);
			}
		}
	}
	execvp(CORE, argv);
	fprintf(stderr,
		"reviewbot: cannot run %s (next to this program, or in PATH): "
		"%s\n",
		CORE, strerror(errno));
	exit(RB_EXIT_USAGE);
}
