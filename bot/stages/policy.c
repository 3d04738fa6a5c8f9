// SPDX-License-Identifier: GPL-2.0-only
/*
 * policy.c - resolving the per-subsystem policy of a series and applying
 * it: recipients, embargo, finding filters. The rules are in policy.h.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/stages/policy.h"
#include "mail/addr.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

/* Names shown in the footer before "and N more". */
#define SHOWN_NAMES 3
/* Of a patch's To/Cc, how many are looked at (10 times a header's). */
#define ORIG_MAX (10 * RB_ADDR_LIST_MAX)

enum rb_mode rb_mode_most_restrictive(enum rb_mode a, enum rb_mode b)
{
	/* The enum runs from the most restrictive (off) to the least. */
	return a < b ? a : b;
}

static const struct rb_policy *find_entry(const struct rb_config *cfg,
					  const char *name)
{
	size_t i;

	if (!name || !*name)
		return NULL;
	for (i = 0; i < cfg->n_policies; i++)
		if (cfg->policies[i].name &&
		    !strcmp(cfg->policies[i].name, name))
			return &cfg->policies[i];
	for (i = 0; i < cfg->n_policies; i++)
		if (cfg->policies[i].name &&
		    !strcasecmp(cfg->policies[i].name, name))
			return &cfg->policies[i];
	return NULL;
}

static int add_skip(struct rb_effective_policy *out,
		    const struct rb_policy *pol)
{
	size_t i, k;

	for (i = 0; i < pol->n_skip_authors; i++) {
		const char **v;
		bool dup = false;

		for (k = 0; k < out->n_skip_authors && !dup; k++)
			dup = !strcasecmp(out->skip_authors[k],
					  pol->skip_authors[i]);
		if (dup)
			continue;
		v = realloc(out->skip_authors,
			    (out->n_skip_authors + 1) * sizeof(*v));
		if (!v)
			return rb_err(RB_ENOMEM, "out of memory");
		out->skip_authors = v;
		v[out->n_skip_authors++] = pol->skip_authors[i];
	}
	return 0;
}

/* Folds @pol into @out; @first says whether it is the first one. */
static int merge(struct rb_effective_policy *out, const struct rb_policy *pol,
		 bool first)
{
	if (first) {
		out->mode = pol->mode;
		out->recipients = pol->recipients;
		out->embargo_minutes = pol->embargo_minutes;
		out->min_severity = pol->min_severity;
		out->max_findings = pol->max_findings > 0 ? pol->max_findings :
							    0;
		out->send_when_empty = pol->send_when_empty;
		out->report_apply_failures = pol->report_apply_failures;
		out->require_dkim = pol->require_dkim;
		out->suppress_similar =
			pol->suppress_similar > 0 ? pol->suppress_similar : 0;
		out->checkers = pol->checkers;
		out->incomplete = pol->incomplete;
		out->already_quoted = pol->already_quoted;
		out->governing = pol;
		return add_skip(out, pol);
	}
	if (pol->mode < out->mode) {
		out->mode = pol->mode;
		out->governing = pol;
	}
	out->recipients &= pol->recipients;
	out->checkers &= pol->checkers;
	if (pol->incomplete < out->incomplete)
		out->incomplete = pol->incomplete;
	if (pol->embargo_minutes > out->embargo_minutes)
		out->embargo_minutes = pol->embargo_minutes;
	if (pol->min_severity > out->min_severity)
		out->min_severity = pol->min_severity;
	if (pol->max_findings > 0 &&
	    (!out->max_findings || pol->max_findings < out->max_findings))
		out->max_findings = pol->max_findings;
	out->send_when_empty = out->send_when_empty && pol->send_when_empty;
	if (pol->report_apply_failures < out->report_apply_failures)
		out->report_apply_failures = pol->report_apply_failures;
	out->require_dkim = out->require_dkim || pol->require_dkim;
	if (pol->already_quoted < out->already_quoted)
		out->already_quoted = pol->already_quoted;
	if (pol->suppress_similar > 0 &&
	    (!out->suppress_similar ||
	     pol->suppress_similar < out->suppress_similar))
		out->suppress_similar = pol->suppress_similar;
	return add_skip(out, pol);
}

static int add_name(struct rb_buf *b, size_t *shown, size_t *more,
		    const char *name)
{
	if (*shown == SHOWN_NAMES) {
		(*more)++;
		return 0;
	}
	int ret = 0;

	if (*shown)
		ret = rb_buf_puts(b, ", ");
	(*shown)++;
	return ret ?: rb_buf_puts(b, name);
}

