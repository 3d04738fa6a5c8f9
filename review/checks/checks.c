// SPDX-License-Identifier: GPL-2.0-only
/*
 * checks.c - the checker runner: at most opts->parallel checkers at once
 * in the process, whatever the number of series under review (one thread
 * each), each with a deadline that the processes it runs obey
 * (rb_proc_run kills them at the deadline). A checker that fails is
 * reported as a "checker-problem" finding; it never stops the others.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <git2.h>

#include "review/apply/apply.h"
#include "review/checks/check_build.h"
#include "review/checks/check_checkpatch.h"
#include "review/checks/check_cocci.h"
#include "review/checks/check_commit.h"
#include "review/checks/check_external.h"
#include "review/checks/check_kdoc.h"
#include "review/checks/check_maint.h"
#include "review/checks/checks.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const struct rb_checker_ops *const rb_checkers[RB_N_CHECKERS] = {
	[RB_CHECKER_COMMIT] = &rb_check_commit_ops,
	[RB_CHECKER_CHECKPATCH] = &rb_check_checkpatch_ops,
	[RB_CHECKER_BUILD] = &rb_check_build_ops,
	[RB_CHECKER_SPARSE] = &rb_check_sparse_ops,
	[RB_CHECKER_KDOC] = &rb_check_kdoc_ops,
	[RB_CHECKER_COCCI] = &rb_check_cocci_ops,
	[RB_CHECKER_MAINT] = &rb_check_maint_ops,
	[RB_CHECKER_EXTERNAL] = &rb_check_external_ops,
};
const size_t rb_n_checkers = ARRAY_SIZE(rb_checkers);

int rb_checker_id(const char *name)
{
	size_t i;

	for (i = 0; name && i < ARRAY_SIZE(rb_checkers); i++)
		if (!strcmp(rb_checkers[i]->name, name))
			return (int)i;
	return -1;
}

const struct rb_checker_ops *rb_checker_find(const char *name)
{
	int id = rb_checker_id(name);

	return id < 0 ? NULL : rb_checkers[id];
}

static char names_list[256];

static void fill_names(void)
{
	size_t i, len = 0;

	for (i = 0; i < ARRAY_SIZE(rb_checkers); i++)
		len += (size_t)snprintf(names_list + len,
					sizeof(names_list) - len, "%s%s",
					i ? ", " : "", rb_checkers[i]->name);
}

const char *rb_checker_names(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, fill_names);
	return names_list;
}

int rb_check_repo_open(git_repository **out, const struct rb_check_ctx *ctx)
{
	if (ctx->apply)
		return rb_apply_repo_open(out, ctx->apply);
	if (!ctx->repo_path)
		return rb_err(RB_EINVAL, "no tree to check against");
	if (git_repository_open_bare(out, ctx->repo_path) &&
	    git_repository_open(out, ctx->repo_path))
		return rb_err(RB_EIO, "cannot open %s: %s", ctx->repo_path,
			      git_error_last() ? git_error_last()->message :
						 "?");
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int rb_check_time_left_ms(const struct rb_check_ctx *ctx, int dflt)
{
	long long left;

	if (!ctx->deadline_ms)
		return dflt;
	left = ctx->deadline_ms - now_ms();
	if (left < 1)
		return 1;
	return left > 0x7fffffff ? 0x7fffffff : (int)left;
}

struct job {
	const struct rb_checker_ops *ops;
	struct rb_check_ctx ctx;
	struct rb_findings found;
	int ret;
	char errmsg[512];
	long long ms;
};

struct pool {
	pthread_mutex_t lock;
	struct job *jobs;
	size_t n, next;
	long long budget_ms; /* the series' deadline, 0: none */
};

/*
 * opts->parallel holds over the whole process, not one series: the
 * daemon reviews several series at once (review.parallel_series), and
 * their builds, checkpatch and coccinelle runs would otherwise multiply
 * by that. A checker waits here for its turn before its deadline starts.
 */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_busy;

static void gate_enter(int limit)
{
	pthread_mutex_lock(&gate_lock);
	while (gate_busy >= (limit > 0 ? limit : 1))
		pthread_cond_wait(&gate_cond, &gate_lock);
	gate_busy++;
	pthread_mutex_unlock(&gate_lock);
}

