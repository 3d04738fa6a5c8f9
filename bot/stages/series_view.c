// SPDX-License-Identifier: GPL-2.0-only
/*
 * series_view.c - a stored series loaded and parsed once. See
 * series_view.h.
 */
#include <stdlib.h>
#include <string.h>

#include "bot/config.h"
#include "bot/stages/series_view.h"
#include "bot/stages/stage.h"
#include "mail/message.h"
#include "util/err.h"
#include "util/banned.h"

size_t rb_series_max_size(const struct rb_config *cfg)
{
	return cfg->max_message_size ? cfg->max_message_size :
				       RB_MSG_DEFAULT_MAX;
}

int rb_series_parse_stored(struct rb_store *st, const char *message_id,
			   size_t max_size, struct rb_message **out,
			   struct rb_msgrow *raw)
{
	struct rb_parse_opts opts = RB_PARSE_OPTS_INIT;
	struct rb_msgrow row = { 0 };
	int ret;

	*out = NULL;
	ret = rb_store_get_raw(st, message_id, &row);
	if (ret)
		return ret;
	opts.max_size = max_size;
	/*
	 * The date the store received it: a Date: far in the future is
	 * read as the parse at ingest and assembly read it (message.h).
	 */
	opts.received_at = row.received_at;
	if (rb_message_parse(out, row.raw, row.len, &opts)) {
		rb_err_clear();
		*out = NULL;
	}
	if (raw)
		*raw = row;
	else
		rb_msgrow_release(&row);
	return 0;
}

int rb_series_view_open(struct rb_series_view *v, struct rb_store *st,
			const char *id, size_t max_size, unsigned flags)
{
	v->max_size = max_size;
	v->flags = flags;
	return rb_store_series_load(st, id, &v->row);
}

int rb_series_view_parse(struct rb_series_view *v, struct rb_store *st)
{
	size_t n = (size_t)v->row.total + 1;
	int i, ret;

	v->msgs = calloc(n, sizeof(*v->msgs));
	if (v->flags & RB_VIEW_KEEP_RAW)
		v->raws = calloc(n, sizeof(*v->raws));
	if (!v->msgs || ((v->flags & RB_VIEW_KEEP_RAW) && !v->raws))
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i <= v->row.total; i++) {
		if (!v->row.msgids[i]) {
			if (i > 0)
				v->n_missing++;
			continue;
		}
		ret = rb_series_parse_stored(st, v->row.msgids[i], v->max_size,
					     &v->msgs[i],
					     v->raws ? &v->raws[i] : NULL);
		if (ret && (v->flags & RB_VIEW_SKIP_UNREAD)) {
			rb_err_clear();
			continue;
		}
		if (ret)
			return ret;
		if (v->msgs[i] && !v->first)
			v->first = v->msgs[i];
		if (v->msgs[i] && i > 0 && !v->first_patch) {
			v->first_patch = v->msgs[i];
			v->first_patch_idx = i;
		}
	}
	return 0;
}

int rb_series_view_load(struct rb_series_view *v, struct rb_store *st,
			const char *id, size_t max_size, unsigned flags)
{
	int ret = rb_series_view_open(v, st, id, max_size, flags);

	return ret ? ret : rb_series_view_parse(v, st);
}

int rb_series_view_scope(struct rb_series_view *v, struct rb_pipeline *p,
			 const char *list_id)
{
	int i, ret;

	if (v->scoped)
		return 0;
	for (i = 0; !list_id && v->msgs && i <= v->row.total; i++)
		if (v->msgs[i])
			list_id = v->msgs[i]->list_id;
	ret = rb_scope_resolve(&v->scope, p,
			       (const struct rb_message *const *)v->msgs,
			       (size_t)v->row.total + 1, list_id);
	v->scoped = !ret;
	return ret;
}

struct rb_message *rb_series_view_take(struct rb_series_view *v, int i)
{
	struct rb_message *m = v->msgs[i];

	v->msgs[i] = NULL;
	if (v->first == m)
		v->first = NULL;
	if (v->first_patch == m)
		v->first_patch = NULL;
	return m;
}

void rb_series_view_release(struct rb_series_view *v)
{
	int i;

	for (i = 0; i <= v->row.total; i++) {
		if (v->raws)
			rb_msgrow_release(&v->raws[i]);
		if (v->msgs)
			rb_message_free(v->msgs[i]);
	}
	free(v->raws);
	free(v->msgs);
	if (v->scoped)
		rb_scope_release(&v->scope);
	rb_series_row_release(&v->row);
	memset(v, 0, sizeof(*v));
}
