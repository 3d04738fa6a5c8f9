// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_commit.c - the "commit-msg" checker: the rules of
 * Documentation/process/submitting-patches.rst and stable-kernel-rules.rst
 * that a machine can judge without guessing. Each rule is written to stay
 * silent when in doubt: a noisy bot is the problem this project solves.
 *
 * Categories and severities (a severity says how much a maintainer loses
 * when the finding is ignored). Which of them speak by default is
 * review/checks/rules.c's table, from their precision on real mail:
 *   signed-off-by      high    no Signed-off-by: the patch cannot be taken
 *                              (Developer's Certificate of Origin); or a
 *                              line such as "--- TEST PASSED ---" ends the
 *                              message for git am before the sign-off. Not
 *                              said when a sign-off is there in another
 *                              form (indented in a pasted "git show", below
 *                              the "---" of a question mail) or for [WIP]
 *                              and [RFC] (not for applying: a missing
 *                              sign-off only blocks a merge)
 *   author-signoff     medium  nobody with the author's address or name
 *                              signed off (same name, other address is
 *                              left to checkpatch's FROM_SIGN_OFF_MISMATCH)
 *   fixes-format       low     Fixes: not "<12+ hex> ("subject")"; not in a
 *                              "fixup!" patch, whose tags never land
 *   fixes-unknown      medium  the Fixes: target is not in the repository
 *   fixes-subject      low     the quoted subject is not the target's
 *   stable-cc          medium  stable@kernel.org etc.: not the stable list
 *                      low     a comment after the address without "#"
 *   subject-length     low     the title is longer than 75 characters
 *                              (checkpatch's commit-log limit; the docs say
 *                              70-75; reply prefixes, [PATCH] tags and a
 *                              trailing "[ver #N]" are not counted, as they
 *                              do not land in git)
 *   subject-prefix     low     no "subsystem: " prefix at all
 *   link-tag           low     Link:/Closes: that is not a URL ("[2] URL"
 *                              reference lists are URLs)
 *   series-cover       low     3 or more patches posted with no cover
 *                              letter at all (not a series threaded under
 *                              a cover this list did not get)
 *   series-size        low     more patches than opts->max_patches, a
 *                              limit a subsystem sets (no list has one)
 *   hidden-unicode     high    an added line holds invisible or
 *                              bidirectional Unicode (review/hidden.h):
 *                              what a reviewer reads is not what is
 *                              compiled; once per patch
 *
 * Only patches are judged: mail tagged [PATCH] that is neither a reply
 * (reviewers post diffs in replies) nor a cover letter.
 *
 * A Fixes: target is looked up only when the base has history (not a
 * shallow clone, not a single imported commit): otherwise "not found"
 * would say nothing about the patch.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <git2.h>

#include "mail/message.h"
#include "review/checks/checks.h"
#include "review/hidden.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

#define CHECKER "commit-msg"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define VERSION "1"

struct cm {
	const struct rb_check_ctx *ctx;
	struct rb_findings *out;
	git_repository *repo;
	bool history; /* the base has history to look Fixes: targets up */
	bool fixup; /* a "fixup!"/"squash!" patch: its tags never land */
	int patch; /* 1-based */
	int ret;
};

static void add(struct cm *c, const char *cat, enum rb_fsev sev,
		const char *code, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void add(struct cm *c, const char *cat, enum rb_fsev sev,
		const char *code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (c->ret)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->ret = rb_findings_add(
		c->out, &(struct rb_finding_spec){ .checker = CHECKER,
						   .checker_version = VERSION,
						   .category = cat,
						   .severity = sev,
						   .code = code,
						   .message = msg,
						   .patch_index = c->patch });
}

/* A line of the commit message, without its newline. */
struct line {
	const char *p;
	size_t n;
};

static bool next_line(const char **cur, struct line *l)
{
	const char *s = *cur, *e;

	if (!s || !*s)
		return false;
	e = strchr(s, '\n');
	l->p = s;
	l->n = e ? (size_t)(e - s) : strlen(s);
	*cur = e ? e + 1 : s + l->n;
	return true;
}

static char *line_dup(const struct line *l)
{
	char *s = malloc(l->n + 1);

	if (s) {
		memcpy(s, l->p, l->n);
		s[l->n] = '\0';
		/* Mail may still carry a CR. */
		if (l->n && s[l->n - 1] == '\r')
			s[l->n - 1] = '\0';
	}
	return s;
}

/* "Key: value" with @key matched case-insensitively; value trimmed. */
static const char *tag_value(const char *line, const char *key)
{
	size_t k = strlen(key);

	if (strncasecmp(line, key, k) || line[k] != ':')
		return NULL;
	line += k + 1;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

static void rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/*
 * The address in "Name <addr>" or a bare "addr"; copies into @addr and
 * the name (may be empty) into @name. False when there is no '@'.
 */
static bool split_addr(const char *v, char *name, size_t nname, char *addr,
		       size_t naddr)
{
	const char *lt = strchr(v, '<'), *gt;
	size_t n;

	name[0] = addr[0] = '\0';
	if (lt) {
		/* "Name <addr" (the '>' lost) still names who signed. */
		gt = strchr(lt, '>');
		if (!gt)
			gt = lt + 1 + strcspn(lt + 1, " \t");
		n = (size_t)(gt - lt - 1);
		if (n >= naddr)
			return false;
		memcpy(addr, lt + 1, n);
		addr[n] = '\0';
		n = (size_t)(lt - v);
		if (n >= nname)
			n = nname - 1;
		memcpy(name, v, n);
		name[n] = '\0';
	} else {
		n = strcspn(v, " \t#");
		if (n >= naddr)
			return false;
		memcpy(addr, v, n);
		addr[n] = '\0';
	}
	rtrim(name);
	/* Drop quotes around a display name. */
	n = strlen(name);
	if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
		memmove(name, name + 1, n - 2);
		name[n - 2] = '\0';
	}
	return strchr(addr, '@') != NULL;
}

struct signoff {
	char name[256];
	char addr[256];
};

struct author {
	char name[256];
	char addr[256];
	bool from_body;
};

/* Whitespace runs collapsed, for comparing subjects. */
static void squash(char *s)
{
	char *w = s;
	bool sp = false;

	while (*s == ' ' || *s == '\t')
		s++;
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t') {
			sp = true;
			continue;
		}
		if (sp)
			*w++ = ' ';
		sp = false;
		*w++ = *s;
	}
	*w = '\0';
}

static void check_fixes(struct cm *c, const char *line, const char *v)
{
	size_t hexlen = strspn(v, "0123456789abcdefABCDEF");
	const char *open, *close;
	char sha[GIT_OID_HEXSZ + 1], quoted[512], summary[512];
	git_object *obj = NULL;
	git_oid oid;
	size_t n;
	int err;

	/* A fixup is squashed into the patch it fixes (akpm's mm-unstable
	 * "Fixes: (mmotm) ..." names such a patch): no id to check. */
	if (c->fixup)
		return;
	/*
	 * A commit id is a run of 7 or more hex digits that ends the word:
	 * "1234567890ab:" and "1234567890ab(\"..." start with one, only
	 * the form around it is off; "commit 1234..." and "deadline" do not.
	 */
	if (hexlen < 7 || isalnum((unsigned char)v[hexlen]) ||
	    v[hexlen] == '_') {
		add(c, "fixes-format", RB_FSEV_LOW, line,
		    "This Fixes: tag does not start with a commit id. The "
		    "form is: Fixes: <12+ chars of sha1> (\"<title>\").");
		return;
	}
	open = strstr(v + hexlen, "(\"");
	close = strrchr(v, ')');
	if (hexlen < 12 || hexlen > GIT_OID_HEXSZ || !open || !close ||
	    close < open + 2 || close[-1] != '"' ||
	    strspn(v + hexlen, " \t") != (size_t)(open - v - hexlen)) {
		add(c, "fixes-format", RB_FSEV_LOW, line,
		    "Could this Fixes: tag use the usual form, Fixes: <12+ "
		    "chars of sha1> (\"<title>\")? Tools that follow fixes "
		    "parse it.");
		return;
	}
	if (!c->repo || !c->history)
		return;
	memcpy(sha, v, hexlen);
	sha[hexlen] = '\0';
	if (git_oid_fromstrn(&oid, sha, hexlen))
		return;
	err = git_object_lookup_prefix(&obj, c->repo, &oid, hexlen,
				       GIT_OBJECT_ANY);
	if (err == GIT_ENOTFOUND) {
		add(c, "fixes-unknown", RB_FSEV_MEDIUM, line,
		    "Fixes: names %s, but no commit with that id is in the "
		    "tree this was applied to. Is the id right?",
		    sha);
		return;
	}
	if (err) /* ambiguous prefix, or the repository failed: say nothing */
		return;
	if (git_object_type(obj) != GIT_OBJECT_COMMIT) {
		add(c, "fixes-unknown", RB_FSEV_MEDIUM, line,
		    "Fixes: names %s, which is not a commit in the tree this "
		    "was applied to. Is the id right?",
		    sha);
		goto out;
	}
	n = (size_t)(close - 1 - (open + 2));
	if (n >= sizeof(quoted))
		goto out;
	memcpy(quoted, open + 2, n);
	quoted[n] = '\0';
	snprintf(summary, sizeof(summary), "%s",
		 git_commit_summary((git_commit *)obj) ?
			 git_commit_summary((git_commit *)obj) :
			 "");
	squash(quoted);
	squash(summary);
	if (strcmp(quoted, summary)) {
		char abbrev[13];

		memcpy(abbrev, git_oid_tostr_s(git_object_id(obj)), 12);
		abbrev[12] = '\0';
		add(c, "fixes-subject", RB_FSEV_LOW, line,
		    "The title quoted in this Fixes: tag differs from that of "
		    "commit %s (\"%s\"). Should it be Fixes: %s (\"%s\")?",
		    abbrev, summary, abbrev, summary);
	}
out:
	git_object_free(obj);
}

static void check_stable(struct cm *c, const char *line, const char *v)
{
	char name[256], addr[256];
	const char *rest;
	size_t n;

	if (!split_addr(v, name, sizeof(name), addr, sizeof(addr)))
		return;
	if (strncasecmp(addr, "stable@", 7))
		return;
	if (strcasecmp(addr, "stable@vger.kernel.org")) {
		add(c, "stable-cc", RB_FSEV_MEDIUM, line,
		    "%s is not the stable list. Did you mean "
		    "Cc: stable@vger.kernel.org?",
		    addr);
		return;
	}
	/* What follows the address must be empty or a "# comment". */
	rest = strchr(v, '>');
	rest = rest ? rest + 1 : v + strcspn(v, " \t");
	n = strspn(rest, " \t");
	if (rest[n] && rest[n] != '#')
		add(c, "stable-cc", RB_FSEV_LOW, line,
		    "stable-kernel-rules.rst puts notes after the address as "
		    "a comment: Cc: stable@vger.kernel.org # 5.10+. Could "
		    "this tag use that form?");
}

static void check_link(struct cm *c, const char *line, const char *key,
		       const char *v)
{
	/* A reference list, "Link: [2] https://...", names its URL too. */
	if (*v == '[' && strchr(v, ']')) {
		v = strchr(v, ']') + 1;
		while (*v == ' ' || *v == '\t')
			v++;
	}
	if (*v == '<')
		v++;
	if (!strncasecmp(v, "https://", 8) || !strncasecmp(v, "http://", 7))
		return;
	add(c, "link-tag", RB_FSEV_LOW, line,
	    "%s: is meant to carry a URL (for example "
	    "https://lore.kernel.org/r/<message-id>). Is this one complete?",
	    key);
}

/* Characters, not bytes: UTF-8 continuation bytes are not counted. */
static size_t utf8_len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void check_subject(struct cm *c, const struct rb_message *m)
{
	const char *t = m->subject.title;
	size_t len, max;
	const char *colon;

	if (!t || !*t)
		return;
	max = c->ctx->opts->subject_max > 0 ?
		      (size_t)c->ctx->opts->subject_max :
		      75;
	len = utf8_len(t);
	/* A trailing tag ("... [ver #17]", stgit) is stripped when applied. */
	if (len && t[strlen(t) - 1] == ']') {
		const char *open = strrchr(t, '[');

		if (open && open > t && open[-1] == ' ' &&
		    utf8_len(open) <= 20 && utf8_len(open) < len)
			len -= utf8_len(open - 1);
	}
	if (len > max)
		add(c, "subject-length", RB_FSEV_LOW, t,
		    "The title is %zu characters long. Could it be shortened "
		    "to %zu or fewer, so that it reads well in git log "
		    "--oneline?",
		    len, max);
	/* Reverts and merges carry no prefix of their own. */
	if (!strncmp(t, "Revert \"", 8) || !strncmp(t, "Reapply \"", 9) ||
	    !strncmp(t, "Merge ", 6))
		return;
	colon = strchr(t, ':');
	if (!colon)
		add(c, "subject-prefix", RB_FSEV_LOW, t,
		    "The title has no subsystem prefix. Would \"<subsystem>: "
		    "%s\" (as in git log --oneline of the files touched) "
		    "help?",
		    t);
}

/*
 * The author: the body's leading "From:" line when there is one (it wins,
 * as in git am), else the mail's From.
 */
static void find_author(struct author *a, const struct rb_message *m)
{
	const char *cur = m->commit_msg;
	struct line l;

	memset(a, 0, sizeof(*a));
	while (next_line(&cur, &l)) {
		char *s;
		const char *v;

		if (!l.n || (l.n == 1 && l.p[0] == '\r'))
			break;
		s = line_dup(&l);
		if (!s)
			break;
		v = tag_value(s, "From");
		if (v && split_addr(v, a->name, sizeof(a->name), a->addr,
				    sizeof(a->addr))) {
			a->from_body = true;
			free(s);
			return;
		}
		/* Only pseudo-headers may come first (git am: From/Date/Subject). */
		if (!tag_value(s, "Date") && !tag_value(s, "Subject")) {
			free(s);
			break;
		}
		free(s);
	}
	/* The parser reads the in-body From: too (and may take it out). */
	if (m->author.addr) {
		snprintf(a->addr, sizeof(a->addr), "%s", m->author.addr);
		if (m->author.name)
			snprintf(a->name, sizeof(a->name), "%s",
				 m->author.name);
		a->from_body = !m->from.addr ||
			       strcasecmp(m->author.addr, m->from.addr);
		return;
	}
	if (m->from.addr)
		snprintf(a->addr, sizeof(a->addr), "%s", m->from.addr);
	if (m->from.name)
		snprintf(a->name, sizeof(a->name), "%s", m->from.name);
}

/* git mailinfo's patchbreak(): "---" alone, or "--- " and more text. */
static bool patchbreak(const char *l, size_t n)
{
	size_t i;

	if (n < 3 || strncmp(l, "---", 3))
		return false;
	if (n > 4 && l[3] == ' ' && !isspace((unsigned char)l[4]))
		return true;
	for (i = 3; i < n; i++)
		if (!isspace((unsigned char)l[i]))
			return false;
	return true;
}

/*
 * When the body has a Signed-off-by: after the line where git am ends the
 * commit message (other than a plain "---"), that line; malloc'd.
 */
static char *early_cut(const struct rb_message *m)
{
	const char *cur = m->body;
	char *cut = NULL;
	struct line l;

	while (next_line(&cur, &l)) {
		if (!cut && patchbreak(l.p, l.n)) {
			char *s = line_dup(&l);

			if (!s)
				return NULL;
			rtrim(s);
			/* The usual "---" before the diffstat is fine. */
			if (!strcmp(s, "---")) {
				free(s);
				return NULL;
			}
			cut = s;
			continue;
		}
		if (!strncmp(l.p, "diff --git ", 11))
			break;
		if (cut && l.n > 14 && !strncasecmp(l.p, "Signed-off-by:", 14))
			return cut;
	}
	free(cut);
	return NULL;
}

/*
 * A Signed-off-by: that git am would not see as a trailer: indented (a
 * pasted "git show") or below the "---" of a question mail that quotes
 * its patch. The mail has a sign-off; its form is the problem, and that
 * is not what "no Signed-off-by" says.
 */
static bool signoff_elsewhere(const struct rb_message *m)
{
	const char *cur = m->body;
	struct line l;

	while (next_line(&cur, &l)) {
		size_t i = strspn(l.p, " \t");

		if (!strncmp(l.p, "diff --git ", 11))
			break;
		if (i < l.n && l.n - i > 14 &&
		    !strncasecmp(l.p + i, "Signed-off-by:", 14))
			return true;
	}
	return false;
}

/* "[WIP ...]": work in progress, explicitly not for applying. */
static bool is_wip(const struct rb_message *m)
{
	const char *t = m->subject.tags;

	for (; t && (t = strstr(t, "WIP")); t += 3)
		if ((t == m->subject.tags || !isalnum((unsigned char)t[-1])) &&
		    !isalnum((unsigned char)t[3]))
			return true;
	return false;
}

/* A "From: Name <addr>" line anywhere in the message that signed off. */
static bool later_from_signed(const struct rb_message *m,
			      const struct signoff *sobs, size_t n_sob)
{
	const char *cur = m->commit_msg;
	struct line l;
	bool ok = false;

	while (!ok && next_line(&cur, &l)) {
		char name[256], addr[256];
		const char *v;
		char *s;
		size_t i;

		if (l.n < 6 || strncmp(l.p, "From: ", 6))
			continue;
		s = line_dup(&l);
		if (!s)
			break;
		v = tag_value(s, "From");
		if (v && split_addr(v, name, sizeof(name), addr, sizeof(addr)))
			for (i = 0; i < n_sob; i++)
				ok |= !strcasecmp(sobs[i].addr, addr);
		free(s);
	}
	return ok;
}

/* The new-side start line of a hunk header "@@ -a,b +c,d @@". */
static int hunk_start(const char *l, size_t n)
{
	const char *p = memchr(l, '+', n);

	return p ? atoi(p + 1) : 0;
}

/*
 * The first added line of the patch that holds invisible or
 * bidirectional Unicode: one finding a patch, at its file and line, with
 * the line quoted escaped.
 */
static void check_hidden(struct cm *c, const struct rb_message *m)
{
	const char *p = m->patch, *end = m->patch + m->patch_len;
	char file[512] = "";
	int line = 0;

	while (p < end && !c->ret) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		uint32_t cp = 0;
		size_t w = 0;

		if (n >= 6 && !strncmp(p, "+++ b/", 6)) {
			snprintf(file, sizeof(file), "%.*s", (int)(n - 6),
				 p + 6);
		} else if (n >= 2 && !strncmp(p, "@@", 2)) {
			line = hunk_start(p, n) - 1;
		} else if (n && (p[0] == ' ' || p[0] == '+')) {
			line++;
			if (p[0] == '+' &&
			    rb_hidden_find(p + 1, n - 1, &cp, &w) < n - 1) {
				struct rb_buf q = RB_BUF_INIT(1 << 16);
				char msg[512];

				snprintf(msg, sizeof(msg),
					 "This line holds U+%04X %s, which "
					 "no editor shows: what a reviewer "
					 "reads is not what the compiler "
					 "reads. Could it be removed, or "
					 "written as an escape?",
					 (unsigned)cp, rb_hidden_name(cp));
				c->ret = rb_hidden_escape(&q, p + 1, n - 1);
				if (!c->ret)
					c->ret = rb_findings_add(
						c->out,
						&(struct rb_finding_spec){
							.checker = CHECKER,
							.checker_version =
								VERSION,
							.category =
								"hidden-unicode",
							.severity =
								RB_FSEV_HIGH,
							.file = *file ? file :
									NULL,
							.line = line,
							.code = q.ptr,
							.message = msg,
							.patch_index =
								c->patch });
				rb_buf_release(&q);
				return;
			}
		}
		p = nl ? nl + 1 : end;
	}
}