/* What the entry whose mode won decides alone. */
static void set_governed(struct rb_effective_policy *p)
{
	const struct rb_policy *g = p->governing;

	p->blocking_text = g->blocking_text;
	p->templates_dir = g->templates_dir;
	p->shadow_to = g->shadow_to;
	p->cc = (const char *const *)g->cc;
	p->n_cc = g->n_cc;
}

/* The mode of the first of @pol's prefixes that @tags holds as a word;
 * *@tag the prefix. False when none does. */
static bool prefix_mode(const struct rb_policy *pol, const char *tags,
			enum rb_mode *mode, const char **tag)
{
	size_t i;

	for (i = 0; pol && tags && i < pol->n_prefixes; i++) {
		const char *t = pol->prefix_tags[i], *p = tags;
		size_t len = strlen(t);

		/* Words of "[RFC PATCH mm-hotfixes v2 1/3]": blank or comma
		 * separated, as people write them. */
		while (*p) {
			size_t w;

			p += strspn(p, " \t,");
			w = strcspn(p, " \t,");
			if (w == len && !strncasecmp(p, t, len)) {
				*mode = pol->prefix_modes[i];
				*tag = t;
				return true;
			}
			p += w;
		}
	}
	return false;
}

void rb_policy_apply_prefix(struct rb_effective_policy *p,
			    const struct rb_config *cfg, const char *tags,
			    const char *list_id)
{
	const struct rb_policy *list_pol = find_entry(cfg, list_id);
	enum rb_mode m, cap;
	const char *tag, *t2;

	p->prefix = NULL;
	if (!p->governing || !prefix_mode(p->governing, tags, &m, &tag))
		return;
	/* The list's mode, or its own prefix's, is the most a series from
	 * it gets, as without a prefix. */
	if (list_pol && list_pol != p->governing) {
		if (!prefix_mode(list_pol, tags, &cap, &t2))
			cap = list_pol->mode;
		m = rb_mode_most_restrictive(m, cap);
	}
	p->mode = m;
	p->prefix = tag;
}

int rb_policy_resolve(struct rb_effective_policy *out,
		      const struct rb_config *cfg, const char *const *sections,
		      size_t n_sections, const char *list_id)
{
	struct rb_effective_policy p;
	struct rb_buf names = RB_BUF_INIT(1 << 16);
	const struct rb_policy *list_pol = find_entry(cfg, list_id);
	size_t i, k, shown = 0, more = 0, used = 0;
	int ret = 0;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < n_sections && !ret; i++) {
		const struct rb_policy *pol;
		bool dup = false;

		if (!sections[i])
			continue;
		for (k = 0; k < i && !dup; k++)
			dup = sections[k] && !strcmp(sections[k], sections[i]);
		if (dup)
			continue;
		pol = find_entry(cfg, sections[i]);
		/* Without an entry: the list's, else the default. */
		if (!pol)
			pol = list_pol ? list_pol : &cfg->policy_default;
		ret = merge(&p, pol, !used++);
		ret = ret ?: add_name(&names, &shown, &more, sections[i]);
	}
	if (!ret && list_pol) {
		ret = merge(&p, list_pol, !used++);
		ret = ret ?: add_name(&names, &shown, &more, list_id);
	}
	if (!ret && !used) {
		ret = merge(&p, &cfg->policy_default, true);
		ret = ret ?: rb_buf_puts(&names, list_id ? list_id : "default");
	}
	if (!ret && more)
		ret = rb_buf_printf(&names, " and %zu more", more);
	if (!ret) {
		set_governed(&p);
		p.subsystem = rb_buf_detach(&names, NULL);
		if (!p.subsystem)
			ret = rb_err(RB_ENOMEM, "out of memory");
	}
	rb_buf_release(&names);
	if (ret) {
		rb_effective_policy_release(&p);
		return ret;
	}
	*out = p;
	return 0;
}

int rb_policy_resolve_home(struct rb_effective_policy *out,
			   const struct rb_config *cfg, const char *home,
			   const char *list_id)
{
	const struct rb_policy *list_pol = find_entry(cfg, list_id);
	const struct rb_policy *pol = find_entry(cfg, home);
	struct rb_effective_policy p;
	int ret;

	memset(&p, 0, sizeof(p));
	if (!pol)
		pol = list_pol ? list_pol : &cfg->policy_default;
	ret = merge(&p, pol, true);
	/* The list's mode is the most a series from it gets. */
	if (!ret && list_pol && list_pol->mode < p.mode)
		p.mode = list_pol->mode;
	if (!ret) {
		set_governed(&p);
		p.subsystem = strdup(home);
		if (!p.subsystem)
			ret = rb_err(RB_ENOMEM, "out of memory");
	}
	if (ret) {
		rb_effective_policy_release(&p);
		return ret;
	}
	*out = p;
	return 0;
}

