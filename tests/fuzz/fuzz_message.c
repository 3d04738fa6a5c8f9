// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_message.c - hostile mail through rb_message_parse(): headers,
 * RFC 2047 words, MIME structures (the boundary guard in front of
 * libetpan's mailmime_parse()), transfer encodings and body splitting.
 * Seeds: the first messages of the linux-api corpus (run-fuzz.sh).
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_parse_opts opts = RB_PARSE_OPTS_INIT;
	struct rb_message *m = NULL;
	size_t i;

	opts.max_size = 1u << 20;
	if (rb_message_parse(&m, (const char *)data, size, &opts))
		return 0;
	if (!m->message_id || !m->subject.title || !m->body)
		abort();
	if (m->subject.version < 1 || m->subject.index < 0 ||
	    m->subject.index > m->subject.total)
		abort();
	if (m->patch && strlen(m->patch) != m->patch_len)
		abort();
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
