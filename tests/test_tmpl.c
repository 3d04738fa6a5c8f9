// SPDX-License-Identifier: GPL-2.0-only
/* test_tmpl.c - the mustache subset of util/tmpl.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/buf.h"
#include "util/err.h"
#include "util/tmpl.h"
#include "util/banned.h"

static json_t *data(const char *js)
{
	json_error_t e;
	json_t *v = json_loads(js, 0, &e);

	if (!v)
		fail_msg("bad test JSON: %s", e.text);
	return v;
}

/* Renders @tmpl against @js and compares with @want (NULL: must fail). */
static void check(const char *tmpl, const char *js, const char *want)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	json_t *d = js ? data(js) : NULL;
	int ret;

	ret = rb_tmpl_render_str(&out, "t.txt", tmpl, strlen(tmpl), d);
	if (want) {
		if (ret)
			fail_msg("'%s' failed: %s", tmpl, rb_errmsg());
		assert_string_equal(out.ptr, want);
	} else {
		assert_int_not_equal(ret, 0);
	}
	json_decref(d);
	rb_buf_release(&out);
}

static void test_vars(void **state)
{
	check("Hello {{name}}!", "{\"name\":\"A <b>&\"}", "Hello A <b>&!");
	check("{{{name}}} {{&name}}", "{\"name\":\"<x>\"}", "<x> <x>");
	check("n={{n}} r={{r}} t={{t}} f={{f}} z={{nul}} m={{missing}}",
	      "{\"n\":42,\"r\":1.5,\"t\":true,\"f\":false,\"nul\":null}",
	      "n=42 r=1.5 t=true f= z= m=");
	check("{{ name }}", "{\"name\":\"x\"}", "x");
	check("{{a.b.c}}", "{\"a\":{\"b\":{\"c\":\"deep\"}}}", "deep");
	check("{{a.x.c}}", "{\"a\":{\"b\":{\"c\":\"deep\"}}}", "");
	check("no tags at all\n", NULL, "no tags at all\n");
	check("{{! a comment }}x", NULL, "x");
	check("a\n{{! a comment\n   over lines }}\nb", NULL, "a\nb");
	check("", NULL, "");
}

static void test_sections(void **state)
{
	const char *js = "{\"list\":[{\"id\":1},{\"id\":2},{\"id\":3}],"
			 "\"empty\":[],\"yes\":true,\"no\":false,"
			 "\"obj\":{\"k\":\"v\"},\"s\":\"str\",\"z\":0,"
			 "\"names\":[\"a\",\"b\"],\"top\":\"T\"}";

	check("{{#list}}[{{id}}]{{/list}}", js, "[1][2][3]");
	check("{{#empty}}x{{/empty}}", js, "");
	check("{{^empty}}none{{/empty}}", js, "none");
	check("{{^list}}none{{/list}}", js, "");
	check("{{#yes}}Y{{/yes}}{{#no}}N{{/no}}{{^no}}n{{/no}}", js, "Yn");
	check("{{#obj}}{{k}}{{/obj}}", js, "v");
	check("{{#s}}<{{.}}>{{/s}}", js, "<str>");
	check("{{#z}}zero{{/z}}{{^z}}not{{/z}}", js, "not");
	check("{{#missing}}x{{/missing}}{{^missing}}y{{/missing}}", js, "y");
	check("{{#names}}{{.}},{{/names}}", js, "a,b,");
	/* Names resolve outwards through the context stack. */
	check("{{#list}}{{top}}{{id}}{{/list}}", js, "T1T2T3");
	check("{{#obj}}{{#list}}{{k}}{{id}}{{/list}}{{/obj}}", js, "v1v2v3");
	check("{{#list}}{{#names}}{{id}}{{.}} {{/names}}{{/list}}", js,
	      "1a 1b 2a 2b 3a 3b ");
	check("{{#obj.k}}[{{.}}]{{/obj.k}}", js, "[v]");
}

