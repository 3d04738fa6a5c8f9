// SPDX-License-Identifier: GPL-2.0-only
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"

char rb_buf_empty[1];

void rb_buf_init(struct rb_buf *b, size_t max)
{
	b->ptr = rb_buf_empty;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

void rb_buf_release(struct rb_buf *b)
{
	if (b->cap)
		free(b->ptr);
	rb_buf_init(b, b->max);
}

void rb_buf_reset(struct rb_buf *b)
{
	b->len = 0;
	if (b->cap)
		b->ptr[0] = '\0';
}

char *rb_buf_detach(struct rb_buf *b, size_t *len)
{
	char *p;

	if (!b->cap) {
		p = calloc(1, 1);
	} else {
		p = b->ptr;
	}
	if (len)
		*len = b->len;
	rb_buf_init(b, b->max);
	return p;
}

int rb_buf_grow(struct rb_buf *b, size_t extra)
{
	size_t want, ncap;
	char *p;

	if (extra > b->max || b->len > b->max - extra)
		return rb_err(RB_ETOOBIG,
			      "buffer would exceed its cap of %zu bytes",
			      b->max);
	want = b->len + extra + 1;
	if (want <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 64;
	while (ncap < want)
		ncap = ncap < ((size_t)-1) / 2 ? ncap * 2 : want;
	p = realloc(b->cap ? b->ptr : NULL, ncap);
	if (!p)
		return rb_err(RB_ENOMEM, "out of memory (%zu bytes)", ncap);
	if (!b->cap)
		p[0] = '\0';
	b->ptr = p;
	b->cap = ncap;
	return 0;
}

int rb_buf_add(struct rb_buf *b, const void *data, size_t len)
{
	int ret = rb_buf_grow(b, len);

	if (ret)
		return ret;
	if (len)
		memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int rb_buf_puts(struct rb_buf *b, const char *s)
{
	return rb_buf_add(b, s, strlen(s));
}

int rb_buf_putc(struct rb_buf *b, char c)
{
	return rb_buf_add(b, &c, 1);
}

int rb_buf_vprintf(struct rb_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n, ret;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return rb_err(RB_EINVAL, "bad format string");
	ret = rb_buf_grow(b, (size_t)n);
	if (ret)
		return ret;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int rb_buf_printf(struct rb_buf *b, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = rb_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return ret;
}

void rb_buf_truncate(struct rb_buf *b, size_t len)
{
	if (len < b->len) {
		b->len = len;
		b->ptr[len] = '\0';
	}
}

void rb_free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void *rb_grow(void *v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return v;
	ncap = *cap ? *cap * 2 : 8;
	if (ncap > SIZE_MAX / size)
		return NULL;
	nv = realloc(v, ncap * size);
	if (!nv)
		return NULL;
	*cap = ncap;
	return nv;
}
