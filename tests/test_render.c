// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_render.c - the mail bodies against golden files in
 * tests/data/render/: a hand-written two-patch series (0001.patch,
 * 0002.patch) with the findings in findings.json renders to
 * review-0001.golden, summary.golden and friends. Set RB_UPDATE_GOLDEN=1
 * to rewrite the golden files; updating one is a reviewed change.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <git2.h>

#include <jansson.h>

#include "review/findings.h"
#include "review/render.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/banned.h"

struct patch {
	char *title;
	char *commit_msg;
	char *diff;
	struct rb_findings fs;
};

static char src_dir[1024];
static char tmpl_dir[1100];
static char data_dir[1100];
static struct patch series[2];

static char *read_all(const char *path)
{
	struct rb_buf b = RB_BUF_INIT(1 << 22);

	if (rb_read_file(&b, path))
		fail_msg("%s: %s", path, rb_errmsg());
	return rb_buf_detach(&b, NULL);
}

/* Splits a patch mail into title, commit message and diff. */
static void load_patch(struct patch *p, const char *file)
{
	char path[1200];
	char *raw, *subj, *body, *sep, *diff, *e;

	snprintf(path, sizeof(path), "%s/%s", data_dir, file);
	raw = read_all(path);
	subj = strstr(raw, "\nSubject: ");
	assert_non_null(subj);
	subj = strchr(subj, ']');
	assert_non_null(subj);
	subj += 2;
	e = strchr(subj, '\n');
	p->title = strndup(subj, (size_t)(e - subj));
	body = strstr(raw, "\n\n") + 2;
	sep = strstr(body, "\n---\n");
	assert_non_null(sep);
	p->commit_msg = strndup(body, (size_t)(sep - body) + 1);
	diff = strstr(sep, "\ndiff --git ");
	assert_non_null(diff);
	p->diff = strdup(diff + 1);
	free(raw);
}

static void load_findings(void)
{
	char path[1200];
	json_error_t err;
	json_t *arr, *o;
	size_t i;

	snprintf(path, sizeof(path), "%s/findings.json", data_dir);
	arr = json_load_file(path, 0, &err);
	if (!arr)
		fail_msg("%s:%d: %s", path, err.line, err.text);
	json_array_foreach(arr, i, o)
	{
		int idx = (int)json_integer_value(json_object_get(o, "patch"));
		const char *sev =
			json_string_value(json_object_get(o, "severity"));
		const char *checker =
			json_string_value(json_object_get(o, "checker"));

		assert_true(idx >= 1 && idx <= 2);
		assert_int_equal(
			rb_findings_add(
				&series[idx - 1].fs,
				&(struct rb_finding_spec){
					.checker = checker,
					/* a model finding's version: its model */
					.checker_version =
						strcmp(checker, "model") ?
							"1" :
							"claude-sonnet-4-5",
					.category = json_string_value(
						json_object_get(o, "category")),
					.severity = rb_fsev_parse(sev),
					.file = json_string_value(
						json_object_get(o, "file")),
					.line = (int)json_integer_value(
						json_object_get(o, "line")),
					.code = json_string_value(
						json_object_get(o, "code")),
					.message = json_string_value(
						json_object_get(o, "message")),
					.patch_index = idx }),
			0);
	}
	json_decref(arr);
}

static int setup(void **state)
{
	const char *s = getenv("RB_SRC");

	snprintf(src_dir, sizeof(src_dir), "%s", s ? s : "../..");
	snprintf(tmpl_dir, sizeof(tmpl_dir), "%s/templates", src_dir);
	snprintf(data_dir, sizeof(data_dir), "%s/tests/data/render", src_dir);
	load_patch(&series[0], "0001.patch");
	load_patch(&series[1], "0002.patch");
	load_findings();
	return 0;
}

static int teardown(void **state)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		free(series[i].title);
		free(series[i].commit_msg);
		free(series[i].diff);
		rb_findings_release(&series[i].fs);
	}
	return 0;
}

/* Compares @got with the golden file, or rewrites it when asked. */
static void golden(const char *got, const char *file)
{
	char path[1200];
	char *want;

	snprintf(path, sizeof(path), "%s/%s", data_dir, file);
	if (getenv("RB_UPDATE_GOLDEN")) {
		assert_int_equal(
			rb_write_file_atomic(path, got, strlen(got), 0644), 0);
		return;
	}
	want = read_all(path);
	if (strcmp(want, got)) {
		fprintf(stderr, "--- %s\n%s\n--- rendered\n%s\n", path, want,
			got);
		fail_msg("%s differs (RB_UPDATE_GOLDEN=1 rewrites it)", file);
	}
	free(want);
}