static void test_standalone(void **state)
{
	const char *js = "{\"items\":[\"a\",\"b\"],\"no\":false}";

	/* Tags alone on their lines vanish with the line. */
	check("begin\n{{#items}}\n- {{.}}\n{{/items}}\nend\n", js,
	      "begin\n- a\n- b\nend\n");
	check("begin\n  {{#no}}  \nhidden\n  {{/no}}\nend", js, "begin\nend");
	check("{{! note }}\nline\n", js, "line\n");
	check("x\r\n{{#items}}\r\n{{.}}\r\n{{/items}}\r\ny", js,
	      "x\r\na\r\nb\r\ny");
	/* Not standalone: a variable on the same line keeps the line. */
	check("{{#items}}{{.}}\n{{/items}}", js, "a\nb\n");
	check("a {{#no}}x{{/no}}\nb", js, "a \nb");
	/* Variables are never standalone. */
	check("{{missing}}\nx", js, "\nx");
}

static void check_err(const char *tmpl, const char *want_in_msg)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	int ret;

	ret = rb_tmpl_render_str(&out, "bad.txt", tmpl, strlen(tmpl), NULL);
	assert_int_equal(ret, -RB_EPARSE);
	if (!strstr(rb_errmsg(), want_in_msg))
		fail_msg("'%s': message '%s' lacks '%s'", tmpl, rb_errmsg(),
			 want_in_msg);
	rb_buf_release(&out);
}

static void test_errors(void **state)
{
	char deep[4096];
	size_t i, off = 0;

	check_err("a\nb {{name", "bad.txt:2: '{{' is never closed");
	check_err("x\n\n{{#a}}\nbody\n",
		  "bad.txt:3: section 'a' is never closed");
	check_err("{{#a}}{{/b}}", "bad.txt:1: '{{/b}}' closes section 'a'");
	check_err("\n{{/a}}", "bad.txt:2: '{{/a}}' closes no section");
	check_err("{{}}", "empty tag name");
	check_err("{{#}}{{/}}", "empty tag name");
	check_err("{{a b}}", "bad character in tag name");
	check_err("{{a..b}}", "bad tag name");
	check_err("{{.a}}", "bad tag name");
	check_err("{{>partial}}", "partials are not supported");
	check_err("{{=<% %>=}}", "delimiter changes are not supported");
	check_err("{{a\n}}", "must not span lines");
	check_err("{{{a}}", "never closed");
	for (i = 0; i <= RB_TMPL_MAX_DEPTH; i++)
		off += (size_t)snprintf(deep + off, sizeof(deep) - off,
					"{{#a%zu}}", i);
	check_err(deep, "nested deeper");
}

/* A page (".html"): every value escaped, no tag may opt out. */
static void test_html(void **state)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	json_t *d = data("{\"s\":\"<script>&\\\"'\",\"n\":7,"
			 "\"l\":[{\"t\":\"<b>\"}]}");
	const char *ok =
		"<p title=\"{{s}}\">{{s}} {{n}}{{#l}}<i>{{t}}</i>{{/l}}"
		"</p>";
	struct rb_tmpl *t = NULL;

	(void)state;
	assert_int_equal(
		rb_tmpl_render_str(&out, "page.html", ok, strlen(ok), d), 0);
	assert_string_equal(out.ptr,
			    "<p title=\"&lt;script&gt;&amp;&quot;&#39;\">"
			    "&lt;script&gt;&amp;&quot;&#39; 7<i>&lt;b&gt;"
			    "</i></p>");
	assert_int_equal(rb_tmpl_parse(&t, "page.html", "{{{s}}}", 7),
			 -RB_EPARSE);
	assert_non_null(strstr(rb_errmsg(), "unescaped output is refused"));
	assert_int_equal(rb_tmpl_parse(&t, "page.html", "{{&s}}", 6),
			 -RB_EPARSE);
	/* A mail is plain text. */
	rb_buf_reset(&out);
	assert_int_equal(rb_tmpl_render_str(&out, "mail.txt", "{{s}}", 5, d),
			 0);
	assert_string_equal(out.ptr, "<script>&\"'");
	json_decref(d);
	rb_buf_release(&out);
}

