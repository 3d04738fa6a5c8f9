// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_policy.c - the policy engine: off, shadow, advisory and blocking,
 * mixed subsystems, the embargo, send_when_empty, finding filters,
 * skip_authors and recipients (checked, unique, capped).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bot/config.h"
#include "bot/stages/policy.h"
#include "review/findings.h"
#include "util/log.h"
#include "util/banned.h"

static char *admins[] = { "Admin One <admin1@example.org>",
			  "admin2@example.org" };
static char *mm_skip[] = { "akpm@linux-foundation.org", "@bots.example.org" };
static char *net_skip[] = { "*-ci@example.com" };

/*
 * A config as the loader would leave it: a default that is off, MEMORY
 * MANAGEMENT blocking, NETWORKING advisory, a shadow entry for a list.
 */
static struct rb_policy pols[4];
static struct rb_config cfg;

static int setup(void **state)
{
	rb_log_set_quiet(1);
	memset(&cfg, 0, sizeof(cfg));
	memset(pols, 0, sizeof(pols));

	cfg.policy_default.name = "default";
	cfg.policy_default.mode = RB_MODE_OFF;
	cfg.policy_default.recipients = RB_RCPT_AUTHOR | RB_RCPT_MAINTAINERS |
					RB_RCPT_LIST;
	cfg.policy_default.report_apply_failures = true;

	pols[0].name = "MEMORY MANAGEMENT";
	pols[0].mode = RB_MODE_BLOCKING;
	pols[0].recipients = RB_RCPT_AUTHOR | RB_RCPT_MAINTAINERS |
			     RB_RCPT_LIST;
	pols[0].embargo_minutes = 30;
	pols[0].min_severity = RB_FSEV_LOW;
	pols[0].max_findings = 5;
	pols[0].send_when_empty = true;
	pols[0].report_apply_failures = true;
	pols[0].skip_authors = mm_skip;
	pols[0].n_skip_authors = 2;
	pols[0].blocking_text = "mm waits for an answer to each finding.";
	pols[0].templates_dir = "/etc/reviewbot/mm";

	pols[1].name = "NETWORKING [GENERAL]";
	pols[1].mode = RB_MODE_ADVISORY;
	pols[1].recipients = RB_RCPT_AUTHOR | RB_RCPT_LIST;
	pols[1].embargo_minutes = 120;
	pols[1].min_severity = RB_FSEV_MEDIUM;
	pols[1].max_findings = 2;
	pols[1].send_when_empty = false;
	pols[1].report_apply_failures = false;
	pols[1].require_dkim = true;
	pols[1].suppress_similar = 3;
	pols[1].skip_authors = net_skip;
	pols[1].n_skip_authors = 1;

	pols[2].name = "linux-api.vger.kernel.org";
	pols[2].mode = RB_MODE_SHADOW;
	pols[2].recipients = RB_RCPT_AUTHOR | RB_RCPT_MAINTAINERS |
			     RB_RCPT_LIST;
	pols[2].report_apply_failures = true;

	pols[3].name = "KERNEL SELFTEST FRAMEWORK";
	pols[3].mode = RB_MODE_ADVISORY;
	pols[3].recipients = RB_RCPT_AUTHOR;
	pols[3].report_apply_failures = true;

	cfg.policies = pols;
	cfg.n_policies = 4;
	cfg.admins = admins;
	cfg.n_admins = 2;
	cfg.max_recipients = 20;
	return 0;
}

static void resolve(struct rb_effective_policy *p, const char *a, const char *b,
		    const char *list)
{
	const char *s[2] = { NULL, NULL };
	size_t n = 0;

	if (a)
		s[n++] = a;
	if (b)
		s[n++] = b;
	assert_int_equal(rb_policy_resolve(p, &cfg, s, n, list), 0);
}

static const char *const maint[] = {
	"Andrew Morton <akpm@linux-foundation.org>",
	"David Hildenbrand <david@redhat.com>",
	"Lorenzo Stoakes <lorenzo.stoakes@oracle.com>",
};
static const char *const lists[] = { "linux-mm@kvack.org",
				     "linux-kernel@vger.kernel.org" };
