// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_keys.c - the key tables of config.yaml, one per mapping, and the
 * readers of the keys a table entry cannot describe (policies, sources,
 * trees, people, sizes). The walk over them is config.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <curl/curl.h>
#include <git2.h>
#include <yaml.h>

#include "bot/config.h"
#include "bot/config_priv.h"
#include "mail/addr.h"
#include "review/checks/checks.h"
#include "review/checks/rules.h"
#include "review/maint/maintainers.h"
#include "review/model/model.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* ---- policies -------------------------------------------------------- */

static const char *const incomplete_names[] = { "ignore", "notify",
						"review-prefix", NULL };
/* enum rb_already_quoted */
static const char *const already_quoted_names[] = { "drop", "mark", NULL };
/* enum rb_apply_notice; "false" is off, "true" the default (admins). */
static const char *const apply_notice_names[] = { "off", "admins", "author",
						  NULL };

static void policy_apply_notice(struct ctx *c, yaml_node_t *v, void *obj)
{
	struct rb_policy *p = obj;
	const char *t;
	int i;

	if (rb_cfg_is_null(v))
		return;
	t = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value :
					  NULL;
	if (t && !strcmp(t, "false")) {
		p->report_apply_failures = RB_AF_OFF;
		return;
	}
	/* "true" was the default, when the notice went to the author: the
	 * default now tells the admins, and a section opts into "author". */
	if (t && !strcmp(t, "true")) {
		p->report_apply_failures = RB_AF_ADMINS;
		return;
	}
	i = rb_cfg_pick(c, v, apply_notice_names);
	if (i >= 0)
		p->report_apply_failures = (enum rb_apply_notice)i;
}

static void policy_bases(struct ctx *c, yaml_node_t *v, void *obj)
{
	struct rb_policy *p = obj;
	size_t before = c->errs->n, i;
	yaml_node_item_t *it;

	rb_cfg_set_list(c, v, &p->bases, &p->n_bases, NULL);
	if (c->errs->n != before || v->type != YAML_SEQUENCE_NODE)
		return;
	/* Each base must name a tree; report at the item that does not. */
	for (it = v->data.sequence.items.start, i = 0;
	     it < v->data.sequence.items.top && i < p->n_bases; it++, i++) {
		size_t j, old;

		for (j = 0; j < i; j++)
			if (!strcmp(p->bases[j], p->bases[i]))
				break;
		old = rb_cfg_path_index(c, i);
		if (j < i)
			rb_cfg_cerr(c, rb_cfg_node(c, *it),
				    "tree '%s' is listed twice", p->bases[i]);
		else if (!rb_config_tree(c->cfg, p->bases[i]))
			rb_cfg_cerr(
				c, rb_cfg_node(c, *it),
				"no tree named '%s' in trees[] (%zu defined)",
				p->bases[i], c->cfg->n_trees);
		rb_cfg_path_pop(c, old);
	}
}

/*
 * rules: {subject-length: on, "checkpatch:*": off, ...}: which findings
 * speak in this subsystem, over the shipped defaults (review/checks/rules.h);
 * later entries win.
 */
static void policy_rules(struct ctx *c, yaml_node_t *v, void *obj)
{
	struct rb_policy *p = obj;
	yaml_node_pair_t *pr;
	size_t n, i = 0;

	if (rb_cfg_is_null(v))
		return;
	if (v->type != YAML_MAPPING_NODE) {
		rb_cfg_cerr(
			c, v,
			"expected a mapping of rule names to on or off, got %s",
			rb_cfg_kind_name(v));
		return;
	}
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	rb_cfg_strv_free(p->rule_names, p->n_rules);
	free(p->rule_on);
	p->rule_names = calloc(n + 1, sizeof(*p->rule_names));
	p->rule_on = calloc(n + 1, sizeof(*p->rule_on));
	p->n_rules = 0;
	if (!p->rule_names || !p->rule_on) {
		c->oom = true;
		return;
	}
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++, i++) {
		yaml_node_t *kn = rb_cfg_node(c, pr->key),
			    *vn = rb_cfg_node(c, pr->value);
		const char *name;
		char tmp[80];
		size_t old;

		if (!kn || !vn || !rb_cfg_visit(c, kn) || !rb_cfg_visit(c, vn))
			return;
		name = rb_cfg_text(c, kn, "a rule name", false);
		if (!name)
			continue;
		old = rb_cfg_path_key(c, name);
		if (!rb_rule_name_valid(name)) {
			rb_cfg_cerr(
				c, kn,
				"'%s' is not a rule (a commit-msg category such as "
				"subject-length, checkpatch:TYPE, or a wildcard "
				"such as checkpatch:*)",
				rb_cfg_shown(tmp, sizeof(tmp), name));
		} else {
			bool on = false;
			size_t before = c->errs->n;

			rb_cfg_set_bool(c, vn, &on);
			if (c->errs->n == before) {
				p->rule_names[p->n_rules] =
					rb_cfg_xstrdup(c, name);
				p->rule_on[p->n_rules++] = on;
			}
		}
		rb_cfg_path_pop(c, old);
	}
}

static bool recipient_item(struct ctx *c, yaml_node_t *n, void *arg)
{
	static const char *const names[] = { "author", "maintainers", "list",
					     NULL };
	int k = rb_cfg_pick(c, n, names);

	if (k >= 0)
		*(unsigned int *)arg |= 1u << k;
	return k >= 0;
}

static void policy_recipients(struct ctx *c, yaml_node_t *v, void *obj)
{
	struct rb_policy *p = obj;
	unsigned int bits = 0;

	if (!rb_cfg_is_list(c, v, ""))
		return;
	if (!rb_cfg_each_item(c, v, recipient_item, &bits))
		return;
	if (!bits) {
		rb_cfg_cerr(
			c, v,
			"is empty; to send to nobody use mode: off, or shadow "
			"to send to the admins only");
		return;
	}
	p->recipients = bits;
}

static char *checkpatch_item(struct ctx *c, yaml_node_t *n, const char *t)
{
	const char *s;
	char tmp[80];

	for (s = t; *s; s++)
		if (!isupper((unsigned char)*s) &&
		    !isdigit((unsigned char)*s) && *s != '_')
			break;
	if (*s) {
		rb_cfg_cerr(c, n,
			    "'%s' is not a checkpatch type (like LONG_LINE or "
			    "SPDX_LICENSE_TAG)",
			    rb_cfg_shown(tmp, sizeof(tmp), t));
		return NULL;
	}
	return rb_cfg_xstrdup(c, t);
}

/* checkers: [build, ...]: the registry's names (review/checks/checks.h);
 * null or [] for the default set. */
static void policy_checkers(struct ctx *c, yaml_node_t *v, void *obj)
{
	struct rb_policy *p = obj;
	unsigned int set = 0;
	char what[256];

	snprintf(what, sizeof(what), "a checker; one of %s",
		 rb_checker_names());
	if (rb_cfg_set_bits(c, v, &set, rb_checker_id, what))
		p->checkers = set ? set : RB_CHECKERS_DEFAULT;
}

/* A CONFIG_ option of the build checker: CONFIG_FOO, FOO, or FOO=n. */
static char *kconfig_item(struct ctx *c, yaml_node_t *n, const char *t)
{
	const char *s;
	char tmp[80];

	for (s = t; *s && *s != '='; s++)
		if (!isupper((unsigned char)*s) &&
		    !isdigit((unsigned char)*s) && *s != '_')
			break;
	if (s == t ||
	    (*s && (*s != '=' ||
		    (strcmp(s, "=y") && strcmp(s, "=n") && strcmp(s, "=m"))))) {
		rb_cfg_cerr(c, n,
			    "'%s' is not a kernel config option (like "
			    "CONFIG_TRANSPARENT_HUGEPAGE or DEBUG_VM=y)",
			    rb_cfg_shown(tmp, sizeof(tmp), t));
		return NULL;
	}
	return rb_cfg_xstrdup(c, t);
}

static const char *const shadow_to_names[] = { "admins", "maintainers", NULL };