/* The Signed-off-by: lines of a commit message, in order. */
struct signoffs {
	struct signoff *v;
	size_t n;
};

/* One more sign-off; a line without an address, or no memory, is none. */
static void signoff_add(struct signoffs *so, const char *v)
{
	struct signoff *ns = realloc(so->v, (so->n + 1) * sizeof(*so->v));

	if (!ns)
		return;
	so->v = ns;
	if (split_addr(v, ns[so->n].name, sizeof(ns[so->n].name),
		       ns[so->n].addr, sizeof(ns[so->n].addr)))
		so->n++;
}

/*
 * The tags of the commit message: Fixes:, Cc: stable, Link: and Closes:
 * are checked as they come, the sign-offs gathered into @so.
 */
static void read_tags(struct cm *c, const struct rb_message *m,
		      struct signoffs *so)
{
	static const char *const tags[] = { "Signed-off-by", "Fixes", "Cc",
					    "Link", "Closes" };
	const char *cur = m->commit_msg;
	struct line l;

	while (!c->ret && next_line(&cur, &l)) {
		char *s = line_dup(&l);
		const char *v;
		size_t k;

		if (!s) {
			c->ret = rb_err(RB_ENOMEM, "out of memory");
			break;
		}
		rtrim(s);
		for (k = 0, v = NULL; k < ARRAY_SIZE(tags) && !v; k++)
			v = tag_value(s, tags[k]);
		switch (v ? k - 1 : ARRAY_SIZE(tags)) {
		case 0:
			signoff_add(so, v);
			break;
		case 1:
			check_fixes(c, s, v);
			break;
		case 2:
			check_stable(c, s, v);
			break;
		case 3:
		case 4:
			check_link(c, s, tags[k - 1], v);
			break;
		}
		free(s);
	}
}

