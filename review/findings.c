// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "review/findings.h"
#include "review/checks/rules.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/banned.h"

const char *const rb_fsev_names[] = { "info", "low",	  "medium",
				      "high", "critical", NULL };

const char *rb_fsev_name(enum rb_fsev s)
{
	if ((unsigned)s > RB_FSEV_CRITICAL)
		return "unknown";
	return rb_fsev_names[s];
}

int rb_fsev_parse(const char *s)
{
	int i;

	for (i = 0; i <= RB_FSEV_CRITICAL; i++)
		if (s && !strcasecmp(s, rb_fsev_names[i]))
			return i;
	return -1;
}

/* Whitespace runs become one space; leading/trailing whitespace goes. */
static void normalise(struct rb_buf *b, const char *s)
{
	int space = 0;

	for (; s && *s; s++) {
		if (isspace((unsigned char)*s)) {
			space = 1;
			continue;
		}
		/* A quoted diff line keeps its text, not its +/- marker. */
		if (space && b->len)
			rb_buf_putc(b, ' ');
		space = 0;
		rb_buf_putc(b, *s);
	}
}

void rb_finding_fingerprint(const struct rb_finding *f, char out[17])
{
	struct rb_buf b = RB_BUF_INIT(1 << 20);
	char hex[RB_SHA256_HEX];

	rb_buf_printf(&b, "%s\n%s\n%s\n", f->checker ? f->checker : "",
		      f->file ? f->file : "", f->category ? f->category : "");
	normalise(&b, f->code);
	rb_sha256_hex(hex, b.ptr, b.len);
	memcpy(out, hex, 16);
	out[16] = '\0';
	rb_buf_release(&b);
}