/*
 * prefixes: {RFC: shadow, mm-hotfixes: blocking}: a series whose subject
 * tags hold the prefix (a whole word: "[RFC PATCH v2 1/3]") gets that
 * mode instead of the entry's; the first that matches, in file order.
 */
static void policy_prefixes(struct ctx *c, yaml_node_t *v, void *obj)
{
	struct rb_policy *p = obj;
	yaml_node_pair_t *pr;
	size_t n, i;

	if (rb_cfg_is_null(v))
		return;
	if (v->type != YAML_MAPPING_NODE) {
		rb_cfg_cerr(
			c, v,
			"expected a mapping of subject prefixes to modes, got %s",
			rb_cfg_kind_name(v));
		return;
	}
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	rb_cfg_strv_free(p->prefix_tags, p->n_prefixes);
	free(p->prefix_modes);
	p->n_prefixes = 0;
	p->prefix_tags = calloc(n + 1, sizeof(*p->prefix_tags));
	p->prefix_modes = calloc(n + 1, sizeof(*p->prefix_modes));
	if (!p->prefix_tags || !p->prefix_modes) {
		c->oom = true;
		return;
	}
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *kn = rb_cfg_node(c, pr->key),
			    *vn = rb_cfg_node(c, pr->value);
		const char *tag, *s;
		char tmp[80];
		size_t old;
		int m;

		if (!kn || !vn || !rb_cfg_visit(c, kn) || !rb_cfg_visit(c, vn))
			return;
		tag = rb_cfg_text(c, kn, "a subject prefix", false);
		if (!tag)
			continue;
		old = rb_cfg_path_key(c, tag);
		for (s = tag; *s; s++)
			if (!isalnum((unsigned char)*s) && !strchr("-_.", *s))
				break;
		for (i = 0; !*s && i < p->n_prefixes; i++)
			if (!strcasecmp(p->prefix_tags[i], tag))
				break;
		if (!*tag || *s) {
			rb_cfg_cerr(
				c, kn,
				"'%s' is not a subject prefix (a word such as RFC "
				"or mm-hotfixes)",
				rb_cfg_shown(tmp, sizeof(tmp), tag));
		} else if (i < p->n_prefixes) {
			rb_cfg_cerr(c, kn, "prefix '%s' is given twice", tag);
		} else if (!strcasecmp(tag, "PATCH")) {
			rb_cfg_cerr(c, kn,
				    "every patch has the PATCH prefix: set the "
				    "entry's mode instead");
		} else if ((m = rb_cfg_pick(c, vn, rb_mode_names)) >= 0) {
			p->prefix_tags[p->n_prefixes] = rb_cfg_xstrdup(c, tag);
			p->prefix_modes[p->n_prefixes++] = (enum rb_mode)m;
		}
		rb_cfg_path_pop(c, old);
	}
}

static void policy_check(struct ctx *c, yaml_node_t *map, void *obj,
			 yaml_node_t *const *seen)
{
	struct rb_policy *p = obj;
	size_t old;

	/* seen[0] is mode: shadow mail goes to the admins (unless the
	 * section's own people get it, shadow_to: maintainers). */
	if (seen[0] && p->mode == RB_MODE_SHADOW &&
	    p->shadow_to == RB_SHADOW_ADMINS && !c->cfg->n_admins) {
		old = rb_cfg_path_key(c, "mode");
		rb_cfg_cerr(
			c, seen[0],
			"shadow sends to the admins only, but admins is empty");
		rb_cfg_path_pop(c, old);
	}
}

static const struct key policy_keys[] = {
	KEY("mode", K_ENUM, struct rb_policy, mode, .aux = rb_mode_names),
	KEY("bases", K_FN, struct rb_policy, bases, .fn = policy_bases,
	    .store = S_STRV, .noff = offsetof(struct rb_policy, n_bases)),
	KEY("recipients", K_FN, struct rb_policy, recipients,
	    .fn = policy_recipients, .store = S_UINT),
	KEY("embargo_minutes", K_INT, struct rb_policy, embargo_minutes,
	    .min = 0, .max = 7 * 24 * 60),
	KEY("min_severity", K_ENUM, struct rb_policy, min_severity,
	    .aux = rb_fsev_names),
	KEY("max_findings", K_INT, struct rb_policy, max_findings, .min = 0,
	    .max = 50),
	KEY("send_when_empty", K_BOOL, struct rb_policy, send_when_empty),
	KEY("report_apply_failures", K_FN, struct rb_policy,
	    report_apply_failures, .fn = policy_apply_notice, .store = S_INT),
	KEY("skip_authors", K_ADDRLIST, struct rb_policy, skip_authors,
	    .noff = offsetof(struct rb_policy, n_skip_authors)),
	KEY("checkpatch_ignore", K_STRLIST, struct rb_policy, checkpatch_ignore,
	    .noff = offsetof(struct rb_policy, n_checkpatch_ignore),
	    .item = checkpatch_item),
	KEY("checkers", K_FN, struct rb_policy, checkers, .fn = policy_checkers,
	    .store = S_UINT),
	KEY("build_config", K_STR, struct rb_policy, build_config),
	KEY("build_options", K_STRLIST, struct rb_policy, build_options,
	    .noff = offsetof(struct rb_policy, n_build_options),
	    .item = kconfig_item),
	KEY("incomplete", K_ENUM, struct rb_policy, incomplete,
	    .aux = incomplete_names),
	KEY("rules", K_FN, struct rb_policy, rule_names, .fn = policy_rules,
	    .store = S_COUNT, .noff = offsetof(struct rb_policy, n_rules)),
	KEY("blocking_text", K_TEXT, struct rb_policy, blocking_text),
	KEY("suppress_similar", K_INT, struct rb_policy, suppress_similar,
	    .min = 0, .max = 1000),
	KEY("require_dkim", K_BOOL, struct rb_policy, require_dkim),
	KEY("already_quoted", K_ENUM, struct rb_policy, already_quoted,
	    .aux = already_quoted_names),
	KEY("templates_dir", K_DIR, struct rb_policy, templates_dir),
	KEY("shadow_to", K_ENUM, struct rb_policy, shadow_to,
	    .aux = shadow_to_names),
	KEY("cc", K_ADDRLIST, struct rb_policy, cc,
	    .noff = offsetof(struct rb_policy, n_cc)),
	KEY("prefixes", K_FN, struct rb_policy, prefix_tags,
	    .fn = policy_prefixes, .store = S_COUNT,
	    .noff = offsetof(struct rb_policy, n_prefixes)),
};

void rb_cfg_policy_release(struct rb_policy *p)
{
	free(p->name);
	rb_cfg_strv_free(p->bases, p->n_bases);
	rb_cfg_strv_free(p->skip_authors, p->n_skip_authors);
	rb_cfg_strv_free(p->checkpatch_ignore, p->n_checkpatch_ignore);
	free(p->build_config);
	rb_cfg_strv_free(p->build_options, p->n_build_options);
	rb_cfg_strv_free(p->rule_names, p->n_rules);
	free(p->rule_on);
	free(p->blocking_text);
	free(p->templates_dir);
	rb_cfg_strv_free(p->cc, p->n_cc);
	rb_cfg_strv_free(p->prefix_tags, p->n_prefixes);
	free(p->prefix_modes);
	memset(p, 0, sizeof(*p));
}

int rb_cfg_strv_dup(char ***out, char **v, size_t n)
{
	char **nv;
	size_t i;

	*out = NULL;
	if (!n)
		return 0;
	nv = calloc(n, sizeof(*nv));
	if (!nv)
		return -RB_ENOMEM;
	for (i = 0; i < n; i++) {
		nv[i] = strdup(v[i]);
		if (!nv[i]) {
			rb_cfg_strv_free(nv, i);
			return -RB_ENOMEM;
		}
	}
	*out = nv;
	return 0;
}

/* A deep copy of @src named @name, into @dst (released by the caller). */
static int str_dup(char **out, const char *s)
{
	*out = s ? strdup(s) : NULL;
	return s && !*out ? -RB_ENOMEM : 0;
}