/* @s with its line breaks as spaces, in a static buffer (tests only). */
static const char *acc_flat(const char *s)
{
	static char b[1 << 16];
	size_t i;

	for (i = 0; s[i] && i + 1 < sizeof(b); i++)
		b[i] = s[i] == '\n' ? ' ' : s[i];
	b[i] = '\0';
	return b;
}

/* Plain text, <= 72 columns except quoted code, no trailer lines. */
static void check_layout(const char *text)
{
	const char *s = text;
	int line = 0;

	while (*s) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s), cols = 0, i;
		const char *t = s;

		line++;
		for (i = 0; i < n; i++)
			if (((unsigned char)s[i] & 0xc0) != 0x80)
				cols++;
		if (s[0] != '>' && cols > RB_RENDER_WIDTH)
			fail_msg("line %d is %zu columns: %.*s", line, cols,
				 (int)n, s);
		for (i = 0; i < n; i++)
			if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
				fail_msg("line %d has a control character",
					 line);
		while (*t == ' ' || *t == '\t')
			t++;
		if (!strncasecmp(t, "Reviewed-by:", 12) ||
		    !strncasecmp(t, "Acked-by:", 9) ||
		    !strncasecmp(t, "Tested-by:", 10))
			fail_msg("line %d carries a trailer: %.*s", line,
				 (int)n, s);
		/* Only a quote of the patch may say one, as it is. */
		if (s[0] != '>' && (memmem(s, n, "Reviewed-by:", 12) ||
				    memmem(s, n, "Acked-by:", 9) ||
				    memmem(s, n, "Tested-by:", 10)))
			fail_msg("line %d names a trailer: %.*s", line, (int)n,
				 s);
		s = e ? e + 1 : s + n;
	}
}

static const char *const summary_lines[] = {
	"checkpatch: clean.",
	"Build (x86_64 defconfig, W=1): 1 new warning.",
};

static void review_ctx(struct rb_render_ctx *c, const struct patch *p,
		       int index, int *ids)
{
	memset(c, 0, sizeof(*c));
	c->mode = RB_MODE_ADVISORY;
	c->subsystem = "MEMORY MANAGEMENT";
	c->version = 3;
	c->index = index;
	c->total = 2;
	c->title = p->title;
	c->base_name = "mm-unstable";
	c->base_commit = "0123456789abcdef0123456789abcdef01234567";
	c->summary = summary_lines;
	c->n_summary = 2;
	c->model_line =
		"The model stage is off; set model.provider in config.yaml to turn it on.";
	c->findings = p->fs.v;
	c->n_findings = p->fs.n;
	c->commit_msg = p->commit_msg;
	c->patch = p->diff;
	c->patch_len = strlen(p->diff);
	c->ids = ids;
	c->dirs.templates_dir = tmpl_dir;
}

static void test_golden_review(void **state)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	struct rb_render_ctx c;
	int ids[7] = { 0 };
	/*
	 * Mail order: commit message, then the header, then page_counter.c
	 * hunk by hunk, then the findings with no place in the patch.
	 */
	const int want_ids[7] = { 5, 3, 4, 1, 2, 6, 7 };
	char tag[16];
	const char *prev = NULL, *at;
	int i;

	assert_int_equal(series[0].fs.n, 7);
	review_ctx(&c, &series[0], 1, ids);
	if (rb_render_review(&out, &c))
		fail_msg("render: %s", rb_errmsg());
	golden(out.ptr, "review-0001.golden");
	check_layout(out.ptr);
	for (i = 0; i < 7; i++)
		assert_int_equal(ids[i], want_ids[i]);
	/* F1..F7 appear once each, in order. */
	for (i = 1; i <= 7; i++) {
		snprintf(tag, sizeof(tag), "\n[F%d] ", i);
		at = strstr(out.ptr, tag);
		assert_non_null(at);
		assert_true(!prev || at > prev);
		prev = at;
	}
	/* A finding sits right under the quoted lines it is about. */
	assert_non_null(strstr(out.ptr, "> +\t\t\treturn clamped;\n"));
	assert_non_null(strstr(out.ptr, "\n\n[F5] (high) "));
	assert_true(strstr(out.ptr, "> +\t\t\treturn clamped;") <
		    strstr(out.ptr, "[F5]"));
	/* Only the lines that matter are quoted. */
	assert_null(strstr(out.ptr, "-EBUSY;"));
	assert_non_null(strstr(
		out.ptr,
		"\n-- \nreviewbot, advisory for MEMORY MANAGEMENT: no action is required.\n"));
	rb_buf_release(&out);
}