void rb_effective_policy_release(struct rb_effective_policy *p)
{
	free(p->skip_authors);
	free(p->subsystem);
	memset(p, 0, sizeof(*p));
}

bool rb_policy_skip_author(const struct rb_effective_policy *p,
			   const char *author)
{
	struct rb_addr a = { 0 };
	const char *addr = author;
	bool skip = false;
	size_t i;

	if (!author)
		return false;
	if (!rb_addr_parse(&a, author))
		addr = a.addr;
	for (i = 0; i < p->n_skip_authors && !skip; i++) {
		const char *pat = p->skip_authors[i];
		const char *at = strrchr(addr, '@');

		if (pat[0] == '@')
			skip = at && !strcasecmp(at, pat);
		else if (strpbrk(pat, "*?["))
			skip = !fnmatch(pat, addr, FNM_CASEFOLD);
		else
			skip = rb_addr_same(pat, addr);
	}
	rb_addr_release(&a);
	return skip;
}

int64_t rb_policy_send_after(const struct rb_effective_policy *p,
			     int64_t last_patch_date)
{
	int64_t m = p->embargo_minutes > 0 ? p->embargo_minutes : 0;

	return last_patch_date + m * 60;
}

size_t rb_policy_filter_findings(const struct rb_effective_policy *p,
				 const struct rb_finding *v, size_t n,
				 bool *keep)
{
	size_t i, k, kept = 0;

	for (i = 0; i < n; i++)
		keep[i] = v[i].severity >= p->min_severity;
	if (p->max_findings > 0) {
		/*
		 * Per patch: a finding loses its place when max_findings
		 * others of that patch rank above it (more severe, or as
		 * severe and earlier).
		 */
		for (i = 0; i < n; i++) {
			int above = 0;

			if (!keep[i])
				continue;
			for (k = 0; k < n; k++) {
				if (k == i || !keep[k] ||
				    v[k].patch_index != v[i].patch_index)
					continue;
				if (v[k].severity > v[i].severity ||
				    (v[k].severity == v[i].severity && k < i))
					above++;
			}
			if (above >= p->max_findings)
				keep[i] = false;
		}
	}
	for (i = 0; i < n; i++)
		kept += keep[i];
	return kept;
}

bool rb_policy_should_send(const struct rb_effective_policy *p,
			   size_t n_findings)
{
	if (p->mode == RB_MODE_OFF)
		return false;
	return n_findings > 0 || p->send_when_empty;
}

/*
 * Who is how relevant, from the first to trim to the last (people and
 * lists each have their own cap): the other opted-in sections' M:/R:,
 * the home section's, the people of MAINTAINERS the poster addressed
 * (the patch's own To/Cc), the in-body author the poster addressed, the
 * poster. Lists: those of MAINTAINERS the poster addressed, the other
 * sections', the home section's, the lists the bot reads (list_ids).
 */
enum rcpt_class {
	RC_OTHER, /* an M:/R: of another opted-in section */
	RC_HOME, /* an M:/R: of the home section */
	RC_ADDRESSED, /* in the patch's To/Cc and M:/R: of a touched file */
	RC_INBODY, /* the in-body author, in the patch's To/Cc */
	RC_AUTHOR, /* the poster */
	RC_ADMIN, /* shadow mode, and the admins' notices */
	RC_LIST,
};

/* A list's rank, from the first to trim to the last. */
enum list_rank {
	LR_ADDRESSED, /* in the patch's To/Cc, L: of a touched file only */
	LR_OTHER, /* L: of another opted-in section (THE REST's too) */
	LR_HOME, /* L: of the home section */
	LR_READ, /* a list the bot reads (list_ids) */
};

struct rcpt {
	char *mailbox; /* as given */
	struct rb_addr a; /* parsed, for rb_addr_same() */
	enum rcpt_class cls; /* the most relevant it was added as */
	enum list_rank rank; /* RC_LIST only */
	/* Chosen by the trusted tree or the config, by the class it was
	 * first added with (rcpt_trusted()). */
	bool trusted;
	bool to;
	bool kept;
};

struct rcpt_builder {
	struct rcpt *v;
	size_t n;
	size_t max; /* people at most */
	size_t max_lists; /* lists at most */
	size_t dropped, capped, lists_capped, undeliverable, refused;
	const struct rb_config *cfg;
	const struct rb_policy_people *who; /* or NULL */
	/* A public mail (the author's, the list's): "people"'s "shadow"
	 * are left off it and kept in private[] (issue 36). */
	bool public;
	char **private;
	size_t n_private, optout;
	bool private_untrusted;
};