static const char *const orig_cc[] = {
	"linux-mm@kvack.org", /* also an L: list: once only */
	"DAVID@REDHAT.COM", /* the same person, other case */
	"Evil <evil@example.org>\r\nBcc: victim@example.org",
	"Some One <some.one@example.net>",
	"not an address",
};
static const struct rb_policy_people people = {
	.author = "Jane Developer <jane@example.org>",
	.maintainers = maint,
	.n_maintainers = 3,
	.lists = lists,
	.n_lists = 2,
	.orig_cc = orig_cc,
	.n_orig_cc = 5,
};

static void test_off(void **state)
{
	struct rb_effective_policy p;
	struct rb_recipients r;

	/* A section without an entry uses the default: off. */
	resolve(&p, "SLAB ALLOCATOR", NULL, NULL);
	assert_int_equal(p.mode, RB_MODE_OFF);
	assert_ptr_equal(p.governing, &cfg.policy_default);
	assert_string_equal(p.subsystem, "SLAB ALLOCATOR");
	assert_false(rb_policy_should_send(&p, 3));
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &people), 0);
	assert_int_equal(r.n_to + r.n_cc, 0);
	rb_recipients_release(&r);
	assert_int_equal(rb_policy_apply_failure_recipients(&r, &p, &cfg,
							    people.author),
			 0);
	assert_int_equal(r.n_to + r.n_cc, 0);
	rb_recipients_release(&r);
	rb_effective_policy_release(&p);

	/* No section and a list without an entry: the default. */
	resolve(&p, NULL, NULL, "linux-mm.kvack.org");
	assert_int_equal(p.mode, RB_MODE_OFF);
	assert_string_equal(p.subsystem, "linux-mm.kvack.org");
	rb_effective_policy_release(&p);
	resolve(&p, NULL, NULL, NULL);
	assert_int_equal(p.mode, RB_MODE_OFF);
	assert_string_equal(p.subsystem, "default");
	rb_effective_policy_release(&p);
}

static void test_shadow(void **state)
{
	struct rb_effective_policy p;
	struct rb_recipients r;

	resolve(&p, NULL, NULL, "linux-api.vger.kernel.org");
	assert_int_equal(p.mode, RB_MODE_SHADOW);
	assert_true(rb_policy_should_send(&p, 1));
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &people), 0);
	/* Only the admins; nobody from the patch. */
	assert_int_equal(r.n_to, 2);
	assert_int_equal(r.n_cc, 0);
	assert_string_equal(r.to[0], "Admin One <admin1@example.org>");
	assert_string_equal(r.to[1], "admin2@example.org");
	/* The config chose them: no per-recipient limit (issue 38). */
	assert_int_equal(r.n_trusted, 2);
	assert_string_equal(r.trusted[0], "admin1@example.org");
	rb_recipients_release(&r);
	assert_int_equal(rb_policy_apply_failure_recipients(&r, &p, &cfg,
							    people.author),
			 0);
	assert_int_equal(r.n_to, 2);
	assert_int_equal(r.n_cc, 0);
	assert_int_equal(r.n_trusted, 2);
	rb_recipients_release(&r);
	rb_effective_policy_release(&p);
}

static void test_advisory(void **state)
{
	struct rb_effective_policy p;
	struct rb_recipients r;

	resolve(&p, "NETWORKING [GENERAL]", NULL, NULL);
	assert_int_equal(p.mode, RB_MODE_ADVISORY);
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &people), 0);
	assert_int_equal(r.n_to, 1);
	assert_string_equal(r.to[0], "Jane Developer <jane@example.org>");
	/* Lists and the original Cc, but no maintainers: not asked for. */
	assert_int_equal(r.n_cc, 4);
	assert_string_equal(r.cc[0], "linux-mm@kvack.org");
	assert_string_equal(r.cc[1], "linux-kernel@vger.kernel.org");
	assert_string_equal(r.cc[2], "DAVID@REDHAT.COM");
	assert_string_equal(r.cc[3], "Some One <some.one@example.net>");
	/* linux-mm twice, the CR/LF one and "not an address". */
	assert_int_equal(r.n_dropped, 3);
	rb_recipients_release(&r);

	/* Apply failures are not reported for NETWORKING. */
	assert_int_equal(rb_policy_apply_failure_recipients(&r, &p, &cfg,
							    people.author),
			 0);
	assert_int_equal(r.n_to + r.n_cc, 0);
	rb_recipients_release(&r);
	rb_effective_policy_release(&p);

	/* Author only: a private reply, without the original Cc. */
	resolve(&p, "KERNEL SELFTEST FRAMEWORK", NULL, NULL);
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &people), 0);
	assert_int_equal(r.n_to, 1);
	assert_int_equal(r.n_cc, 0);
	rb_recipients_release(&r);
	rb_effective_policy_release(&p);
}