static void test_golden_summary(void **state)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	struct rb_render_summary_ctx c;
	struct rb_render_patch p[2];
	int ids0[7] = { 0 };
	size_t i;

	memset(&c, 0, sizeof(c));
	memset(p, 0, sizeof(p));
	for (i = 0; i < 2; i++) {
		p[i].index = (int)i + 1;
		p[i].title = series[i].title;
		p[i].findings = series[i].fs.v;
		p[i].n_findings = series[i].fs.n;
		p[i].commit_msg = series[i].commit_msg;
		p[i].patch = series[i].diff;
		p[i].patch_len = strlen(series[i].diff);
	}
	p[0].ids = ids0;
	c.head.mode = RB_MODE_BLOCKING;
	c.head.subsystem = "MEMORY MANAGEMENT";
	c.head.blocking_text =
		"the mm maintainers wait for an answer to each finding before they pick up the series.";
	c.head.version = 3;
	c.head.total = 2;
	c.head.title = "mm/page_counter: clamp and check limits";
	c.base_name = "mm-unstable";
	c.base_commit = "0123456789abcdef";
	c.summary = summary_lines;
	c.n_summary = 2;
	c.patches = p;
	c.n_patches = 2;
	c.dirs.templates_dir = tmpl_dir;
	if (rb_render_summary(&out, &c))
		fail_msg("render: %s", rb_errmsg());
	golden(out.ptr, "summary.golden");
	check_layout(out.ptr);
	assert_int_equal(ids0[0], 5);
	assert_non_null(strstr(out.ptr, "\nNo findings in 2/2.\n"));
	assert_non_null(strstr(out.ptr, "reviewbot, blocking for MEMORY"));
	rb_buf_release(&out);
}

static void test_modes_and_empty(void **state)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	struct rb_render_ctx c;

	/* send_when_empty: a clean patch still reads well. */
	review_ctx(&c, &series[1], 2, NULL);
	c.mode = RB_MODE_SHADOW;
	c.findings = NULL;
	c.n_findings = 0;
	assert_int_equal(rb_render_review(&out, &c), 0);
	check_layout(out.ptr);
	assert_non_null(strstr(out.ptr, "Shadow review of v3 2/2, applied on "
					"mm-unstable at 0123456789ab.\n"));
	assert_non_null(strstr(out.ptr, "\nNo findings.\n"));
	assert_non_null(strstr(out.ptr, "only the admins get this"));
	assert_null(strstr(out.ptr, "false positive"));
	assert_null(strstr(out.ptr, "\n> "));

	/* Blocking without a text of its own still says something. */
	rb_buf_reset(&out);
	review_ctx(&c, &series[0], 1, NULL);
	c.mode = RB_MODE_BLOCKING;
	c.version = 1;
	c.index = c.total = 0;
	assert_int_equal(rb_render_review(&out, &c), 0);
	check_layout(out.ptr);
	assert_non_null(strstr(out.ptr, "Blocking review of the patch,"));
	assert_non_null(strstr(out.ptr, "reviewbot, blocking for MEMORY "
					"MANAGEMENT: please answer"));

	/* The policy's filter: hidden findings get no number. */
	{
		const bool show[7] = { true, false, false, false,
				       true, false, false };
		int ids[7];
		const int want[7] = { 2, 0, 0, 0, 1, 0, 0 };
		int i;

		rb_buf_reset(&out);
		review_ctx(&c, &series[0], 1, ids);
		c.show = show;
		assert_int_equal(rb_render_review(&out, &c), 0);
		check_layout(out.ptr);
		for (i = 0; i < 7; i++)
			assert_int_equal(ids[i], want[i]);
		assert_non_null(strstr(out.ptr, "\n2 findings.\n"));
		assert_null(strstr(out.ptr, "[F3]"));
		assert_null(strstr(out.ptr, "Fixes:"));
	}

	/* A patch that is not a diff: every finding goes to the end. */
	rb_buf_reset(&out);
	review_ctx(&c, &series[0], 1, NULL);
	c.patch = "this is not a diff\n";
	c.patch_len = strlen(c.patch);
	c.commit_msg = NULL;
	assert_int_equal(rb_render_review(&out, &c), 0);
	check_layout(out.ptr);
	assert_null(strstr(out.ptr, "\n> "));
	assert_non_null(strstr(out.ptr, "[F7]"));
	rb_buf_release(&out);
}

