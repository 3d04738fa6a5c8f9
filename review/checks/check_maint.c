// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_maint.c - the "cc-maintainers" checker, NIPA's cc_maintainers:
 * for each patch, what get_maintainer.pl --nogit --nogit-fallback names
 * (review/maint/maintainers.h replicates it on the MAINTAINERS of the
 * configured branch tip, read through libgit2, never the patched tree's)
 * against the patch's own To:, Cc: and From:. Left out of the check:
 * THE REST's list (linux-kernel@, which get_maintainer names for every
 * file), addresses found in a touched .yaml file ("in file"), the people
 * of a Fixes: target unless opts->maint_fixes, and sections that only a
 * K: keyword of the patch's text matched (get_maintainer names CLANG/LLVM
 * BUILD SUPPORT for a patch that mentions clang): the lookup reads the
 * patch's file names and its Fixes: lines, not its text. A tree without
 * history has no Fixes: target to look up: nothing is said of it. With
 * one, the target's author is asked for too (get_maintainer names its
 * signers, and an author who did not sign off would be left out).
 *
 * One finding per patch names everyone missing, with get_maintainer's
 * role. Addresses are compared case-insensitively, as addr-spec; the
 * mail's own recipient lists are bounded by the mail parser.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <git2.h>

#include "mail/message.h"
#include "review/checks/check_maint.h"
#include "review/checks/checks.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define CHECKER "cc-maintainers"
#define VERSION "1"
#define MAX_NAMED 40 /* recipients named in one finding */

/* The addr-spec of "Name <a@b>" or "a@b (moderated ...)". */
static void addr_spec(char *dst, size_t size, const char *s)
{
	const char *lt = strrchr(s, '<');
	size_t n;

	if (lt) {
		const char *gt = strchr(lt, '>');

		s = lt + 1;
		n = gt ? (size_t)(gt - s) : strlen(s);
	} else {
		while (*s == ' ')
			s++;
		n = strcspn(s, " \t(");
	}
	snprintf(dst, size, "%.*s", (int)n, s);
}

static bool in_list(const struct rb_addr_list *l, const char *addr)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].addr && !strcasecmp(l->v[i].addr, addr))
			return true;
	return false;
}

/* Whether get_maintainer's role @role is one this check asks for. */
static bool wanted(const char *role, bool fixes, enum rb_maint_kind kind)
{
	if (kind == RB_MAINT_LIST)
		/* "open list" alone is THE REST's linux-kernel@. */
		return strchr(role, ':') != NULL;
	if (strstr(role, "maintainer:") || strstr(role, "reviewer:") ||
	    strstr(role, "supporter:") || strstr(role, "odd fixer:"))
		return true;
	return fixes && strstr(role, "blamed_fixes:");
}

/*
 * The lookup again on the file names of *@r (not /dev/null) and the
 * mail's Fixes: lines alone, so that no K: keyword of the text matches;
 * *@r is replaced.
 */
static int paths_only(struct rb_maint_result **r, const struct rb_maint *mt,
		      const char *raw, size_t raw_len)
{
	struct rb_buf b = RB_BUF_INIT(1u << 22);
	struct rb_maint_result *p = NULL;
	const char *cur = raw, *end = raw + raw_len;
	size_t i;
	int ret = 0;

	while (cur < end && !ret) {
		const char *nl = memchr(cur, '\n', (size_t)(end - cur));
		size_t n = nl ? (size_t)(nl - cur) : (size_t)(end - cur);

		if (n > 6 && !strncasecmp(cur, "Fixes:", 6)) {
			ret = rb_buf_add(&b, cur, n);
			if (!ret)
				ret = rb_buf_putc(&b, '\n');
		}
		/* The commit message ends at the diff. */
		if (n >= 4 && !strncmp(cur, "--- ", 4))
			break;
		cur += n + 1;
	}
	for (i = 0; i < (*r)->nfiles && !ret; i++)
		if (strcmp((*r)->files[i], "dev/null"))
			ret = rb_buf_printf(&b,
					    "\ndiff --git a/%s b/%s\n"
					    "--- a/%s\n+++ b/%s\n",
					    (*r)->files[i], (*r)->files[i],
					    (*r)->files[i], (*r)->files[i]);
	if (!ret)
		ret = rb_maint_lookup_patch(&p, mt, b.ptr ? b.ptr : "", b.len);
	rb_buf_release(&b);
	if (ret)
		return ret;
	rb_maint_result_free(*r);
	*r = p;
	return 0;
}

/* Whether @addr is in the patch's To:, Cc: or From:. */
static bool addressed(const struct rb_message *m, const char *addr)
{
	return !*addr || in_list(&m->to, addr) || in_list(&m->cc, addr) ||
	       (m->from.addr && !strcasecmp(m->from.addr, addr));
}

/*
 * The author of each commit the patch's Fixes: tags name, when @repo has
 * it and the patch does not address them: appended to @msg. At most 8
 * tags; an id is 12 to 40 hex digits, looked up as a prefix.
 */
