// SPDX-License-Identifier: GPL-2.0-only
/*
 * scope.c - what a series touches and who governs it. See scope.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/config.h"
#include "bot/stages/scope.h"
#include "bot/stages/stage.h"
#include "mail/addr.h"
#include "mail/dkim.h"
#include "mail/message.h"
#include "review/apply/diff.h"
#include "review/maint/maintainers.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/testenv.h"
#include "util/banned.h"

/*
 * Sections that never decide a series' home: each covers a slice of
 * nearly every series (THE REST covers every file; generic headers, the
 * selftests and the documentation come along with most features).
 */
static const char *const builtin_catch_all[] = {
	"THE REST",
	"GENERIC INCLUDE/ASM HEADER FILES",
	"KERNEL SELFTEST FRAMEWORK",
	"DOCUMENTATION",
	NULL,
};

bool rb_scope_catch_all(const struct rb_config *cfg, const char *name)
{
	size_t i;

	if (cfg && cfg->catch_all) {
		for (i = 0; i < cfg->n_catch_all; i++)
			if (!strcasecmp(cfg->catch_all[i], name))
				return true;
		return false;
	}
	for (i = 0; builtin_catch_all[i]; i++)
		if (!strcasecmp(builtin_catch_all[i], name))
			return true;
	return false;
}

/* The configured entry for @name, exactly first, then without case. */
static const struct rb_policy *entry_of(const struct rb_config *cfg,
					const char *name)
{
	size_t i;

	if (!name || !*name)
		return NULL;
	for (i = 0; i < cfg->n_policies; i++)
		if (!strcmp(cfg->policies[i].name, name))
			return &cfg->policies[i];
	for (i = 0; i < cfg->n_policies; i++)
		if (!strcasecmp(cfg->policies[i].name, name))
			return &cfg->policies[i];
	return NULL;
}

/*
 * A section takes part in home resolution when its policy is not off:
 * its own entry, else the entry of the series' list (@list), else the
 * default (bot/stages/policy.h).
 */
static bool opted_in(const struct rb_config *cfg, const char *name,
		     const struct rb_policy *list)
{
	const struct rb_policy *e = entry_of(cfg, name);

	if (!e)
		e = list ? list : &cfg->policy_default;
	return e->mode != RB_MODE_OFF;
}

void rb_scope_release(struct rb_scope *s)
{
	size_t i;

	rb_maint_result_free(s->touched);
	rb_maint_free(s->maint);
	free(s->sections);
	rb_effective_policy_release(&s->pol);
	for (i = 0; i < s->n_files; i++)
		free(s->files[i].path);
	free(s->files);
	free(s->people);
	free(s->lists);
	free(s->touched_people);
	free(s->touched_lists);
	for (i = 0; i < s->n_known_lists; i++)
		free(s->known_lists[i]);
	free(s->known_lists);
	memset(s, 0, sizeof(*s));
}

/* MAINTAINERS from the trusted tree: --tree, else the first configured
 * tree at its branch (DESIGN.md fact 5). */
static int load_index(struct rb_scope *s, struct rb_pipeline *p)
{
	const struct rb_config *cfg = p->cfg;
	const char *path = NULL, *ref = "HEAD";
	int ret;

	if (p->cli_tree) {
		path = p->cli_tree;
	} else if (cfg->n_trees) {
		path = cfg->trees[0].path;
		if (cfg->trees[0].branch)
			ref = cfg->trees[0].branch;
	}
	if (!path)
		return 0;
	if (!p->maint) {
		ret = rb_maint_cache_new(&p->maint);
		if (ret)
			return ret;
	}
	if (rb_maint_cache_get(&s->maint, p->maint, path, ref)) {
		/* A tree without MAINTAINERS: no sections, default policy. */
		rb_log(RB_LOG_WARN, "maintainers.unavailable", "tree", path,
		       "reason", rb_errmsg(), NULL);
		s->maint = NULL;
	}
	return 0;
}

static int add_file(struct rb_scope *s, const char *path, size_t lines)
{
	struct rb_scope_file *v;
	size_t i;

	for (i = 0; i < s->n_files; i++)
		if (!strcmp(s->files[i].path, path)) {
			s->files[i].lines += lines;
			return 0;
		}
	v = realloc(s->files, (s->n_files + 1) * sizeof(*v));
	if (!v)
		return rb_err(RB_ENOMEM, "out of memory");
	s->files = v;
	memset(&v[s->n_files], 0, sizeof(*v));
	v[s->n_files].path = strdup(path);
	if (!v[s->n_files].path)
		return rb_err(RB_ENOMEM, "out of memory");
	v[s->n_files].lines = lines ? lines : 1;
	s->n_files++;
	return 0;
}

/* The files the parts change, with their changed lines. A part whose
 * diff does not parse adds nothing (apply reports it). */
