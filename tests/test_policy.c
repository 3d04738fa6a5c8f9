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
#include <git2.h>

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
	cfg.policy_default.report_apply_failures = RB_AF_ADMINS;

	pols[0].name = "MEMORY MANAGEMENT";
	pols[0].mode = RB_MODE_BLOCKING;
	pols[0].recipients = RB_RCPT_AUTHOR | RB_RCPT_MAINTAINERS |
			     RB_RCPT_LIST;
	pols[0].embargo_minutes = 30;
	pols[0].min_severity = RB_FSEV_LOW;
	pols[0].max_findings = 5;
	pols[0].send_when_empty = true;
	pols[0].report_apply_failures = RB_AF_AUTHOR;
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
	pols[1].report_apply_failures = RB_AF_OFF;
	pols[1].require_dkim = true;
	pols[1].suppress_similar = 3;
	pols[1].skip_authors = net_skip;
	pols[1].n_skip_authors = 1;

	pols[2].name = "linux-api.vger.kernel.org";
	pols[2].mode = RB_MODE_SHADOW;
	pols[2].recipients = RB_RCPT_AUTHOR | RB_RCPT_MAINTAINERS |
			     RB_RCPT_LIST;
	pols[2].report_apply_failures = RB_AF_AUTHOR;

	pols[3].name = "KERNEL SELFTEST FRAMEWORK";
	pols[3].mode = RB_MODE_ADVISORY;
	pols[3].recipients = RB_RCPT_AUTHOR;
	pols[3].report_apply_failures = RB_AF_ADMINS;

	cfg.policies = pols;
	cfg.n_policies = 4;
	cfg.admins = admins;
	cfg.n_admins = 2;
	cfg.max_recipients = 20;
	cfg.max_lists = 10;
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
	assert_int_equal(rb_policy_author_recipients(&r, &p, &cfg, &people), 0);
	assert_int_equal(r.n_to + r.n_cc, 0);
	rb_recipients_release(&r);
	assert_int_equal(rb_policy_apply_failure_notice(&p), RB_AF_OFF);
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
	/* A notice for the author goes to the admins too, and the list's
	 * report_apply_failures: author never reaches the author. */
	assert_int_equal(rb_policy_author_recipients(&r, &p, &cfg, &people), 0);
	assert_int_equal(r.n_to, 2);
	assert_int_equal(r.n_cc, 0);
	assert_int_equal(r.n_trusted, 2);
	rb_recipients_release(&r);
	assert_int_equal(rb_policy_apply_failure_notice(&p), RB_AF_ADMINS);
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
	/*
	 * Lists and, of the original Cc, the maintainer the poster wrote
	 * to; no other maintainers: not asked for. Some One is in neither
	 * MAINTAINERS nor the author: left out (issue 33).
	 */
	assert_int_equal(r.n_cc, 3);
	assert_string_equal(r.cc[0], "linux-mm@kvack.org");
	assert_string_equal(r.cc[1], "linux-kernel@vger.kernel.org");
	assert_string_equal(r.cc[2], "DAVID@REDHAT.COM");
	/* linux-mm twice, the CR/LF one and "not an address". */
	assert_int_equal(r.n_dropped, 3);
	assert_int_equal(r.n_refused, 1);
	rb_recipients_release(&r);

	/* Apply failures are not reported for NETWORKING. */
	assert_int_equal(rb_policy_apply_failure_notice(&p), RB_AF_OFF);
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
	/* 3 maintainers, 2 lists; nobody new from the original Cc. */
	assert_int_equal(r.n_cc, 5);
	assert_string_equal(r.cc[0], maint[0]);
	assert_string_equal(r.cc[3], lists[0]);
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

	/* The author only, for an apply failure (mm opted in): counted. */
	assert_int_equal(rb_policy_apply_failure_notice(&p), RB_AF_AUTHOR);
	assert_int_equal(rb_policy_author_recipients(&r, &p, &cfg, &people), 0);
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
	assert_int_equal(p.report_apply_failures, RB_AF_OFF);
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
		assert_int_equal(
			rb_findings_add(
				&fs,
				&(struct rb_finding_spec){
					.checker = "model",
					.checker_version = "m",
					.category = "c",
					.severity = (enum rb_fsev)spec[i][1],
					.file = "mm/a.c",
					.line = (int)i + 1,
					.code = "x",
					.message = "Is this right?",
					.patch_index = spec[i][0] }),
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
	/* 1000 people of MAINTAINERS for the touched files, all addressed
	 * by the poster. */
	many.orig_cc = (const char *const *)v;
	many.n_orig_cc = 1000;
	many.touched_people = (const char *const *)v;
	many.n_touched_people = 1000;
	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &many), 0);
	/* 20 people and both lists on top: the cap counts people. The
	 * people the poster addressed are trimmed after the maintainers
	 * the bot added: the author and 19 of them. */
	assert_int_equal(r.n_to + r.n_cc, 22);
	assert_int_equal(r.n_lists, 2);
	assert_string_equal(r.to[0], people.author);
	assert_string_equal(r.cc[0], lists[0]);
	assert_string_equal(r.cc[2], "Person 0 <p0@example.org>");
	assert_string_equal(r.cc[20], "Person 18 <p18@example.org>");
	/* 1000 + 3 - 19 people over the cap; the header's hard limit of
	 * 100 entries took most before the cap did. */
	assert_int_equal(r.n_capped, 1003 - 19);
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
 * Issue 33: the poster's Cc picks no list. Of 96 lists MAINTAINERS
 * knows, written in the patch's Cc, only those of the touched files and
 * the lists the bot reads (list_ids) stay; 40 people in the Cc who are
 * nobody's maintainer are left out; lists have a cap of their own
 * (max_lists), which trims the lists the poster added first and keeps
 * the home section's and the read ones.
 */