static void test_blocking(void **state)
{
	struct rb_effective_policy p;
	struct rb_recipients r;
	size_t i;

	resolve(&p, "MEMORY MANAGEMENT", NULL, "linux-mm.kvack.org");
	assert_int_equal(p.mode, RB_MODE_BLOCKING);
	assert_string_equal(p.blocking_text,
			    "mm waits for an answer to each finding.");
	assert_string_equal(p.templates_dir, "/etc/reviewbot/mm");
	assert_string_equal(p.subsystem, "MEMORY MANAGEMENT");
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &people), 0);
	assert_int_equal(r.n_to, 1);
	/* 3 maintainers, 2 lists, 1 new person from the original Cc. */
	assert_int_equal(r.n_cc, 6);
	assert_string_equal(r.cc[0], maint[0]);
	assert_string_equal(r.cc[3], lists[0]);
	assert_string_equal(r.cc[5], "Some One <some.one@example.net>");
	for (i = 0; i < r.n_cc; i++)
		assert_null(strpbrk(r.cc[i], "\r\n"));
	/*
	 * The rate limits (issue 38): the maintainers from the tree are
	 * trusted (the global limit only), the lists are lists; the author
	 * and the person from the patch's own Cc are neither, so the
	 * per-recipient limit counts them.
	 */
	assert_int_equal(r.n_trusted, 3);
	assert_string_equal(r.trusted[0], "akpm@linux-foundation.org");
	assert_string_equal(r.trusted[1], "david@redhat.com");
	assert_string_equal(r.trusted[2], "lorenzo.stoakes@oracle.com");
	assert_int_equal(r.n_lists, 2);
	rb_recipients_release(&r);

	/* The author only, for an apply failure: counted. */
	assert_int_equal(rb_policy_apply_failure_recipients(&r, &p, &cfg,
							    people.author),
			 0);
	assert_int_equal(r.n_to, 1);
	assert_int_equal(r.n_cc, 0);
	assert_string_equal(r.to[0], people.author);
	assert_int_equal(r.n_trusted, 0);
	rb_recipients_release(&r);

	/* Case-insensitive entry names. */
	rb_effective_policy_release(&p);
	resolve(&p, "memory management", NULL, NULL);
	assert_int_equal(p.mode, RB_MODE_BLOCKING);
	rb_effective_policy_release(&p);
}