static void gate_leave(void)
{
	pthread_mutex_lock(&gate_lock);
	gate_busy--;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		struct job *j;
		long long t0;

		pthread_mutex_lock(&p->lock);
		j = p->next < p->n ? &p->jobs[p->next++] : NULL;
		pthread_mutex_unlock(&p->lock);
		if (!j)
			return NULL;
		if (!j->ops->light)
			gate_enter(j->ctx.opts->parallel);
		t0 = now_ms();
		j->ctx.deadline_ms =
			t0 + (long long)j->ctx.opts->timeout_seconds * 1000;
		if (p->budget_ms && p->budget_ms < j->ctx.deadline_ms)
			j->ctx.deadline_ms = p->budget_ms;
		rb_err_clear();
		if (p->budget_ms && t0 >= p->budget_ms)
			j->ret = rb_err(RB_ETIMEOUT,
					"the series' time budget of %d s ran "
					"out before it started",
					j->ctx.opts->series_budget_seconds);
		else
			j->ret = j->ops->run(&j->ctx, &j->found);
		j->ms = now_ms() - t0;
		if (!j->ops->light)
			gate_leave();
		if (j->ret)
			snprintf(j->errmsg, sizeof(j->errmsg), "%s",
				 rb_errmsg());
	}
}

/* Splits a comma-separated list into checkers; -RB_EINVAL on a bad name. */
static int parse_names(const struct rb_checker_ops ***out, size_t *n_out,
		       const char *names)
{
	const struct rb_checker_ops **v = NULL;
	size_t n = 0;
	char *copy, *p, *save = NULL;
	int ret = 0;

	copy = strdup(names);
	if (!copy)
		return rb_err(RB_ENOMEM, "out of memory");
	v = calloc(strlen(names) + 1, sizeof(*v));
	if (!v) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	for (p = strtok_r(copy, ", ", &save); p;
	     p = strtok_r(NULL, ", ", &save)) {
		const struct rb_checker_ops *ops = rb_checker_find(p);
		size_t i;

		if (!ops) {
			ret = rb_err(RB_EINVAL, "unknown checker '%s' (%s)", p,
				     rb_checker_names());
			goto out;
		}
		for (i = 0; i < n && v[i] != ops; i++)
			;
		if (i == n)
			v[n++] = ops;
	}
	*out = v;
	*n_out = n;
	v = NULL;
out:
	free(v);
	free(copy);
	return ret;
}

/* Runs the @n checkers of @list, in that order (see rb_checks_run()). */
static int run_list(struct rb_findings *out, const struct rb_check_ctx *ctx,
		    const struct rb_checker_ops *const *list, size_t n)
{
	struct rb_check_opts dflt = RB_CHECK_OPTS_INIT;
	struct pool p = { .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t th[16];
	size_t i, nth;
	int ret = 0, par;

	if (!ctx->opts)
		ctx = NULL;
	p.jobs = calloc(n ? n : 1, sizeof(*p.jobs));
	if (!p.jobs) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	p.n = n;
	for (i = 0; i < n; i++) {
		p.jobs[i].ops = list[i];
		if (ctx)
			p.jobs[i].ctx = *ctx;
		else
			p.jobs[i].ctx.opts = &dflt;
	}
	par = p.jobs[0].ctx.opts->parallel;
	if (p.jobs[0].ctx.opts->series_budget_seconds > 0)
		p.budget_ms =
			now_ms() +
			(long long)p.jobs[0].ctx.opts->series_budget_seconds *
				1000;
	if (par < 1)
		par = 1;
	nth = (size_t)par < n ? (size_t)par : n;
	if (nth > ARRAY_SIZE(th))
		nth = ARRAY_SIZE(th);
	for (i = 0; i < nth; i++)
		if (pthread_create(&th[i], NULL, worker, &p))
			break;
	nth = i;
	if (!nth)
		worker(&p);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);

	for (i = 0; i < n && !ret; i++) {
		struct job *j = &p.jobs[i];
		char ms[32];
		size_t k;

		snprintf(ms, sizeof(ms), "%lld", j->ms);
		rb_log(RB_LOG_INFO, "check.done", "checker", j->ops->name, "ms",
		       ms, "result", j->ret ? rb_errname(j->ret) : "ok",
		       j->ret ? "error" : NULL, j->errmsg, NULL);
		for (k = 0; k < j->found.n && !ret; k++) {
			const struct rb_finding *f = &j->found.v[k];

			ret = rb_findings_add_copy(out, f);
		}
		if (j->ret && !ret) {
			char msg[700];

			snprintf(msg, sizeof(msg),
				 "The %s checker did not run: %s", j->ops->name,
				 j->errmsg[0] ? j->errmsg : rb_errname(j->ret));
			ret = rb_findings_add(
				out, &(struct rb_finding_spec){
					     .checker = j->ops->name,
					     .checker_version = j->ops->version,
					     .category = "checker-problem",
					     .severity = RB_FSEV_INFO,
					     .message = msg });
		}
	}
out:
	if (p.jobs)
		for (i = 0; i < n; i++)
			rb_findings_release(&p.jobs[i].found);
	free(p.jobs);
	return ret;
}

