// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_ratekey.c - libFuzzer target for the key a rate limit counts an
 * address by (bot/store/store_outbox.h rb_store_rate_key()), over the
 * addresses a hostile mail can put on a review: its From:, To: and Cc:,
 * as rb_addr_parse() takes them.
 *
 * Invariants checked (a violation traps):
 *  - every address rb_addr_parse() accepts has a key, no longer than it,
 *    with an '@' and no upper-case letter;
 *  - the address in any mix of cases has the same key;
 *  - a dot-atom local part and the same with "+tag" after it have the
 *    same key (one mailbox, one limit);
 *  - the key of a quoted local part that needs no quotes is the key of
 *    the bare one.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bot/store/store.h"
#include "mail/addr.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/banned.h"

#define CHECK(x)                          \
	do {                              \
		if (!(x))                 \
			__builtin_trap(); \
	} while (0)

static void key_of(struct rb_buf *b, const char *addr)
{
	rb_buf_reset(b);
	CHECK(rb_store_rate_key(b, addr) == 0);
}

static void check(const char *addr)
{
	struct rb_buf k = RB_BUF_INIT(1 << 12), o = RB_BUF_INIT(1 << 12);
	const char *at = strrchr(addr, '@');
	size_t i, local = (size_t)(at - addr);

	key_of(&k, addr);
	CHECK(k.len <= strlen(addr) && memchr(k.ptr, '@', k.len));
	for (i = 0; i < k.len; i++)
		CHECK(!isupper((unsigned char)k.ptr[i]));
	/* Any mix of cases: the same key. */
	rb_buf_reset(&o);
	for (i = 0; addr[i]; i++)
		rb_buf_putc(&o,
			    (char)(i % 2 ? toupper((unsigned char)addr[i]) :
					   tolower((unsigned char)addr[i])));
	{
		struct rb_buf k2 = RB_BUF_INIT(1 << 12);

		key_of(&k2, o.ptr);
		CHECK(k2.len == k.len && !memcmp(k2.ptr, k.ptr, k.len));
		/* A dot-atom with a "+tag", and the same quoted. */
		if (addr[0] != '"' && local && !memchr(addr, '+', local)) {
			rb_buf_reset(&o);
			rb_buf_add(&o, addr, local);
			rb_buf_puts(&o, "+tag");
			rb_buf_puts(&o, at);
			key_of(&k2, o.ptr);
			CHECK(k2.len == k.len && !memcmp(k2.ptr, k.ptr, k.len));
			rb_buf_reset(&o);
			rb_buf_putc(&o, '"');
			rb_buf_add(&o, addr, local);
			rb_buf_putc(&o, '"');
			rb_buf_puts(&o, at);
			key_of(&k2, o.ptr);
			CHECK(k2.len == k.len && !memcmp(k2.ptr, k.ptr, k.len));
		}
		rb_buf_release(&k2);
	}
	rb_buf_release(&k);
	rb_buf_release(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_addr a = { 0 };
	char *s;

	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	rb_log_set_quiet(1);
	if (rb_addr_parse(&a, s) == 0 && a.addr && rb_addr_valid(a.addr))
		check(a.addr);
	rb_addr_release(&a);
	free(s);
	return 0;
}