/* No sign-off at all: git am would cut it, or it was never written. */
static void check_unsigned(struct cm *c, const struct rb_message *m)
{
	char *cut = early_cut(m);

	if (cut)
		add(c, "signed-off-by", RB_FSEV_HIGH, cut,
		    "git am ends the commit message at the line "
		    "\"%s\", so the Signed-off-by: below it would be "
		    "dropped. Could that line be reworded?",
		    cut);
	else if (!signoff_elsewhere(m) && !is_wip(m) && !m->subject.is_rfc)
		add(c, "signed-off-by", RB_FSEV_HIGH, NULL,
		    "There is no Signed-off-by: line. Could you add "
		    "one (see \"Developer's Certificate of Origin\" "
		    "in submitting-patches.rst)?");
	free(cut);
}

/* The author is among the sign-offs @so, or is told so. */
static void check_author(struct cm *c, const struct rb_message *m,
			 const struct signoffs *so)
{
	const struct rb_addr *poster;
	bool name_match = false;
	struct author a;
	size_t i;

	find_author(&a, m);
	if (!a.addr[0])
		return;
	poster = rb_message_poster(m);
	for (i = 0; i < so->n; i++) {
		if (!strcasecmp(so->v[i].addr, a.addr))
			return;
		if (a.name[0] && !strcasecmp(so->v[i].name, a.name))
			name_match = true;
	}
	/*
	 * Quilt-style mail (stable review queues) names the author in a
	 * "From:" line further down the message: accept it when it signed.
	 */
	if (later_from_signed(m, so->v, so->n))
		return;
	/* A list that rewrote From (DMARC) says nothing about the author. */
	if (!a.from_body && strstr(a.name, " via "))
		return;
	/*
	 * Same name, another address (roberto.sassu@huaweicloud.com signing
	 * off as @huawei.com): checkpatch says FROM_SIGN_OFF_MISMATCH, and
	 * maintainers take such patches. Once is enough.
	 */
	if (name_match)
		return;
	/*
	 * The mail goes to the poster (rb_message_poster()): "you" is the
	 * poster, and the author is named only when it is someone else.
	 */
	if (poster && poster->addr && !strcasecmp(poster->addr, a.addr))
		add(c, "author-signoff", RB_FSEV_MEDIUM, a.addr,
		    "You (%s) are the author of this patch, but have not "
		    "signed it off. Could you add your Signed-off-by:? If "
		    "someone else wrote it, a From: line naming them at the "
		    "top of the body says so.",
		    a.addr);
	else
		add(c, "author-signoff", RB_FSEV_MEDIUM, a.addr,
		    "The From: line at the top of the body names %s <%s> as "
		    "the author, who has not signed off. If they wrote the "
		    "patch, could they add their Signed-off-by:? If you "
		    "wrote it, could that From: line name you instead?",
		    a.name[0] ? a.name : a.addr, a.addr);
}