static int collect_files(struct rb_scope *s,
			 const struct rb_message *const *parts, size_t n)
{
	size_t i, k;
	int ret = 0;

	for (i = 1; i < n && !ret; i++) {
		struct rb_diff *d = NULL;

		if (!parts[i] || !parts[i]->patch ||
		    rb_diff_parse(&d, parts[i]->patch, parts[i]->patch_len))
			continue;
		for (k = 0; k < d->n_files && !ret; k++) {
			const struct rb_diff_file *f = &d->files[k];
			size_t lines = (size_t)f->added + f->removed;

			if (f->new_path)
				ret = add_file(s, f->new_path, lines);
			/* Both sides of a rename or a copy, as apply. */
			if (!ret && f->old_path &&
			    (!f->new_path || strcmp(f->old_path, f->new_path)))
				ret = add_file(s, f->old_path, lines);
		}
		rb_diff_free(d);
	}
	return ret;
}

/* The whole series through MAINTAINERS, as get_maintainer would see it. */
static int lookup_series(struct rb_scope *s,
			 const struct rb_message *const *parts, size_t n)
{
	struct rb_maint_query *q = NULL;
	size_t i;
	int ret;

	ret = rb_maint_query_new(&q, s->maint);
	for (i = 1; !ret && i < n; i++)
		if (parts[i] && parts[i]->patch)
			ret = rb_maint_query_add_patch(q, parts[i]->patch,
						       parts[i]->patch_len);
	if (!ret)
		ret = rb_maint_query_run(&s->touched, q);
	rb_maint_query_free(q);
	return ret;
}

