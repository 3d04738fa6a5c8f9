/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trailer.h - the trailer names reviewbot must never write, in one table
 * for every place that checks or neutralises them: a review is not a
 * Reviewed-by (DESIGN.md fact 7), so the composer refuses a body line
 * that starts with one, the renderer drops the colon of one wherever
 * untrusted text would carry it, and the model's text loses it too,
 * Signed-off-by included (a model cannot sign anything off).
 */
#ifndef RB_MAIL_TRAILER_H
#define RB_MAIL_TRAILER_H

#include <stddef.h>

/* The sets of the table: which users check a name. */
enum {
	/* Reviewed-by, Acked-by, Tested-by: a bot never gives them. */
	RB_TRAILER_REVIEW = 1 << 0,
	/* Signed-off-by: the model's text may not carry one either. */
	RB_TRAILER_SIGNOFF = 1 << 1,
};

/*
 * The length of the name of @sets that [@s, @s + @n) starts with
 * (ASCII case ignored) when a colon follows it right away, else 0.
 */
size_t rb_trailer_name_at(const char *s, size_t n, unsigned int sets);

/*
 * When the line @s (@n bytes) starts with a name of @sets and its colon,
 * blanks allowed before the name and before the colon, the colon's
 * offset + 1; else 0.
 */
size_t rb_trailer_colon(const char *s, size_t n, unsigned int sets);

#endif