static void test_cc_picks_no_list(void **state)
{
	static const char *const m2[] = {
		"Home One <home1@example.org>",
		"Home Two <home2@example.org>",
		"Other One <other1@example.org>",
		"Other Two <other2@example.org>",
	};
	static const char *const touched_lists[] = {
		"linux-mm@kvack.org", "linux-kernel@vger.kernel.org",
		"linux-arch@vger.kernel.org", /* touched, not opted in */
	};
	static char *read[] = { "linux-api.vger.kernel.org" };
	struct rb_policy_people w = people;
	struct rb_effective_policy p;
	struct rb_recipients r;
	char *known[100], buf[140][64];
	const char *cc[140];
	size_t i, n = 0;

	(void)state;
	for (i = 0; i < 96; i++) {
		snprintf(buf[n], sizeof(buf[n]), "list%02zu@vger.kernel.org",
			 i);
		known[i] = buf[n];
		cc[n] = buf[n];
		n++;
	}
	known[96] = "linux-api@vger.kernel.org";
	known[97] = "linux-arch@vger.kernel.org";
	for (i = 0; i < 40; i++, n++) {
		snprintf(buf[n], sizeof(buf[n]), "P%zu <p%zu@example.net>", i,
			 i);
		cc[n] = buf[n];
	}
	cc[n++] = "linux-api@vger.kernel.org";
	cc[n++] = "linux-arch@vger.kernel.org";
	cc[n++] = "linux-mm@kvack.org";
	cc[n++] = "LKML <linux-kernel@vger.kernel.org>";
	qsort(known, 98, sizeof(*known),
	      (int (*)(const void *, const void *))strcmp);
	w.maintainers = m2;
	w.n_maintainers = 4;
	w.n_home_maintainers = 2;
	w.n_home_lists = 1;
	w.orig_cc = cc;
	w.n_orig_cc = n;
	w.known_lists = known;
	w.n_known_lists = 98;
	w.touched_lists = touched_lists;
	w.n_touched_lists = 3;
	w.touched_people = m2;
	w.n_touched_people = 4;
	cfg.list_ids = read;
	cfg.n_list_ids = 1;
	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	/* linux-mm, LKML (the sections'), linux-api (read), linux-arch
	 * (a touched file's L:); none of the 96, none of the 40 people. */
	assert_int_equal(r.n_lists, 4);
	assert_int_equal(r.n_to + r.n_cc, 1 + 4 + 4);
	for (i = 0; i < r.n_cc; i++) {
		assert_null(strstr(r.cc[i], "list"));
		assert_null(strstr(r.cc[i], "example.net"));
	}
	assert_int_equal(r.n_refused, 96 + 40);
	rb_recipients_release(&r);

	/* A cap of 2 lists: the poster's linux-arch goes first, then the
	 * other section's LKML; the home's linux-mm and the read linux-api
	 * stay. */
	cfg.max_lists = 2;
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	assert_int_equal(r.n_lists, 2);
	assert_int_equal(r.n_lists_capped, 2);
	assert_true(!strcmp(r.lists[0], "linux-mm@kvack.org") ||
		    !strcmp(r.lists[1], "linux-mm@kvack.org"));
	assert_true(!strcmp(r.lists[0], "linux-api@vger.kernel.org") ||
		    !strcmp(r.lists[1], "linux-api@vger.kernel.org"));
	rb_recipients_release(&r);
	cfg.max_lists = 10;
	cfg.list_ids = NULL;
	cfg.n_list_ids = 0;

	/* A cap of 2 people: the author and the home section's first. */
	cfg.max_recipients = 2;
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	assert_string_equal(r.to[0], people.author);
	assert_string_equal(r.cc[0], m2[0]);
	assert_int_equal(r.n_to + r.n_cc - r.n_lists, 2);
	rb_recipients_release(&r);
	cfg.max_recipients = 20;
	rb_effective_policy_release(&p);
}

