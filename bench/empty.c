// SPDX-License-Identifier: GPL-2.0-only
/*
 * empty.c - the floor of any one-shot program in bench/maintainers.sh:
 * a process that does nothing, linked statically as the small
 * "reviewbot" is, so that what it costs is exec, the kernel's set-up
 * and exit, and nothing of ld.so (/bin/true is dynamic: loading libc.so
 * is part of what it costs).
 */
int main(void)
{
	return 0;
}