static void test_caps(void **state)
{
	struct rb_buf out = RB_BUF_INIT(64);
	json_t *d = data("{\"l\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}");
	/* 16^8 bodies: the step cap must stop it long before. */
	const char *bomb = "{{#l}}{{#l}}{{#l}}{{#l}}{{#l}}{{#l}}{{#l}}{{#l}}"
			   "{{/l}}{{/l}}{{/l}}{{/l}}{{/l}}{{/l}}{{/l}}{{/l}}";
	int ret;

	ret = rb_tmpl_render_str(&out, "cap.txt", "{{#l}}0123456789{{/l}}", 22,
				 d);
	assert_int_equal(ret, -RB_ETOOBIG);
	assert_non_null(strstr(rb_errmsg(), "cap.txt"));
	rb_buf_release(&out);

	rb_buf_init(&out, 1 << 20);
	ret = rb_tmpl_render_str(&out, "bomb.txt", bomb, strlen(bomb), d);
	assert_int_equal(ret, -RB_ETOOBIG);
	assert_non_null(strstr(rb_errmsg(), "bomb.txt"));
	rb_buf_release(&out);
	json_decref(d);
}

static void test_files(void **state)
{
	char base[] = "/tmp/rb-tmpl-XXXXXX";
	char dflt[300], over[300], path[400];
	const char *dirs[3];
	struct rb_buf out = RB_BUF_INIT(1 << 16);
	json_t *d = data("{\"who\":\"mm\"}");
	FILE *f;

	assert_non_null(mkdtemp(base));
	snprintf(dflt, sizeof(dflt), "%s/default", base);
	snprintf(over, sizeof(over), "%s/override", base);
	assert_int_equal(mkdir(dflt, 0700), 0);
	assert_int_equal(mkdir(over, 0700), 0);
	snprintf(path, sizeof(path), "%s/a.txt", dflt);
	f = fopen(path, "w");
	fputs("default {{who}}\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/b.txt", dflt);
	f = fopen(path, "w");
	fputs("default b\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/a.txt", over);
	f = fopen(path, "w");
	fputs("override {{who}}\n{{#x}}\n", f);
	fclose(f);

	dirs[0] = over;
	dirs[1] = NULL; /* skipped */
	dirs[2] = dflt;
	/* The override is tried first, and its errors name its path. */
	assert_int_equal(rb_tmpl_render_file(&out, dirs, 3, "a.txt", d),
			 -RB_EPARSE);
	assert_non_null(strstr(rb_errmsg(), "override/a.txt:2:"));
	rb_buf_reset(&out);
	assert_int_equal(rb_tmpl_render_file(&out, dirs, 3, "b.txt", d), 0);
	assert_string_equal(out.ptr, "default b\n");
	rb_buf_reset(&out);
	assert_int_equal(rb_tmpl_render_file(&out, dirs + 1, 2, "a.txt", d), 0);
	assert_string_equal(out.ptr, "default mm\n");
	assert_int_equal(rb_tmpl_render_file(&out, dirs, 3, "c.txt", d),
			 -RB_ENOTFOUND);
	assert_int_equal(rb_tmpl_render_file(&out, dirs, 3, "../a.txt", d),
			 -RB_EINVAL);

	snprintf(path, sizeof(path), "%s/a.txt", over);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a.txt", dflt);
	unlink(path);
	snprintf(path, sizeof(path), "%s/b.txt", dflt);
	unlink(path);
	rmdir(over);
	rmdir(dflt);
	rmdir(base);
	json_decref(d);
	rb_buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vars),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_standalone),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
