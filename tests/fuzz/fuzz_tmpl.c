// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_tmpl.c - the template engine and the review renderer on hostile
 * input.
 *
 * An input starting with "R\n" drives rb_render_review(): the rest is
 * split at NUL bytes into a patch (the diff to quote from), a commit
 * message, a finding's file, its code and its message, and the finding's
 * line is taken from the message length; the project's own templates are
 * used and the output must keep the layout rules.
 *
 * Any other input is a template, optionally followed by a NUL byte and
 * JSON data; without usable JSON the data is a fixed object shaped like a
 * review's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "review/findings.h"
#include "review/render.h"
#include "util/buf.h"
#include "util/tmpl.h"
#include "util/banned.h"

static const char fixed[] =
	"{\"mode\":\"advisory\",\"subsystem\":\"MEMORY MANAGEMENT\","
	"\"n_findings\":2,\"advisory\":true,\"blocking\":false,"
	"\"summary\":[\"checkpatch: clean.\",\"Build: no new warnings.\"],"
	"\"blocks\":[{\"quote\":\"> +\\tfoo();\",\"findings\":[{\"id\":\"F1\","
	"\"severity\":\"medium\",\"message\":\"Is this right?\"}]},"
	"{\"quote\":\"> +\\tbar();\",\"findings\":[{\"id\":\"F2\"}]}],"
	"\"unlocated\":[],\"a\":{\"b\":{\"c\":[1,2,3]}},\"z\":0}";

static char templates[4096];

static void find_templates(void)
{
	const char *src = getenv("RB_SRC");
	const char *me = __FILE__, *cut;

	if (templates[0])
		return;
	if (src) {
		snprintf(templates, sizeof(templates), "%s/templates", src);
		return;
	}
	cut = strstr(me, "tests/fuzz/fuzz_tmpl.c");
	snprintf(templates, sizeof(templates), "%.*stemplates",
		 cut ? (int)(cut - me) : 0, me);
}

/* The next NUL-terminated part of [*p, end), as a malloc'd string. */
static char *part(const char **p, const char *end)
{
	const char *e = memchr(*p, '\0', (size_t)(end - *p));
	size_t n = e ? (size_t)(e - *p) : (size_t)(end - *p);
	char *s = strndup(*p, n);

	*p = e ? e + 1 : end;
	return s;
}

/* No line but quoted code wider than the mail width, no trailer line. */
static void check_layout(const char *s)
{
	while (*s) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s), cols = 0, i;
		const char *t = s;

		for (i = 0; i < n; i++)
			if (((unsigned char)s[i] & 0xc0) != 0x80)
				cols += s[i] == '\t' ? 8 : 1;
		if (s[0] != '>' && cols > RB_RENDER_WIDTH)
			abort();
		while (*t == ' ' || *t == '\t')
			t++;
		if (!strncasecmp(t, "Reviewed-by:", 12) ||
		    !strncasecmp(t, "Acked-by:", 9) ||
		    !strncasecmp(t, "Tested-by:", 10))
			abort();
		s = e ? e + 1 : s + n;
	}
}

static void fuzz_review(const char *data, size_t size)
{
	const char *p = data, *end = data + size;
	char *patch = part(&p, end), *msg = part(&p, end);
	char *file = part(&p, end), *code = part(&p, end);
	char *text = part(&p, end);
	struct rb_findings fs = { 0 };
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	struct rb_render_ctx c;
	int ids[2];

	find_templates();
	if (!patch || !msg || !file || !code || !text)
		goto out;
	if (rb_findings_add(
		    &fs,
		    &(struct rb_finding_spec){ .checker = "model",
					       .checker_version = "fuzz",
					       .category = "fuzz",
					       .severity = RB_FSEV_MEDIUM,
					       .file = *file ? file : NULL,
					       .line = (int)(strlen(text) % 64),
					       .code = code,
					       .message = text,
					       .patch_index = 1 }) ||
	    rb_findings_add(&fs, &(struct rb_finding_spec){
					 .checker = "commit-msg",
					 .checker_version = "1",
					 .category = "fuzz",
					 .severity = RB_FSEV_LOW,
					 .line = (int)(strlen(code) % 16),
					 .code = code,
					 .message = text,
					 .patch_index = 1 }))
		goto out;
	memset(&c, 0, sizeof(c));
	c.mode = RB_MODE_ADVISORY;
	c.subsystem = file;
	c.version = 2;
	c.index = 1;
	c.total = 3;
	c.title = msg;
	c.base_name = "mm-unstable";
	c.base_commit = code;
	c.findings = fs.v;
	c.n_findings = fs.n;
	c.commit_msg = msg;
	c.patch = patch;
	c.patch_len = strlen(patch);
	c.ids = ids;
	c.dirs.templates_dir = templates;
	if (!rb_render_review(&out, &c))
		check_layout(out.ptr);
out:
	rb_findings_release(&fs);
	rb_buf_release(&out);
	free(patch);
	free(msg);
	free(file);
	free(code);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	const char *nul = memchr(data, '\0', size);
	size_t tlen = nul ? (size_t)(nul - (const char *)data) : size;
	json_t *d = NULL;

	if (size >= 2 && data[0] == 'R' && data[1] == '\n') {
		fuzz_review((const char *)data + 2, size - 2);
		return 0;
	}
	if (nul)
		d = json_loadb(nul + 1, size - tlen - 1, JSON_DECODE_ANY, NULL);
	if (!d)
		d = json_loads(fixed, 0, NULL);
	rb_tmpl_render_str(&out, "fuzz.txt", (const char *)data, tlen, d);
	json_decref(d);
	rb_buf_release(&out);
	return 0;
}
