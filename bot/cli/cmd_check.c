// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_check.c - "reviewbot check": applies patch mails on a revision of a
 * repository in memory (review/apply/apply.h: the repository is never written),
 * runs the chosen checkers (review/checks/checks.h) with the tools of --tools
 * (default HEAD) and prints the findings, one per line. Exit 0 when the
 * run worked, whatever it found; 1 when the series did not apply or a
 * patch could not be read; 2 for usage errors.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <git2.h>

#include "bot/cli/cli.h"
#include "mail/mbox.h"
#include "mail/message.h"
#include "review/apply/apply.h"
#include "review/checks/checks.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define MAX_INPUT (64u << 20)

struct mail {
	char *raw;
	size_t len;
	char *origin;
	struct rb_message *msg; /* NULL when it did not parse */
};

struct mails {
	struct mail *v;
	size_t n;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: reviewbot check --tree REPO [--base REV] [--tools REV] "
		"[--checkers LIST]\n"
		"                       [--json]"
		" [--strict] [--ignore TYPES] [--external CMD]\n"
		"                       [--timeout S]"
		" [--parallel N] [--build-cache DIR] [--build-config T]\n"
		"                       [--build-option NAME]... PATCH...\n\n"
		"Applies the patches (mbox or eml files, in order) on REV "
		"(default HEAD) of\n"
		"REPO, in memory (REPO is never written), and runs the "
		"checkers on the series.\n"
		"checkpatch.pl and the build's scripts/config come from "
		"--tools (default HEAD),\n"
		"never from the base, and run in the bubblewrap sandbox.\n\n"
		"  --checkers LIST   comma-separated: commit-msg, checkpatch, "
		"build, sparse,\n"
		"                    kernel-doc, coccinelle, cc-maintainers, "
		"external\n"
		"                    (default commit-msg,checkpatch; external "
		"with --external)\n"
		"  --json            one JSON finding per line (checker, "
		"version, severity,\n"
		"                    category, file, line, code, message, "
		"patch, fingerprint)\n"
		"  --strict          checkpatch --strict\n"
		"  --ignore TYPES    checkpatch types to drop, comma-separated\n"
		"  --external CMD    command given the mbox and the applied "
		"tree; prints\n"
		"                    JSON-lines findings\n"
		"  --timeout S       per-checker timeout in seconds (default "
		"600)\n"
		"  --budget S        seconds for all checkers of the series "
		"(default none)\n"
		"  --parallel N      checkers run at once (default 2)\n"
		"  --tools REV       the revision whose scripts/ are run "
		"(default HEAD)\n"
		"  --build-cache DIR where base builds are kept, a private "
		"directory (default\n"
		"                    $RB_BUILD_CACHE, else "
		"$XDG_CACHE_HOME/reviewbot/build or\n"
		"                    ~/.cache/reviewbot/build)\n"
		"  --build-config T  the config target (default defconfig)\n"
		"  --build-option N  a CONFIG_ option to enable (repeatable)\n"
		"  --no-apply        do not apply: only checkers that need no "
		"applied tree\n"
		"                    (commit-msg, checkpatch), patches in the "
		"order given\n\n"
		"Exit: 0 the checks ran (whatever they found), 1 the series "
		"did not apply or\n"
		"could not be read, 2 usage.\n");
}

