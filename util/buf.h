/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * buf.h - the one growable byte buffer, with a size cap fixed when it is
 * created, because every input here is hostile mail (git strbuf, curl
 * dynbuf). The content is always NUL-terminated; ptr is never NULL after
 * rb_buf_init().
 */
#ifndef RB_UTIL_BUF_H
#define RB_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct rb_buf {
	char *ptr;
	size_t len;
	size_t cap;
	size_t max; /* the cap: adding past it fails with -RB_ETOOBIG */
};

#define RB_BUF_NOLIMIT ((size_t)-1)
#define RB_BUF_INIT(max)                  \
	{                                 \
		rb_buf_empty, 0, 0, (max) \
	}
extern char rb_buf_empty[];

void rb_buf_init(struct rb_buf *b, size_t max);
/* Frees the memory; the buffer is empty and usable again. */
void rb_buf_release(struct rb_buf *b);
/* Empties the buffer but keeps its memory. */
void rb_buf_reset(struct rb_buf *b);
/* Hands the (malloc'd, NUL-terminated) content to the caller. */
char *rb_buf_detach(struct rb_buf *b, size_t *len);

int rb_buf_grow(struct rb_buf *b, size_t extra);
int rb_buf_add(struct rb_buf *b, const void *data, size_t len);
int rb_buf_puts(struct rb_buf *b, const char *s);
int rb_buf_putc(struct rb_buf *b, char c);
int rb_buf_printf(struct rb_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int rb_buf_vprintf(struct rb_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void rb_buf_truncate(struct rb_buf *b, size_t len);

/* Zeroes a NUL-terminated secret (a password) and frees it; NULL is fine. */
void rb_free_secret(char *s);

/*
 * Room for one more element in the array @v of *@cap elements of @size
 * bytes, @n of them used: @v itself while there is room, else @v grown
 * to twice the capacity (8 at first) with *@cap updated, or NULL when
 * out of memory (@v and *@cap unchanged).
 */
void *rb_grow(void *v, size_t *cap, size_t n, size_t size);

#endif
