// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_versions.c - bot/stages/versions.h: b4's "Link to vN:" line of a cover
 * letter, as b4 0.14 writes it (the ext4 tune2fs v2 cover of the
 * linux-api archive, tests/data/versions/), and hostile variants.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bot/stages/versions.h"

static const char *link_of(const char *text, char *out, size_t size)
{
	rb_versions_b4_link(out, size, text, strlen(text));
	return out;
}

static void test_b4_link(void **state)
{
	char out[128], tiny[8];

	(void)state;
	assert_string_equal(
		link_of("Changes in v2:\n"
			"- add the ability to set the encoding\n"
			"- Link to v1: https://lore.kernel.org/r/"
			"20250908-tune2fs-v1-0-e3a6929f3355@mit.edu\n\n"
			"---\nTheodore Ts'o (3):\n",
			out, sizeof(out)),
		"20250908-tune2fs-v1-0-e3a6929f3355@mit.edu");
	/* v3's cover names v2 first, then v1: the newest. */
	assert_string_equal(
		link_of("- Link to v2: https://lore.kernel.org/all/b@x.org/\r\n"
			"- Link to v1: https://lore.kernel.org/r/a@x.org\n",
			out, sizeof(out)),
		"b@x.org");
	/* Another host, no id, no '@', too long for @out: nothing. */
	assert_string_equal(link_of("- Link to v1: https://evil.example/r/"
				    "a@x.org\n",
				    out, sizeof(out)),
			    "");
	assert_string_equal(link_of("- Link to v1: https://lore.kernel.org/\n",
				    out, sizeof(out)),
			    "");
	assert_string_equal(link_of("- Link to v1: https://lore.kernel.org/r/"
				    "no-at-sign\n",
				    out, sizeof(out)),
			    "");
	assert_string_equal(link_of("- Link to v1: https://lore.kernel.org/r/"
				    "20250908-tune2fs@mit.edu\n",
				    tiny, sizeof(tiny)),
			    "");
	/* The text may end anywhere. */
	assert_string_equal(link_of("Link to v", out, sizeof(out)), "");
	assert_string_equal(link_of("Link to v1: lore.kernel.org/r/a@b", out,
				    sizeof(out)),
			    "a@b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_b4_link),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