static int on_mail(const char *raw, size_t len, const char *origin,
		   void *payload)
{
	struct mails *ms = payload;
	struct mail *nv, *m;

	if (!raw)
		return rb_err(RB_ETOOBIG, "%s: message too big (%zu bytes)",
			      origin, len);
	nv = realloc(ms->v, (ms->n + 1) * sizeof(*nv));
	if (!nv)
		return rb_err(RB_ENOMEM, "out of memory");
	ms->v = nv;
	m = &nv[ms->n];
	memset(m, 0, sizeof(*m));
	m->raw = malloc(len + 1);
	m->origin = strdup(origin);
	if (!m->raw || !m->origin) {
		free(m->raw);
		free(m->origin);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	memcpy(m->raw, raw, len);
	m->raw[len] = '\0';
	m->len = len;
	ms->n++;
	if (rb_message_parse(&m->msg, raw, len, NULL)) {
		rb_log(RB_LOG_WARN, "check.parse", "origin", origin, "error",
		       rb_errmsg(), NULL);
		m->msg = NULL;
		rb_err_clear();
	}
	return 0;
}

static void mails_release(struct mails *ms)
{
	size_t i;

	for (i = 0; i < ms->n; i++) {
		free(ms->v[i].raw);
		free(ms->v[i].origin);
		rb_message_free(ms->v[i].msg);
	}
	free(ms->v);
}

static bool is_cover(const struct mail *m)
{
	return m->msg && !m->msg->patch && m->msg->subject.is_patch &&
	       m->msg->subject.index == 0 && m->msg->subject.total > 0;
}

/* Patches in series order: by "n/m" when every patch says it. */
static int cmp_index(const void *a, const void *b)
{
	const struct mail *x = *(struct mail *const *)a;
	const struct mail *y = *(struct mail *const *)b;

	return x->msg->subject.index - y->msg->subject.index;
}

static char *split_list(char ***out, size_t *n, const char *s)
{
	char *copy = strdup(s), *p, *save = NULL;
	char **v;

	if (!copy)
		return NULL;
	v = calloc(strlen(s) + 1, sizeof(*v));
	if (!v) {
		free(copy);
		return NULL;
	}
	*n = 0;
	for (p = strtok_r(copy, ", ", &save); p;
	     p = strtok_r(NULL, ", ", &save))
		v[(*n)++] = p;
	*out = v;
	return copy;
}

static void print_text(const struct rb_finding *f)
{
	printf("%d %s %s/%s", f->patch_index, rb_fsev_name(f->severity),
	       f->checker, f->category);
	if (f->file)
		printf(" %s:%d", f->file, f->line);
	printf(": %s\n", f->message);
	if (f->code)
		printf("    %s\n", f->code);
}

/* What the command line asked for, and what the run holds. */
struct check_run {
	struct rb_check_opts opts;
	struct rb_check_ctx ctx;
	const char *tree, *base, *checkers, *tools;
	char *ignore_copy, **options;
	bool json, no_apply;
	struct mails ms;
	struct mail **patches; /* the patch mails, in series order if one */
	const struct mail *cover;
	size_t n;
	struct rb_check_patch *cps;
	struct rb_apply_patch *aps;
	struct rb_apply_result *ar;
	git_oid *commits; /* each patch's, from the apply */
	git_repository *repo;
};

/* The options into @r; RB_EXIT_OK, or the exit code to return. */
static int parse_args(struct check_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "base", required_argument, NULL, 'b' },
		{ "checkers", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "strict", no_argument, NULL, 's' },
		{ "ignore", required_argument, NULL, 'i' },
		{ "external", required_argument, NULL, 'e' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "budget", required_argument, NULL, 'B' },
		{ "parallel", required_argument, NULL, 'p' },
		{ "build-cache", required_argument, NULL, 'C' },
		{ "build-config", required_argument, NULL, 'K' },
		{ "build-option", required_argument, NULL, 'O' },
		{ "no-apply", no_argument, NULL, 'N' },
		{ "tools", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rb_check_opts *o = &r->opts;
	size_t n_opt = 0;
	int c;

	r->options = calloc((size_t)argc + 1, sizeof(*r->options));
	if (!r->options)
		return RB_EXIT_FAIL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			r->tree = optarg;
			break;
		case 'b':
			r->base = optarg;
			break;
		case 'c':
			r->checkers = optarg;
			break;
		case 'j':
			r->json = true;
			break;
		case 's':
			o->checkpatch_strict = true;
			break;
		case 'i':
			free(r->ignore_copy);
			free(o->checkpatch_ignore);
			r->ignore_copy = split_list(&o->checkpatch_ignore,
						    &o->n_checkpatch_ignore,
						    optarg);
			break;
		case 'e':
			o->external_cmd = optarg;
			break;
		case 'T':
			o->timeout_seconds = atoi(optarg);
			break;
		case 'B':
			o->series_budget_seconds = atoi(optarg);
			break;
		case 'p':
			o->parallel = atoi(optarg);
			break;
		case 'C':
			o->build_cache_dir = optarg;
			break;
		case 'K':
			o->build_config = optarg;
			break;
		case 'O':
			r->options[n_opt++] = optarg;
			break;
		case 'N':
			r->no_apply = true;
			break;
		case 'R':
			r->tools = optarg;
			break;
		default:
			usage(stderr);
			return RB_EXIT_USAGE;
		}
	}
	o->build_options = r->options;
	o->n_build_options = n_opt;
	if (!r->tree || optind >= argc || o->timeout_seconds <= 0 ||
	    o->parallel <= 0) {
		usage(stderr);
		return RB_EXIT_USAGE;
	}
	return RB_EXIT_OK;
}