static int cmp_list(const void *key, const void *elt)
{
	return strcasecmp(key, *(char *const *)elt);
}

/* Is @a the address of a List-Id the admin allowed ("linux-mm.kvack.org"
 * is linux-mm@kvack.org): a list the bot reads? */
static bool is_read_list(const struct rb_config *cfg, const char *a)
{
	const char *at = strrchr(a, '@');
	size_t i, local;

	if (!at)
		return false;
	local = (size_t)(at - a);
	for (i = 0; i < cfg->n_list_ids; i++) {
		const char *id = cfg->list_ids[i];

		if (strlen(id) == strlen(a) && !strncasecmp(id, a, local) &&
		    id[local] == '.' && !strcasecmp(id + local + 1, at + 1))
			return true;
	}
	return false;
}

/* Is @a one of the mailboxes @v[0..n)? */
static bool among(const char *const *v, size_t n, const char *a)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		if (rb_addr_same(v[i], a))
			return true;
	return false;
}

/*
 * Is @a a mailing list: an L: list of MAINTAINERS (the touched sections'
 * or any other's, from the trusted tree), or the address of a List-Id the
 * admin allowed? Never decided by what a mail says, so a poster cannot
 * lift a person's rate limit or slip a person past the cap.
 */
static bool is_list_addr(const struct rb_config *cfg,
			 const struct rb_policy_people *who, const char *a)
{
	if (who && (among(who->lists, who->n_lists, a) ||
		    among(who->touched_lists, who->n_touched_lists, a)))
		return true;
	if (who && who->n_known_lists &&
	    bsearch(a, who->known_lists, who->n_known_lists,
		    sizeof(*who->known_lists), cmp_list))
		return true;
	return is_read_list(cfg, a);
}

/*
 * Is a person of class @cls on the mail because the trusted tree
 * (MAINTAINERS of the base, never of the patch) or the config put them
 * there? Such a person has no per-recipient rate limit: the poster can
 * choose which files a patch touches, but not who maintains them, so a
 * flood of patches reaches them no more often than it reaches the list,
 * which the global and the per-list limits bound. The poster, the
 * in-body author and the people of the patch's own To/Cc are the
 * poster's choice, and a person keeps the trust of the class it was
 * first added with (the poster first), so that naming somebody in a
 * patch never lifts their limit.
 */
static bool rcpt_trusted(enum rcpt_class cls)
{
	return cls == RC_HOME || cls == RC_OTHER || cls == RC_ADMIN;
}

/*
 * A person who gets no public mail ("people": shadow): kept for a
 * private copy, once, and left off this mail; a list so marked is left
 * off. Releases @a.
 */
static int rcpt_private(struct rcpt_builder *b, const char *mailbox,
			struct rb_addr *a, enum rcpt_class cls)
{
	size_t i;
	char **v;
	int ret = 0;

	b->dropped++;
	if (cls == RC_LIST || is_list_addr(b->cfg, b->who, a->addr))
		goto out;
	for (i = 0; i < b->n_private; i++)
		if (rb_addr_same(b->private[i], a -> addr))
			goto out;
	if (b->n_private >= RB_ADDR_LIST_MAX)
		goto out;
	v = realloc(b->private, (b->n_private + 1) * sizeof(*v));
	if (!v) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	b->private = v;
	v[b->n_private] = strdup(mailbox);
	if (!v[b->n_private]) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	b->n_private++;
	b->private_untrusted = b->private_untrusted || !rcpt_trusted(cls);
	rb_log(RB_LOG_INFO, "policy.recipient_private", "addr", a->addr, "why",
	       "people: shadow", NULL);
out:
	rb_addr_release(a);
	return ret;
}

/* Adds @mailbox as class @cls (a list: @rank), or raises the class of the
 * one already there. */
static int rcpt_add_ranked(struct rcpt_builder *b, const char *mailbox, bool to,
			   enum rcpt_class cls, enum list_rank rank)
{
	struct rb_addr a = { 0 };
	struct rcpt *v;
	size_t i;

