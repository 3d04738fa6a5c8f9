/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * apply_binary.h - internal to apply.c: the data of "GIT binary patch"
 * sections (zlib, RFC 1950/1951; git's delta format), decoded with hard
 * bounds. Not a public interface.
 */
#ifndef RB_REVIEW_APPLY_BINARY_H
#define RB_REVIEW_APPLY_BINARY_H

#include <stddef.h>
#include <stdint.h>

struct rb_buf;

/*
 * Appends the inflated zlib stream @in to @out; it must come out exactly
 * @expect bytes long. Returns 0, or -RB_EINVAL naming the problem.
 */
int rb_binary_inflate(struct rb_buf *out, const unsigned char *in, size_t len,
		      uint64_t expect);

/*
 * Appends the result of git's delta @delta on @src (patch-delta.c) to
 * @out. Returns 0, -RB_EINVAL for a corrupt delta or the wrong source,
 * -RB_ETOOBIG past out->max.
 */
int rb_binary_delta(struct rb_buf *out, const unsigned char *src,
		    size_t src_len, const unsigned char *delta, size_t len);

/*
 * The sizes a delta's header declares: of its source and of its result,
 * read before anything is allocated for the result. 0, or -RB_EINVAL.
 */
int rb_binary_delta_sizes(uint64_t *src_size, uint64_t *dst_size,
			  const unsigned char *delta, size_t len);

#endif
