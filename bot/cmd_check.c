// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_check.c - "reviewbot check": applies patch mails on a revision of a
 * repository in memory (review/apply.h: the repository is never written),
 * runs the chosen checkers (review/checks.h) with the tools of --tools
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

#include "bot/cli.h"
#include "mail/mbox.h"
#include "mail/message.h"
#include "review/apply.h"
#include "review/checks.h"
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
		"build, external\n"
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

int cmd_check(int argc, char **argv)
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
		{ "parallel", required_argument, NULL, 'p' },
		{ "build-cache", required_argument, NULL, 'C' },
		{ "build-config", required_argument, NULL, 'K' },
		{ "build-option", required_argument, NULL, 'O' },
		{ "no-apply", no_argument, NULL, 'N' },
		{ "tools", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rb_check_opts opts = RB_CHECK_OPTS_INIT;
	struct rb_check_ctx ctx = { 0 };
	const char *tree = NULL, *base = "HEAD", *checkers = NULL;
	const char *tools = "HEAD";
	char *ignore_copy = NULL, **options = NULL;
	struct rb_check_patch *cps = NULL;
	struct rb_apply_patch *aps = NULL;
	struct rb_apply_result *ar = NULL;
	struct rb_apply_opts ao = RB_APPLY_OPTS_INIT;
	struct mail **patches = NULL;
	const struct mail *cover = NULL;
	struct rb_findings found = { 0 };
	struct mails ms = { 0 };
	git_repository *repo = NULL;
	git_object *obj = NULL;
	bool json = false, ordered = true, git_inited = false;
	bool no_apply = false;
	size_t i, n = 0, n_opt = 0;
	int c, ret, rc = RB_EXIT_FAIL;

	if (rb_cli_wants_help(argc, argv)) {
		usage(stdout);
		return RB_EXIT_OK;
	}
	options = calloc((size_t)argc + 1, sizeof(*options));
	if (!options)
		return RB_EXIT_FAIL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			tree = optarg;
			break;
		case 'b':
			base = optarg;
			break;
		case 'c':
			checkers = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 's':
			opts.checkpatch_strict = true;
			break;
		case 'i':
			free(ignore_copy);
			free(opts.checkpatch_ignore);
			ignore_copy = split_list(&opts.checkpatch_ignore,
						 &opts.n_checkpatch_ignore,
						 optarg);
			break;
		case 'e':
			opts.external_cmd = optarg;
			break;
		case 'T':
			opts.timeout_seconds = atoi(optarg);
			break;
		case 'p':
			opts.parallel = atoi(optarg);
			break;
		case 'C':
			opts.build_cache_dir = optarg;
			break;
		case 'K':
			opts.build_config = optarg;
			break;
		case 'O':
			options[n_opt++] = optarg;
			break;
		case 'N':
			no_apply = true;
			break;
		case 'R':
			tools = optarg;
			break;
		default:
			usage(stderr);
			rc = RB_EXIT_USAGE;
			goto out;
		}
	}
	opts.build_options = options;
	opts.n_build_options = n_opt;
	if (!tree || optind >= argc || opts.timeout_seconds <= 0 ||
	    opts.parallel <= 0) {
		usage(stderr);
		rc = RB_EXIT_USAGE;
		goto out;
	}
	rb_log_set_quiet(1);

	for (; optind < argc; optind++) {
		ret = rb_mail_walk(argv[optind], MAX_INPUT, on_mail, &ms);
		if (ret) {
			fprintf(stderr, "reviewbot check: %s\n", rb_errmsg());
			goto out;
		}
	}
	patches = calloc(ms.n + 1, sizeof(*patches));
	if (!patches)
		goto out;
	for (i = 0; i < ms.n; i++) {
		if (is_cover(&ms.v[i])) {
			if (!cover)
				cover = &ms.v[i];
			continue;
		}
		/* Replies and other prose are not patches. */
		if (ms.v[i].msg && !ms.v[i].msg->patch) {
			rb_log(RB_LOG_INFO, "check.skip", "origin",
			       ms.v[i].origin, "reason", "no patch", NULL);
			continue;
		}
		/* Mail that did not parse is passed on: apply decides. */
		patches[n++] = &ms.v[i];
		if (!ms.v[i].msg || !patches[0]->msg ||
		    ms.v[i].msg->subject.index <= 0 ||
		    ms.v[i].msg->subject.total !=
			    patches[0]->msg->subject.total)
			ordered = false;
	}
	if (!n) {
		fprintf(stderr, "reviewbot check: no patch in the input\n");
		goto out;
	}
	/* Sorted only when the mails are one series: 1/n .. n/n. */
	if (n != (size_t)(patches[0]->msg ? patches[0]->msg->subject.total : 0))
		ordered = false;
	if (ordered)
		qsort(patches, n, sizeof(*patches), cmp_index);

	git_libgit2_init();
	git_inited = true;
	if (git_repository_open(&repo, tree)) {
		fprintf(stderr, "reviewbot check: %s: %s\n", tree,
			git_error_last() ? git_error_last()->message : "?");
		goto out;
	}
	{
		git_object *peeled = NULL;

		if (git_revparse_single(&obj, repo, base) ||
		    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT)) {
			fprintf(stderr,
				"reviewbot check: %s: no such revision\n",
				base);
			goto out;
		}
		git_oid_cpy(&ctx.base, git_object_id(peeled));
		git_object_free(peeled);
	}
	ctx.has_base = true;
	{
		git_object *t = NULL, *peeled = NULL;

		if (git_revparse_single(&t, repo, tools) ||
		    git_object_peel(&peeled, t, GIT_OBJECT_COMMIT)) {
			fprintf(stderr,
				"reviewbot check: %s: no such revision\n",
				tools);
			git_object_free(t);
			goto out;
		}
		git_oid_cpy(&ctx.tools, git_object_id(peeled));
		ctx.has_tools = true;
		git_object_free(peeled);
		git_object_free(t);
	}

	aps = calloc(n, sizeof(*aps));
	cps = calloc(n, sizeof(*cps));
	if (!aps || !cps)
		goto out;
	ctx.repo_path = git_repository_path(repo);
	ctx.cover = cover ? cover->msg : NULL;
	ctx.patches = cps;
	ctx.n_patches = n;
	ctx.opts = &opts;
	for (i = 0; i < n; i++) {
		const struct rb_message *m = patches[i]->msg;
		const char *body = strstr(patches[i]->raw, "\n\n");

		cps[i].msg = m;
		cps[i].raw = patches[i]->raw;
		cps[i].raw_len = patches[i]->len;
		cps[i].origin = patches[i]->origin;
		if (m && m->patch) {
			aps[i].patch = m->patch;
			aps[i].len = m->patch_len;
			aps[i].author_name = m->author.addr ? m->author.name :
							      m->from.name;
			aps[i].author_email = m->author.addr ? m->author.addr :
							       m->from.addr;
			aps[i].date = m->date;
			aps[i].message = m->commit_msg;
		} else {
			/* The diff parser skips the prose around the diff. */
			aps[i].patch = body ? body + 2 : patches[i]->raw;
			aps[i].len = strlen(aps[i].patch);
		}
	}
	if (no_apply)
		goto check;
	ret = rb_apply_series(&ar, repo, &ctx.base, aps, n, &ao);
	if (ret) {
		fprintf(stderr, "reviewbot check: apply: %s\n", rb_errmsg());
		goto out;
	}
	if (!ar->ok) {
		fprintf(stderr,
			"reviewbot check: patch %zu (%s) does not apply: %s\n",
			ar->failed_patch,
			ar->failed_patch && ar->failed_patch <= n ?
				patches[ar->failed_patch - 1]->origin :
				"?",
			ar->reason ? ar->reason : "?");
		goto out;
	}
	/* The applied commits live in ar's store only (review/apply.h). */
	ctx.apply = ar;
	git_oid_cpy(&ctx.applied, &ar->commit);
	ctx.has_applied = true;
check:
	ret = rb_checks_run(&found, &ctx, checkers);
	if (ret) {
		fprintf(stderr, "reviewbot check: %s\n", rb_errmsg());
		rc = ret == -RB_EINVAL ? RB_EXIT_USAGE : RB_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < found.n; i++) {
		if (json) {
			struct rb_buf b = RB_BUF_INIT(1u << 24);

			if (!rb_finding_to_json(&b, &found.v[i]))
				printf("%s\n", b.ptr);
			rb_buf_release(&b);
		} else {
			print_text(&found.v[i]);
		}
	}
	fflush(stdout);
	rc = RB_EXIT_OK;
out:
	rb_findings_release(&found);
	rb_apply_result_free(ar);
	free(aps);
	free(cps);
	free(patches);
	mails_release(&ms);
	git_object_free(obj);
	git_repository_free(repo);
	if (git_inited)
		git_libgit2_shutdown();
	free(opts.checkpatch_ignore);
	free(ignore_copy);
	free(options);
	return rc;
}
