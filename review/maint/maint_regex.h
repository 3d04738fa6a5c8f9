/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * maint_regex.h - internal to the MAINTAINERS lookup (maint_*.c): Perl
 * regexes (the MAINTAINERS N:, K: and unusual F:/X: patterns) translated
 * into POSIX extended regexes for glibc's regcomp(), plus a set of
 * literals one of which every match must contain, so that most subjects
 * are rejected with a memmem() instead of a regexec().
 *
 * Semantics kept (a byte string, no locale, as get_maintainer's strings
 * are): "." never matches "\n"; "$" matches at the end or before a final
 * "\n"; \w \s \d are ASCII; \b \B use glibc's (ASCII in the C locale);
 * (?i) and (?i:...) expand letters into [xX]; lazy quantifiers become
 * greedy (only match/no-match is used); /x drops white space and #
 * comments. Anything else Perl-only (look-around, back-references,
 * \G, possessive quantifiers, (?flags) other than i and x) is refused.
 */
#ifndef RB_REVIEW_MAINT_REGEX_H
#define RB_REVIEW_MAINT_REGEX_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

struct rb_perl_re {
	regex_t re;
	bool compiled;
	/* Lower-cased literals: every match contains one of them; none
	 * (nlits == 0) when no such set was found.
	 */
	char **lits;
	size_t *litlens;
	size_t nlits;
};

/*
 * Translates the Perl pattern @pat (@len bytes; /x when @xflag) into a
 * POSIX ERE appended to the NUL-terminated string *ere (malloc'd, owned
 * by the caller), and computes the literal set into @r (which must be
 * zeroed). Returns 0, or -RB_EINVAL with the reason recorded.
 */
int rb_perl_re_translate(char **ere, struct rb_perl_re *r, const char *pat,
			 size_t len, bool xflag);

/* Translates and compiles; @r must be zeroed. */
int rb_perl_re_compile(struct rb_perl_re *r, const char *pat, size_t len,
		       bool xflag);

/* True when the literal prefilter allows a match in @lower (the subject
 * already lower-cased, @len bytes).
 */
bool rb_perl_re_maybe(const struct rb_perl_re *r, const char *lower,
		      size_t len);

/*
 * The 3-byte sequences of a text, hashed into 65,536 bits: a literal
 * one of whose sequences is not there is not in the text. Filled once
 * for a patch, it answers most of the K: keywords' literals without a
 * memmem() over the patch (those passes were a fifth of a one-shot
 * lookup's instructions).
 */
struct rb_grams {
	unsigned long long bits[1024];
};

/* Fills @g from @lower (@len bytes). */
void rb_grams_fill(struct rb_grams *g, const char *lower, size_t len);

/* rb_perl_re_maybe() on the text @g was filled from: a literal is looked
 * for with memmem() only when each of its 3-byte sequences is there.
 */
bool rb_perl_re_maybe_in(const struct rb_perl_re *r, const char *lower,
			 size_t len, const struct rb_grams *g);

/* True when the compiled pattern matches somewhere in @s (@len bytes,
 * may hold NULs).
 */
bool rb_perl_re_match(const struct rb_perl_re *r, const char *s, size_t len);

void rb_perl_re_release(struct rb_perl_re *r);

#endif