	if (!mailbox)
		return 0;
	if (rb_addr_parse(&a, mailbox) || !rb_addr_valid(a.addr)) {
		/* The reason, not the address: it may hold CR/LF. */
		rb_log(RB_LOG_WARN, "policy.recipient_invalid", "reason",
		       a.addr ? "not an RFC 5321 address" : rb_errmsg(), NULL);
		b->dropped++;
		rb_addr_release(&a);
		return 0;
	}
	/* What the person asked for (issue 36): nothing, or no public mail;
	 * decided here, where every address passes. */
	switch (rb_config_person_mail(b->cfg, a.addr)) {
	case RB_PERSON_NONE:
		rb_log(RB_LOG_INFO, "policy.recipient_optout", "addr", a.addr,
		       "why", "people: none", NULL);
		b->dropped++;
		b->optout++;
		rb_addr_release(&a);
		return 0;
	case RB_PERSON_SHADOW:
		if (b->public)
			return rcpt_private(b, mailbox, &a, cls);
		break;
	case RB_PERSON_ALL:
		break;
	}
	/* The config's admins may be local; nobody else can be. */
	if (cls != RC_ADMIN && !rb_addr_deliverable(a.addr)) {
		rb_log(RB_LOG_INFO, "policy.recipient_undeliverable", "addr",
		       a.addr, NULL);
		b->dropped++;
		b->undeliverable++;
		rb_addr_release(&a);
		return 0;
	}
	for (i = 0; i < b->n; i++) {
		struct rcpt *e = &b->v[i];

		if (!rb_addr_same(e->a.addr, a.addr))
			continue;
		if (e->cls == RC_LIST && cls == RC_LIST && rank > e->rank)
			e->rank = rank;
		else if (e->cls != RC_LIST && cls != RC_LIST && cls > e->cls)
			e->cls = cls;
		e->to = e->to || to;
		b->dropped++;
		rb_addr_release(&a);
		return 0;
	}
	if (b->n >= RB_ADDR_LIST_MAX) {
		rb_log(RB_LOG_WARN, "policy.recipient_capped", "addr", a.addr,
		       "why", "the hard limit of a header", NULL);
		b->dropped++;
		b->capped++;
		rb_addr_release(&a);
		return 0;
	}
	v = realloc(b->v, (b->n + 1) * sizeof(*v));
	if (!v) {
		rb_addr_release(&a);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	b->v = v;
	v[b->n].mailbox = strdup(mailbox);
	if (!v[b->n].mailbox) {
		rb_addr_release(&a);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	if (cls != RC_ADMIN && cls != RC_LIST &&
	    is_list_addr(b->cfg, b->who, a.addr)) {
		/* A list written where a person goes: a list all the same. */
		cls = RC_LIST;
		rank = is_read_list(b->cfg, a.addr) ? LR_READ : LR_ADDRESSED;
	}
	v[b->n].a = a;
	v[b->n].cls = cls;
	v[b->n].rank = rank;
	v[b->n].trusted = rcpt_trusted(cls);
	v[b->n].to = to;
	v[b->n].kept = true;
	b->n++;
	return 0;
}

static int rcpt_add(struct rcpt_builder *b, const char *mailbox, bool to,
		    enum rcpt_class cls)
{
	return rcpt_add_ranked(b, mailbox, to, cls, LR_ADDRESSED);
}

static int rcpt_add_all(struct rcpt_builder *b, const char *const *v, size_t n,
			bool to, enum rcpt_class cls)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = rcpt_add(b, v[i], to, cls);
	return ret;
}

static int rcpt_add_lists(struct rcpt_builder *b, const char *const *v,
			  size_t n, enum list_rank rank)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = rcpt_add_ranked(b, v[i], false, RC_LIST,
				      is_read_list(b->cfg, v[i]) ? LR_READ :
								   rank);
	return ret;
}

/*
 * The patch's own To and Cc, for reply-all, as far as they are the
 * author's and MAINTAINERS' (issue 33): the in-body author, the M:/R:
 * people of the touched files, the lists the bot reads and the L: lists
 * of the touched files. Anybody else the poster wrote there is left
 * out: a poster does not choose whom the bot writes to.
 */
