/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd_eval.h - what the two halves of "reviewbot eval" share: cmd_eval.c
 * (the command line, the set builder, and the pairs scored as they are)
 * and cmd_eval_cases.c (--inject: the bugs put back into real trees, with
 * their controls). Private to bot/cli/.
 */
#ifndef RB_BOT_CLI_CMD_EVAL_H
#define RB_BOT_CLI_CMD_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

struct rb_config;
struct rb_eval_labels;
struct rb_eval_set;
struct rb_model;
struct rb_model_opts;

/* A tree to apply on: a path and a ref, opened. */
struct eval_tree {
	const char *name, *path, *ref;
	git_repository *repo;
	git_oid commit; /* the ref's commit */
	git_oid tree; /* its tree */
	bool ok;
};

/* What an --inject run is given. Everything is borrowed. */
struct eval_env {
	const struct rb_config *cfg;
	const struct rb_eval_set *set;
	const char *set_path;
	const struct rb_eval_labels *labels; /* or NULL */
	struct rb_model *m; /* NULL: no model review */
	const struct rb_model_opts *mo; /* the options a review uses */
	const char *prompt; /* the prompt set's version */
	const char *model_name;
	struct eval_tree *trees;
	size_t n_trees;
	const char *const *focuses;
	size_t n_focuses;
	const char *label; /* said in the title, or NULL */
	size_t limit; /* pairs; 0: all */
	bool recall; /* context recall */
	bool checkers; /* the deterministic checkers */
	bool build; /* ... and the build checker */
	const char *json_out; /* or NULL */
	const char *cases_out; /* or NULL: the cases as JSON */
};

/* Runs --inject; returns an exit code. */
int eval_cases_run(const struct eval_env *e);

/* @s in a markdown table's cell, cut at @max bytes. */
void eval_md_cell(const char *s, size_t max);

static inline double eval_ratio(int a, int b)
{
	return b ? (double)a / b : 0;
}

#endif