/*
 * Issue 36: shadow mail to the section's maintainers says how to send a
 * finding on; a forward shows the chosen findings with the review's
 * numbers and who chose them; the ledger names the open findings; each
 * says which findings a language model wrote.
 */
static void test_sub_maintainer_mails(void **state)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	struct rb_render_forward_ctx f = { 0 };
	struct rb_render_ledger_ctx l = { 0 };
	struct rb_render_ledger_item items[2];
	struct rb_render_ctx c;
	int ids[7] = { 0 }, fids[1];
	size_t i, k = 0;

	(void)state;
	review_ctx(&c, &series[0], 1, ids);
	c.mode = RB_MODE_SHADOW;
	c.shadow_maintainers = true;
	assert_int_equal(rb_render_review(&out, &c), 0);
	check_layout(out.ptr);
	assert_non_null(strstr(out.ptr,
			       "reviewbot, shadow for MEMORY "
			       "MANAGEMENT: only its maintainers get "
			       "this.\nReply \"F1: send\" to send a "
			       "finding to the author and the list.\n"));
	assert_null(strstr(out.ptr, "only the admins"));
	assert_non_null(strstr(out.ptr,
			       "\nF2, F3, F4, F5 and F7 were written with a "
			       "language model\n(claude-sonnet-4-5), not by a "
			       "person.\n\n-- \n"));

	/* Forward the model finding the review called F5 alone. */
	for (i = 0; i < 7; i++)
		if (ids[i] == 5)
			k = i;
	fids[0] = 5;
	f.mode = RB_MODE_BLOCKING;
	f.subsystem = "MEMORY MANAGEMENT";
	f.by = "Grace Hopper <grace@example.org>";
	f.version = 3;
	f.index = 1;
	f.total = 2;
	f.title = series[0].title;
	f.findings = &series[0].fs.v[k];
	f.n_findings = 1;
	f.ids = fids;
	f.commit_msg = series[0].commit_msg;
	f.patch = series[0].diff;
	f.patch_len = strlen(series[0].diff);
	f.dirs.templates_dir = tmpl_dir;
	rb_buf_reset(&out);
	assert_int_equal(rb_render_forward(&out, &f), 0);
	check_layout(out.ptr);
	if (strncmp(out.ptr,
		    "Grace Hopper <grace@example.org>, a maintainer of "
		    "MEMORY MANAGEMENT,",
		    68))
		fail_msg("forward: %s", out.ptr);
	assert_non_null(strstr(out.ptr, "\n[F5] "));
	assert_null(strstr(out.ptr, "[F1]"));
	assert_non_null(strstr(out.ptr, "\n> "));
	assert_non_null(strstr(out.ptr, "F5 was written with a language "
					"model (claude-sonnet-4-5)"));
	assert_non_null(strstr(out.ptr, "forwarded by Grace Hopper"));
	assert_non_null(strstr(out.ptr, "Reply \"F5: fixed\""));

	/* The ledger: two open findings of v3 1/2. */
	for (i = 0; i < 2; i++) {
		items[i].finding = series[0].fs.v[i];
		items[i].id = ids[i];
		items[i].version = 3;
		items[i].index = 1;
	}
	l.head.mode = RB_MODE_BLOCKING;
	l.head.subsystem = "MEMORY MANAGEMENT";
	l.head.version = 3;
	l.head.total = 2;
	l.head.title = "mm: page_counter: clamp limits";
	l.author = "Ada Lovelace <ada@example.org>";
	l.tree = "mm-unstable";
	l.commit = "0123456789abcdef0123456789abcdef01234567";
	l.parts = 1;
	l.items = items;
	l.n_items = 2;
	l.dirs.templates_dir = tmpl_dir;
	rb_buf_reset(&out);
	assert_int_equal(rb_render_ledger(&out, &l), 0);
	check_layout(out.ptr);
	assert_non_null(strstr(out.ptr, "v3 of \"mm: page_counter: clamp "
					"limits\" by Ada Lovelace"));
	assert_non_null(strstr(out.ptr, "is in mm-unstable at 0123456789ab"));
	if (!strstr(out.ptr, ", and 2\nblocking findings have no answer") ||
	    !strstr(out.ptr, "\n\n-- \nreviewbot, blocking for MEMORY") ||
	    !strstr(out.ptr, "(medium): Can nr_pages exceed PAGE_COUNTER_MAX "
			     "here at\nall?\n") ||
	    strstr(out.ptr, "*nr_pages"))
		fail_msg("ledger: %s", out.ptr);
	for (i = 0; i < 2; i++) {
		char tag[32];

		snprintf(tag, sizeof(tag), "\n[F%d] of v3 1/2 (", ids[i]);
		assert_non_null(strstr(out.ptr, tag));
	}
	rb_buf_release(&out);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[1200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(rb_write_file_atomic(path, text, strlen(text), 0644),
			 0);
}

