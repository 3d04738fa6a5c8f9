// SPDX-License-Identifier: GPL-2.0-only
/*
 * model_setup.c - the model stage's options from the config. See
 * model_setup.h.
 */
#include <stddef.h>

#include "bot/config.h"
#include "bot/stages/model_setup.h"
#include "review/code/code_index.h"
#include "review/model/model.h"
#include "util/err.h"
#include "util/banned.h"

void rb_model_setup_opts(struct rb_model_opts *o,
			 const struct rb_model_config *mc,
			 const char *record_dir, const char *replay_dir)
{
	/* model.*: the model's options, read in place (bot/config.h). */
	*o = mc->opts;
	/* model.tools: the review offers the tools when this is on. */
	o->tools = mc->tools.enabled;
	o->tool_limits.max_calls = mc->tools.max_calls;
	o->tool_limits.max_bytes = (size_t)mc->tools.max_bytes;
	o->tool_limits.max_result = (size_t)mc->tools.max_result;
	o->tool_limits.max_seconds = mc->tools.max_seconds;
	o->verifier_tool_limits = o->tool_limits;
	o->verifier_tool_limits.max_calls = mc->tools.verifier_calls;
	o->verifier_tool_limits.max_bytes = (size_t)mc->tools.verifier_bytes;
	o->series_tool_calls = mc->tools.series_calls;
	o->series_tool_bytes = (size_t)mc->tools.series_bytes;
	o->tool_rounds = mc->tools.max_rounds;
	/*
	 * The code index's directory is the process's, not the model's
	 * (review/code/code_index.h): every review of this config uses it.
	 */
	if (rb_code_index_set_dir(mc->index_dir))
		rb_err_clear(); /* out of memory: the default directory */
	o->tool_tokens = mc->tools.max_tokens;
	o->record_dir = record_dir;
	if (replay_dir) {
		o->provider = "replay";
		o->replay_dir = replay_dir;
		o->record_dir = NULL;
	}
}

const char *const *rb_model_setup_focuses(const struct rb_model_config *mc,
					  size_t *n)
{
	if (!mc->n_focuses)
		return rb_model_focus_names(n);
	*n = mc->n_focuses;
	return (const char *const *)mc->focuses;
}
