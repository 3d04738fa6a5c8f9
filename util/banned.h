/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * banned.h - functions that are easy to misuse with hostile input become
 * compile errors (git's banned.h). Use struct rb_buf or snprintf instead.
 * Included by every .c file of ours after the system headers.
 */
#ifndef RB_UTIL_BANNED_H
#define RB_UTIL_BANNED_H

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)
#undef strtok
#define strtok(x, y) BANNED(strtok)

#endif