static void test_override_and_refusal(void **state)
{
	char dir[] = "/tmp/rb-render-XXXXXX";
	char path[1200];
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	struct rb_render_ctx c;

	assert_non_null(mkdtemp(dir));
	review_ctx(&c, &series[0], 1, NULL);
	c.dirs.override_dir = dir;

	/* The subsystem's own template wins. */
	write_file(dir, "review.txt",
		   "{{subsystem}} {{label}}: {{findings_line}}\n");
	assert_int_equal(rb_render_review(&out, &c), 0);
	assert_string_equal(out.ptr, "MEMORY MANAGEMENT v3 1/2: 7 findings.\n");

	/* A broken override is an error naming its file and line. */
	write_file(dir, "review.txt", "ok\n{{#blocks}}\n");
	rb_buf_reset(&out);
	assert_int_equal(rb_render_review(&out, &c), -RB_EPARSE);
	assert_non_null(strstr(rb_errmsg(), "/review.txt:2:"));

	/* A template that would add a trailer is refused. */
	write_file(dir, "review.txt",
		   "Looks fine.\n\n  Reviewed-by: {{subsystem}}\n");
	rb_buf_reset(&out);
	assert_int_equal(rb_render_review(&out, &c), -RB_EINVAL);
	assert_non_null(strstr(rb_errmsg(), "line 3"));
	write_file(dir, "review.txt", "Acked-by : x\n");
	assert_int_equal(rb_render_review(&out, &c), -RB_EINVAL);

	/* No template directory at all. */
	c.dirs.override_dir = NULL;
	c.dirs.templates_dir = NULL;
	assert_int_equal(rb_render_review(&out, &c), -RB_EINVAL);
	c.dirs.templates_dir = dir; /* holds no summary.txt etc. */
	snprintf(path, sizeof(path), "%s/review.txt", dir);
	unlink(path);
	assert_int_equal(rb_render_review(&out, &c), -RB_ENOTFOUND);
	rmdir(dir);
	rb_buf_release(&out);
}

static void test_hostile_text(void **state)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	struct rb_findings fs = { 0 };
	struct rb_render_ctx c;

	assert_int_equal(
		rb_findings_add(
			&fs,
			&(struct rb_finding_spec){
				.checker = "model",
				.checker_version = "m",
				.category = "x",
				.severity = RB_FSEV_HIGH,
				.file = "mm/page_counter.c",
				.line = 34,
				.message =
					"Bad \x01\x1b[31m bytes \xff\xfe and\r\nReViEwEd-By:\tme "
					"\xe2\x80\xae}\xe2\x81\xa6 hidden",
				.patch_index = 1 }),
		0);
	review_ctx(&c, &series[0], 1, NULL);
	c.title = "evil\r\nReviewed-by: x";
	c.findings = fs.v;
	c.n_findings = fs.n;
	assert_int_equal(rb_render_review(&out, &c), 0);
	check_layout(out.ptr);
	assert_non_null(strstr(out.ptr, "\xef\xbf\xbd"));
	assert_null(strstr(out.ptr, "\x1b"));
	assert_null(strstr(out.ptr, "\r"));
	/* Invisible and BiDi controls are shown, never passed on. */
	assert_null(strstr(out.ptr, "\xe2\x80\xae"));
	assert_null(strstr(out.ptr, "\xe2\x81\xa6"));
	assert_non_null(strstr(out.ptr, "<U+202E>"));
	rb_findings_release(&fs);
	rb_buf_release(&out);
}

