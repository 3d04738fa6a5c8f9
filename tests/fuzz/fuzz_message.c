// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_message.c - hostile mail through rb_message_parse(): headers,
 * RFC 2047 words, MIME structures (the boundary guard in front of
 * libetpan's mailmime_parse()), transfer encodings and body splitting.
 * Seeds: the first messages of the linux-api corpus (run-fuzz.sh).
 * Invariants: display names hold no control character, and the date is
 * never later than the time received plus the clock skew allowed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail/message.h"
#include "util/banned.h"

static void check_str(const char *s)
{
	/* every string is NUL-terminated; ASan catches reads past it */
	if (s && strlen(s) == (size_t)-1)
		abort();
}

/* A display name goes into headers and review text: one line. */
static void check_name(const struct rb_addr *a)
{
	const unsigned char *p = (const unsigned char *)a->name;

	check_str(a->name);
	check_str(a->addr);
	for (; p && *p; p++)
		if (*p < 0x20 || *p == 0x7f ||
		    (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_parse_opts opts = RB_PARSE_OPTS_INIT;
	struct rb_message *m = NULL;
	size_t i;

	opts.max_size = 1u << 20;
	opts.received_at = 1700000000;
	if (rb_message_parse(&m, (const char *)data, size, &opts))
		return 0;
	if (!m->message_id || !m->subject.title || !m->body)
		abort();
	if (m->subject.version < 1 || m->subject.index < 0 ||
	    m->subject.index > m->subject.total)
		abort();
	if (m->patch && strlen(m->patch) != m->patch_len)
		abort();
	if (m->date > opts.received_at + RB_MSG_DATE_SKEW)
		abort();
	check_name(&m->from);
	check_name(&m->author);
	/* The poster is the sender, or the in-body author of B4 Relay. */
	if (rb_message_poster(m) != &m->from &&
	    (rb_message_poster(m) != &m->author || !rb_message_b4_relay(m)))
		abort();
	for (i = 0; i < m->to.n; i++)
		check_name(&m->to.v[i]);
	for (i = 0; i < m->cc.n; i++)
		check_name(&m->cc.v[i]);
	check_str(m->in_reply_to);
	for (i = 0; i < m->n_references; i++)
		check_str(m->references[i]);
	check_str(m->from.name);
	check_str(m->from.addr);
	for (i = 0; i < m->to.n; i++)
		check_str(m->to.v[i].addr);
	for (i = 0; i < m->cc.n; i++)
		check_str(m->cc.v[i].name);
	for (i = 0; i < m->n_trailers; i++) {
		check_str(m->trailers[i].key);
		check_str(m->trailers[i].value);
	}
	check_str(m->commit_msg);
	check_str(m->diffstat);
	check_str(m->notes);
	check_str(m->problem_text);
	check_str(m->list_id);
	(void)rb_message_trailer(m, "Signed-off-by");
	rb_message_free(m);
	return 0;
}