int rb_checks_run(struct rb_findings *out, const struct rb_check_ctx *ctx,
		  const char *names)
{
	const struct rb_checker_ops **list = NULL;
	size_t n = 0;
	int ret;

	if (!names)
		names = ctx->opts && ctx->opts->external_cmd ?
				"commit-msg,checkpatch,external" :
				"commit-msg,checkpatch";
	ret = parse_names(&list, &n, names);
	if (!ret)
		ret = run_list(out, ctx, list, n);
	free(list);
	return ret;
}

int rb_checks_run_set(struct rb_findings *out, const struct rb_check_ctx *ctx,
		      unsigned int set)
{
	const struct rb_checker_ops *list[RB_N_CHECKERS];
	size_t n = 0, i;

	for (i = 0; i < RB_N_CHECKERS; i++)
		if (set & RB_CHECKER_BIT(i))
			list[n++] = rb_checkers[i];
	return n ? run_list(out, ctx, list, n) : 0;
}

static int json_str(struct rb_buf *b, const char *s)
{
	const unsigned char *p;
	int ret = 0;

	if (!s)
		return rb_buf_puts(b, "null");
	ret = rb_buf_putc(b, '"');
	for (p = (const unsigned char *)s; *p && !ret; p++) {
		switch (*p) {
		case '"':
			ret = rb_buf_puts(b, "\\\"");
			break;
		case '\\':
			ret = rb_buf_puts(b, "\\\\");
			break;
		case '\n':
			ret = rb_buf_puts(b, "\\n");
			break;
		case '\t':
			ret = rb_buf_puts(b, "\\t");
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				ret = rb_buf_printf(b, "\\u%04x", *p);
			else
				ret = rb_buf_putc(b, (char)*p);
		}
	}
	return ret ? ret : rb_buf_putc(b, '"');
}

int rb_finding_to_json(struct rb_buf *b, const struct rb_finding *f)
{
	int ret;

	ret = rb_buf_puts(b, "{\"checker\":");
	ret = ret ? ret : json_str(b, f->checker);
	ret = ret ? ret : rb_buf_puts(b, ",\"version\":");
	ret = ret ? ret : json_str(b, f->checker_version);
	ret = ret ? ret : rb_buf_puts(b, ",\"severity\":");
	ret = ret ? ret : json_str(b, rb_fsev_name(f->severity));
	ret = ret ? ret : rb_buf_puts(b, ",\"category\":");
	ret = ret ? ret : json_str(b, f->category);
	ret = ret ? ret : rb_buf_puts(b, ",\"file\":");
	ret = ret ? ret : json_str(b, f->file);
	ret = ret ? ret : rb_buf_printf(b, ",\"line\":%d,\"code\":", f->line);
	ret = ret ? ret : json_str(b, f->code);
	ret = ret ? ret : rb_buf_puts(b, ",\"message\":");
	ret = ret ? ret : json_str(b, f->message);
	ret = ret ? ret :
		    rb_buf_printf(b, ",\"patch\":%d,\"fingerprint\":",
				  f->patch_index);
	ret = ret ? ret : json_str(b, f->fingerprint);
	return ret ? ret : rb_buf_puts(b, "}");
}