/*
 * The patch mails of r->ms (the first cover aside; replies and prose
 * skipped), sorted 1/n .. n/n when they are one whole series.
 */
static int pick_patches(struct check_run *r)
{
	struct mails *ms = &r->ms;
	bool ordered = true;
	size_t i;

	r->patches = calloc(ms->n + 1, sizeof(*r->patches));
	if (!r->patches)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < ms->n; i++) {
		const struct rb_message *m = ms->v[i].msg;

		if (is_cover(&ms->v[i])) {
			if (!r->cover)
				r->cover = &ms->v[i];
			continue;
		}
		/* Replies and other prose are not patches. */
		if (m && !m->patch) {
			rb_log(RB_LOG_INFO, "check.skip", "origin",
			       ms->v[i].origin, "reason", "no patch", NULL);
			continue;
		}
		/* Mail that did not parse is passed on: apply decides. */
		r->patches[r->n++] = &ms->v[i];
		if (!m || !r->patches[0]->msg || m->subject.index <= 0 ||
		    m->subject.total != r->patches[0]->msg->subject.total)
			ordered = false;
	}
	if (!r->n)
		return rb_err(RB_ENOTFOUND, "no patch in the input");
	if (r->n != (size_t)(r->patches[0]->msg ?
				     r->patches[0]->msg->subject.total :
				     0))
		ordered = false;
	if (ordered)
		qsort(r->patches, r->n, sizeof(*r->patches), cmp_index);
	return 0;
}

/* The commit that @rev names in r->repo. */
static int resolve_commit(git_oid *out, struct check_run *r, const char *rev)
{
	git_object *obj = NULL, *peeled = NULL;
	int ret = 0;

	if (git_revparse_single(&obj, r->repo, rev) ||
	    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT))
		ret = rb_err(RB_ENOTFOUND, "%s: no such revision", rev);
	else
		git_oid_cpy(out, git_object_id(peeled));
	git_object_free(peeled);
	git_object_free(obj);
	return ret;
}

/* What the checkers and apply read of each patch mail. */
static int fill_patches(struct check_run *r)
{
	size_t i;

	r->aps = calloc(r->n, sizeof(*r->aps));
	r->cps = calloc(r->n, sizeof(*r->cps));
	if (!r->aps || !r->cps)
		return rb_err(RB_ENOMEM, "out of memory");
	for (i = 0; i < r->n; i++) {
		const struct mail *pm = r->patches[i];
		const struct rb_message *m = pm->msg;
		struct rb_apply_patch *ap = &r->aps[i];
		const char *body = strstr(pm->raw, "\n\n");

		r->cps[i].msg = m;
		r->cps[i].raw = pm->raw;
		r->cps[i].raw_len = pm->len;
		r->cps[i].origin = pm->origin;
		if (m && m->patch) {
			ap->patch = m->patch;
			ap->len = m->patch_len;
			ap->author_name = m->author.addr ? m->author.name :
							   m->from.name;
			ap->author_email = m->author.addr ? m->author.addr :
							    m->from.addr;
			ap->date = m->date;
			ap->message = m->commit_msg;
		} else {
			/* The diff parser skips the prose around the diff. */
			ap->patch = body ? body + 2 : pm->raw;
			ap->len = strlen(ap->patch);
		}
	}
	return 0;
}

/* The repository, the base and tools commits, the check context. */
static int open_tree(struct check_run *r)
{
	int ret;

	if (git_repository_open(&r->repo, r->tree))
		return rb_err(RB_ENOTFOUND, "%s: %s", r->tree,
			      git_error_last() ? git_error_last()->message :
						 "?");
	ret = resolve_commit(&r->ctx.base, r, r->base);
	if (!ret)
		ret = resolve_commit(&r->ctx.tools, r, r->tools);
	if (ret)
		return ret;
	r->ctx.has_base = true;
	r->ctx.has_tools = true;
	r->ctx.repo_path = git_repository_path(r->repo);
	r->ctx.cover = r->cover ? r->cover->msg : NULL;
	r->ctx.opts = &r->opts;
	return 0;
}

