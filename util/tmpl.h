/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tmpl.h - a small mustache-subset template engine for the plain-text mail
 * bodies in templates/ and the dashboard's pages in templates/web/
 * (https://mustache.github.io/mustache.5.html):
 *
 *   {{name}} {{{name}}} {{&name}}  the value; in a mail never HTML-escaped
 *                                  (plain text, not a web page)
 *   {{#name}}...{{/name}}          once per element of an array, or once
 *                                  with the value pushed when it is truthy
 *   {{^name}}...{{/name}}          once when the value is falsy
 *   {{! comment }}                 nothing
 *   {{.}}  {{a.b.c}}               the current value; dotted names
 *
 * Falsy values: a missing name, null, false, "", 0 and the empty array.
 * A section, inverted section, closing or comment tag alone on its line
 * takes the whole line with it (the mustache "standalone" rule), so
 * templates can put their tags on lines of their own.
 *
 * A template whose name ends in ".html" is a page: {{name}} is
 * HTML-escaped (& < > " ' as in rb_tmpl_html_escape()), and {{{name}}} and
 * {{&name}} are refused when it is parsed, so that no value reaches a page
 * unescaped, whoever wrote the data.
 *
 * Partials ({{>x}}) and delimiter changes ({{=<% %>=}}) are refused. The
 * data is a jansson value; the engine only reads it.
 *
 * Errors name the template and the line: "review.txt:12: section
 * 'findings' is never closed"; they are -RB_EPARSE for a bad template and
 * -RB_ETOOBIG when the output or the work passes its cap.
 */
#ifndef RB_UTIL_TMPL_H
#define RB_UTIL_TMPL_H

#include <stddef.h>

#include <jansson.h>

struct rb_buf;
struct rb_tmpl;

/* Nesting deeper than this is refused when the template is parsed. */
#define RB_TMPL_MAX_DEPTH 32

/*
 * Parses @len bytes of @text (need not be NUL-terminated). @name is used in
 * error messages. *out is owned by the caller (rb_tmpl_free()).
 */
int rb_tmpl_parse(struct rb_tmpl **out, const char *name, const char *text,
		  size_t len);
void rb_tmpl_free(struct rb_tmpl *t);

/*
 * Appends the template rendered against @data (borrowed, may be NULL) to
 * @out. The output is capped by out->max; the work (sections entered, tags
 * expanded) is capped too, so a small hostile template cannot spin.
 * On failure @out may hold part of the output.
 */
int rb_tmpl_render(struct rb_buf *out, const struct rb_tmpl *t,
		   const json_t *data);

/* Appends @len bytes of @s to @out with & < > " ' as entities. */
int rb_tmpl_html_escape(struct rb_buf *out, const char *s, size_t len);

/* Parse and render in one call. */
int rb_tmpl_render_str(struct rb_buf *out, const char *name, const char *text,
		       size_t len, const json_t *data);

/*
 * Renders the template file @file found in the first directory of @dirs
 * (NULL entries are skipped) that holds it: a per-subsystem override
 * directory comes first, the default directory last. @file must be a plain
 * file name (no '/'). -RB_ENOTFOUND when no directory has it.
 */
int rb_tmpl_render_file(struct rb_buf *out, const char *const *dirs,
			size_t n_dirs, const char *file, const json_t *data);

#endif
