/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * code_c.h - a small recogniser of C in kernel style, on lines of text:
 * where the function around a line starts and ends, where a symbol is
 * defined, which column-0 line opens a function and what it is called,
 * which lines are comments. The model's prompt (model_prompt.c,
 * model_prefetch.c) and its tools (model_tools.c) share it.
 *
 * It is a heuristic over the kernel's layout, not a parser: definitions
 * start in column 0, a function's body opens with a '{' in column 0 (or
 * at the end of its head) and closes with a '}' in column 0. A head may
 * be wrapped over several lines (a line ending in ','), carry its return
 * type on a line of its own, annotations (__acquires(x), __printf(1, 2))
 * and K&R parameter declarations, or be a macro that defines a function
 * (SYSCALL_DEFINE4(name, ...), BPF_CALL_2(name, ...)). A miss is "not
 * found", never an error. Every scan is bounded in lines, so that a
 * hostile blob costs at most a fixed amount of work per question.
 */
#ifndef RB_REVIEW_CODE_C_H
#define RB_REVIEW_CODE_C_H

#include <stdbool.h>
#include <stddef.h>

/* The lines of a text. @p is borrowed; @off is owned. */
struct rb_c_lines {
	const char *p;
	size_t len;
	size_t *off; /* start of each line */
	size_t n;
};

/* Splits @p (@len bytes). 0 or -RB_ENOMEM. */
int rb_c_lines_split(struct rb_c_lines *l, const char *p, size_t len);
void rb_c_lines_release(struct rb_c_lines *l);

/* Line @i (0-based) without its newline; *len gets its length. */
const char *rb_c_line(const struct rb_c_lines *l, size_t i, size_t *len);

static inline bool rb_c_is_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* Is @s[0..@n) one of the @nv words of @v? */
bool rb_c_in_list(const char *s, size_t n, const char *const *v, size_t nv);

/*
 * Whether @s (@n bytes) is capitals, digits and '_' with a letter among
 * them: SOME_CONSTANT, or a macro like SYSCALL_DEFINE4 or BPF_CALL_2.
 */
bool rb_c_is_capitals(const char *s, size_t n);

/*
 * The word that starts at @s[@i] (rb_c_is_word): its end, and in *@k
 * where the next thing after it begins (spaces and tabs skipped).
 */
size_t rb_c_word_end(const char *s, size_t n, size_t i, size_t *k);

/* Where @w (@wl bytes) is in @s[0..@n) as a whole word, or -1. */
long rb_c_find_word(const char *s, size_t n, const char *w, size_t wl);

/* Is the line only a comment (starts with '*', '/ *' or '//')? */
bool rb_c_comment_line(const char *s, size_t n);

/*
 * Does line @i of @l define @sym? Its kind: "function", "macro",
 * "struct", "union", "enum", "typedef", "variable", "typedef or
 * variable"; or NULL.
 */
const char *rb_c_def_kind(const struct rb_c_lines *l, size_t i, const char *sym,
			  size_t sl);

/*
 * How many lines a definition of @kind starting at line @i runs, at most
 * @max (a function: to its closing brace; a macro: while lines end in
 * '\'; a struct: to its "};").
 */
size_t rb_c_def_span(const struct rb_c_lines *l, size_t i, const char *kind,
		     size_t max);

/*
 * Does the column-0 line @s (@n bytes) open a function? *name gets the
 * function's name (for a macro that defines one, such as
 * SYSCALL_DEFINE2(name, ...), its first argument), pointing into @s.
 */
bool rb_c_fn_header(const char *s, size_t n, const char **name, size_t *nlen);

/* A function's place in its text; every line 0-based. */
struct rb_c_func {
	size_t start; /* the head's first line (the return type's) */
	size_t body; /* the line of the opening '{' */
	size_t end; /* the line of the closing '}' */
	const char *name; /* in the text; NULL when the head names none */
	size_t name_len;
	bool macro; /* defined through a macro: SYSCALL_DEFINEn(name, ...) */
	bool is_static; /* the head says "static" */
};

/*
 * The function whose head or body holds line @line (0-based), into *out.
 * false when the line is outside any function (between functions, in a
 * struct, a macro, a comment before a head).
 */
bool rb_c_func_at(struct rb_c_func *out, const struct rb_c_lines *l,
		  size_t line);

/*
 * The other blocks a line can be in, for what is not a function: a
 * struct, union or enum definition ("struct foo {" ... "};") or a
 * multi-line #define. *start and *end (0-based, inclusive) and its kind
 * ("struct", "union", "enum", "macro"); *name the type's or macro's name
 * in the text (may be NULL for an anonymous type). false when none.
 */
bool rb_c_block_at(const struct rb_c_lines *l, size_t line, size_t *start,
		   size_t *end, const char **kind, const char **name,
		   size_t *name_len);

/* Is @path a C source or header (".c", ".h")? */
bool rb_c_is_c_path(const char *path);

/*
 * Where a definition is: 0 the kernel's own, 1 the architectures' (arch/),
 * 2 the copies and stand-ins of tools/, scripts/ and the like, which would
 * otherwise come first in tree order.
 */
int rb_c_path_rank(const char *path);

#endif
