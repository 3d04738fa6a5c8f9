// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <openssl/evp.h>

#include "hash.h"
#include "banned.h"

struct rb_sha256 {
	EVP_MD_CTX *ctx;
};

struct rb_sha256 *rb_sha256_new(void)
{
	struct rb_sha256 *h = malloc(sizeof(*h));

	if (!h)
		return NULL;
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || !EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(h->ctx);
		free(h);
		return NULL;
	}
	return h;
}

void rb_sha256_update(struct rb_sha256 *h, const void *data, size_t len)
{
	if (h)
		EVP_DigestUpdate(h->ctx, data, len);
}

void rb_sha256_final_hex(struct rb_sha256 *h, char out[RB_SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	out[0] = '\0';
	if (!h)
		return;
	EVP_DigestFinal_ex(h->ctx, md, &n);
	for (i = 0; i < n && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

void rb_sha256_hex(char out[RB_SHA256_HEX], const void *data, size_t len)
{
	struct rb_sha256 *h = rb_sha256_new();

	rb_sha256_update(h, data, len);
	rb_sha256_final_hex(h, out);
}