static int policy_copy(struct rb_policy *dst, const struct rb_policy *src,
		       const char *name)
{
	int ret;

	*dst = *src;
	dst->name = dst->blocking_text = dst->templates_dir = NULL;
	dst->bases = dst->skip_authors = dst->checkpatch_ignore = NULL;
	dst->rule_names = dst->cc = dst->prefix_tags = NULL;
	dst->rule_on = NULL;
	dst->prefix_modes = NULL;
	dst->n_bases = dst->n_skip_authors = dst->n_checkpatch_ignore = 0;
	dst->n_rules = dst->n_cc = dst->n_prefixes = 0;
	dst->build_config = NULL;
	dst->build_options = NULL;
	dst->n_build_options = 0;
	ret = str_dup(&dst->name, name);
	if (!ret)
		ret = str_dup(&dst->build_config, src->build_config);
	if (!ret) {
		ret = rb_cfg_strv_dup(&dst->build_options, src->build_options,
				      src->n_build_options);
		dst->n_build_options = ret ? 0 : src->n_build_options;
	}
	if (!ret)
		ret = str_dup(&dst->blocking_text, src->blocking_text);
	if (!ret)
		ret = str_dup(&dst->templates_dir, src->templates_dir);
	if (!ret) {
		ret = rb_cfg_strv_dup(&dst->bases, src->bases, src->n_bases);
		dst->n_bases = ret ? 0 : src->n_bases;
	}
	if (!ret) {
		ret = rb_cfg_strv_dup(&dst->skip_authors, src->skip_authors,
				      src->n_skip_authors);
		dst->n_skip_authors = ret ? 0 : src->n_skip_authors;
	}
	if (!ret) {
		ret = rb_cfg_strv_dup(&dst->checkpatch_ignore,
				      src->checkpatch_ignore,
				      src->n_checkpatch_ignore);
		dst->n_checkpatch_ignore = ret ? 0 : src->n_checkpatch_ignore;
	}
	if (!ret) {
		ret = rb_cfg_strv_dup(&dst->cc, src->cc, src->n_cc);
		dst->n_cc = ret ? 0 : src->n_cc;
	}
	if (!ret && src->n_prefixes) {
		ret = rb_cfg_strv_dup(&dst->prefix_tags, src->prefix_tags,
				      src->n_prefixes);
		dst->prefix_modes = ret ? NULL :
					  calloc(src->n_prefixes,
						 sizeof(*dst->prefix_modes));
		if (!ret && !dst->prefix_modes)
			ret = -RB_ENOMEM;
		if (!ret) {
			memcpy(dst->prefix_modes, src->prefix_modes,
			       src->n_prefixes * sizeof(*dst->prefix_modes));
			dst->n_prefixes = src->n_prefixes;
		}
	}
	if (!ret && src->n_rules) {
		ret = rb_cfg_strv_dup(&dst->rule_names, src->rule_names,
				      src->n_rules);
		dst->rule_on = ret ? NULL : calloc(src->n_rules, sizeof(bool));
		if (!ret && !dst->rule_on)
			ret = -RB_ENOMEM;
		if (!ret) {
			memcpy(dst->rule_on, src->rule_on,
			       src->n_rules * sizeof(bool));
			dst->n_rules = src->n_rules;
		}
	}
	if (ret)
		rb_cfg_policy_release(dst);
	return ret;
}

/* "<list.id>" without the brackets, as List-Id: writes it. */
const char *rb_cfg_strip_list_id(const char *name, char *tmp, size_t size)
{
	size_t len = strlen(name);

	if (len > 2 && name[0] == '<' && name[len - 1] == '>' && len < size) {
		memcpy(tmp, name + 1, len - 2);
		tmp[len - 2] = '\0';
		return tmp;
	}
	return name;
}

static bool posting_address(struct ctx *c, yaml_node_t *n, const char *t,
			    size_t len, const char *where);

static void policy_subsystems(struct ctx *c, yaml_node_t *v, void *obj)
{
	struct rb_config *cfg = c->cfg;
	yaml_node_pair_t *p;

	if (rb_cfg_is_null(v))
		return;
	if (v->type != YAML_MAPPING_NODE) {
		rb_cfg_cerr(c, v,
			    "expected a mapping of subsystem names, got %s",
			    rb_cfg_kind_name(v));
		return;
	}
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = rb_cfg_node(c, p->key),
			    *vn = rb_cfg_node(c, p->value);
		struct rb_policy *np, pol;
		const char *name;
		char tmp[256];
		size_t i, old;

		if (!kn || !vn || !rb_cfg_visit(c, kn))
			return;
		if (kn->type != YAML_SCALAR_NODE) {
			rb_cfg_cerr(c, kn,
				    "a subsystem name must be a string, not %s",
				    rb_cfg_kind_name(kn));
			continue;
		}
		old = rb_cfg_path_key(c, (const char *)kn->data.scalar.value);
		name = rb_cfg_text(c, kn, "a subsystem name", false);
		if (name)
			name = rb_cfg_strip_list_id(name, tmp, sizeof(tmp));
		if (!name || !*name) {
			if (name)
				rb_cfg_cerr(c, kn, "a subsystem name is empty");
			rb_cfg_path_pop(c, old);
			continue;
		}
		/* A MAINTAINERS section name holds no '@'; a List-Id neither. */
		if (!strpbrk(name, " \t") &&
		    posting_address(c, kn, name, strlen(name),
				    "policies for a list")) {
			rb_cfg_path_pop(c, old);
			continue;
		}
		for (i = 0; i < cfg->n_policies; i++)
			if (!strcasecmp(cfg->policies[i].name, name))
				break;
		if (i < cfg->n_policies || !strcasecmp(name, "default")) {
			rb_cfg_cerr(c, kn, "subsystem '%s' is defined twice",
				    name);
			rb_cfg_path_pop(c, old);
			continue;
		}
		if (policy_copy(&pol, &cfg->policy_default, name)) {
			c->oom = true;
			rb_cfg_path_pop(c, old);
			return;
		}
		rb_cfg_walk_map(c, vn, policy_keys, ARRAY_SIZE(policy_keys),
				&pol, policy_check);
		pol.pos = rb_cfg_pos_of(kn);
		np = realloc(cfg->policies,
			     (cfg->n_policies + 1) * sizeof(*np));
		if (!np) {
			rb_cfg_policy_release(&pol);
			c->oom = true;
			rb_cfg_path_pop(c, old);
			return;
		}
		np[cfg->n_policies++] = pol;
		cfg->policies = np;
		rb_cfg_path_pop(c, old);
	}
}

static void policy_resolve(struct ctx *c, yaml_node_t *v, void *obj)
{
	const char *t = rb_cfg_text(c, v, "home or strictest", false);
	char tmp[40];

	if (!t)
		return;
	if (!strcmp(t, "home") || !strcmp(t, "strictest")) {
		c->cfg->policy_strictest = !strcmp(t, "strictest");
		return;
	}
	rb_cfg_cerr(c, v,
		    "'%s' is not a way to resolve a policy; home or strictest",
		    rb_cfg_shown(tmp, sizeof(tmp), t));
}

static const struct key policy_section_keys[] = {
	/* default before subsystems, which inherit from it */
	{ .name = "default",
	  .type = K_MAP,
	  .off = offsetof(struct rb_config, policy_default),
	  .sub = policy_keys,
	  .nsub = ARRAY_SIZE(policy_keys),
	  .check = policy_check },
	{ .name = "subsystems",
	  .type = K_FN,
	  .fn = policy_subsystems,
	  .store = S_COUNT,
	  .noff = offsetof(struct rb_config, n_policies) },
	KEY("resolve", K_FN, struct rb_config, policy_strictest,
	    .fn = policy_resolve, .store = S_BOOL),
	KEY("catch_all", K_STRLIST, struct rb_config, catch_all,
	    .noff = offsetof(struct rb_config, n_catch_all)),
};

/* ---- sources --------------------------------------------------------- */

const char *const rb_cfg_source_type_names[] = { "imap",    "nntp", "mbox",
						 "maildir", "eml",  "stdin",
						 NULL };

enum {
	SK_TYPE,
	SK_NAME,
	SK_URL,
	SK_USER,
	SK_PASSWORD_FILE,
	SK_MAILBOXES,
	SK_GROUPS,
	SK_PATH,
	SK_TLS_VERIFY,
	SK_STARTTLS,
	SK_CA_FILE,
	SK_POLL_SECONDS,
	SK_START,
};