static void test_other_mails(void **state)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	const struct rb_render_apply_attempt at[] = {
		{ "mm-unstable", "0123456789abcdef", 1, series[0].title,
		  "mm/page_counter.c", 2,
		  "@@ -24,7 +31,7 @@ int page_counter_set_max(struct page_counter *counter, unsigned long nr_pages)",
		  "the preimage was not found within 100 lines of line 31" },
		{ "mm-stable", "fedcba9876543210", 2, series[1].title,
		  "mm/page_counter.c", 1, NULL,
		  "the file has no line matching the context" },
		{ .note = "No base could be guessed from the index lines: "
			  "no recent commit of the configured trees holds "
			  "every preimage blob." },
	};
	struct rb_render_apply_ctx a = { 0 };
	struct rb_render_incomplete_ctx inc = { 0 };
	const int missing[] = { 3, 8 };
	const struct rb_render_ack_item items[] = {
		{ 1, RB_VK_FALSE_POSITIVE },
		{ 3, RB_VK_VALID },
		{ 4, RB_VK_FIXED },
	};
	struct rb_render_ack_ctx ack = { 0 };

	a.head.mode = RB_MODE_ADVISORY;
	a.head.subsystem = "MEMORY MANAGEMENT";
	a.head.version = 3;
	a.head.total = 2;
	a.head.title = "mm/page_counter: clamp and check limits";
	a.attempts = at;
	a.n_attempts = 3;
	a.dirs.templates_dir = tmpl_dir;
	a.rebase_on = "mm-unstable";
	assert_int_equal(rb_render_apply_failure(&out, &a), 0);
	golden(out.ptr, "apply-failure.golden");
	check_layout(out.ptr);
	/* An attempt never made is a sentence, not "guessed base: no
	 * guessed base: ..." (issue 34). */
	assert_null(strstr(out.ptr, "guessed base:"));
	rb_buf_reset(&out);
	/* The default: the admins' notice, which names the author. */
	a.to_admins = true;
	a.author = "ada@example.org";
	assert_int_equal(rb_render_apply_failure(&out, &a), 0);
	golden(out.ptr, "apply-failure-admin.golden");
	check_layout(out.ptr);
	assert_non_null(strstr(out.ptr, "from ada@example.org"));
	assert_non_null(strstr(out.ptr, "only the admins get this"));
	assert_null(strstr(out.ptr, "author only"));
	rb_buf_reset(&out);

	inc.head.mode = RB_MODE_ADVISORY;
	inc.head.subsystem = "MEMORY MANAGEMENT";
	inc.head.version = 2;
	inc.head.total = 9;
	inc.head.title = "mm/huge_memory: refactor zap_huge_pmd()";
	inc.missing = missing;
	inc.n_missing = 2;
	inc.wait_minutes = 60;
	inc.dirs.templates_dir = tmpl_dir;
	assert_int_equal(rb_render_incomplete(&out, &inc), 0);
	golden(out.ptr, "incomplete.golden");
	check_layout(out.ptr);
	assert_non_null(strstr(out.ptr, "3/9 and 8/9"));
	rb_buf_reset(&out);
	inc.n_missing = 1;
	assert_int_equal(rb_render_incomplete(&out, &inc), 0);
	assert_non_null(strstr(out.ptr, "patch 3/9 did not"));
	rb_buf_reset(&out);
	/* Runs of three or more read as a range (issue 34). */
	{
		static const int many[] = { 2, 4, 5, 6, 7, 9, 10 };

		inc.missing = many;
		inc.n_missing = 7;
		assert_int_equal(rb_render_incomplete(&out, &inc), 0);
		assert_non_null(
			strstr(acc_flat(out.ptr),
			       "patches 2/9, 4/9 to 7/9, 9/9 and 10/9 did "
			       "not reach"));
		rb_buf_reset(&out);
		inc.missing = missing;
		inc.n_missing = 2;
	}

	ack.items = items;
	ack.n_items = 3;
	ack.dirs.templates_dir = tmpl_dir;
	assert_int_equal(rb_render_ack(&out, &ack), 0);
	assert_string_equal(
		out.ptr,
		"Recorded: F1 false positive, F3 valid, F4 fixed. Thank you.\n");
	rb_buf_release(&out);
}

/*
 * Issue 34: a quote of the patch shows it as it is. A commit-message
 * line or a diff line that says "Reviewed-by:" keeps its colon in the
 * quote ("> "), which is no trailer; the finding's own words still lose
 * theirs.
 */