/*
 * Issue 34: a person of MAINTAINERS for the touched files whom the
 * poster addressed (Michal Hocko in the patch's To:) is trimmed last,
 * after 18 arch maintainers the tree added.
 */
static void test_addressed_trimmed_last(void **state)
{
	static const char *const to[] = { "Michal Hocko <mhocko@suse.com>" };
	const char *arch[20];
	char buf[20][64];
	struct rb_policy_people w = people;
	struct rb_effective_policy p;
	struct rb_recipients r;
	size_t i;
	bool hocko = false;

	(void)state;
	for (i = 0; i < 18; i++) {
		snprintf(buf[i], sizeof(buf[i]),
			 "Arch %zu <arch%zu@example.org>", i, i);
		arch[i] = buf[i];
	}
	arch[18] = to[0];
	w.maintainers = arch;
	w.n_maintainers = 18; /* Hocko: not in an opted-in section */
	w.n_home_maintainers = 2;
	w.touched_people = arch;
	w.n_touched_people = 19;
	w.orig_cc = to;
	w.n_orig_cc = 1;
	cfg.max_recipients = 10;
	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	for (i = 0; i < r.n_cc; i++)
		hocko = hocko || strstr(r.cc[i], "mhocko");
	assert_true(hocko);
	/* The author, Hocko, the 2 of the home section, 6 others. */
	assert_int_equal(r.n_to + r.n_cc - r.n_lists, 10);
	assert_string_equal(r.cc[0], arch[0]);
	assert_string_equal(r.cc[1], arch[1]);
	assert_int_equal(r.n_capped, 19 - 9);
	/* Hocko is the poster's choice: counted per recipient. */
	for (i = 0; i < r.n_trusted; i++)
		assert_null(strstr(r.trusted[i], "mhocko"));
	rb_recipients_release(&r);
	cfg.max_recipients = 20;
	rb_effective_policy_release(&p);
}

/*
 * Issue 34, the right person: a reply goes to the poster; the in-body
 * author is Cc'd where the poster addressed them, never otherwise; an
 * address no mail can reach is dropped and counted (but an admin's).
 */