/* A source while it is read: whether its type was valid. */
struct source_read {
	struct rb_source_config s; /* first: the key offsets are into it */
	bool type_ok;
};

static void source_type(struct ctx *c, yaml_node_t *v, void *obj)
{
	struct source_read *r = obj;
	int i = rb_cfg_pick(c, v, rb_cfg_source_type_names);

	if (i >= 0) {
		r->s.type = (enum rb_source_type)i;
		r->type_ok = true;
	}
}

static void source_start(struct ctx *c, yaml_node_t *v, void *obj)
{
	static const char *const names[] = { "new", "all", NULL };
	struct source_read *r = obj;
	int i = rb_cfg_pick(c, v, names);

	if (i >= 0)
		r->s.start_all = i == 1;
}

static const struct key source_keys[] = {
	[SK_TYPE] = { .name = "type", .type = K_FN, .fn = source_type },
	[SK_NAME] = KEY("name", K_STR, struct rb_source_config, name),
	[SK_URL] = KEY("url", K_STR, struct rb_source_config, url),
	[SK_USER] = KEY("user", K_STR, struct rb_source_config, user),
	[SK_PASSWORD_FILE] = KEY("password_file", K_SECRET_FILE,
				 struct rb_source_config, password),
	[SK_MAILBOXES] =
		KEY("mailboxes", K_STRLIST, struct rb_source_config, mailboxes,
		    .noff = offsetof(struct rb_source_config, n_mailboxes)),
	[SK_GROUPS] = KEY("groups", K_STRLIST, struct rb_source_config, groups,
			  .noff = offsetof(struct rb_source_config, n_groups)),
	[SK_PATH] = KEY("path", K_PATH, struct rb_source_config, path),
	[SK_TLS_VERIFY] =
		KEY("tls_verify", K_BOOL, struct rb_source_config, tls_verify),
	[SK_STARTTLS] =
		KEY("starttls", K_STARTTLS, struct rb_source_config, starttls),
	[SK_CA_FILE] = KEY("ca_file", K_FILE, struct rb_source_config, ca_file),
	[SK_POLL_SECONDS] = KEY("poll_seconds", K_INT, struct rb_source_config,
				poll_seconds, .min = 10, .max = 86400),
	[SK_START] = { .name = "start", .type = K_FN, .fn = source_start },
};

#define B(k) (1u << (k))
#define NET_KEYS                                                   \
	(B(SK_TYPE) | B(SK_NAME) | B(SK_URL) | B(SK_USER) |        \
	 B(SK_PASSWORD_FILE) | B(SK_TLS_VERIFY) | B(SK_STARTTLS) | \
	 B(SK_CA_FILE) | B(SK_POLL_SECONDS))
#define FILE_KEYS (B(SK_TYPE) | B(SK_NAME) | B(SK_PATH) | B(SK_POLL_SECONDS))

/* Which keys each source type uses. */
static const unsigned int source_allowed[] = {
	[RB_SRC_IMAP] = NET_KEYS | B(SK_MAILBOXES),
	[RB_SRC_NNTP] = NET_KEYS | B(SK_GROUPS) | B(SK_START),
	[RB_SRC_MBOX] = FILE_KEYS,
	[RB_SRC_MAILDIR] = FILE_KEYS,
	[RB_SRC_EML] = FILE_KEYS,
	[RB_SRC_STDIN] = B(SK_TYPE) | B(SK_NAME),
};

static void source_check(struct ctx *c, yaml_node_t *map, void *obj,
			 yaml_node_t *const *seen)
{
	static const char *const imap_schemes[] = { "imap", "imaps", NULL };
	static const char *const nntp_schemes[] = { "nntp", "nntps", NULL };
	struct source_read *r = obj;
	struct rb_source_config *s = &r->s;
	const char *tn;
	size_t i, old;

	s->pos = rb_cfg_pos_of(map);
	s->path_pos = rb_cfg_pos_of(seen[SK_PATH]);
	if (!seen[SK_TYPE]) {
		rb_cfg_cerr(
			c, map,
			"missing key 'type' (imap, nntp, mbox, maildir, eml or "
			"stdin)");
		return;
	}
	if (!r->type_ok) /* the type itself was bad: already reported */
		return;
	tn = rb_cfg_source_type_names[s->type];
	for (i = 0; i < ARRAY_SIZE(source_keys); i++) {
		if (!seen[i] || (source_allowed[s->type] & B(i)))
			continue;
		old = rb_cfg_path_key(c, source_keys[i].name);
		rb_cfg_cerr(c, seen[i], "not used by a source of type %s", tn);
		rb_cfg_path_pop(c, old);
	}
	if (s->type == RB_SRC_IMAP || s->type == RB_SRC_NNTP) {
		if (!seen[SK_URL])
			rb_cfg_cerr(c, map,
				    "missing key 'url' (needed by type %s)",
				    tn);
		else if (s->url) {
			old = rb_cfg_path_key(c, "url");
			if (!rb_cfg_url_check(c, seen[SK_URL], s->url,
					      s->type == RB_SRC_IMAP ?
						      imap_schemes :
						      nntp_schemes))
				rb_cfg_replace(&s->url, NULL);
			rb_cfg_path_pop(c, old);
		}
	}
	if (s->type == RB_SRC_IMAP) {
		if (!seen[SK_USER])
			rb_cfg_cerr(c, map,
				    "missing key 'user' (needed by type imap)");
		if (!seen[SK_PASSWORD_FILE])
			rb_cfg_cerr(
				c, map,
				"missing key 'password_file' (needed by type "
				"imap)");
		if (!s->n_mailboxes &&
		    rb_cfg_strv_push(&s->mailboxes, &s->n_mailboxes,
				     strdup("INBOX")))
			c->oom = true;
	}
	if (s->type == RB_SRC_NNTP) {
		if (!seen[SK_GROUPS] || !s->n_groups)
			rb_cfg_cerr(
				c, map,
				"missing key 'groups' (needed by type nntp)");
		if (!seen[SK_USER] != !seen[SK_PASSWORD_FILE])
			rb_cfg_cerr(
				c, map,
				"user and password_file go together (or neither, "
				"for an anonymous server)");
	}
	if (s->type == RB_SRC_MBOX || s->type == RB_SRC_MAILDIR ||
	    s->type == RB_SRC_EML) {
		if (!seen[SK_PATH])
			rb_cfg_cerr(c, map,
				    "missing key 'path' (needed by type %s)",
				    tn);
	}
}

/* A list of maps that have a name each: sources[] and trees[]. */
struct named_list {
	const char *what; /* " of sources", for "expected a list of sources" */
	const char *noun; /* "source", for "the source name 'x' is used twice" */
	size_t size; /* of one element */
	size_t name_off; /* where its char *name is */
	/* Reads item @i, the map @n, into @elem; returns its name or NULL. */
	const char *(*item)(struct ctx *c, yaml_node_t *n, size_t i,
			    void *elem);
};

/*
 * Appends each item of the list @v to the array at @vp (a pointer to the
 * array's pointer) of *@np elements, and reports a name used twice at
 * the item that repeats it.
 */
static void read_named_list(struct ctx *c, yaml_node_t *v, void *vp, size_t *np,
			    const struct named_list *l)
{
	yaml_node_item_t *it;
	size_t i = 0, j, old;
	char *arr;

	if (rb_cfg_is_null(v))
		return;
	if (!rb_cfg_is_list(c, v, l->what))
		return;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++, i++) {
		yaml_node_t *n = rb_cfg_node(c, *it);
		const char *name, *other;

		if (!n)
			return;
		memcpy(&arr, vp, sizeof(arr));
		arr = realloc(arr, (*np + 1) * l->size);
		if (!arr) {
			c->oom = true;
			return;
		}
		memcpy(vp, &arr, sizeof(arr));
		old = rb_cfg_path_index(c, i);
		name = l->item(c, n, i, arr + *np * l->size);
		for (j = 0; name && j < *np; j++) {
			memcpy(&other, arr + j * l->size + l->name_off,
			       sizeof(other));
			if (other && !strcmp(other, name)) {
				rb_cfg_cerr(c, n,
					    "the %s name '%s' is used twice",
					    l->noun, name);
				break;
			}
		}
		(*np)++;
		rb_cfg_path_pop(c, old);
		if (c->over_budget)
			return;
	}
}