static void test_quote_as_is(void **state)
{
	static const char msg[] = "mm: say who looked\n"
				  "\n"
				  "Reviewed-by: Jane Doe <jane@example.org>\n"
				  "Signed-off-by: Ada <ada@example.org>\n";
	static const char diff[] =
		"diff --git a/Documentation/x.rst b/Documentation/x.rst\n"
		"--- a/Documentation/x.rst\n"
		"+++ b/Documentation/x.rst\n"
		"@@ -1,2 +1,3 @@\n"
		" Trailers:\n"
		"+Acked-by: Some One <one@example.org>\n"
		" end\n";
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	struct rb_findings fs = { 0 };
	struct rb_render_ctx c;

	(void)state;
	assert_int_equal(
		rb_findings_add(
			&fs,
			&(struct rb_finding_spec){
				.checker = "commit-msg",
				.checker_version = "1",
				.category = "x",
				.severity = RB_FSEV_LOW,
				.line = 3,
				.code = "Reviewed-by: Jane Doe",
				.message = "Was this Reviewed-by: given on the "
					   "list?",
				.patch_index = 1 }),
		0);
	assert_int_equal(rb_findings_add(&fs,
					 &(struct rb_finding_spec){
						 .checker = "checkpatch",
						 .checker_version = "1",
						 .category = "y",
						 .severity = RB_FSEV_LOW,
						 .file = "Documentation/x.rst",
						 .line = 2,
						 .code = "Acked-by: Some One",
						 .message = "A nit.",
						 .patch_index = 1 }),
			 0);
	memset(&c, 0, sizeof(c));
	c.mode = RB_MODE_ADVISORY;
	c.subsystem = "DOCUMENTATION";
	c.title = "mm: say who looked";
	c.findings = fs.v;
	c.n_findings = fs.n;
	c.commit_msg = msg;
	c.patch = diff;
	c.patch_len = strlen(diff);
	c.dirs.templates_dir = tmpl_dir;
	assert_int_equal(rb_render_review(&out, &c), 0);
	check_layout(out.ptr);
	assert_non_null(strstr(out.ptr,
			       "\n> Reviewed-by: Jane Doe <jane@example.org>"));
	assert_non_null(
		strstr(out.ptr, "\n> +Acked-by: Some One <one@example.org>"));
	assert_non_null(strstr(out.ptr, "Was this Reviewed-by given"));
	rb_findings_release(&fs);
	rb_buf_release(&out);
}

static void test_layout(void **state)
{
	struct rb_buf b = RB_BUF_INIT(1 << 16);
	const char *in =
		"short line   \n"
		"> +\tquoted code is never wrapped even when it is much longer than seventy-two columns\n"
		"-- \n"
		"  an indented line that is long enough to need wrapping at the seventy-two column mark\n"
		"https://example.org/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
		"\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9\n";

	assert_int_equal(rb_buf_puts(&b, in), 0);
	assert_int_equal(rb_render_layout(&b, 72, "t"), 0);
	assert_string_equal(
		b.ptr,
		"short line\n"
		"> +\tquoted code is never wrapped even when it is much longer than seventy-two columns\n"
		"-- \n"
		"  an indented line that is long enough to need wrapping at the\n"
		"  seventy-two column mark\n"
		"https://example.org/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
		"xxxxxxxxxxxxxxxxxxxxxxxx\n"
		"\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9\n");
	check_layout(b.ptr);

	/* Wrapping never starts a line with a trailer built from parts. */
	rb_buf_reset(&b);
	assert_int_equal(
		rb_buf_puts(&b, "[F6] (low) some-very-long-path/that/fills/"
				"most/of/the/line/to/force/a/wrap.c "
				"Acked-by: me\n"),
		0);
	assert_int_equal(rb_render_layout(&b, 72, "t"), 0);
	assert_string_equal(
		b.ptr, "[F6] (low)\nsome-very-long-path/that/fills/most/of/"
		       "the/line/to/force/a/wrap.c\nAcked-by me\n");
	rb_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_review),
		cmocka_unit_test(test_golden_summary),
		cmocka_unit_test(test_modes_and_empty),
		cmocka_unit_test(test_override_and_refusal),
		cmocka_unit_test(test_hostile_text),
		cmocka_unit_test(test_other_mails),
		cmocka_unit_test(test_quote_as_is),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_sub_maintainer_mails),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return ret;
}