static void test_poster_and_inbody(void **state)
{
	static const char *const cc_author[] = { "Old Self <old@example.org>",
						 "linux-mm@kvack.org" };
	static char *local_admin[] = { "root@localhost" };
	struct rb_policy_people w = people;
	struct rb_effective_policy p;
	struct rb_recipients r;
	size_t i;

	(void)state;
	w.author = "Sender <sender@example.com>";
	w.inbody = "Old Self <old@example.org>";
	w.orig_cc = cc_author + 1;
	w.n_orig_cc = 1;
	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	/* Not addressed: the in-body author gets nothing. */
	assert_int_equal(rb_policy_author_recipients(&r, &p, &cfg, &w), 0);
	assert_int_equal(r.n_to, 1);
	assert_int_equal(r.n_cc, 0);
	assert_string_equal(r.to[0], w.author);
	rb_recipients_release(&r);
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	assert_string_equal(r.to[0], w.author);
	for (i = 0; i < r.n_cc; i++)
		assert_null(strstr(r.cc[i], "old@"));
	rb_recipients_release(&r);

	/* Addressed (as git send-email does): Cc'd. */
	w.orig_cc = cc_author;
	w.n_orig_cc = 2;
	assert_int_equal(rb_policy_author_recipients(&r, &p, &cfg, &w), 0);
	assert_int_equal(r.n_to, 1);
	assert_int_equal(r.n_cc, 1);
	assert_string_equal(r.cc[0], "Old Self <old@example.org>");
	assert_int_equal(r.n_trusted, 0);
	rb_recipients_release(&r);

	/* A poster at localhost: nobody to write to, counted. */
	w.author = "caritas <caritas@localhost>";
	w.inbody = NULL;
	assert_int_equal(rb_policy_author_recipients(&r, &p, &cfg, &w), 0);
	assert_int_equal(r.n_to + r.n_cc, 0);
	assert_int_equal(r.n_undeliverable, 1);
	rb_recipients_release(&r);
	w.author = "Ann <ann@mail.invalid>";
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	assert_int_equal(r.n_undeliverable, 1);
	assert_null(strstr(r.to[0], "invalid"));
	rb_recipients_release(&r);
	rb_effective_policy_release(&p);

	/* The config's admins may be local. */
	cfg.admins = local_admin;
	cfg.n_admins = 1;
	assert_int_equal(rb_policy_admin_recipients(&r, &cfg), 0);
	assert_int_equal(r.n_to, 1);
	assert_int_equal(r.n_undeliverable, 0);
	rb_recipients_release(&r);
	cfg.admins = admins;
	cfg.n_admins = 2;
}

/*
 * Issue 34: a list's entry and a section's. The home section's own entry
 * decides, at most the list's mode; a section without an entry takes the
 * list's; a list in shadow mode never gets advisory mail.
 */
static void test_list_and_section(void **state)
{
	struct rb_effective_policy p;

	(void)state;
	/* NETWORKING (advisory) on linux-api (shadow): shadow. */
	assert_int_equal(rb_policy_resolve_home(&p, &cfg,
						"NETWORKING [GENERAL]",
						"linux-api.vger.kernel.org"),
			 0);
	assert_int_equal(p.mode, RB_MODE_SHADOW);
	assert_ptr_equal(p.governing, &pols[1]);
	assert_int_equal(p.embargo_minutes, 120);
	assert_string_equal(p.subsystem, "NETWORKING [GENERAL]");
	rb_effective_policy_release(&p);
	/* SLAB (no entry) on linux-api: the list's entry, not the default. */
	assert_int_equal(rb_policy_resolve_home(&p, &cfg, "SLAB ALLOCATOR",
						"linux-api.vger.kernel.org"),
			 0);
	assert_int_equal(p.mode, RB_MODE_SHADOW);
	assert_ptr_equal(p.governing, &pols[2]);
	rb_effective_policy_release(&p);
	/* The same elsewhere: its own, or the default. */
	assert_int_equal(rb_policy_resolve_home(&p, &cfg,
						"NETWORKING [GENERAL]",
						"netdev.vger.kernel.org"),
			 0);
	assert_int_equal(p.mode, RB_MODE_ADVISORY);
	rb_effective_policy_release(&p);
	assert_int_equal(
		rb_policy_resolve_home(&p, &cfg, "SLAB ALLOCATOR", NULL), 0);
	assert_int_equal(p.mode, RB_MODE_OFF);
	rb_effective_policy_release(&p);
	/* strictest: a section without an entry takes the list's too. */
	resolve(&p, "SLAB ALLOCATOR", NULL, "linux-api.vger.kernel.org");
	assert_int_equal(p.mode, RB_MODE_SHADOW);
	rb_effective_policy_release(&p);
}