void rb_cfg_source_release(struct rb_source_config *s)
{
	free(s->name);
	free(s->url);
	free(s->user);
	rb_free_secret(s->password);
	rb_cfg_strv_free(s->mailboxes, s->n_mailboxes);
	rb_cfg_strv_free(s->groups, s->n_groups);
	free(s->path);
	free(s->ca_file);
}

/* sources[i]: a map, with its defaults and a name made up if it has none. */
static const char *source_item(struct ctx *c, yaml_node_t *n, size_t i,
			       void *elem)
{
	struct rb_source_config *s = elem;
	struct source_read r = { .s = {
					 .type = RB_SRC_STDIN,
					 .tls_verify = true,
					 .starttls = true,
					 .poll_seconds = 300,
				 } };

	rb_cfg_walk_map(c, n, source_keys, ARRAY_SIZE(source_keys), &r,
			source_check);
	if (!r.s.name) {
		char tmp[32];

		snprintf(tmp, sizeof(tmp), "%s%zu",
			 rb_cfg_source_type_names[r.s.type], i);
		r.s.name = rb_cfg_xstrdup(c, tmp);
	}
	*s = r.s;
	return s->name;
}

static void read_sources(struct ctx *c, yaml_node_t *v, void *obj)
{
	static const struct named_list sources = {
		" of sources", "source", sizeof(struct rb_source_config),
		offsetof(struct rb_source_config, name), source_item
	};

	read_named_list(c, v, &c->cfg->sources, &c->cfg->n_sources, &sources);
}

/* ---- trees ----------------------------------------------------------- */

static const struct key tree_keys[] = {
	KEY("name", K_STR, struct rb_tree_config, name),
	KEY("path", K_PATH, struct rb_tree_config, path),
	KEY("url", K_STR, struct rb_tree_config, url),
	KEY("branch", K_STR, struct rb_tree_config, branch),
	KEY("fetch_minutes", K_INT, struct rb_tree_config, fetch_minutes,
	    .min = 0, .max = 7 * 24 * 60),
	KEY("fetch_timeout_seconds", K_INT, struct rb_tree_config,
	    fetch_timeout_seconds, .min = 1, .max = 3600),
};

static void tree_check(struct ctx *c, yaml_node_t *map, void *obj,
		       yaml_node_t *const *seen)
{
	struct rb_tree_config *t = obj;
	char tmp[80];
	size_t old;

	t->pos = rb_cfg_pos_of(map);
	t->path_pos = rb_cfg_pos_of(seen[1]);
	t->branch_pos = rb_cfg_pos_of(seen[3]);
	if (!seen[0])
		rb_cfg_cerr(c, map, "missing key 'name'");
	else if (t->name && !rb_cfg_name_ok(t->name)) {
		old = rb_cfg_path_key(c, "name");
		rb_cfg_cerr(
			c, seen[0],
			"'%s' is not a tree name (letters, digits, '.', '_', "
			"'-', '/', '+')",
			rb_cfg_shown(tmp, sizeof(tmp), t->name));
		rb_cfg_path_pop(c, old);
		rb_cfg_replace(&t->name, NULL);
	}
	if (!seen[1])
		rb_cfg_cerr(c, map,
			    "missing key 'path' (a local git repository)");
	if (t->branch && (t->branch[0] == '-' || strchr(t->branch, ' '))) {
		old = rb_cfg_path_key(c, "branch");
		rb_cfg_cerr(c, seen[3], "'%s' is not a ref name",
			    rb_cfg_shown(tmp, sizeof(tmp), t->branch));
		rb_cfg_path_pop(c, old);
	}
}

void rb_cfg_tree_release(struct rb_tree_config *t)
{
	free(t->name);
	free(t->path);
	free(t->url);
	free(t->branch);
}

/* trees[i]: a map; the branch is HEAD unless it says. */
static const char *tree_item(struct ctx *c, yaml_node_t *n, size_t i,
			     void *elem)
{
	struct rb_tree_config *t = elem;

	(void)i;
	*t = (struct rb_tree_config){ .fetch_minutes = 60,
				      .fetch_timeout_seconds = 300 };
	rb_cfg_walk_map(c, n, tree_keys, ARRAY_SIZE(tree_keys), t, tree_check);
	if (!t->branch)
		t->branch = rb_cfg_xstrdup(c, "HEAD");
	return t->name;
}

static void read_trees(struct ctx *c, yaml_node_t *v, void *obj)
{
	static const struct named_list trees = {
		" of trees", "tree", sizeof(struct rb_tree_config),
		offsetof(struct rb_tree_config, name), tree_item
	};

	read_named_list(c, v, &c->cfg->trees, &c->cfg->n_trees, &trees);
}

/* ---- the other sections ---------------------------------------------- */

static void store_url(struct ctx *c, yaml_node_t *v, void *obj)
{
	static const char *const pg[] = { "postgresql", "postgres", NULL };
	const char *t;

	if (rb_cfg_is_null(v))
		return;
	t = rb_cfg_text(c, v, "a URL", false);
	if (t && rb_cfg_url_check(c, v, t, pg))
		rb_cfg_replace(&c->cfg->store_url, rb_cfg_xstrdup(c, t));
}

static const struct key store_keys[] = {
	KEY("path", K_PATH, struct rb_config, store_path),
	KEY("url", K_FN, struct rb_config, store_url, .fn = store_url,
	    .store = S_STR),
};

static void smtp_from(struct ctx *c, yaml_node_t *v, void *obj)
{
	const char *t;
	char tmp[80];

	if (rb_cfg_is_null(v))
		return;
	t = rb_cfg_text(c, v, "an address", false);
	if (!t)
		return;
	if (!rb_cfg_from_ok(t)) {
		rb_cfg_cerr(c, v,
			    "'%s' is not an address ('Name <user@domain>' or "
			    "'user@domain')",
			    rb_cfg_shown(tmp, sizeof(tmp), t));
		return;
	}
	rb_cfg_replace(&c->cfg->smtp_from, rb_cfg_xstrdup(c, t));
}

static const char *const smtp_schemes[] = { "smtp", "smtps", NULL };

/* starttls: required or off, as a source's, into the sender's enum. */
static void smtp_starttls(struct ctx *c, yaml_node_t *v, void *obj)
{
	static const char *const st[] = { "off", "required", NULL };
	int i;

	(void)obj;
	if (rb_cfg_is_null(v))
		return;
	i = rb_cfg_pick(c, v, st);
	if (i >= 0)
		c->cfg->smtp.starttls = i ? RB_STARTTLS_REQUIRED :
					    RB_STARTTLS_OFF;
}

enum { MK_URL, MK_FROM, MK_USER, MK_PASSWORD_FILE };

static const struct key smtp_keys[] = {
	[MK_URL] = KEY("url", K_URL, struct rb_config, smtp.url,
		       .aux = smtp_schemes),
	[MK_FROM] = KEY("from", K_FN, struct rb_config, smtp_from,
			.fn = smtp_from, .store = S_STR),
	[MK_USER] = KEY("user", K_STR, struct rb_config, smtp.user),
	[MK_PASSWORD_FILE] = KEY("password_file", K_SECRET_FILE,
				 struct rb_config, smtp.password),
	KEY("starttls", K_FN, struct rb_config, smtp.starttls,
	    .fn = smtp_starttls, .store = S_INT),
	KEY("ca_file", K_FILE, struct rb_config, smtp.ca_file),
};

static void smtp_check(struct ctx *c, yaml_node_t *map, void *obj,
		       yaml_node_t *const *seen)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(smtp_keys); i++)
		if (seen[i])
			break;
	if (i == ARRAY_SIZE(smtp_keys))
		return;
	if (!seen[MK_URL])
		rb_cfg_cerr(
			c, map,
			"missing key 'url' (or remove smtp to write replies to "
			"outbox.maildir)");
	if (!seen[MK_USER] != !seen[MK_PASSWORD_FILE])
		rb_cfg_cerr(
			c, map,
			"user and password_file go together (or neither, for a "
			"relay that needs no login)");
}