static void test_mixed(void **state)
{
	struct rb_effective_policy p;
	const char *many[] = { "MEMORY MANAGEMENT", "NETWORKING [GENERAL]",
			       "MEMORY MANAGEMENT", "KERNEL SELFTEST FRAMEWORK",
			       "NETWORKING [GENERAL]" };

	assert_int_equal(rb_mode_most_restrictive(RB_MODE_BLOCKING,
						  RB_MODE_ADVISORY),
			 RB_MODE_ADVISORY);
	assert_int_equal(rb_mode_most_restrictive(RB_MODE_SHADOW,
						  RB_MODE_ADVISORY),
			 RB_MODE_SHADOW);
	assert_int_equal(rb_mode_most_restrictive(RB_MODE_OFF,
						  RB_MODE_BLOCKING),
			 RB_MODE_OFF);

	/* Blocking mm + advisory net: advisory, every knob the stricter. */
	resolve(&p, "MEMORY MANAGEMENT", "NETWORKING [GENERAL]", NULL);
	assert_int_equal(p.mode, RB_MODE_ADVISORY);
	assert_ptr_equal(p.governing, &pols[1]);
	assert_null(p.blocking_text);
	assert_int_equal(p.recipients, RB_RCPT_AUTHOR | RB_RCPT_LIST);
	assert_int_equal(p.embargo_minutes, 120);
	assert_int_equal(p.min_severity, RB_FSEV_MEDIUM);
	assert_int_equal(p.max_findings, 2);
	assert_false(p.send_when_empty);
	assert_false(p.report_apply_failures);
	assert_true(p.require_dkim);
	assert_int_equal(p.suppress_similar, 3);
	assert_int_equal(p.n_skip_authors, 3);
	assert_string_equal(p.subsystem,
			    "MEMORY MANAGEMENT, NETWORKING [GENERAL]");
	rb_effective_policy_release(&p);

	/* An opted-in section and one that did not opt in: off. */
	resolve(&p, "MEMORY MANAGEMENT", "SLAB ALLOCATOR", NULL);
	assert_int_equal(p.mode, RB_MODE_OFF);
	rb_effective_policy_release(&p);

	/* A list in shadow mode makes a blocking section shadow. */
	resolve(&p, "MEMORY MANAGEMENT", NULL, "linux-api.vger.kernel.org");
	assert_int_equal(p.mode, RB_MODE_SHADOW);
	assert_string_equal(p.subsystem,
			    "MEMORY MANAGEMENT, linux-api.vger.kernel.org");
	rb_effective_policy_release(&p);

	/* Duplicates count once; names past three are summed up. */
	assert_int_equal(rb_policy_resolve(&p, &cfg, many, 5,
					   "linux-api.vger.kernel.org"),
			 0);
	assert_string_equal(p.subsystem,
			    "MEMORY MANAGEMENT, NETWORKING [GENERAL], KERNEL "
			    "SELFTEST FRAMEWORK and 1 more");
	assert_int_equal(p.recipients, RB_RCPT_AUTHOR);
	rb_effective_policy_release(&p);
}

static void test_embargo(void **state)
{
	struct rb_effective_policy p;
	const int64_t last = 1773925210; /* 2026-03-19 13:00:10 UTC */

	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(rb_policy_send_after(&p, last), last + 30 * 60);
	rb_effective_policy_release(&p);
	resolve(&p, "MEMORY MANAGEMENT", "NETWORKING [GENERAL]", NULL);
	assert_int_equal(rb_policy_send_after(&p, last), last + 120 * 60);
	rb_effective_policy_release(&p);
	resolve(&p, "KERNEL SELFTEST FRAMEWORK", NULL, NULL);
	assert_int_equal(rb_policy_send_after(&p, last), last);
	rb_effective_policy_release(&p);
}

static void test_send_when_empty(void **state)
{
	struct rb_effective_policy p;

	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_true(p.send_when_empty);
	assert_true(rb_policy_should_send(&p, 0));
	assert_true(rb_policy_should_send(&p, 2));
	rb_effective_policy_release(&p);

	resolve(&p, "NETWORKING [GENERAL]", NULL, NULL);
	assert_false(rb_policy_should_send(&p, 0));
	assert_true(rb_policy_should_send(&p, 1));
	rb_effective_policy_release(&p);

	/* Both: false wins. */
	resolve(&p, "NETWORKING [GENERAL]", "MEMORY MANAGEMENT", NULL);
	assert_false(rb_policy_should_send(&p, 0));
	rb_effective_policy_release(&p);
}

static void test_filter(void **state)
{
	struct rb_effective_policy p;
	struct rb_findings fs = { 0 };
	bool keep[8];
	/* patch, severity */
	const int spec[8][2] = {
		{ 1, RB_FSEV_INFO },	 { 1, RB_FSEV_LOW },
		{ 1, RB_FSEV_HIGH },	 { 1, RB_FSEV_MEDIUM },
		{ 1, RB_FSEV_CRITICAL }, { 1, RB_FSEV_MEDIUM },
		{ 2, RB_FSEV_LOW },	 { 2, RB_FSEV_MEDIUM }
	};
	size_t i;

	for (i = 0; i < 8; i++)
		assert_int_equal(rb_findings_add(&fs, "model", "m", "c",
						 (enum rb_fsev)spec[i][1],
						 "mm/a.c", (int)i + 1, "x",
						 "Is this right?", spec[i][0]),
				 0);
	/* mm: min low, at most 5 per patch. */
	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(rb_policy_filter_findings(&p, fs.v, 8, keep), 7);
	assert_false(keep[0]);
	for (i = 1; i < 8; i++)
		assert_true(keep[i]);
	rb_effective_policy_release(&p);

	/* net: min medium, at most 2 per patch, the most severe first. */
	resolve(&p, "NETWORKING [GENERAL]", NULL, NULL);
	assert_int_equal(rb_policy_filter_findings(&p, fs.v, 8, keep), 3);
	assert_true(keep[2] && keep[4] && keep[7]);
	assert_false(keep[0] || keep[1] || keep[3] || keep[5] || keep[6]);
	rb_effective_policy_release(&p);

	/* No cap: everything at or above the minimum. */
	resolve(&p, "KERNEL SELFTEST FRAMEWORK", NULL, NULL);
	assert_int_equal(rb_policy_filter_findings(&p, fs.v, 8, keep), 8);
	rb_effective_policy_release(&p);
	rb_findings_release(&fs);
}