/* Frees the strings @f owns; @f itself belongs to its array. */
static void finding_release(struct rb_finding *f)
{
	free(f->checker);
	free(f->checker_version);
	free(f->category);
	free(f->file);
	free(f->code);
	free(f->message);
	free(f->severity_reason);
	free(f->verifier_reason);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int rb_findings_add(struct rb_findings *fs, const struct rb_finding_spec *in)
{
	struct rb_finding *v, *f;

	v = realloc(fs->v, (fs->n + 1) * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	fs->v = v;
	f = &v[fs->n];
	memset(f, 0, sizeof(*f));
	f->checker = strdup(in->checker);
	f->checker_version = dup_or_null(in->checker_version);
	f->category = strdup(in->category);
	f->severity = in->severity;
	f->file = dup_or_null(in->file);
	f->line = in->line;
	f->code = dup_or_null(in->code);
	f->message = strdup(in->message);
	f->patch_index = in->patch_index;
	if (!f->checker || !f->category || !f->message) {
		finding_release(f);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	rb_finding_fingerprint(f, f->fingerprint);
	fs->n++;
	return 0;
}

int rb_findings_add_copy(struct rb_findings *fs, const struct rb_finding *f)
{
	const struct rb_finding_spec in = {
		.checker = f->checker,
		.checker_version = f->checker_version,
		.category = f->category,
		.severity = f->severity,
		.file = f->file,
		.line = f->line,
		.code = f->code,
		.message = f->message,
		.patch_index = f->patch_index,
	};

	return rb_findings_add(fs, &in);
}

void rb_findings_release(struct rb_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		finding_release(&fs->v[i]);
	free(fs->v);
	fs->v = NULL;
	fs->n = 0;
}

void rb_findings_remove(struct rb_findings *fs, const bool *gone)
{
	size_t i, m = 0;

	for (i = 0; i < fs->n; i++) {
		if (gone[i]) {
			finding_release(&fs->v[i]);
			continue;
		}
		if (m != i)
			fs->v[m] = fs->v[i];
		m++;
	}
	fs->n = m;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The quoted code with its diff marker and whitespace runs gone. */
static void code_key(struct rb_buf *b, const char *code)
{
	rb_buf_reset(b);
	if (code && (*code == '+' || *code == '-' || *code == ' '))
		code++;
	normalise(b, code);
}

/*
 * Reports that say what another one says in the same patch: the first is
 * dropped when the second is there. checkpatch's sign-off and Fixes:
 * reports give way to commit-msg's, which say it in words; checkpatch
 * says LEADING_SPACE and CODE_INDENT of the same lines of a file.
 */
static const struct {
	const char *checker, *category; /* dropped ... */
	const char *by_checker, *by_category; /* ... when this is there */
	bool same_file;
} same_problem[] = {
	{ "checkpatch", "MISSING_SIGN_OFF", "commit-msg", "signed-off-by" },
	{ "checkpatch", "NO_AUTHOR_SIGN_OFF", "commit-msg", "author-signoff" },
	{ "checkpatch", "FROM_SIGN_OFF_MISMATCH", "commit-msg",
	  "author-signoff" },
	{ "checkpatch", "BAD_FIXES_TAG", "commit-msg", "fixes-format" },
	{ "checkpatch", "UNKNOWN_COMMIT_ID", "commit-msg", "fixes-unknown" },
	{ "checkpatch", "BAD_STABLE_ADDRESS_STYLE", "commit-msg", "stable-cc" },
	{ "checkpatch", "STABLE_ADDRESS", "commit-msg", "stable-cc" },
	{ "checkpatch", "LEADING_SPACE", "checkpatch", "CODE_INDENT", true },
};

static bool said_elsewhere(const struct rb_findings *fs, size_t i,
			   const bool *gone)
{
	const struct rb_finding *f = &fs->v[i], *g;
	size_t k, j;

	for (k = 0; k < sizeof(same_problem) / sizeof(same_problem[0]); k++) {
		if (strcmp(f->checker, same_problem[k].checker) ||
		    strcmp(f->category, same_problem[k].category))
			continue;
		for (j = 0; j < fs->n; j++) {
			g = &fs->v[j];
			if (!gone[j] && g->patch_index == f->patch_index &&
			    !strcmp(g->checker, same_problem[k].by_checker) &&
			    !strcmp(g->category, same_problem[k].by_category) &&
			    (!same_problem[k].same_file ||
			     str_eq(g->file, f->file)))
				return true;
		}
	}
	return false;
}

/* Nits about the series' titles: said once per series and version. */
static bool series_nit(const struct rb_finding *f)
{
	return !strcmp(f->checker, "commit-msg") &&
	       (!strcmp(f->category, "subject-length") ||
		!strcmp(f->category, "subject-prefix"));
}

/* Appends " And N more like it: WHAT a, b and c." to f's message; @what
 * is "line" or "lines", "patch" or "patches" as n says. A message that
 * does not end a sentence ("Use a single space after Suggested-by:")
 * gets " (and N more like it: ...)." instead. */
static int add_more(struct rb_finding *f, const char *one, const char *many,
		    const int *at, size_t n)
{
	struct rb_buf b = RB_BUF_INIT(1 << 16);
	size_t i, shown = n > 8 ? 8 : n;
	bool list = false;
	char *msg;
	int err;

	size_t len = strlen(f->message);
	bool sentence = !len || strchr(".?!", f->message[len - 1]);

	for (i = 0; i < n; i++)
		list |= at[i] > 0;
	err = rb_buf_printf(&b,
			    sentence ? "%s And %zu more like it" :
				       "%s (and %zu more like it",
			    f->message, n);
	if (list && !err)
		err = rb_buf_printf(&b, ": %s ", n > 1 ? many : one);
	for (i = 0; list && !err && i < shown; i++)
		err = rb_buf_printf(&b, "%s%d",
				    !i	       ? "" :
				    i + 1 == n ? " and " :
						 ", ",
				    at[i]);
	if (!err && n > shown)
		err = rb_buf_puts(&b, ", ...");
	if (!err)
		err = rb_buf_puts(&b, sentence ? "." : ").");
	msg = err ? NULL : rb_buf_detach(&b, NULL);
	rb_buf_release(&b);
	if (!msg)
		return rb_err(RB_ENOMEM, "out of memory");
	free(f->message);
	f->message = msg;
	return 0;
}

/* Within one patch: same complaint on near or identical lines. */
static int collapse_lines(struct rb_findings *fs, bool *gone, int *at)
{
	struct rb_buf ki = RB_BUF_INIT(1 << 20), kj = RB_BUF_INIT(1 << 20);
	size_t i, j, n;
	int ret = 0;

	for (i = 0; i < fs->n && !ret; i++) {
		struct rb_finding *f = &fs->v[i];
		int last = f->line;
		bool rule;

		if (gone[i] || series_nit(f))
			continue;
		/* A rule's complaint is its type: one for the file. Another
		 * checker's (a build warning, the model) is its message, on
		 * the next lines or the same code. */
		rule = rb_rule_applies(f->checker, f->category);
		code_key(&ki, f->code);
		for (j = i + 1, n = 0; j < fs->n; j++) {
			const struct rb_finding *g = &fs->v[j];
			bool near;
			size_t k;

			if (gone[j] || g->patch_index != f->patch_index ||
			    !str_eq(g->checker, f->checker) ||
			    !str_eq(g->category, f->category) ||
			    !str_eq(g->file, f->file) ||
			    (!rule && !str_eq(g->message, f->message)))
				continue;
			near = rule || g->line == last ||
			       (g->line > 0 && last > 0 && g->line > last &&
				g->line - last <= 3);
			if (!near) {
				code_key(&kj, g->code);
				near = ki.len && ki.len == kj.len &&
				       !memcmp(ki.ptr, kj.ptr, ki.len);
			}
			if (!near)
				continue;
			gone[j] = true;
			if (g->line > last)
				last = g->line;
			/* The same line again (checkpatch says SPACING once
			 * per operator) is not one more. */
			for (k = 0; g->line && k < n && at[k] != g->line; k++)
				;
			if (g->line && (g->line == f->line || k < n))
				continue;
			at[n++] = g->line;
		}
		if (n)
			ret = add_more(f, "line", "lines", at, n);
	}
	rb_buf_release(&ki);
	rb_buf_release(&kj);
	return ret;
}

int rb_findings_postprocess(struct rb_findings *fs,
			    const struct rb_findings_post *o)
{
	static const struct rb_findings_post dflt = RB_FINDINGS_POST_INIT;
	bool *gone;
	int *at;
	size_t i, j, k;
	int ret = 0;

	if (!o)
		o = &dflt;
	if (!fs->n)
		return 0;
	gone = calloc(fs->n, sizeof(*gone));
	at = calloc(fs->n, sizeof(*at));
	if (!gone || !at) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < fs->n; i++) {
		const struct rb_finding *f = &fs->v[i];

		if (!o->all_rules &&
		    !rb_rule_enabled(o->rules, f->checker, f->category))
			gone[i] = true;
		for (k = 0; !gone[i] && series_nit(f) && k < o->n_seen; k++)
			if (o->seen[k] && !strcmp(o->seen[k], f->fingerprint))
				gone[i] = true;
	}
	for (i = 0; i < fs->n; i++)
		if (!gone[i] && said_elsewhere(fs, i, gone))
			gone[i] = true;
	ret = collapse_lines(fs, gone, at);
	/* One title nit of a kind for the series: the first patch's. */
	for (i = 0; i < fs->n && !ret; i++) {
		size_t n = 0;

		if (gone[i] || !series_nit(&fs->v[i]))
			continue;
		for (j = i + 1; j < fs->n; j++)
			if (!gone[j] &&
			    !strcmp(fs->v[j].category, fs->v[i].category) &&
			    series_nit(&fs->v[j])) {
				gone[j] = true;
				at[n++] = fs->v[j].patch_index;
			}
		if (n)
			ret = add_more(&fs->v[i], "patch", "patches", at, n);
	}
	if (!ret)
		rb_findings_remove(fs, gone);
out:
	free(gone);
	free(at);
	return ret;
}