static const struct key outbox_keys[] = {
	KEY("maildir", K_PATH, struct rb_config, outbox_maildir),
	KEY("kill_switch_file", K_PATH, struct rb_config, kill_switch_file),
	KEY("rate_per_hour", K_INT, struct rb_config, rate_per_hour, .min = 1,
	    .max = 100000),
	KEY("rate_per_recipient_hour", K_INT, struct rb_config,
	    rate_per_recipient_hour, .min = 1, .max = 10000),
	KEY("rate_per_list_hour", K_INT, struct rb_config, rate_per_list_hour,
	    .min = 1, .max = 100000),
	KEY("max_recipients", K_INT, struct rb_config, max_recipients, .min = 1,
	    .max = 1000),
	KEY("max_lists", K_INT, struct rb_config, max_lists, .min = 1,
	    .max = 100),
};

enum { TK_ENABLED };

static const struct key tools_keys[] = {
	[TK_ENABLED] =
		KEY("enabled", K_BOOL, struct rb_model_tools_config, enabled),
	KEY("max_calls", K_INT, struct rb_model_tools_config, max_calls,
	    .min = 1, .max = 1000),
	KEY("max_bytes", K_INT, struct rb_model_tools_config, max_bytes,
	    .min = 1024, .max = 64 << 20),
	KEY("verifier_calls", K_INT, struct rb_model_tools_config,
	    verifier_calls, .min = 1, .max = 1000),
	KEY("verifier_bytes", K_INT, struct rb_model_tools_config,
	    verifier_bytes, .min = 1024, .max = 64 << 20),
	KEY("series_calls", K_INT, struct rb_model_tools_config, series_calls,
	    .min = 1, .max = 100000),
	KEY("series_bytes", K_INT, struct rb_model_tools_config, series_bytes,
	    .min = 1024, .max = 1 << 30),
	KEY("max_result", K_INT, struct rb_model_tools_config, max_result,
	    .min = 256, .max = 1 << 20),
	KEY("max_seconds", K_INT, struct rb_model_tools_config, max_seconds,
	    .min = 1, .max = 3600),
	KEY("max_rounds", K_INT, struct rb_model_tools_config, max_rounds,
	    .min = 1, .max = 64),
	KEY("max_tokens", K_INT, struct rb_model_tools_config, max_tokens,
	    .min = 0, .max = 100000000),
};

/* Whether enabled was said: model_check() picks the default otherwise. */
static void tools_check(struct ctx *c, yaml_node_t *map, void *obj,
			yaml_node_t *const *seen)
{
	struct rb_model_tools_config *t = obj;

	(void)c;
	(void)map;
	t->enabled_set = seen[TK_ENABLED] != NULL;
}

static const char *const provider_names[] = { "openai", "anthropic", "command",
					      "none", NULL };
static const char *const tokens_field_names[] = { "max_tokens",
						  "max_completion_tokens",
						  NULL };
static const char *const http_schemes[] = { "http", "https", NULL };

enum { OK_PROVIDER, OK_URL, OK_NAME, OK_KEY_ENV, OK_KEY_FILE, OK_COMMAND };

/* One of the finder's focuses (review/model/model.h). */
static char *focus_item(struct ctx *c, yaml_node_t *n, const char *t)
{
	char tmp[80];
	char *r;

	if (!rb_model_focus_known(t)) {
		rb_cfg_cerr(
			c, n,
			"'%s' is not a focus (correctness, locking, memory, "
			"api, claims)",
			rb_cfg_shown(tmp, sizeof(tmp), t));
		return NULL;
	}
	r = strdup(t);
	if (!r)
		c->oom = true;
	return r;
}

/* blind_focuses: [correctness, memory], into the model's bits; null or
 * [] for none. */
static void model_blind_focuses(struct ctx *c, yaml_node_t *v, void *obj)
{
	struct rb_model_config *m = obj;

	rb_cfg_set_bits(c, v, &m->opts.blind_focuses, rb_model_focus_index,
			"a focus (correctness, locking, memory, api, claims)");
}

/* model.*: the model's options in place (struct rb_model_opts). */
static const struct key model_keys[] = {
	[OK_PROVIDER] = KEY("provider", K_CHOICE, struct rb_model_config,
			    opts.provider, .aux = provider_names),
	[OK_URL] = KEY("url", K_URL, struct rb_model_config, opts.url,
		       .aux = http_schemes),
	[OK_NAME] = KEY("name", K_STR, struct rb_model_config, opts.name),
	[OK_KEY_ENV] = KEY("api_key_env", K_SECRET_ENV, struct rb_model_config,
			   opts.api_key),
	[OK_KEY_FILE] = KEY("api_key_file", K_SECRET_FILE,
			    struct rb_model_config, opts.api_key),
	[OK_COMMAND] =
		KEY("command", K_STR, struct rb_model_config, opts.command),
	{ .name = "tools",
	  .type = K_MAP,
	  .off = offsetof(struct rb_model_config, tools),
	  .sub = tools_keys,
	  .nsub = ARRAY_SIZE(tools_keys),
	  .check = tools_check },
	KEY("max_tokens_field", K_CHOICE, struct rb_model_config,
	    opts.max_tokens_field, .aux = tokens_field_names),
	KEY("max_tokens", K_INT, struct rb_model_config, opts.max_tokens,
	    .min = 1, .max = 1000000),
	KEY("timeout_seconds", K_INT, struct rb_model_config,
	    opts.timeout_seconds, .min = 1, .max = 3600),
	KEY("concurrency", K_INT, struct rb_model_config, opts.concurrency,
	    .min = 1, .max = 64),
	KEY("max_retries", K_INT, struct rb_model_config, opts.max_retries,
	    .min = 0, .max = 20),
	KEY("cost_per_mtok_in", K_DOUBLE, struct rb_model_config,
	    opts.cost_per_mtok_in, .min = 0, .max = 1000000),
	KEY("cost_per_mtok_out", K_DOUBLE, struct rb_model_config,
	    opts.cost_per_mtok_out, .min = 0, .max = 1000000),
	KEY("keep_uncertain", K_BOOL, struct rb_model_config,
	    opts.keep_uncertain),
	KEY("max_findings", K_INT, struct rb_model_config, opts.max_findings,
	    .min = 0, .max = 50),
	KEY("max_words", K_INT, struct rb_model_config, opts.max_words,
	    .min = 10, .max = 10000),
	KEY("prompt_tokens", K_INT, struct rb_model_config, opts.prompt_tokens,
	    .min = 1000, .max = 1000000),
	KEY("prefetch_bytes", K_SIZE, struct rb_model_config,
	    opts.prefetch_bytes, .min = 0, .max = 4 << 20),
	KEY("focuses", K_STRLIST, struct rb_model_config, focuses,
	    .noff = offsetof(struct rb_model_config, n_focuses),
	    .item = focus_item),
	KEY("blind_focuses", K_FN, struct rb_model_config, opts.blind_focuses,
	    .fn = model_blind_focuses, .store = S_UINT),
	KEY("focus_planner", K_BOOL, struct rb_model_config,
	    opts.focus_planner),
	KEY("prompt_cache", K_BOOL, struct rb_model_config, opts.prompt_cache),
	KEY("index_dir", K_PATH, struct rb_model_config, index_dir),
};

