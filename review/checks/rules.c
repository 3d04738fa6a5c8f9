// SPDX-License-Identifier: GPL-2.0-only
/*
 * rules.c - the shipped on/off table of the finding rules (rules.h).
 *
 * Each row carries the strict precision measured on bench/labels/
 * findings.tsv by bench/precision.sh (true / labelled, debatable counted
 * as not true) after the fixes to the rules, and how many were labelled.
 * A rule is on when that precision is at least 90% on 3 or more labelled
 * findings; anything else, and any checkpatch type not listed (never
 * seen on real mail here), is off until a subsystem turns it on.
 */
#include <string.h>
#include <strings.h>

#include "review/checks/rules.h"
#include "util/banned.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CM "commit-msg"
#define CP "checkpatch"
#define SP "sparse"
#define KD "kernel-doc"
#define CO "coccinelle"
#define MT "cc-maintainers"

/*
 * Sorted by checker, then category (the tree checkers last). Measured
 * on 2026-12-03 (bench/
 * RESULTS-precision.md): strict precision in percent after the
 * checkpatch filter and rb_findings_postprocess(), and the number of
 * labelled findings it rests on, over what the daemon can say: findings
 * on series that touch kernel paths only (glibc, coreutils and man-pages
 * patches also reach linux-api, but they never apply to a kernel tree,
 * so the daemon never runs a checker on them). subject-prefix reaches
 * 92% but stays off: a subject nit is the kind of mail linux-mm rejected
 * a bot for, and a subsystem can turn it on. -1: no finding of the rule was left to
 * label (fixes-unknown and fixes-subject need a tree with history;
 * link-tag's 32 findings were all "Link: [n] URL" lists, now accepted).
 * Types that never came up on real mail here are not listed: off.
 */
