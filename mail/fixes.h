/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fixes.h - the value of a "Fixes:" trailer, as the kernel writes it
 * (Documentation/process/submitting-patches.rst):
 *
 *   Fixes: 54a4f0239f2e ("KVM: MMU: make kvm_mmu_zap_page() return ...")
 *
 * and as people also write it: with "commit " before the id, without the
 * id, without the quotes, with a subject that holds quotes and
 * parentheses itself ('Revert "x (y)"'). It is hostile text from mail:
 * read with caps, never trusted to name anything but a subject to look
 * up (tests/fuzz/fuzz_fixes.c).
 */
#ifndef RB_MAIL_FIXES_H
#define RB_MAIL_FIXES_H

#define RB_FIXES_MAX_SUBJECT 1000 /* bytes of a quoted subject kept */

struct rb_fixes {
	char sha[41]; /* the hex commit id as written (4-40), or "" */
	char *subject; /* the quoted subject, blanks collapsed, or NULL */
};

/*
 * Parses the value of one Fixes: trailer (without "Fixes:"). Returns 0
 * with ->subject NULL when the value names no subject (an id alone);
 * -RB_ENOMEM. Release with rb_fixes_release().
 */
int rb_fixes_parse(struct rb_fixes *out, const char *value);
void rb_fixes_release(struct rb_fixes *f);

#endif