static void model_check(struct ctx *c, yaml_node_t *map, void *obj,
			yaml_node_t *const *seen)
{
	struct rb_model_config *m = obj;
	const char *p = m->opts.provider;

	/*
	 * Tools are on by default where the provider speaks tool calling
	 * natively; a command's program gets the JSON protocol only when the
	 * config says so, since an older program expects the plain prompt.
	 */
	if (!m->tools.enabled_set)
		m->tools.enabled =
			p && (!strcmp(p, "openai") || !strcmp(p, "anthropic"));
	if (seen[OK_KEY_ENV] && seen[OK_KEY_FILE]) {
		size_t old = rb_cfg_path_key(c, "api_key_file");

		rb_cfg_cerr(c, seen[OK_KEY_FILE],
			    "set api_key_env or api_key_file, not both");
		rb_cfg_path_pop(c, old);
	}
	if (!p)
		return;
	if (!strcmp(p, "openai") || !strcmp(p, "anthropic")) {
		if (!seen[OK_URL])
			rb_cfg_cerr(c, map,
				    "missing key 'url' (needed by provider %s)",
				    p);
		if (!seen[OK_NAME])
			rb_cfg_cerr(
				c, map,
				"missing key 'name' (needed by provider %s)",
				p);
	} else if (!strcmp(p, "command") && !seen[OK_COMMAND]) {
		rb_cfg_cerr(
			c, map,
			"missing key 'command' (needed by provider command)");
	}
}

static void http_listen(struct ctx *c, yaml_node_t *v, void *obj)
{
	const char *t, *colon;
	char tmp[80];
	long port;

	if (rb_cfg_is_null(v)) {
		rb_cfg_replace(&c->cfg->http_listen, NULL);
		return;
	}
	t = rb_cfg_text(c, v, "host:port", false);
	if (!t)
		return;
	if (!strcmp(t, "off")) {
		rb_cfg_replace(&c->cfg->http_listen, NULL);
		return;
	}
	colon = strrchr(t, ':');
	if (!colon || colon == t || !rb_cfg_parse_long(colon + 1, &port) ||
	    port < 1 || port > 65535 || strchr(t, ' ') ||
	    (t[0] == '[' && colon[-1] != ']')) {
		rb_cfg_cerr(c, v,
			    "'%s' is not host:port (like 127.0.0.1:8080 or "
			    "[::1]:8080), or off",
			    rb_cfg_shown(tmp, sizeof(tmp), t));
		return;
	}
	rb_cfg_replace(&c->cfg->http_listen, rb_cfg_xstrdup(c, t));
}

/* A size in bytes, or with K, M, G, into *@out when in @lo..@hi. */
static void set_size(struct ctx *c, yaml_node_t *v, size_t *out,
		     unsigned long long lo, unsigned long long hi,
		     const char *range)
{
	const char *t;
	char tmp[40], *end;
	unsigned long long n, mul = 1;

	if (rb_cfg_is_null(v))
		return;
	t = rb_cfg_text(c, v, "a size", false);
	if (!t)
		return;
	errno = 0;
	n = strtoull(t, &end, 10);
	if (!isdigit((unsigned char)*t) || errno)
		goto bad;
	if (!strcasecmp(end, "k") || !strcasecmp(end, "kib"))
		mul = 1ull << 10;
	else if (!strcasecmp(end, "m") || !strcasecmp(end, "mib"))
		mul = 1ull << 20;
	else if (!strcasecmp(end, "g") || !strcasecmp(end, "gib"))
		mul = 1ull << 30;
	else if (*end)
		goto bad;
	if (n > hi / mul || n * mul < lo) {
		rb_cfg_cerr(c, v, "'%s' is out of range (%s)",
			    rb_cfg_shown(tmp, sizeof(tmp), t), range);
		return;
	}
	*out = (size_t)(n * mul);
	return;
bad:
	rb_cfg_cerr(c, v,
		    "expected a size in bytes (like 33554432, 32M or 512K), "
		    "got '%s'",
		    rb_cfg_shown(tmp, sizeof(tmp), t));
}

/*
 * A list's posting address ("linux-mm@kvack.org") where its List-Id
 * belongs ("linux-mm.kvack.org"): a List-Id never holds '@', so such an
 * entry matches no mail, and every message would be dropped. Reports it
 * with the List-Id it probably means (the '@' made a '.', as vger and
 * kvack.org write their List-Id) and returns true.
 */
static bool posting_address(struct ctx *c, yaml_node_t *n, const char *t,
			    size_t len, const char *where)
{
	const char *at = memchr(t, '@', len);
	char tmp[80], id[256];

	if (!at)
		return false;
	if (len < sizeof(id) && at > t && at + 1 < t + len &&
	    !memchr(at + 1, '@', (size_t)(t + len - at - 1))) {
		memcpy(id, t, len);
		id[len] = '\0';
		id[at - t] = '.';
		rb_cfg_cerr(
			c, n,
			"'%s' is a posting address, not a List-Id: %s are matched "
			"against the List-Id header, which never holds '@' (did "
			"you mean '%s'?)",
			rb_cfg_shown(tmp, sizeof(tmp), t), where, id);
	} else {
		rb_cfg_cerr(c, n,
			    "'%s' is not a List-Id: %s are matched against the "
			    "List-Id header (like linux-mm.kvack.org)",
			    rb_cfg_shown(tmp, sizeof(tmp), t), where);
	}
	return true;
}

static void max_message_size(struct ctx *c, yaml_node_t *v, void *obj)
{
	set_size(c, v, &c->cfg->max_message_size, 1024, 1ull << 30, "1K to 1G");
}

/* limits.apply_seconds: above 0, at most an hour (tests use 0.1). */
static void apply_seconds(struct ctx *c, yaml_node_t *v, void *obj)
{
	double d = -1;

	rb_cfg_set_double(c, v, &d, 0, 3600);
	if (d == 0)
		rb_cfg_cerr(c, v, "0 is out of range (above 0, to 3600)");
	else if (d > 0)
		c->cfg->apply_seconds = d;
}

static void max_apply_bytes(struct ctx *c, yaml_node_t *v, void *obj)
{
	set_size(c, v, &c->cfg->max_apply_bytes, 1ull << 20, 64ull << 30,
		 "1M to 64G");
}

static char *list_id_item(struct ctx *c, yaml_node_t *n, const char *t)
{
	size_t len = strlen(t);
	const char *s;
	char tmp[80], *r;

	/* Stored without the angle brackets that List-Id: puts around it. */
	if (t[0] == '<' && len > 2 && t[len - 1] == '>') {
		t++;
		len -= 2;
	}
	for (s = t; s < t + len; s++)
		if ((unsigned char)*s <= 0x20 || strchr("<>\"", *s))
			break;
	if (s == t + len && posting_address(c, n, t, len, "list_ids"))
		return NULL;
	if (s < t + len || !memchr(t, '.', len)) {
		rb_cfg_cerr(c, n,
			    "'%s' is not a list id (like linux-mm.kvack.org)",
			    rb_cfg_shown(tmp, sizeof(tmp), t));
		return NULL;
	}
	r = strndup(t, len);
	if (!r)
		c->oom = true;
	return r;
}

/*
 * people: {ljs@kernel.org: none, david@kernel.org: shadow}: what mail a
 * person asked for (issue 36). "none": left out of every mail; "shadow":
 * never on a public mail (the author's, the list's), a private copy of
 * each review instead; "all": as MAINTAINERS and the policy say.
 */
static void read_people(struct ctx *c, yaml_node_t *v, void *obj)
{
	static const char *const names[] = { "all", "shadow", "none", NULL };
	struct rb_config *cfg = c->cfg;
	yaml_node_pair_t *pr;
	size_t n, i;

	(void)obj;
	if (rb_cfg_is_null(v))
		return;
	if (v->type != YAML_MAPPING_NODE) {
		rb_cfg_cerr(
			c, v,
			"expected a mapping of addresses to all, shadow or none, "
			"got %s",
			rb_cfg_kind_name(v));
		return;
	}
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	cfg->people = calloc(n + 1, sizeof(*cfg->people));
	if (!cfg->people) {
		c->oom = true;
		return;
	}
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *kn = rb_cfg_node(c, pr->key),
			    *vn = rb_cfg_node(c, pr->value);
		const char *a;
		char tmp[80];
		size_t old;
		int m;

		if (!kn || !vn || !rb_cfg_visit(c, kn) || !rb_cfg_visit(c, vn))
			return;
		a = rb_cfg_text(c, kn, "an email address", false);
		if (!a)
			continue;
		old = rb_cfg_path_key(c, a);
		for (i = 0; i < cfg->n_people; i++)
			if (!strcasecmp(cfg->people[i].addr, a))
				break;
		if (!rb_cfg_addr_ok(a))
			rb_cfg_cerr(
				c, kn,
				"'%s' is not an email address (user@domain)",
				rb_cfg_shown(tmp, sizeof(tmp), a));
		else if (i < cfg->n_people)
			rb_cfg_cerr(c, kn, "'%s' is given twice", a);
		else if ((m = rb_cfg_pick(c, vn, names)) >= 0) {
			cfg->people[cfg->n_people].addr = rb_cfg_xstrdup(c, a);
			cfg->people[cfg->n_people++].mail =
				(enum rb_person_mail)m;
		}
		rb_cfg_path_pop(c, old);
	}
}