static void check_patch(struct cm *c, const struct rb_message *m)
{
	struct signoffs so = { 0 };

	c->fixup = m->subject.title &&
		   (!strncmp(m->subject.title, "fixup!", 6) ||
		    !strncmp(m->subject.title, "squash!", 7));
	check_subject(c, m);
	read_tags(c, m, &so);
	if (!c->ret && !so.n)
		check_unsigned(c, m);
	else if (!c->ret)
		check_author(c, m, &so);
	free(so.v);
}

/*
 * Whether the series was evidently posted with no cover letter at all:
 * every patch is here and the first one starts its own thread. A first
 * patch that replies to something was threaded under a cover the list
 * did not get (authors Cc a list on the patches only), under a cover
 * without a "0/N" tag, or under an earlier version (a partial reroll).
 */
static bool posted_without_cover(const struct rb_check_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->n_patches; i++)
		if (!ctx->patches[i].msg)
			return false;
	return !ctx->patches[0].msg->in_reply_to &&
	       !ctx->patches[0].msg->n_references;
}

static int has_history(git_repository *repo, const git_oid *base)
{
	git_commit *commit = NULL;
	bool ok;

	if (git_repository_is_shallow(repo) == 1)
		return false;
	if (git_commit_lookup(&commit, repo, base))
		return false;
	ok = git_commit_parentcount(commit) > 0;
	git_commit_free(commit);
	return ok;
}

