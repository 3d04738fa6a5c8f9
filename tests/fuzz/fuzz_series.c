// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_series.c - libFuzzer target for series assembly: the input is an
 * mbox; every message in it is parsed and added, then the set is
 * assembled (twice, to check it is deterministic) and queried.
 *
 * Invariants checked (a violation traps):
 *  - a series has a total of at least 1, an id, and is complete exactly
 *    when rb_series_missing() finds nothing;
 *  - each patch and cover of a series is known to the set as a patch or
 *    a cover, and rb_series_set_find() gives a series for it;
 *  - a reply's answer is a patch or a cover;
 *  - a series' cover was sent by the sender of one of its patches (a
 *    0/N posted into someone else's thread is no cover);
 *  - assembling again gives the same series.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/mbox.h"
#include "mail/message.h"
#include "mail/series.h"
#include "util/log.h"
#include "util/banned.h"

#define CHECK(x)                          \
	do {                              \
		if (!(x))                 \
			__builtin_trap(); \
	} while (0)

#define MAX_MSGS 64

struct fz {
	struct rb_series_set *set;
	char *ids[MAX_MSGS];
	char *from[MAX_MSGS]; /* sender of ids[i] */
	size_t n;
};

static int on_msg(const char *raw, size_t len, const char *origin,
		  void *payload)
{
	struct fz *f = payload;
	struct rb_message *m = NULL;

	(void)origin;
	if (!raw || f->n >= MAX_MSGS)
		return 0;
	if (rb_message_parse(&m, raw, len, NULL))
		return 0;
	if (rb_series_set_add(f->set, m) == 0) {
		f->ids[f->n] = strdup(m->message_id);
		f->from[f->n++] = strdup(m->from.addr ? m->from.addr : "");
	}
	rb_message_free(m);
	return 0;
}

static const char *from_of(const struct fz *f, const char *id)
{
	size_t i;

	for (i = 0; id && i < f->n; i++)
		if (f->ids[i] && !strcmp(f->ids[i], id))
			return f->from[i];
	return NULL;
}

static void check_set(struct fz *f)
{
	size_t i, count = rb_series_set_count(f->set);

	for (i = 0; i < count; i++) {
		const struct rb_series *s = rb_series_set_get(f->set, i);
		int miss[16];
		size_t n;
		int j;

		CHECK(s && s->id && s->total >= 1);
		n = rb_series_missing(s, miss, 16);
		CHECK(s->complete == (n == 0));
		for (j = 0; j < s->total; j++) {
			enum rb_msg_kind k;

			if (!s->patches[j])
				continue;
			k = rb_series_set_kind(f->set, s->patches[j]);
			CHECK(k == RB_KIND_PATCH || k == RB_KIND_COVER);
			CHECK(rb_series_set_find(f->set, s->patches[j]));
		}
		if (s->cover) {
			const char *cf = from_of(f, s->cover);
			bool same = false;

			CHECK(rb_series_set_find(f->set, s->cover));
			for (j = 0; cf && j < s->total; j++) {
				const char *pf = from_of(f, s->patches[j]);

				same |= pf && !strcasecmp(pf, cf);
			}
			CHECK(same);
		}
	}
	for (i = 0; i < f->n; i++) {
		const char *a;

		if (!f->ids[i])
			continue;
		a = rb_series_set_answers(f->set, f->ids[i]);
		if (a) {
			enum rb_msg_kind k = rb_series_set_kind(f->set, a);

			CHECK(k == RB_KIND_PATCH || k == RB_KIND_COVER);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { 0 };
	size_t i, count;

	rb_log_set_quiet(1);
	if (rb_series_set_new(&f.set))
		return 0;
	/* A window of 0..255 hours from the first byte. */
	if (size)
		rb_series_set_window(f.set, (int64_t)data[0] * 3600);
	rb_mbox_split((const char *)data, size, "fuzz", 1 << 20, on_msg, &f);
	if (rb_series_set_assemble(f.set) == 0) {
		check_set(&f);
		count = rb_series_set_count(f.set);
		CHECK(rb_series_set_assemble(f.set) == 0);
		CHECK(rb_series_set_count(f.set) == count);
		check_set(&f);
	}
	rb_series_set_free(f.set);
	for (i = 0; i < f.n; i++) {
		free(f.ids[i]);
		free(f.from[i]);
	}
	return 0;
}
