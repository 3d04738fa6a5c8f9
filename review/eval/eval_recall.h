/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eval_recall.h - context recall with no model: for one case of "reviewbot
 * eval --inject" (eval_inject.h), does the finder's prompt hold the lines
 * and the functions the fix changed, and could the tools reach them
 * within their default budget? A model cannot find a bug in code it never
 * sees: this is a precondition of recall, measured without one.
 *
 * Only the public interfaces are used: the prompt is the one
 * rb_model_prompt_build() makes for the same struct rb_model_patch_ctx
 * the review gets, and the tools are called through rb_model_tools_call()
 * with the context and limits model.c gives them, so that a change of
 * either shows here.
 *
 * A line counts as held when its text, blanks trimmed, is in the text
 * looked at; lines with fewer than three word characters ("}", "break;")
 * say nothing and are not counted. The plan for the tools, per function
 * the fix changed: find_definition of its name; read_file from the
 * definition for the rest when find_definition shows only its first
 * lines and some of the fix's lines are still missing; find_callers of
 * its name.
 */
#ifndef RB_REVIEW_EVAL_RECALL_H
#define RB_REVIEW_EVAL_RECALL_H

#include <stdbool.h>
#include <stddef.h>

#include "review/eval/evalset.h"
#include "review/model/model.h"

struct rb_eval_recall {
	/* The prompt. */
	int lines; /* the fix's lines that say something */
	int lines_in_prompt;
	int functions; /* functions around the fix's lines */
	int functions_whole; /* ... every line of which is in the prompt */
	int func_lines,
		func_lines_in_prompt; /* their lines that say something */
	size_t prompt_bytes; /* system and user */
	bool clipped; /* the prompt's budget left something out */
	/* The tools (no function: nothing to plan, calls 0). */
	int tool_lines; /* the fix's lines (in functions) the results hold */
	int tool_lines_of; /* ... of this many */
	int callers; /* rows find_callers gave */
	int calls, refused;
	size_t bytes;
};

/*
 * Measures @ctx (the review's context of the case patch: ctx->repo and
 * ctx->tree, the buggy code, are needed) for the fix's lines @changed (in
 * the buggy code, eval_inject.h), with the options @o (the model's, or
 * made from the config: no model is called). 0, -RB_ENOMEM, -RB_EIO.
 */
int rb_eval_context_recall(struct rb_eval_recall *out,
			   const struct rb_model_opts *o,
			   const struct rb_model_patch_ctx *ctx,
			   const struct rb_eval_changed *changed, size_t n);

#endif