static int fixes_authors(struct rb_buf *msg, size_t *missing,
			 const struct rb_message *m, git_repository *repo)
{
	size_t i, tags = 0;
	int ret = 0;

	for (i = 0; i < m->n_trailers && tags < 8 && !ret; i++) {
		const char *v = m->trailers[i].value;
		git_object *obj = NULL;
		const git_signature *a;
		char hex[41];
		size_t n;

		if (strcasecmp(m->trailers[i].key, "Fixes") || !v)
			continue;
		tags++;
		n = strspn(v, "0123456789abcdefABCDEF");
		if (n < 12 || n > 40)
			continue;
		snprintf(hex, sizeof(hex), "%.*s", (int)n, v);
		if (git_revparse_single(&obj, repo, hex) ||
		    git_object_type(obj) != GIT_OBJECT_COMMIT) {
			git_object_free(obj);
			git_error_clear();
			continue;
		}
		a = git_commit_author((git_commit *)obj);
		if (a && a->email && !addressed(m, a->email) &&
		    ++*missing <= MAX_NAMED)
			ret = rb_buf_printf(msg,
					    "%s%s <%s> (author of the "
					    "Fixes: target %.12s)",
					    *missing > 1 ? ", " : "",
					    a->name ? a->name : "", a->email,
					    hex);
		git_object_free(obj);
	}
	return ret;
}

int rb_maint_check_patch(struct rb_findings *out, const struct rb_maint *mt,
			 const struct rb_message *m, const char *raw,
			 size_t raw_len, int patch_index, bool fixes,
			 git_repository *repo)
{
	struct rb_maint_result *r = NULL;
	struct rb_buf msg = RB_BUF_INIT(1 << 16);
	const char *first_file = NULL;
	size_t i, missing = 0;
	int ret;

	if (!m || !m->patch)
		return 0;
	ret = rb_maint_lookup_patch(&r, mt, raw, raw_len);
	if (!ret)
		ret = paths_only(&r, mt, raw, raw_len);
	if (ret)
		return ret;
	for (i = 0; i < r->nto && !ret; i++) {
		const struct rb_maint_recipient *p = &r->to[i];
		char addr[320];

		if (!wanted(p->role, fixes, p->kind))
			continue;
		addr_spec(addr, sizeof(addr), p->addr);
		if (addressed(m, addr) || strstr(msg.ptr ? msg.ptr : "", addr))
			continue;
		if (++missing > MAX_NAMED)
			continue;
		ret = rb_buf_printf(&msg, "%s%s (%s)", missing > 1 ? ", " : "",
				    p->addr, p->role);
	}
	if (!ret && fixes && repo)
		ret = fixes_authors(&msg, &missing, m, repo);
	if (!ret && missing) {
		for (i = 0; i < r->nfiles && !first_file; i++)
			if (strcmp(r->files[i], "dev/null"))
				first_file = r->files[i];
		ret = rb_buf_printf(
			&msg,
			"%s. scripts/get_maintainer.pl names %s for this patch, "
			"but %s not in its To: or Cc:.",
			missing > MAX_NAMED ? ", ..." : "",
			missing > 1 ? "them" : "this recipient",
			missing > 1 ? "they are" : "it is");
		if (!ret) {
			struct rb_buf all = RB_BUF_INIT(1 << 17);

			ret = rb_buf_puts(&all, "Missing from To/Cc: ");
			if (!ret)
				ret = rb_buf_puts(&all, msg.ptr);
			if (!ret)
				ret = rb_findings_add(
					out,
					&(struct rb_finding_spec){
						.checker = CHECKER,
						.checker_version = VERSION,
						.category = "cc-maintainers",
						.severity = RB_FSEV_LOW,
						.file = first_file,
						.message = all.ptr,
						.patch_index = patch_index });
			rb_buf_release(&all);
		}
	}
	rb_buf_release(&msg);
	rb_maint_result_free(r);
	return ret;
}

static int run(const struct rb_check_ctx *ctx, struct rb_findings *out)
{
	struct rb_maint *mt = NULL;
	git_repository *repo = NULL;
	size_t i;
	int ret;

	if (!ctx->repo_path || !ctx->has_tools)
		return rb_err(RB_EINVAL,
			      "cc-maintainers needs the configured branch tip: "
			      "its MAINTAINERS is never a mail's");
	ret = rb_maint_load_git(&mt, ctx->repo_path,
				git_oid_tostr_s(&ctx->tools));
	if (ret)
		return ret;
	/* The configured tree, where a Fixes: target is looked up. */
	if (ctx->opts->maint_fixes &&
	    git_repository_open_bare(&repo, ctx->repo_path) &&
	    git_repository_open(&repo, ctx->repo_path))
		repo = NULL;
	git_error_clear();
	for (i = 0; i < ctx->n_patches && !ret; i++)
		ret = rb_maint_check_patch(out, mt, ctx->patches[i].msg,
					   ctx->patches[i].raw,
					   ctx->patches[i].raw_len, (int)i + 1,
					   ctx->opts->maint_fixes, repo);
	git_repository_free(repo);
	rb_maint_free(mt);
	return ret;
}

const struct rb_checker_ops rb_check_maint_ops = {
	.name = "cc-maintainers",
	.label = "Cc of the maintainers",
	.tree = true,
	.version = VERSION,
	.run = run,
	.light = true,
};
