// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_prefix.c - hostile subject lines through subject-prefix scoping
 * (issue 36, bot/stages/policy.h rb_policy_apply_prefix()): the line's
 * tags as rb_subject_parse() gives them, as the review stage passes
 * them, and the raw bytes as tags. Seeds: real subjects of the
 * linux-api corpus and the seed series (fuzz_prefix.seeds.sh).
 *
 * Invariants checked (a violation traps):
 *  - a prefix that rules is one of the governing entry's, and the tags
 *    hold it as a whole word (blank or comma separated), whatever case;
 *  - the first of them that the tags hold rules, and none when they
 *    hold none;
 *  - no prefix: the mode stays the entry's; a prefix: never more than
 *    the list's entry allows (its own prefix's mode, else its mode).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/config.h"
#include "bot/stages/policy.h"
#include "mail/message.h"
#include "util/log.h"
#include "util/banned.h"

#define CHECK(x)                          \
	do {                              \
		if (!(x))                 \
			__builtin_trap(); \
	} while (0)

static const char yaml[] = "policy:\n"
			   "  default:\n"
			   "    mode: advisory\n"
			   "  subsystems:\n"
			   "    RING BUFFER:\n"
			   "      mode: advisory\n"
			   "      prefixes:\n"
			   "        RFC: shadow\n"
			   "        mm-hotfixes: blocking\n"
			   "        net-next: \"off\"\n"
			   "    demo-list.example.org:\n"
			   "      mode: blocking\n"
			   "      prefixes:\n"
			   "        RFC: advisory\n";

static struct rb_config *cfg;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct rb_config_errors errs = { 0 };

	(void)argc;
	(void)argv;
	rb_log_set_level(RB_LOG_ERROR);
	if (rb_config_load_mem(&cfg, "fuzz_prefix.yaml", yaml, sizeof(yaml) - 1,
			       &errs))
		abort();
	rb_config_errors_release(&errs);
	return 0;
}

/* Whether @tags holds @t as a whole word, the oracle's own scan. */
static bool holds(const char *tags, const char *t)
{
	size_t len = strlen(t);
	const char *p;

	for (p = tags; p && *p; p++)
		if (!strncasecmp(p, t, len) &&
		    (p == tags || strchr(" \t,", p[-1])) &&
		    (!p[len] || strchr(" \t,", p[len])))
			return true;
	return false;
}

static void one(const char *tags, const char *list)
{
	struct rb_effective_policy p;
	enum rb_mode before;
	const struct rb_policy *g;
	size_t i;
	bool any = false;

	if (rb_policy_resolve_home(&p, cfg, "RING BUFFER", list))
		return;
	before = p.mode;
	g = p.governing;
	rb_policy_apply_prefix(&p, cfg, tags, list);
	for (i = 0; g && tags && i < g->n_prefixes; i++)
		any = any || holds(tags, g->prefix_tags[i]);
	CHECK(!p.prefix == !any);
	if (!p.prefix) {
		CHECK(p.mode == before);
	} else {
		for (i = 0; i < g->n_prefixes && p.prefix != g->prefix_tags[i];
		     i++)
			;
		CHECK(i < g->n_prefixes);
		CHECK(holds(tags, p.prefix));
		/* The first that the tags hold. */
		while (i-- > 0)
			CHECK(!holds(tags, g->prefix_tags[i]));
		/* The list's entry is blocking with RFC: advisory; it caps. */
		if (list)
			CHECK(p.mode ==
			      rb_mode_most_restrictive(
				      p.mode, holds(tags, "RFC") ?
						      RB_MODE_ADVISORY :
						      RB_MODE_BLOCKING));
	}
	rb_effective_policy_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_subject s;
	char *str = malloc(size + 1);

	if (!str)
		return 0;
	memcpy(str, data, size);
	str[size] = '\0';
	one(str, NULL);
	one(str, "demo-list.example.org");
	if (!rb_subject_parse(&s, str)) {
		one(s.tags, NULL);
		one(s.tags, "demo-list.example.org");
		rb_subject_release(&s);
	}
	free(str);
	return 0;
}