static int run(const struct rb_check_ctx *ctx, struct rb_findings *out)
{
	const struct rb_check_opts *o = ctx->opts;
	struct cm c = { .ctx = ctx, .out = out };
	size_t i;

	if (ctx->repo_path && ctx->has_base) {
		if (git_repository_open(&c.repo, ctx->repo_path)) {
			c.ret = rb_err(RB_EIO, "cannot open %s: %s",
				       ctx->repo_path,
				       git_error_last() ?
					       git_error_last()->message :
					       "?");
			goto out;
		}
		c.history = has_history(c.repo, &ctx->base);
	}
	for (i = 0; i < ctx->n_patches && !c.ret; i++) {
		const struct rb_message *m = ctx->patches[i].msg;

		c.patch = (int)i + 1;
		/*
		 * Only the patch itself: not a reply that quotes or suggests
		 * a diff, not a cover letter, not mail without [PATCH].
		 */
		if (m && m->commit_msg && m->patch && m->subject.is_patch &&
		    !m->subject.is_reply &&
		    !(m->subject.index == 0 && m->subject.total > 0)) {
			check_patch(&c, m);
			check_hidden(&c, m);
		}
	}
	c.patch = 0;
	if (o->require_cover && ctx->n_patches >= 3 && !ctx->cover &&
	    posted_without_cover(ctx))
		add(&c, "series-cover", RB_FSEV_LOW, NULL,
		    "This series has %zu patches and no cover letter ([PATCH "
		    "0/%zu]). Could the next version add one that says what "
		    "the series does and why?",
		    ctx->n_patches, ctx->n_patches);
	if (o->max_patches > 0 && ctx->n_patches > (size_t)o->max_patches)
		add(&c, "series-size", RB_FSEV_LOW, NULL,
		    "This series has %zu patches; the limit set for review "
		    "here is %d. Could it be split?",
		    ctx->n_patches, o->max_patches);
out:
	git_repository_free(c.repo);
	return c.ret;
}

const struct rb_checker_ops rb_check_commit_ops = {
	.name = "commit-msg",
	.label = "commit message",
	.version = VERSION,
	.run = run,
	.light = true,
};