/* A path one "+++ b/PATH" line can carry. */
static bool plain_path(const char *p)
{
	for (; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return false;
	return true;
}

/*
 * Each file's most specific section: the first non-catch-all section of
 * its own lookup (get_maintainer orders a file's sections by pattern
 * depth, deepest first), or the first catch-all when that is all; off
 * when that section's policy is off.
 */
static int place_files(struct rb_scope *s, const struct rb_config *cfg)
{
	size_t i, k;
	int ret = 0;

	for (i = 0; i < s->n_files && !ret; i++) {
		struct rb_scope_file *f = &s->files[i];
		struct rb_buf hdr = RB_BUF_INIT(8192);
		struct rb_maint_result *r = NULL;
		const char *own = NULL, *any = NULL;

		/*
		 * As get_maintainer reads one "+++ b/PATH" line: F:, N: and
		 * X: decide, whether or not the file is in the tree yet. A
		 * name MAINTAINERS cannot be asked about has no section.
		 */
		if (!plain_path(f->path))
			continue;
		ret = rb_buf_printf(&hdr, "+++ b/%s\n", f->path);
		if (!ret)
			ret = rb_maint_lookup_patch(&r, s->maint, hdr.ptr,
						    hdr.len);
		rb_buf_release(&hdr);
		if (ret && ret != -RB_ENOMEM) {
			ret = 0;
			continue;
		}
		for (k = 0; !ret && k < r->nsections; k++) {
			const char *name = r->sections[k]->name;

			if (!any)
				any = name;
			if (!rb_scope_catch_all(cfg, name)) {
				own = name;
				break;
			}
		}
		f->section = own ? own : any;
		f->off = own && !opted_in(cfg, own, s->list_pol);
		rb_maint_result_free(r);
	}
	return ret;
}

/* Is the L: value @l ("linux-mm@kvack.org (moderated ...)") the list
 * whose List-Id is @id ("linux-mm.kvack.org")? */
static bool list_is(const char *l, const char *id)
{
	size_t local = strcspn(id, "."), len = strcspn(l, " \t");

	return id[local] && len == strlen(id) && !strncasecmp(l, id, local) &&
	       l[local] == '@' &&
	       !strncasecmp(l + local + 1, id + local + 1, len - local - 1);
}

/* The home: most changed lines among opted-in sections (scope.h). */
static const char *find_home(const struct rb_scope *s,
			     const struct rb_config *cfg, const char *list_id)
{
	const char *best = NULL;
	size_t i, k, best_lines = 0;

	for (i = 0; i < s->n_files; i++) {
		const char *sec = s->files[i].section;
		size_t lines = 0;
		bool listed = false;

		if (!sec || rb_scope_catch_all(cfg, sec) ||
		    !opted_in(cfg, sec, s->list_pol))
			continue;
		for (k = 0; k < s->n_files; k++)
			if (s->files[k].section &&
			    !strcmp(s->files[k].section, sec))
				lines += s->files[k].lines;
		if (lines < best_lines)
			continue;
		if (lines == best_lines && best) {
			/* A tie goes to the section of the list it came on. */
			const struct rb_maint_section *ms =
				rb_maint_find_section(s->maint, sec);

			for (k = 0; ms && list_id && !listed && k < ms->nlists;
			     k++)
				listed = list_is(ms->lists[k], list_id);
			if (!listed)
				continue;
		}
		best = sec;
		best_lines = lines;
	}
	return best;
}

/* The touched sections that take part: not catch-all, or only those. */
static int pick_sections(struct rb_scope *s, const struct rb_config *cfg)
{
	size_t i, n = s->touched ? s->touched->nsections : 0;

	s->sections = calloc(n ? n : 1, sizeof(*s->sections));
	if (!s->sections)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		if (!rb_scope_catch_all(cfg, s->touched->sections[i]->name))
			s->sections[s->n_sections++] =
				s->touched->sections[i]->name;
	for (i = 0; !s->n_sections && i < n; i++)
		s->sections[s->n_sections++] = s->touched->sections[i]->name;
	return 0;
}

/* Does get_maintainer's role text name section @sec ("maintainer:SEC",
 * "reviewer:SEC,open list:OTHER")? */
static bool role_names(const char *role, const char *sec)
{
	size_t len = strlen(sec);
	const char *p;

	for (p = role ? strchr(role, ':') : NULL; p; p = strchr(p + 1, ':'))
		if (!strncmp(p + 1, sec, len) &&
		    (!p[1 + len] || p[1 + len] == ','))
			return true;
	return false;
}

/* Is any section a role names opted in? A role without a section (THE
 * REST's lists: LKML) or with none known counts as opted in; a catch-all
 * section is like any other here: off, it gets no mail. */
static bool role_opted_in(const struct rb_scope *s, const struct rb_config *cfg,
			  const char *role)
{
	size_t i;
	bool named = false;

	for (i = 0; s->touched && i < s->touched->nsections; i++) {
		const char *sec = s->touched->sections[i]->name;

		if (!role_names(role, sec))
			continue;
		named = true;
		if (opted_in(cfg, sec, s->list_pol))
			return true;
	}
	return !named;
}

/*
 * People and lists of the opted-in sections, the home's first; and every
 * person and list the touched sections name, opted in or not: who of the
 * patch's own To/Cc a reply may keep (bot/stages/policy.h).
 */
static int pick_recipients(struct rb_scope *s, const struct rb_config *cfg)
{
	size_t i, n = s->touched ? s->touched->nto : 0, pass;

	s->people = calloc(n + 1, sizeof(*s->people));
	s->lists = calloc(n + 1, sizeof(*s->lists));
	s->touched_people = calloc(n + 1, sizeof(*s->touched_people));
	s->touched_lists = calloc(n + 1, sizeof(*s->touched_lists));
	if (!s->people || !s->lists || !s->touched_people || !s->touched_lists)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const struct rb_maint_recipient *r = &s->touched->to[i];

		if (r->kind == RB_MAINT_LIST)
			s->touched_lists[s->n_touched_lists++] = r->addr;
		else
			s->touched_people[s->n_touched_people++] = r->addr;
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			const struct rb_maint_recipient *r = &s->touched->to[i];
			bool home = s->home && role_names(r->role, s->home);

			if (pass != (home ? 0 : 1))
				continue;
			if (!cfg->policy_strictest && !home &&
			    !role_opted_in(s, cfg, r->role))
				continue;
			if (r->kind == RB_MAINT_LIST)
				s->lists[s->n_lists++] = r->addr;
			else
				s->people[s->n_people++] = r->addr;
		}
		if (pass == 0) {
			s->n_home_people = s->n_people;
			s->n_home_lists = s->n_lists;
		}
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcasecmp(*(char *const *)a, *(char *const *)b);
}

/* Every L: address MAINTAINERS knows, to tell a list from a person. */
static int known_lists(struct rb_scope *s)
{
	size_t i, k, n = s->maint ? rb_maint_nsections(s->maint) : 0;

	for (i = 0; i < n; i++) {
		const struct rb_maint_section *sec =
			rb_maint_section_at(s->maint, i);

		for (k = 0; k < sec->nlists; k++) {
			size_t len = strcspn(sec->lists[k], " \t");
			char **v = realloc(s->known_lists,
					   (s->n_known_lists + 1) * sizeof(*v));

			if (!v)
				return rb_err(RB_ENOMEM, "out of memory");
			s->known_lists = v;
			v[s->n_known_lists] = strndup(sec->lists[k], len);
			if (!v[s->n_known_lists])
				return rb_err(RB_ENOMEM, "out of memory");
			s->n_known_lists++;
		}
	}
	if (s->n_known_lists)
		qsort(s->known_lists, s->n_known_lists, sizeof(*s->known_lists),
		      cmp_str);
	return 0;
}

/* The subject tags of the series: its cover's, else its first part's. */
static const char *subject_tags(const struct rb_message *const *parts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (parts[i])
			return parts[i]->subject.tags;
	return NULL;
}