static int rcpt_add_addressed(struct rcpt_builder *b)
{
	const struct rb_policy_people *w = b->who;
	size_t i, n = w->n_orig_cc;
	int ret = 0;

	/* A budget: a mail can hold thousands; a reply never needs them. */
	if (n > ORIG_MAX) {
		b->refused += n - ORIG_MAX;
		n = ORIG_MAX;
	}
	for (i = 0; i < n && !ret; i++) {
		const char *m = w->orig_cc[i];
		struct rb_addr a = { 0 };

		if (rb_addr_parse(&a, m) || !rb_addr_valid(a.addr)) {
			rb_addr_release(&a);
			ret = rcpt_add(b, m, false, RC_ADDRESSED); /* counted */
			continue;
		}
		if (w->inbody && rb_addr_same(w->inbody, a.addr))
			ret = rcpt_add(b, m, false, RC_INBODY);
		else if (is_read_list(b->cfg, a.addr))
			ret = rcpt_add_ranked(b, m, false, RC_LIST, LR_READ);
		else if (among(w->touched_people, w->n_touched_people,
			       a.addr) ||
			 among(w->maintainers, w->n_maintainers, a.addr))
			ret = rcpt_add(b, m, false, RC_ADDRESSED);
		else if (among(w->touched_lists, w->n_touched_lists, a.addr) ||
			 among(w->lists, w->n_lists, a.addr))
			ret = rcpt_add_ranked(b, m, false, RC_LIST,
					      LR_ADDRESSED);
		else if (!(w->author && rb_addr_same(w->author, a.addr)))
			b->refused++;
		rb_addr_release(&a);
	}
	return ret;
}

static void rcpt_builder_init(struct rcpt_builder *b,
			      const struct rb_config *cfg,
			      const struct rb_policy_people *who)
{
	memset(b, 0, sizeof(*b));
	b->cfg = cfg;
	b->who = who;
	b->max = cfg->max_recipients > 0 ? (size_t)cfg->max_recipients :
					   RB_ADDR_LIST_MAX;
	if (b->max > RB_ADDR_LIST_MAX)
		b->max = RB_ADDR_LIST_MAX;
	b->max_lists = cfg->max_lists > 0 ? (size_t)cfg->max_lists :
					    RB_ADDR_LIST_MAX;
}

static void rcpt_builder_release(struct rcpt_builder *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		free(b->v[i].mailbox);
		rb_addr_release(&b->v[i].a);
	}
	free(b->v);
	for (i = 0; i < b->n_private; i++)
		free(b->private[i]);
	free(b->private);
}

/*
 * outbox.max_recipients counts people and outbox.max_lists lists: each
 * trims the least relevant first (enum rcpt_class, enum list_rank), the
 * last added of a class first.
 */
static void rcpt_cap(struct rcpt_builder *b)
{
	size_t people = 0, lists = 0, i;
	int cls;

	for (i = 0; i < b->n; i++) {
		people += b->v[i].cls != RC_LIST;
		lists += b->v[i].cls == RC_LIST;
	}
	for (cls = RC_OTHER; cls <= RC_ADMIN && people > b->max; cls++)
		for (i = b->n; i > 0 && people > b->max; i--) {
			struct rcpt *r = &b->v[i - 1];

			if (!r->kept || (int)r->cls != cls)
				continue;
			r->kept = false;
			people--;
			b->dropped++;
			b->capped++;
			rb_log(RB_LOG_WARN, "policy.recipient_capped", "addr",
			       r->a.addr, "why", "outbox.max_recipients", NULL);
		}
	for (cls = LR_ADDRESSED; cls <= LR_READ && lists > b->max_lists; cls++)
		for (i = b->n; i > 0 && lists > b->max_lists; i--) {
			struct rcpt *r = &b->v[i - 1];

			if (!r->kept || r->cls != RC_LIST ||
			    (int)r->rank != cls)
				continue;
			r->kept = false;
			lists--;
			b->dropped++;
			b->lists_capped++;
			rb_log(RB_LOG_WARN, "policy.recipient_capped", "addr",
			       r->a.addr, "why", "outbox.max_lists", NULL);
		}
}