static void test_skip_authors(void **state)
{
	struct rb_effective_policy p;

	resolve(&p, "MEMORY MANAGEMENT", "NETWORKING [GENERAL]", NULL);
	assert_true(rb_policy_skip_author(
		&p, "Andrew Morton <AKPM@linux-foundation.org>"));
	assert_true(rb_policy_skip_author(&p, "x@bots.example.org"));
	assert_true(rb_policy_skip_author(&p, "Robot <kernel-ci@EXAMPLE.com>"));
	assert_false(rb_policy_skip_author(&p, people.author));
	assert_false(rb_policy_skip_author(&p, "x@notbots.example.org"));
	assert_false(rb_policy_skip_author(&p, NULL));
	rb_effective_policy_release(&p);
}

static void test_recipient_cap(void **state)
{
	struct rb_effective_policy p;
	struct rb_recipients r;
	struct rb_policy_people many = people;
	char **v = calloc(1000, sizeof(*v));
	size_t i;

	for (i = 0; i < 1000; i++) {
		char b[64];

		snprintf(b, sizeof(b), "Person %zu <p%zu@example.org>", i, i);
		v[i] = strdup(b);
	}
	many.orig_cc = (const char *const *)v;
	many.n_orig_cc = 1000;
	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &many), 0);
	/* 20 people (the author, 3 maintainers, 16 of the Cc) and both
	 * lists on top: the cap counts people, never a list. */
	assert_int_equal(r.n_to + r.n_cc, 22);
	assert_int_equal(r.n_lists, 2);
	/* The author and the maintainers come before the original Cc. */
	assert_string_equal(r.to[0], people.author);
	assert_string_equal(r.cc[0], maint[0]);
	assert_string_equal(r.cc[5], "Person 0 <p0@example.org>");
	assert_string_equal(r.cc[20], "Person 15 <p15@example.org>");
	assert_int_equal(r.n_dropped, 1000 - 16);
	assert_int_equal(r.n_capped, 1000 - 16);
	rb_recipients_release(&r);

	/* max_recipients 0 means the mail module's hard cap. */
	cfg.max_recipients = 0;
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &many), 0);
	assert_int_equal(r.n_to + r.n_cc, 100);
	rb_recipients_release(&r);
	cfg.max_recipients = 20;

	/* Without the author, the first Cc becomes the To. */
	pols[0].recipients = RB_RCPT_MAINTAINERS;
	rb_effective_policy_release(&p);
	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &people), 0);
	assert_int_equal(r.n_to, 1);
	assert_string_equal(r.to[0], maint[0]);
	assert_string_equal(r.cc[0], maint[1]);
	rb_recipients_release(&r);
	pols[0].recipients = RB_RCPT_AUTHOR | RB_RCPT_MAINTAINERS |
			     RB_RCPT_LIST;
	rb_effective_policy_release(&p);

	for (i = 0; i < 1000; i++)
		free(v[i]);
	free(v);
}

/*
 * Issue 15: a reply on a patch Cc'd to 40 people and 4 lists, 2 of them
 * known only to MAINTAINERS (not touched sections' L:), under a cap of
 * 20: every list stays; the home section's people stay before the other
 * sections', and those before the patch's own Cc; the trim is counted.
 */