/* Applies the series in memory; the checkers read the result. */
static int apply_series(struct check_run *r)
{
	struct rb_apply_opts ao = RB_APPLY_OPTS_INIT;
	struct rb_apply_result *ar;
	int ret;

	ret = rb_apply_series(&r->ar, r->repo, &r->ctx.base, r->aps, r->n, &ao);
	if (ret) {
		char why[512];

		snprintf(why, sizeof(why), "%s", rb_errmsg());
		return rb_err(-ret, "apply: %s", why);
	}
	ar = r->ar;
	if (!ar->ok)
		return rb_err(RB_EFAIL, "patch %zu (%s) does not apply: %s",
			      ar->failed_patch,
			      ar->failed_patch && ar->failed_patch <= r->n ?
				      r->patches[ar->failed_patch - 1]->origin :
				      "?",
			      ar->reason ? ar->reason : "?");
	/* The applied commits live in ar's store only (review/apply/apply.h). */
	r->ctx.apply = ar;
	git_oid_cpy(&r->ctx.applied, &ar->commit);
	r->ctx.has_applied = true;
	/* Each patch's commit, for the build of each in turn. */
	r->commits =
		calloc(ar->n_patches ? ar->n_patches : 1, sizeof(*r->commits));
	if (!r->commits)
		return rb_err(RB_ENOMEM, "out of memory");
	for (size_t i = 0; i < ar->n_patches; i++)
		git_oid_cpy(&r->commits[i], &ar->patches[i].commit);
	if (ar->n_patches == r->n) {
		r->ctx.patch_commits = r->commits;
		r->ctx.n_patch_commits = ar->n_patches;
	}
	return 0;
}

/* Whether the comma-separated @list names @name. */
static bool names_has(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; p && (p = strstr(p, name)); p++)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/*
 * As the daemon runs them: sparse inside the build when both are named
 * (one build), and W=1's kernel-doc off when the kernel-doc checker runs.
 * @buf receives the list without sparse.
 */
static const char *tree_checkers(struct check_run *r, char *buf, size_t size)
{
	const char *list = r->checkers;
	char *copy, *p, *save = NULL;

	if (!list)
		return NULL;
	r->opts.build_no_kdoc = names_has(list, "kernel-doc");
	if (!names_has(list, "build") || !names_has(list, "sparse"))
		return list;
	r->opts.build_sparse = true;
	buf[0] = '\0';
	copy = strdup(list);
	if (!copy)
		return list;
	for (p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save))
		if (strcmp(p, "sparse"))
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
				 buf[0] ? "," : "", p);
	free(copy);
	return buf;
}

static void print_findings(const struct check_run *r,
			   const struct rb_findings *found)
{
	size_t i;

	for (i = 0; i < found->n; i++) {
		if (r->json) {
			struct rb_buf b = RB_BUF_INIT(1u << 24);

			if (!rb_finding_to_json(&b, &found->v[i]))
				printf("%s\n", b.ptr);
			rb_buf_release(&b);
		} else {
			print_text(&found->v[i]);
		}
	}
	fflush(stdout);
}

static void check_run_release(struct check_run *r)
{
	rb_apply_result_free(r->ar);
	free(r->commits);
	free(r->aps);
	free(r->cps);
	free(r->patches);
	mails_release(&r->ms);
	git_repository_free(r->repo);
	free(r->opts.checkpatch_ignore);
	free(r->ignore_copy);
	free(r->options);
}

int cmd_check(int argc, char **argv)
{
	struct check_run r = { .opts = RB_CHECK_OPTS_INIT,
			       .base = "HEAD",
			       .tools = "HEAD" };
	struct rb_findings found = { 0 };
	char names[256];
	int ret = 0, rc;

	if (rb_cli_wants_help(argc, argv)) {
		usage(stdout);
		return RB_EXIT_OK;
	}
	rc = parse_args(&r, argc, argv);
	if (rc != RB_EXIT_OK) {
		check_run_release(&r);
		return rc;
	}
	rb_log_set_quiet(1);
	for (; optind < argc && !ret; optind++)
		ret = rb_mail_walk(argv[optind], MAX_INPUT, on_mail, &r.ms);
	ret = ret ?: pick_patches(&r);
	ret = ret ?: open_tree(&r);
	ret = ret ?: fill_patches(&r);
	r.ctx.patches = r.cps;
	r.ctx.n_patches = r.n;
	if (!ret && !r.no_apply)
		ret = apply_series(&r);
	ret = ret   ?:
		      rb_checks_run(&found, &r.ctx,
				    tree_checkers(&r, names, sizeof(names)));
	if (!ret)
		print_findings(&r, &found);
	else
		fprintf(stderr, "reviewbot check: %s\n", rb_errmsg());
	rc = !ret	       ? RB_EXIT_OK :
	     ret == -RB_EINVAL ? RB_EXIT_USAGE :
				 RB_EXIT_FAIL;
	rb_findings_release(&found);
	check_run_release(&r);
	return rc;
}