/* The kept entries in the order given; without a To, the first Cc. */
static int rcpt_finish(struct rb_recipients *out, struct rcpt_builder *b)
{
	struct rb_recipients r;
	size_t i;
	bool have_to = false;

	memset(&r, 0, sizeof(r));
	rcpt_cap(b);
	for (i = 0; i < b->n; i++)
		have_to = have_to || (b->v[i].kept && b->v[i].to);
	r.to = calloc(b->n + 1, sizeof(*r.to));
	r.cc = calloc(b->n + 1, sizeof(*r.cc));
	r.lists = calloc(b->n + 1, sizeof(*r.lists));
	r.trusted = calloc(b->n + 1, sizeof(*r.trusted));
	if (!r.to || !r.cc || !r.lists || !r.trusted)
		goto nomem;
	for (i = 0; i < b->n; i++) {
		struct rcpt *e = &b->v[i];

		if (!e->kept)
			continue;
		if (e->to || !have_to) {
			r.to[r.n_to++] = e->mailbox;
			have_to = true;
		} else {
			r.cc[r.n_cc++] = e->mailbox;
		}
		e->mailbox = NULL;
		if (e->cls == RC_LIST) {
			r.lists[r.n_lists] = strdup(e->a.addr);
			if (!r.lists[r.n_lists++])
				goto nomem;
		} else if (e->trusted) {
			r.trusted[r.n_trusted] = strdup(e->a.addr);
			if (!r.trusted[r.n_trusted++])
				goto nomem;
		}
	}
	r.n_dropped = b->dropped;
	r.n_optout = b->optout;
	r.private_to = b->private;
	r.n_private = b->n_private;
	r.private_trusted = !b->private_untrusted;
	b->private = NULL;
	b->n_private = 0;
	r.n_capped = b->capped;
	r.n_lists_capped = b->lists_capped;
	r.n_undeliverable = b->undeliverable;
	r.n_refused = b->refused;
	if (b->refused) {
		char n[32];

		snprintf(n, sizeof(n), "%zu", b->refused);
		rb_log(RB_LOG_INFO, "policy.recipients_refused", "count", n,
		       "why",
		       "in the patch's To/Cc, neither its author nor in "
		       "MAINTAINERS for its files, nor a list read",
		       NULL);
	}
	*out = r;
	return 0;
nomem:
	rb_recipients_release(&r);
	return rb_err(RB_ENOMEM, "out of memory");
}

/* The poster, and the in-body author where the poster addressed them. */
static int rcpt_add_author(struct rcpt_builder *b,
			   const struct rb_policy_people *who)
{
	int ret = rcpt_add(b, who->author, true, RC_AUTHOR);
	size_t i;

	for (i = 0; !ret && who->inbody && i < who->n_orig_cc; i++)
		if (rb_addr_same(who->orig_cc[i], who->inbody))
			return rcpt_add(b, who->orig_cc[i], false, RC_INBODY);
	return ret;
}

/*
 * Shadow mail to the home section's first @nh M:/R: people (shadow_to:
 * maintainers), never to the poster or the in-body author: shadow mail
 * is not the author's.
 */
static int rcpt_add_shadow(struct rcpt_builder *b,
			   const struct rb_policy_people *who, size_t nh)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < nh && !ret; i++) {
		const char *m = who->maintainers[i];

		if ((who->author && rb_addr_same(who->author, m)) ||
		    (who->inbody && rb_addr_same(who->inbody, m)))
			continue;
		ret = rcpt_add(b, m, true, RC_HOME);
	}
	return ret;
}

int rb_policy_recipients(struct rb_recipients *out,
			 const struct rb_effective_policy *p,
			 const struct rb_config *cfg,
			 const struct rb_policy_people *who)
{
	struct rcpt_builder b;
	size_t nh = who->n_home_maintainers, nl = who->n_home_lists;
	int ret = 0;

	rcpt_builder_init(&b, cfg, who);
	if (nh > who->n_maintainers)
		nh = who->n_maintainers;
	if (nl > who->n_lists)
		nl = who->n_lists;
	switch (p->mode) {
	case RB_MODE_OFF:
		break;
	case RB_MODE_SHADOW:
		if (p->shadow_to == RB_SHADOW_MAINTAINERS)
			ret = rcpt_add_shadow(&b, who, nh);
		/* Somebody reads it: the admins when nobody else is left. */
		if (!ret && !b.n)
			ret = rcpt_add_all(&b, (const char *const *)cfg->admins,
					   cfg->n_admins, true, RC_ADMIN);
		break;
	case RB_MODE_ADVISORY:
	case RB_MODE_BLOCKING:
		b.public = true;
		if (p->recipients & RB_RCPT_AUTHOR)
			ret = rcpt_add_author(&b, who);
		if (!ret && (p->recipients & RB_RCPT_MAINTAINERS))
			ret = rcpt_add_all(&b, who->maintainers, nh, false,
					   RC_HOME);
		if (!ret && (p->recipients & RB_RCPT_MAINTAINERS))
			ret = rcpt_add_all(&b, who->maintainers + nh,
					   who->n_maintainers - nh, false,
					   RC_OTHER);
		if (!ret && (p->recipients & RB_RCPT_LIST))
			ret = rcpt_add_lists(&b, who->lists, nl, LR_HOME);
		if (!ret && (p->recipients & RB_RCPT_LIST))
			ret = rcpt_add_lists(&b, who->lists + nl,
					     who->n_lists - nl, LR_OTHER);
		if (!ret &&
		    (p->recipients & (RB_RCPT_MAINTAINERS | RB_RCPT_LIST)))
			ret = rcpt_add_addressed(&b);
		/* The section's static Cc: the config chose it. */
		if (!ret)
			ret = rcpt_add_all(&b, p->cc, p->n_cc, false, RC_HOME);
		break;
	}
	if (!ret)
		ret = rcpt_finish(out, &b);
	rcpt_builder_release(&b);
	return ret;
}