static void test_cap_keeps_lists(void **state)
{
	static const char *const m2[] = {
		"Home One <home1@example.org>",
		"Home Two <home2@example.org>",
		"Other One <other1@example.org>",
		"Other Two <other2@example.org>",
	};
	static char *known[] = { "linux-api@vger.kernel.org",
				 "linux-arch@vger.kernel.org" };
	struct rb_policy_people w = people;
	struct rb_effective_policy p;
	struct rb_recipients r;
	const char *cc[44];
	char buf[44][64];
	size_t i, lists = 0;

	for (i = 0; i < 40; i++) {
		snprintf(buf[i], sizeof(buf[i]), "P%zu <p%zu@example.net>", i,
			 i);
		cc[i] = buf[i];
	}
	cc[40] = "linux-api@vger.kernel.org";
	cc[41] = "linux-arch@vger.kernel.org";
	cc[42] = "linux-mm@kvack.org";
	cc[43] = "LKML <linux-kernel@vger.kernel.org>";
	w.maintainers = m2;
	w.n_maintainers = 4;
	w.n_home_maintainers = 2;
	w.orig_cc = cc;
	w.n_orig_cc = 44;
	w.known_lists = known;
	w.n_known_lists = 2;
	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	for (i = 0; i < r.n_cc; i++)
		if (strstr(r.cc[i], "linux-"))
			lists++;
	assert_int_equal(lists, 4);
	assert_int_equal(r.n_lists, 4);
	/* 20 people: the author, 4 maintainers, 15 of the 40. */
	assert_int_equal(r.n_to + r.n_cc, 24);
	assert_int_equal(r.n_capped, 25);
	assert_string_equal(r.cc[0], m2[0]);
	assert_string_equal(r.cc[3], m2[3]);
	rb_recipients_release(&r);

	/* A cap of 2: the author and the home section's first person. */
	cfg.max_recipients = 2;
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	assert_int_equal(r.n_to + r.n_cc, 2 + 4);
	assert_string_equal(r.to[0], people.author);
	assert_string_equal(r.cc[0], m2[0]);
	assert_int_equal(r.n_lists, 4);
	rb_recipients_release(&r);
	cfg.max_recipients = 20;
	rb_effective_policy_release(&p);
}

/*
 * Issue 38: what a patch mail says never makes a person trusted (no
 * per-recipient limit). A poster who writes a maintainer's address in
 * From: makes the maintainer the author (counted); a third party in the
 * patch's To/Cc, however spelt, stays counted; a maintainer the poster
 * also names stays trusted, as the tree says.
 */
static void test_rate_classes_hostile(void **state)
{
	static const char *const cc[] = {
		"Victim <victim@example.com>",
		"VICTIM+2@example.com",
		"\"victim\"@example.com",
		"Andrew <AKPM@linux-foundation.org>",
	};
	struct rb_policy_people w = people;
	struct rb_effective_policy p;
	struct rb_recipients r;
	size_t i, k;

	(void)state;
	w.author = "Andrew Morton <akpm@linux-foundation.org>";
	w.orig_cc = cc;
	w.n_orig_cc = 4;
	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	assert_string_equal(r.to[0], w.author);
	/* the two other maintainers only: not the author, not a victim */
	assert_int_equal(r.n_trusted, 2);
	for (i = 0; i < r.n_trusted; i++) {
		assert_null(strcasestr(r.trusted[i], "victim"));
		assert_null(strcasestr(r.trusted[i], "akpm"));
	}
	/* every victim spelling is on the mail, none of them trusted */
	for (k = 0, i = 0; i < r.n_cc; i++)
		k += strcasestr(r.cc[i], "victim") != NULL;
	assert_int_equal(k, 3);
	rb_recipients_release(&r);

	/* The same Cc on an ordinary author's patch: akpm is trusted as
	 * the tree's maintainer, the victims are not. */
	w.author = people.author;
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	assert_int_equal(r.n_trusted, 3);
	for (i = 0; i < r.n_trusted; i++)
		assert_null(strcasestr(r.trusted[i], "victim"));
	rb_recipients_release(&r);
	rb_effective_policy_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_cap_keeps_lists),
		cmocka_unit_test(test_shadow),
		cmocka_unit_test(test_advisory),
		cmocka_unit_test(test_blocking),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_embargo),
		cmocka_unit_test(test_send_when_empty),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_skip_authors),
		cmocka_unit_test(test_recipient_cap),
		cmocka_unit_test(test_rate_classes_hostile),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