static const struct rb_rule_default table[] = {
	/* checker, category, on, precision %, labelled */
	{ CM, "author-signoff", true, 100, 19 },
	{ CM, "fixes-format", true, 100, 4 },
	{ CM, "fixes-subject", false, -1, 0 },
	{ CM, "fixes-unknown", false, -1, 0 },
	/* Never raised by the 30,571 archive mails; an attack, not a nit. */
	{ CM, "hidden-unicode", true, -1, 0 },
	{ CM, "link-tag", false, -1, 0 },
	{ CM, "series-cover", true, 95, 22 },
	{ CM, "series-size", false, 0, 26 },
	{ CM, "signed-off-by", true, 100, 3 },
	{ CM, "stable-cc", true, 100, 3 },
	{ CM, "subject-length", false, 40, 15 },
	{ CM, "subject-prefix", false, 92, 25 },
	{ CP, "ASSIGN_IN_IF", false, 0, 5 },
	{ CP, "AVOID_BUG", false, 20, 5 },
	{ CP, "AVOID_EXTERNS", false, 0, 7 },
	{ CP, "BAD_FIXES_TAG", false, 0, 2 },
	{ CP, "BAD_SIGN_OFF", true, 100, 7 },
	{ CP, "BAD_STABLE_ADDRESS_STYLE", false, 100, 1 },
	{ CP, "BLOCK_COMMENT_STYLE", false, 60, 5 },
	{ CP, "BRACES", false, 0, 5 },
	{ CP, "CODE_INDENT", false, 80, 5 },
	{ CP, "COMMIT_COMMENT_SYMBOL", false, 0, 1 },
	{ CP, "COMMIT_LOG_LONG_LINE", false, 0, 5 },
	{ CP, "COMMIT_MESSAGE", false, 60, 5 },
	{ CP, "COMPLEX_MACRO", false, 0, 5 },
	{ CP, "CONFIG_DESCRIPTION", false, 20, 5 },
	{ CP, "CONSIDER_KSTRTO", false, 100, 1 },
	{ CP, "CONST_STRUCT", false, 0, 1 },
	{ CP, "CORRUPTED_PATCH", false, 0, 5 },
	{ CP, "DEPRECATED_API", false, 67, 3 },
	{ CP, "EMBEDDED_FILENAME", false, 0, 4 },
	{ CP, "EMBEDDED_FUNCTION_NAME", false, 0, 4 },
	{ CP, "ENOSYS", false, 0, 5 },
	{ CP, "ENOTSUPP", false, 100, 1 },
	{ CP, "FILE_PATH_CHANGES", false, 18, 17 },
	{ CP, "FROM_SIGN_OFF_MISMATCH", false, 0, 5 },
	{ CP, "FUNCTION_ARGUMENTS", false, 0, 5 },
	{ CP, "FUNCTION_WITHOUT_ARGS", false, 100, 1 },
	{ CP, "GLOBAL_INITIALISERS", false, 100, 1 },
	{ CP, "INITIALISED_STATIC", false, 20, 5 },
	{ CP, "INLINE_LOCATION", false, -1, 0 },
	{ CP, "LEADING_SPACE", false, 0, 2 },
	{ CP, "LINE_SPACING", false, 40, 5 },
	{ CP, "LOGGING_CONTINUATION", false, -1, 0 },
	{ CP, "LONG_LINE", false, 0, 5 },
	{ CP, "LONG_LINE_COMMENT", false, 0, 4 },
	{ CP, "LONG_LINE_STRING", false, 0, 5 },
	{ CP, "MACRO_WITH_FLOW_CONTROL", false, -1, 0 },
	{ CP, "MAINTAINERS_STYLE", false, 100, 1 },
	{ CP, "MEMORY_BARRIER", false, 0, 4 },
	{ CP, "MISPLACED_INIT", false, -1, 0 },
	{ CP, "MISSING_EOF_NEWLINE", true, 100, 13 },
	{ CP, "MISSING_SIGN_OFF", false, 100, 1 },
	{ CP, "MULTILINE_DEREFERENCE", false, 100, 1 },
	{ CP, "MULTISTATEMENT_MACRO_USE_DO_WHILE", false, 0, 1 },
	{ CP, "NO_AUTHOR_SIGN_OFF", false, 67, 3 },
	{ CP, "OOM_MESSAGE", false, 0, 1 },
	{ CP, "OPEN_BRACE", false, 0, 5 },
	{ CP, "PARENTHESIS_ALIGNMENT", false, 0, 1 },
	{ CP, "POINTER_LOCATION", false, 100, 2 },
	{ CP, "PREFER_DEFINED_ATTRIBUTE_MACRO", false, 0, 5 },
	{ CP, "PREFER_FALLTHROUGH", false, 0, 1 },
	{ CP, "PREFER_SEQ_PUTS", false, 100, 2 },
	{ CP, "REPEATED_WORD", true, 92, 13 },
	{ CP, "SPACE_BEFORE_TAB", true, 100, 5 },
	{ CP, "SPACING", false, 11, 18 },
	{ CP, "SPDX_LICENSE_TAG", false, 80, 15 },
	{ CP, "SPLIT_STRING", false, 0, 5 },
	{ CP, "STATIC_CONST", false, 100, 1 },
	{ CP, "STRING_FRAGMENTS", false, -1, 0 },
	{ CP, "SUSPECT_CODE_INDENT", false, 0, 3 },
	{ CP, "SWITCH_CASE_INDENT_LEVEL", false, 100, 1 },
	{ CP, "SYMBOLIC_PERMS", false, 0, 3 },
	{ CP, "TABSTOP", false, 0, 1 },
	{ CP, "TRAILING_SEMICOLON", false, 0, 1 },
	{ CP, "TRAILING_STATEMENTS", false, 40, 5 },
	{ CP, "TRAILING_WHITESPACE", false, 100, 2 },
	{ CP, "TYPO_SPELLING", true, 100, 8 },
	{ CP, "UNKNOWN_COMMIT_ID", false, -1, 0 },
	{ CP, "UNNECESSARY_BREAK", false, 100, 2 },
	{ CP, "UNNECESSARY_ELSE", false, 33, 3 },
	{ CP, "UNSPECIFIED_INT", false, 0, 3 },
	{ CP, "VOLATILE", false, 20, 5 },
	/*
	 * The tree checkers (issue 32), bench/RESULTS-precision-tree.md, run
	 * only where a policy names them. kernel-doc: 12 of 12 on the 112
	 * patches. cc-maintainers: 36 of 54 (a syscall wired up in every
	 * arch's table names every arch maintainer: debatable). sparse and
	 * coccinelle said nothing on the 15 real patches built (their probes
	 * were right): never measured on real findings, so off.
	 */
	{ MT, "cc-maintainers", false, 67, 54 },
	{ CO, "coccinelle", false, -1, 0 },
	{ KD, "kernel-doc", true, 100, 12 },
	{ SP, "sparse-error", false, -1, 0 },
	{ SP, "sparse-warning", false, -1, 0 },
};

