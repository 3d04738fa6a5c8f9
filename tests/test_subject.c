// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_subject.c - the patch subject grammar: tags, versions, counts,
 * tree tags, reply prefixes in several languages, pull requests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mail/message.h"
#include "util/banned.h"

struct scase {
	const char *subject;
	const char *title;
	const char *subsystem; /* NULL: none */
	bool patch, reply, rfc, resend, pull;
	int version, index, total;
};

static const struct scase cases[] = {
	{ "[PATCH] mm: fix a leak", "mm: fix a leak", NULL, 1, 0, 0, 0, 0, 1, 0,
	  0 },
	{ "[PATCH v3 02/17] mm: fix", "mm: fix", NULL, 1, 0, 0, 0, 0, 3, 2,
	  17 },
	{ "[RFC PATCH net-next v2 1/3] net: foo", "net: foo", "net-next", 1, 0,
	  1, 0, 0, 2, 1, 3 },
	{ "[PATCHv3] x: y", "x: y", NULL, 1, 0, 0, 0, 0, 3, 0, 0 },
	{ "[PATCH RESEND] x: y", "x: y", NULL, 1, 0, 0, 1, 0, 1, 0, 0 },
	{ "[PATCH 0/5] cover", "cover", NULL, 1, 0, 0, 0, 0, 1, 0, 5 },
	{ "PATCH 1/8 fs: bare tags", "fs: bare tags", NULL, 1, 0, 0, 0, 0, 1, 1,
	  8 },
	{ "[RFC][PATCH 1/2] two groups", "two groups", NULL, 1, 0, 1, 0, 0, 1,
	  1, 2 },
	{ "Re: [PATCH v2 3/4] a reply", "a reply", NULL, 1, 1, 0, 0, 0, 2, 3,
	  4 },
	{ "RE: Re: Fwd: [PATCH] mixed", "mixed", NULL, 1, 1, 0, 0, 0, 1, 0, 0 },
	{ "Fw: AW: Aw: SV: [PATCH] langs", "langs", NULL, 1, 1, 0, 0, 0, 1, 0,
	  0 },
	{ "回复: [PATCH v2 1/3] chinese", "chinese", NULL, 1, 1, 0, 0, 0, 2, 1,
	  3 },
	{ "答复：Re: [PATCH] full-width colon", "full-width colon", NULL, 1, 1,
	  0, 0, 0, 1, 0, 0 },
	{ "[GIT PULL] vfs fixes", "vfs fixes", NULL, 0, 0, 0, 0, 1, 1, 0, 0 },
	{ "Re: [GIT PULL] vfs fixes", "vfs fixes", NULL, 0, 1, 0, 0, 1, 1, 0,
	  0 },
	{ "[PATCH v2 net] tcp: x", "tcp: x", "net", 1, 0, 0, 0, 0, 2, 0, 0 },
	{ "[PATCH 5.10 1/3] stable backport", "stable backport", "5.10", 1, 0,
	  0, 0, 0, 1, 1, 3 },
	{ "[PATCH V2] upper", "upper", NULL, 1, 0, 0, 0, 0, 2, 0, 0 },
	{ "[PATCH v10 10/12] ten", "ten", NULL, 1, 0, 0, 0, 0, 10, 10, 12 },
	{ "[PATCH net-next,v2] comma", "comma", "net-next", 1, 0, 0, 0, 0, 2, 0,
	  0 },
	{ "[net-next][PATCH] leading tree", "leading tree", "net-next", 1, 0, 0,
	  0, 0, 1, 0, 0 },
	{ "Plain   discussion\t here", "Plain discussion here", NULL, 0, 0, 0,
	  0, 0, 1, 0, 0 },
	{ "Re: question", "question", NULL, 0, 1, 0, 0, 0, 1, 0, 0 },
	{ "[ANNOUNCE] a tool", "a tool", NULL, 0, 0, 0, 0, 0, 1, 0, 0 },
	{ "[PATCH RFC v4 0/7] cover", "cover", NULL, 1, 0, 1, 0, 0, 4, 0, 7 },
	{ "[RFC] discussion", "discussion", NULL, 1, 0, 1, 0, 0, 1, 0, 0 },
	{ "PATCH: colon form", "colon form", NULL, 1, 0, 0, 0, 0, 1, 0, 0 },
	{ "PATCH v2 0/2] lost bracket", "lost bracket", NULL, 1, 0, 0, 0, 0, 2,
	  0, 2 },
	{ "[RFC/PATCH -V6 3/4] slashed", "slashed", NULL, 1, 0, 1, 0, 0, 6, 3,
	  4 },
	{ "[PATCH for 5.10] stable", "stable", "5.10", 1, 0, 0, 0, 0, 1, 0, 0 },
	{ "[EXT] Re: [PATCH v2] gateway", "gateway", NULL, 1, 1, 0, 0, 0, 2, 0,
	  0 },
	{ "[PATCH v0.9.1 2/5] tool release", "tool release", NULL, 1, 0, 0, 0,
	  0, 1, 2, 5 },
	{ "[PATCHSET v3 0/5] set", "set", NULL, 1, 0, 0, 0, 0, 3, 0, 5 },
	{ "Re[2]: counted reply", "counted reply", NULL, 0, 1, 0, 0, 0, 1, 0,
	  0 },
	{ "", "", NULL, 0, 0, 0, 0, 0, 1, 0, 0 },
	{ "[PATCH 9999999/3] huge", "huge", NULL, 1, 0, 0, 0, 0, 1, 0, 0 },
	{ "[PATCH 5/3] index past total", "index past total", NULL, 1, 0, 0, 0,
	  0, 1, 0, 0 },
	{ "[unterminated PATCH", "[unterminated PATCH", NULL, 0, 0, 0, 0, 0, 1,
	  0, 0 },
};

static void test_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct scase *c = &cases[i];
		struct rb_subject s;

		print_message("subject: %s\n", c->subject);
		assert_int_equal(rb_subject_parse(&s, c->subject), 0);
		assert_string_equal(s.title, c->title);
		if (c->subsystem)
			assert_non_null(s.subsystem);
		if (c->subsystem)
			assert_string_equal(s.subsystem, c->subsystem);
		else
			assert_null(s.subsystem);
		assert_int_equal(s.is_patch, c->patch);
		assert_int_equal(s.is_reply, c->reply);
		assert_int_equal(s.is_rfc, c->rfc);
		assert_int_equal(s.is_resend, c->resend);
		assert_int_equal(s.is_pull, c->pull);
		assert_int_equal(s.version, c->version);
		assert_int_equal(s.index, c->index);
		assert_int_equal(s.total, c->total);
		rb_subject_release(&s);
	}
}

static void test_tags_kept(void **state)
{
	struct rb_subject s;

	(void)state;
	assert_int_equal(rb_subject_parse(&s, "Re: [RFC][PATCH 1/2] x"), 0);
	assert_string_equal(s.tags, "RFC PATCH 1/2");
	rb_subject_release(&s);
	assert_int_equal(rb_subject_parse(&s, "no tags"), 0);
	assert_null(s.tags);
	rb_subject_release(&s);
	assert_int_equal(rb_subject_parse(&s, NULL), 0);
	assert_string_equal(s.title, "");
	rb_subject_release(&s);
	/* release twice is harmless */
	rb_subject_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_tags_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
