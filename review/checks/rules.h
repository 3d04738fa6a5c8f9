/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rules.h - which findings speak by default. Each commit-msg category
 * ("subject-length") and each checkpatch type ("checkpatch:SPACING") is a
 * rule. The shipped default emits only the rules whose strict precision
 * on the labelled set (bench/labels/findings.tsv, measured by
 * bench/precision.sh into bench/RESULTS-precision.md) is at least 90%;
 * the others exist but are off until a subsystem turns them on in its
 * policy:
 *
 *   policy:
 *     subsystems:
 *       MEMORY MANAGEMENT:
 *         rules:
 *           subject-length: on
 *           checkpatch:LONG_LINE: on
 *           checkpatch:TYPO_SPELLING: off
 *
 * Findings of other checkers (build, model, external) and a checker's
 * own "checker-problem" notes are not rules: they always pass.
 */
#ifndef RB_REVIEW_RULES_H
#define RB_REVIEW_RULES_H

#include <stdbool.h>
#include <stddef.h>

struct rb_findings;

/* One switch of a policy. @rule: "subject-length", "checkpatch:SPACING",
 * a bare checkpatch type "SPACING", or "checkpatch:*", "commit-msg:*",
 * "*" for every rule of a checker or all (case-insensitive). */
struct rb_rule_switch {
	const char *rule; /* borrowed */
	bool on;
};

/* A policy's switches, in order; a later switch wins over an earlier. */
struct rb_rules {
	const struct rb_rule_switch *v; /* borrowed */
	size_t n;
};

/* A row of the shipped table. */
struct rb_rule_default {
	const char *checker; /* "commit-msg" or "checkpatch" */
	const char *category;
	bool on;
	/* Strict precision on the labelled set in percent, and how many
	 * findings of the rule were labelled; -1 when never measured. */
	int precision;
	int labelled;
};

/* The shipped table; *n is set to its length. */
const struct rb_rule_default *rb_rule_defaults(size_t *n);

/* Whether findings of @checker and @category are rules at all. */
bool rb_rule_applies(const char *checker, const char *category);

/* The shipped default for a rule: true for what is not a rule, false for
 * a rule the table does not list (never measured: quiet). */
bool rb_rule_default_on(const char *checker, const char *category);

/* The default, then @rules (may be NULL) in order. */
bool rb_rule_enabled(const struct rb_rules *rules, const char *checker,
		     const char *category);

/* True when @rule names a rule a switch can set (for config checks):
 * a commit-msg category, a checkpatch type (any upper-case word), or a
 * wildcard. */
bool rb_rule_name_valid(const char *rule);

#endif