int rb_scope_resolve(struct rb_scope *out, struct rb_pipeline *p,
		     const struct rb_message *const *parts, size_t n,
		     const char *list_id)
{
	const struct rb_config *cfg = p->cfg;
	struct rb_scope s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.list_pol = entry_of(cfg, list_id);
	ret = load_index(&s, p);
	if (!ret && s.maint)
		ret = lookup_series(&s, parts, n);
	if (!ret)
		ret = collect_files(&s, parts, n);
	if (!ret && s.maint)
		ret = place_files(&s, cfg);
	if (!ret)
		ret = pick_sections(&s, cfg);
	if (!ret && !cfg->policy_strictest)
		s.home = find_home(&s, cfg, list_id);
	if (!ret && s.home) {
		ret = rb_policy_resolve_home(&s.pol, cfg, s.home, list_id);
	} else if (!ret) {
		/* Nothing opted in (or strictest): every section takes part,
		 * the most restrictive wins, as policy.h says. */
		size_t i;

		ret = rb_policy_resolve(&s.pol, cfg, s.sections, s.n_sections,
					list_id);
		for (i = 0; cfg->policy_strictest && i < s.n_files; i++)
			s.files[i].off = false;
	}
	if (!ret)
		rb_policy_apply_prefix(&s.pol, cfg, subject_tags(parts, n),
				       list_id);
	if (!ret)
		ret = pick_recipients(&s, cfg);
	if (!ret)
		ret = known_lists(&s);
	if (ret) {
		rb_scope_release(&s);
		return ret;
	}
	*out = s;
	return 0;
}

bool rb_scope_file_off(const struct rb_scope *s, const char *path)
{
	size_t i;

	if (!s->home || !path)
		return false;
	for (i = 0; i < s->n_files; i++)
		if (!strcmp(s->files[i].path, path))
			return s->files[i].off;
	return false;
}

/* "Name <addr>" for an address of a parsed mail. */
static char *mailbox_of(const struct rb_addr *a)
{
	struct rb_buf b = RB_BUF_INIT(4096);

	if (!a->addr)
		return NULL;
	if (rb_addr_format(&b, a)) {
		rb_buf_release(&b);
		return NULL;
	}
	return rb_buf_detach(&b, NULL);
}

bool rb_scope_relayed(const struct rb_scope *s, const struct rb_message *m,
		      const char *raw, size_t len)
{
	struct rb_dkim_result d = { .pass = false };

	if (!m || !rb_message_b4_relay(m))
		return false;
	if (!s->pol.require_dkim)
		return true;
	if (!raw ||
	    rb_dkim_verify(&d, raw, len, m->from.addr, rb_test_dkim_key_file()))
		return false;
	return d.pass && d.from_ok;
}

int rb_scope_people(struct rb_policy_people *who, struct rb_scope_people_buf *b,
		    const struct rb_scope *s, const struct rb_message *m,
		    bool relay)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	b->orig = calloc(m->to.n + m->cc.n + 1, sizeof(*b->orig));
	if (!b->orig)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < m->to.n; i++)
		if ((b->orig[b->n_orig] = mailbox_of(&m->to.v[i])))
			b->n_orig++;
	for (i = 0; i < m->cc.n; i++)
		if ((b->orig[b->n_orig] = mailbox_of(&m->cc.v[i])))
			b->n_orig++;
	/*
	 * The poster: the sender (From:), or for B4 Relay (which sends as
	 * devnull+...@kernel.org) the in-body author. Another in-body
	 * author is Cc'd where the poster addressed them.
	 */
	b->author = mailbox_of(relay ? &m->author : &m->from);
	if (!relay && m->author.addr && m->from.addr &&
	    !rb_addr_same(m->author.addr, m->from.addr))
		b->inbody = mailbox_of(&m->author);
	memset(who, 0, sizeof(*who));
	who->author = b->author;
	who->inbody = b->inbody;
	who->maintainers = s->people;
	who->n_maintainers = s->n_people;
	who->n_home_maintainers = s->n_home_people;
	who->lists = s->lists;
	who->n_lists = s->n_lists;
	who->n_home_lists = s->n_home_lists;
	who->orig_cc = (const char *const *)b->orig;
	who->n_orig_cc = b->n_orig;
	who->touched_people = s->touched_people;
	who->n_touched_people = s->n_touched_people;
	who->touched_lists = s->touched_lists;
	who->n_touched_lists = s->n_touched_lists;
	who->known_lists = s->known_lists;
	who->n_known_lists = s->n_known_lists;
	return 0;
}

void rb_scope_people_release(struct rb_scope_people_buf *b)
{
	size_t i;

	for (i = 0; b->orig && i < b->n_orig; i++)
		free(b->orig[i]);
	free(b->orig);
	free(b->author);
	free(b->inbody);
	memset(b, 0, sizeof(*b));
}