/*
 * Issue 38 and 33: what a patch mail says never makes a person trusted
 * (no per-recipient limit), nor puts a third party on the mail. A poster
 * who writes a maintainer's address in From: makes the maintainer the
 * author (counted); a third party in the patch's To/Cc, however spelt,
 * is left out; a maintainer the poster also names stays trusted, as the
 * tree says.
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
	size_t i;

	(void)state;
	w.author = "Andrew Morton <akpm@linux-foundation.org>";
	w.orig_cc = cc;
	w.n_orig_cc = 4;
	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	assert_string_equal(r.to[0], w.author);
	/* the two other maintainers only: not the author, not a victim */
	assert_int_equal(r.n_trusted, 2);
	for (i = 0; i < r.n_trusted; i++)
		assert_null(strcasestr(r.trusted[i], "akpm"));
	/* no victim spelling is on the mail */
	for (i = 0; i < r.n_cc; i++)
		assert_null(strcasestr(r.cc[i], "victim"));
	assert_int_equal(r.n_refused, 3);
	rb_recipients_release(&r);

	/* The same Cc on an ordinary author's patch: akpm is trusted as
	 * the tree's maintainer. */
	w.author = people.author;
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &w), 0);
	assert_int_equal(r.n_trusted, 3);
	rb_recipients_release(&r);
	rb_effective_policy_release(&p);
}

/*
 * Issue 36: shadow mail to the home section's people, the static Cc,
 * people who want no mail or private copies only, forwards, private
 * mail, and the subject prefix's mode.
 */
