/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hidden.h - invisible and bidirectional Unicode in patch text (the
 * "Trojan Source" attacks, CVE-2021-42574): zero-width characters, BiDi
 * embeddings, overrides and isolates, invisible operators and the BOM.
 * What a reviewer sees of such a line is not what the compiler reads, so
 * the "commit-msg" checker reports them (category hidden-unicode) and the
 * model is shown them escaped, never as the characters themselves.
 */
#ifndef RB_REVIEW_HIDDEN_H
#define RB_REVIEW_HIDDEN_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/*
 * The offset of the first hidden code point (UTF-8) in @s[0..@len), its
 * value in *@cp and its length in *@n; @len when there is none.
 */
size_t rb_hidden_find(const char *s, size_t len, uint32_t *cp, size_t *n);

/* The Unicode name of a code point rb_hidden_find() reports. */
const char *rb_hidden_name(uint32_t cp);

/* @s[0..@len) into @out with each hidden code point as "<U+202E>". */
int rb_hidden_escape(struct rb_buf *out, const char *s, size_t len);

#endif