int rb_policy_author_recipients(struct rb_recipients *out,
				const struct rb_effective_policy *p,
				const struct rb_config *cfg,
				const struct rb_policy_people *who)
{
	struct rcpt_builder b;
	int ret = 0;

	rcpt_builder_init(&b, cfg, who);
	if (p->mode == RB_MODE_SHADOW) {
		ret = rcpt_add_all(&b, (const char *const *)cfg->admins,
				   cfg->n_admins, true, RC_ADMIN);
	} else if (p->mode != RB_MODE_OFF) {
		b.public = true;
		ret = rcpt_add_author(&b, who);
	}
	if (!ret)
		ret = rcpt_finish(out, &b);
	rcpt_builder_release(&b);
	return ret;
}

int rb_policy_admin_recipients(struct rb_recipients *out,
			       const struct rb_config *cfg)
{
	struct rcpt_builder b;
	int ret;

	rcpt_builder_init(&b, cfg, NULL);
	ret = rcpt_add_all(&b, (const char *const *)cfg->admins, cfg->n_admins,
			   true, RC_ADMIN);
	if (!ret)
		ret = rcpt_finish(out, &b);
	rcpt_builder_release(&b);
	return ret;
}

int rb_policy_forward_recipients(struct rb_recipients *out,
				 const struct rb_effective_policy *p,
				 const struct rb_config *cfg,
				 const struct rb_policy_people *who,
				 const char *by)
{
	struct rcpt_builder b;
	size_t nl = who->n_home_lists;
	int ret = 0;

	rcpt_builder_init(&b, cfg, who);
	b.public = true;
	if (nl > who->n_lists)
		nl = who->n_lists;
	if (p->recipients & RB_RCPT_AUTHOR)
		ret = rcpt_add_author(&b, who);
	/* Who chose to send it stands by it: on the mail, as a maintainer
	 * of the home section (the feedback stage checked). */
	if (!ret)
		ret = rcpt_add(&b, by, false, RC_HOME);
	if (!ret && (p->recipients & RB_RCPT_LIST))
		ret = rcpt_add_lists(&b, who->lists, nl, LR_HOME);
	if (!ret && (p->recipients & RB_RCPT_LIST))
		ret = rcpt_add_lists(&b, who->lists + nl, who->n_lists - nl,
				     LR_OTHER);
	if (!ret)
		ret = rcpt_add_all(&b, p->cc, p->n_cc, false, RC_HOME);
	if (!ret)
		ret = rcpt_finish(out, &b);
	rcpt_builder_release(&b);
	return ret;
}

int rb_policy_private_recipients(struct rb_recipients *out,
				 const struct rb_config *cfg,
				 const char *const *to, size_t n, bool trusted)
{
	struct rcpt_builder b;
	int ret;

	rcpt_builder_init(&b, cfg, NULL);
	ret = rcpt_add_all(&b, to, n, true, trusted ? RC_HOME : RC_ADDRESSED);
	if (!ret && !b.n)
		ret = rcpt_add_all(&b, (const char *const *)cfg->admins,
				   cfg->n_admins, true, RC_ADMIN);
	if (!ret)
		ret = rcpt_finish(out, &b);
	rcpt_builder_release(&b);
	return ret;
}

enum rb_apply_notice
rb_policy_apply_failure_notice(const struct rb_effective_policy *p)
{
	if (p->mode == RB_MODE_OFF)
		return RB_AF_OFF;
	/* Shadow mode mails the admins only, whatever the key says. */
	if (p->mode == RB_MODE_SHADOW &&
	    p->report_apply_failures == RB_AF_AUTHOR)
		return RB_AF_ADMINS;
	return p->report_apply_failures;
}

void rb_recipients_release(struct rb_recipients *r)
{
	size_t i;

	for (i = 0; i < r->n_to; i++)
		free(r->to[i]);
	for (i = 0; i < r->n_cc; i++)
		free(r->cc[i]);
	for (i = 0; i < r->n_lists; i++)
		free(r->lists[i]);
	for (i = 0; i < r->n_trusted; i++)
		free(r->trusted[i]);
	for (i = 0; i < r->n_private; i++)
		free(r->private_to[i]);
	free(r->private_to);
	free(r->to);
	free(r->cc);
	free(r->lists);
	free(r->trusted);
	memset(r, 0, sizeof(*r));
}
