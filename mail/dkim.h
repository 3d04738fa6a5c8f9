/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dkim.h - DKIM signature checks (RFC 6376) on replies that judge our
 * findings, with libopendkim. A reply passes when it has exactly one
 * From: field holding exactly one mailbox, the sender the caller judged,
 * and one of its signatures verifies (header hash and body hash), names
 * From: in its h= tag, covers the whole body (no l= short of it), and its
 * signing domain (d=) is the domain of the From: address or a parent of
 * it (relaxed alignment, as DMARC, RFC 7489 3.1.1, defines it).
 *
 * Keys come from DNS, or, for tests and for offline replay, from a key
 * file (libopendkim's DKIM_QUERY_FILE): one record per line,
 * "SELECTOR._domainkey.DOMAIN v=DKIM1; k=rsa; p=...".
 */
#ifndef RB_MAIL_DKIM_H
#define RB_MAIL_DKIM_H

#include <stdbool.h>
#include <stddef.h>

struct rb_dkim_result {
	bool pass; /* a valid signature aligned with @from_addr */
	/* One From: field, one mailbox in it, and it is @from_addr. */
	bool from_ok;
	/*
	 * The passing signature also covers In-Reply-To: and References:
	 * (those present). Without them a verdict mail copied from a list
	 * archive can be pointed at another review of ours and still pass;
	 * 94% of the signed replies on linux-api sign In-Reply-To:.
	 */
	bool thread_signed;
	char domain[256]; /* the d= of the signature looked at, or "" */
	char reason[256]; /* why it failed, for the verdict's record */
};

/*
 * Verifies the raw message @raw (@len bytes, LF or CRLF line endings)
 * for a sender @from_addr ("local@domain"). @key_file is a key file as
 * above, or NULL to ask DNS. Returns 0 with *out filled whether the check
 * passed or not (a message without a signature fails), -RB_ENOMEM, or
 * -RB_EINVAL when libopendkim cannot be set up.
 */
int rb_dkim_verify(struct rb_dkim_result *out, const char *raw, size_t len,
		   const char *from_addr, const char *key_file);

/* True when signing domain @d covers the address @from_addr's domain. */
bool rb_dkim_aligned(const char *d, const char *from_addr);

#endif