static void test_sub_maintainers(void **state)
{
	static char *cc[] = { "mm-review@example.org" };
	static char *tags[] = { "RFC", "mm-hotfixes" };
	static enum rb_mode modes[] = { RB_MODE_SHADOW, RB_MODE_BLOCKING };
	struct rb_person who_mail[] = {
		{ "lorenzo.stoakes@oracle.com", RB_PERSON_NONE },
		{ "david@redhat.com", RB_PERSON_SHADOW },
	};
	struct rb_policy_people pp = people;
	struct rb_effective_policy p;
	struct rb_recipients r;
	size_t i;

	(void)state;
	pp.n_home_maintainers = 2; /* Andrew and David: home; Lorenzo not */
	pols[0].shadow_to = RB_SHADOW_MAINTAINERS;
	pols[0].cc = cc;
	pols[0].n_cc = 1;
	pols[0].prefix_tags = tags;
	pols[0].prefix_modes = modes;
	pols[0].n_prefixes = 2;
	cfg.people = who_mail;
	cfg.n_people = 2;

	resolve(&p, "MEMORY MANAGEMENT", NULL, NULL);
	assert_int_equal(p.shadow_to, RB_SHADOW_MAINTAINERS);
	assert_int_equal(p.n_cc, 1);
	/* Blocking: Lorenzo (none) is nowhere, David (shadow) goes to a
	 * private copy; the static Cc is on it, trusted. */
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &pp), 0);
	for (i = 0; i < r.n_cc; i++) {
		assert_null(strstr(r.cc[i], "lorenzo"));
		assert_null(strcasestr(r.cc[i], "david"));
	}
	assert_string_equal(r.cc[r.n_cc - 1], "mm-review@example.org");
	assert_int_equal(r.n_optout, 1);
	assert_int_equal(r.n_private, 1);
	assert_string_equal(r.private_to[0],
			    "David Hildenbrand <david@redhat.com>");
	assert_true(r.private_trusted);
	rb_recipients_release(&r);

	/* An [RFC PATCH] series: shadow, to the home section's people,
	 * David among them (private mail), nobody else. */
	rb_policy_apply_prefix(&p, &cfg, "RFC PATCH v2 1/3", NULL);
	assert_int_equal(p.mode, RB_MODE_SHADOW);
	assert_string_equal(p.prefix, "RFC");
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &pp), 0);
	assert_int_equal(r.n_to, 2);
	assert_int_equal(r.n_cc, 0);
	assert_string_equal(r.to[0],
			    "Andrew Morton <akpm@linux-foundation.org>");
	assert_string_equal(r.to[1], "David Hildenbrand <david@redhat.com>");
	assert_int_equal(r.n_trusted, 2);
	rb_recipients_release(&r);
	/* The home maintainer who posted it does not get shadow mail; the
	 * admins do when nobody else is left. */
	pp.author = "akpm@linux-foundation.org";
	pp.n_home_maintainers = 1;
	assert_int_equal(rb_policy_recipients(&r, &p, &cfg, &pp), 0);
	assert_int_equal(r.n_to, 2);
	assert_string_equal(r.to[0], "Admin One <admin1@example.org>");
	rb_recipients_release(&r);
	pp.author = people.author;
	pp.n_home_maintainers = 2;

	/* A prefix as a whole word only; the list's mode still caps. */
	rb_policy_apply_prefix(&p, &cfg, "PATCH mm-hotfixes", NULL);
	assert_int_equal(p.mode, RB_MODE_BLOCKING);
	rb_policy_apply_prefix(&p, &cfg, "PATCH mm-hotfixes",
			       "linux-api.vger.kernel.org");
	assert_int_equal(p.mode, RB_MODE_SHADOW);
	p.mode = RB_MODE_ADVISORY;
	rb_policy_apply_prefix(&p, &cfg, "RFCv2 PATCH", NULL);
	assert_int_equal(p.mode, RB_MODE_ADVISORY);
	assert_null(p.prefix);
	rb_policy_apply_prefix(&p, &cfg, NULL, NULL);
	assert_null(p.prefix);

	/* A forward: the author, the maintainer who sent it, the lists, the
	 * static Cc; no other maintainer. */
	assert_int_equal(rb_policy_forward_recipients(
				 &r, &p, &cfg, &pp,
				 "Andrew Morton <akpm@linux-foundation.org>"),
			 0);
	assert_int_equal(r.n_to, 1);
	assert_string_equal(r.to[0], "Jane Developer <jane@example.org>");
	assert_int_equal(r.n_cc, 4);
	assert_string_equal(r.cc[0],
			    "Andrew Morton <akpm@linux-foundation.org>");
	assert_string_equal(r.cc[1], "linux-mm@kvack.org");
	assert_string_equal(r.cc[3], "mm-review@example.org");
	rb_recipients_release(&r);

	/* Private mail: "none" holds, "shadow" gets it. */
	assert_int_equal(rb_policy_private_recipients(&r, &cfg, maint, 3, true),
			 0);
	assert_int_equal(r.n_to, 2);
	assert_int_equal(r.n_optout, 1);
	assert_int_equal(r.n_trusted, 2);
	rb_recipients_release(&r);
	assert_int_equal(
		rb_policy_private_recipients(&r, &cfg, maint + 2, 1, false), 0);
	assert_int_equal(r.n_to, 2); /* nobody left: the admins */
	rb_recipients_release(&r);
	rb_effective_policy_release(&p);

	pols[0].shadow_to = RB_SHADOW_ADMINS;
	pols[0].cc = NULL;
	pols[0].n_cc = 0;
	pols[0].n_prefixes = 0;
	cfg.people = NULL;
	cfg.n_people = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_cc_picks_no_list),
		cmocka_unit_test(test_addressed_trimmed_last),
		cmocka_unit_test(test_poster_and_inbody),
		cmocka_unit_test(test_list_and_section),
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
		cmocka_unit_test(test_sub_maintainers),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, setup, NULL);
	git_libgit2_shutdown();
	return ret;
}