static const struct key http_keys[] = {
	KEY("listen", K_FN, struct rb_config, http_listen, .fn = http_listen,
	    .store = S_STR),
	KEY("thread_url", K_URL, struct rb_config, http_thread_url,
	    .aux = http_schemes),
	KEY("public", K_BOOL, struct rb_config, http_public),
};
/* retention: how long raw mail and model exchanges are kept (0: ever). */
static const struct key retention_keys[] = {
	KEY("raw_days", K_INT, struct rb_config, retention_raw_days, .min = 0,
	    .max = 36500),
	KEY("exchanges_days", K_INT, struct rb_config, retention_exchanges_days,
	    .min = 0, .max = 36500),
};
static const struct key limits_keys[] = {
	KEY("max_message_size", K_FN, struct rb_config, max_message_size,
	    .fn = max_message_size, .store = S_SIZE),
	KEY("max_apply_bytes", K_FN, struct rb_config, max_apply_bytes,
	    .fn = max_apply_bytes, .store = S_SIZE),
	KEY("max_file_lines", K_INT, struct rb_config, max_file_lines,
	    .min = 1000, .max = 1000000000),
	KEY("apply_seconds", K_FN, struct rb_config, apply_seconds,
	    .fn = apply_seconds, .store = S_DOUBLE),
	KEY("max_job_attempts", K_INT, struct rb_config, max_job_attempts,
	    .min = 1, .max = 1000),
};
/* series.fetch_url: a public-inbox inbox over HTTP(S), such as lore's
 * https://lore.kernel.org/all/ (mail/inbox.h). */
static void fetch_url(struct ctx *c, yaml_node_t *v, void *obj)
{
	const char *t;
	char tmp[80];

	if (rb_cfg_is_null(v)) {
		rb_cfg_replace(&c->cfg->fetch_url, NULL);
		return;
	}
	t = rb_cfg_text(c, v, "a URL", false);
	if (!t)
		return;
	if ((strncmp(t, "https://", 8) && strncmp(t, "http://", 7)) ||
	    strpbrk(t, " \t?#")) {
		rb_cfg_cerr(
			c, v,
			"'%s' is not an http(s) URL of a public-inbox inbox (like "
			"https://lore.kernel.org/all/)",
			rb_cfg_shown(tmp, sizeof(tmp), t));
		return;
	}
	rb_cfg_replace(&c->cfg->fetch_url, rb_cfg_xstrdup(c, t));
}

static const struct key series_keys[] = {
	KEY("incomplete_wait_minutes", K_INT, struct rb_config,
	    incomplete_wait_minutes, .min = 0, .max = 7 * 24 * 60),
	KEY("fetch_url", K_FN, struct rb_config, fetch_url, .fn = fetch_url,
	    .store = S_STR),
	KEY("fetch_timeout_seconds", K_INT, struct rb_config,
	    fetch_timeout_seconds, .min = 1, .max = 600),
	KEY("review_stable", K_BOOL, struct rb_config, review_stable),
};
static const struct key feedback_keys[] = {
	KEY("ack", K_BOOL, struct rb_config, ack_verdicts),
	KEY("prose_model", K_BOOL, struct rb_config, prose_model),
};
static const struct key review_keys[] = {
	KEY("reply_to_cover", K_BOOL, struct rb_config, reply_to_cover),
	KEY("earlier_replies", K_BOOL, struct rb_config, earlier_replies),
	KEY("apply_retry_minutes", K_INT, struct rb_config, apply_retry_minutes,
	    .min = 0, .max = 7 * 24 * 60),
	KEY("parallel_series", K_INT, struct rb_config, parallel_series,
	    .min = 1, .max = 64),
};
/* checkers.*: the runner's own options (review/checks/checks.h), in place. */
static const struct key checkers_keys[] = {
	KEY("parallel", K_INT, struct rb_check_opts, parallel, .min = 1,
	    .max = 64),
	KEY("checkpatch_strict", K_BOOL, struct rb_check_opts,
	    checkpatch_strict),
	KEY("timeout_seconds", K_INT, struct rb_check_opts, timeout_seconds,
	    .min = 10, .max = 24 * 3600),
	KEY("build_config", K_STR, struct rb_check_opts, build_config),
	KEY("build_options", K_STRLIST, struct rb_check_opts, build_options,
	    .noff = offsetof(struct rb_check_opts, n_build_options),
	    .item = kconfig_item),
	KEY("build_jobs", K_INT, struct rb_check_opts, build_jobs, .min = 1,
	    .max = 256),
	KEY("build_mem_mb", K_LONG, struct rb_check_opts, build_mem_mb,
	    .min = 256, .max = 1024 * 1024),
	KEY("build_cache_dir", K_PATH, struct rb_check_opts, build_cache_dir),
	KEY("build_each", K_BOOL, struct rb_check_opts, build_each),
	KEY("build_sparse", K_BOOL, struct rb_check_opts, build_sparse),
	KEY("series_budget_seconds", K_INT, struct rb_check_opts,
	    series_budget_seconds, .min = 0, .max = 24 * 3600),
	KEY("maintainers_fixes", K_BOOL, struct rb_check_opts, maint_fixes),
	KEY("external_command", K_STR, struct rb_check_opts, external_cmd),
	KEY("external_name", K_STR, struct rb_check_opts, external_name),
};

#define SECTION(n, keys, ...)                              \
	{                                                  \
		.name = (n), .type = K_MAP, .sub = (keys), \
		.nsub = ARRAY_SIZE(keys), __VA_ARGS__      \
	}

/* In the order they are applied: what others refer to comes first. */
const struct key rb_cfg_top_keys[] = {
	SECTION("store", store_keys),
	SECTION("limits", limits_keys),
	SECTION("http", http_keys),
	SECTION("retention", retention_keys),
	KEY("admins", K_ADDRLIST, struct rb_config, admins,
	    .noff = offsetof(struct rb_config, n_admins)),
	KEY("list_ids", K_STRLIST, struct rb_config, list_ids,
	    .noff = offsetof(struct rb_config, n_list_ids),
	    .item = list_id_item),
	KEY("known_bots", K_ADDRLIST, struct rb_config, known_bots,
	    .noff = offsetof(struct rb_config, n_known_bots)),
	{ .name = "people",
	  .type = K_FN,
	  .fn = read_people,
	  .store = S_COUNT,
	  .noff = offsetof(struct rb_config, n_people) },
	{ .name = "trees",
	  .type = K_FN,
	  .fn = read_trees,
	  .store = S_COUNT,
	  .noff = offsetof(struct rb_config, n_trees),
	  .sub = tree_keys,
	  .nsub = ARRAY_SIZE(tree_keys),
	  .list = true },
	{ .name = "sources",
	  .type = K_FN,
	  .fn = read_sources,
	  .store = S_COUNT,
	  .noff = offsetof(struct rb_config, n_sources),
	  .sub = source_keys,
	  .nsub = ARRAY_SIZE(source_keys),
	  .list = true },
	SECTION("smtp", smtp_keys, .check = smtp_check),
	SECTION("outbox", outbox_keys),
	SECTION("model", model_keys, .off = offsetof(struct rb_config, model),
		.check = model_check),
	SECTION("series", series_keys),
	SECTION("feedback", feedback_keys),
	SECTION("review", review_keys),
	SECTION("checkers", checkers_keys,
		.off = offsetof(struct rb_config, check)),
	SECTION("policy", policy_section_keys),
};
const size_t rb_cfg_n_top_keys = ARRAY_SIZE(rb_cfg_top_keys);