const struct rb_rule_default *rb_rule_defaults(size_t *n)
{
	*n = ARRAY_SIZE(table);
	return table;
}

bool rb_rule_applies(const char *checker, const char *category)
{
	if (!checker || !category || !strcmp(category, "checker-problem"))
		return false;
	return !strcmp(checker, CM) || !strcmp(checker, CP) ||
	       !strcmp(checker, SP) || !strcmp(checker, KD) ||
	       !strcmp(checker, CO) || !strcmp(checker, MT);
}

bool rb_rule_default_on(const char *checker, const char *category)
{
	size_t i;

	if (!rb_rule_applies(checker, category))
		return true;
	for (i = 0; i < ARRAY_SIZE(table); i++)
		if (!strcmp(table[i].checker, checker) &&
		    !strcmp(table[i].category, category))
			return table[i].on;
	return false;
}

/* Whether switch @rule names (@checker, @category). */
static bool matches(const char *rule, const char *checker, const char *category)
{
	const char *colon = strchr(rule, ':');
	size_t n;

	if (!strcmp(rule, "*"))
		return true;
	if (!colon) /* "subject-length" or a bare checkpatch type */
		return !strcasecmp(rule, category);
	n = (size_t)(colon - rule);
	if (strlen(checker) != n || strncasecmp(rule, checker, n))
		return false;
	return !strcmp(colon + 1, "*") || !strcasecmp(colon + 1, category);
}

bool rb_rule_enabled(const struct rb_rules *rules, const char *checker,
		     const char *category)
{
	bool on = rb_rule_default_on(checker, category);
	size_t i;

	if (!rb_rule_applies(checker, category) || !rules)
		return on;
	for (i = 0; i < rules->n; i++)
		if (rules->v[i].rule &&
		    matches(rules->v[i].rule, checker, category))
			on = rules->v[i].on;
	return on;
}

/* A category of the table's checker @checker (NULL: any but checkpatch,
 * whose types are open-ended). */
static bool is_category(const char *checker, const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(table); i++)
		if ((checker ? !strcmp(table[i].checker, checker) :
			       strcmp(table[i].checker, CP) != 0) &&
		    !strcasecmp(table[i].category, name))
			return true;
	return false;
}

static bool is_cm_category(const char *name)
{
	return is_category(NULL, name);
}

/* A checkpatch type: upper-case letters, digits and '_'. */
static bool is_cp_type(const char *name)
{
	size_t i;

	if (!*name)
		return false;
	for (i = 0; name[i]; i++)
		if (!((name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
			return false;
	return true;
}

bool rb_rule_name_valid(const char *rule)
{
	const char *colon, *name;
	size_t n;

	if (!rule || !*rule)
		return false;
	if (!strcmp(rule, "*"))
		return true;
	colon = strchr(rule, ':');
	if (!colon)
		return is_cm_category(rule) || is_cp_type(rule);
	name = colon + 1;
	n = (size_t)(colon - rule);
	if (n == strlen(CM) && !strncasecmp(rule, CM, n))
		return !strcmp(name, "*") || is_cm_category(name);
	if (n == strlen(CP) && !strncasecmp(rule, CP, n))
		return !strcmp(name, "*") || is_cp_type(name);
	for (n = 0; n < ARRAY_SIZE(table); n++)
		if (strcmp(table[n].checker, CM) &&
		    strcmp(table[n].checker, CP) &&
		    strlen(table[n].checker) == (size_t)(colon - rule) &&
		    !strncasecmp(rule, table[n].checker,
				 (size_t)(colon - rule)))
			return !strcmp(name, "*") ||
			       is_category(table[n].checker, name);
	return false;
}
