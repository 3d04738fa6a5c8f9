/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model_setup.h - the model stage's options from the config, in one place
 * for the review stage (the daemon, "reviewbot review") and "reviewbot
 * eval", so that an evaluation measures the model the way it reviews.
 */
#ifndef RB_BOT_MODEL_SETUP_H
#define RB_BOT_MODEL_SETUP_H

#include "review/model/model_provider.h"

struct rb_model_config;

/*
 * Fills @o from model.* of the config: the model's options the config
 * read in place (from RB_MODEL_OPTS_INIT), and the tools and their
 * limits; strings are borrowed from @mc. @record_dir and @replay_dir (may be
 * NULL) are the command line's: replay makes the provider "replay".
 */
void rb_model_setup_opts(struct rb_model_opts *o,
			 const struct rb_model_config *mc,
			 const char *record_dir, const char *replay_dir);

/*
 * The finder's focuses: model.focuses, or all five (review/model/model.h)
 * when the config names none. Borrowed from @mc or static.
 */
const char *const *rb_model_setup_focuses(const struct rb_model_config *mc,
					  size_t *n);

#endif
