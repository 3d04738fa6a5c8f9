// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "review/findings.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/banned.h"

static const char *const sev_names[] = { "info", "low", "medium", "high",
					 "critical" };

const char *rb_fsev_name(enum rb_fsev s)
{
	if ((unsigned)s > RB_FSEV_CRITICAL)
		return "unknown";
	return sev_names[s];
}

int rb_fsev_parse(const char *s)
{
	int i;

	for (i = 0; i <= RB_FSEV_CRITICAL; i++)
		if (s && !strcasecmp(s, sev_names[i]))
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

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int rb_findings_add(struct rb_findings *fs, const char *checker,
		    const char *checker_version, const char *category,
		    enum rb_fsev sev, const char *file, int line,
		    const char *code, const char *message, int patch_index)
{
	struct rb_finding *v, *f;

	v = realloc(fs->v, (fs->n + 1) * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	fs->v = v;
	f = &v[fs->n];
	memset(f, 0, sizeof(*f));
	f->checker = strdup(checker);
	f->checker_version = dup_or_null(checker_version);
	f->category = strdup(category);
	f->severity = sev;
	f->file = dup_or_null(file);
	f->line = line;
	f->code = dup_or_null(code);
	f->message = strdup(message);
	f->patch_index = patch_index;
	if (!f->checker || !f->category || !f->message) {
		free(f->checker);
		free(f->checker_version);
		free(f->category);
		free(f->file);
		free(f->code);
		free(f->message);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	rb_finding_fingerprint(f, f->fingerprint);
	fs->n++;
	return 0;
}

void rb_findings_release(struct rb_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		struct rb_finding *f = &fs->v[i];

		free(f->checker);
		free(f->checker_version);
		free(f->category);
		free(f->file);
		free(f->code);
		free(f->message);
	}
	free(fs->v);
	fs->v = NULL;
	fs->n = 0;
}
