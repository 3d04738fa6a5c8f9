// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_config.c - the config loader: defaults, every key of
 * tests/data/config/full.yaml, config.yaml (the defaults, key by key), the error format
 * FILE:LINE:COL: key.path: message, all errors at once, secrets, policy
 * inheritance, URLs that do not parse, and what check-config looks at on
 * the machine (rb_config_check_system): trees, branches, MAINTAINERS
 * sections, source paths.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <git2.h>
#include <yaml.h>

#include "bot/config.h"
#include "review/model/model.h"
#include "util/err.h"
#include "util/banned.h"

static char datadir[PATH_MAX];
static char tmpdir[PATH_MAX];

static void data_path(char *out, size_t size, const char *name)
{
	int n = snprintf(out, size, "%s/%s", datadir, name);

	assert_true(n > 0 && (size_t)n < size);
}

/* Writes @text to @name in the temporary directory; returns its path. */
static const char *write_tmp(const char *name, const char *text)
{
	static char path[PATH_MAX];
	FILE *f;
	int n = snprintf(path, sizeof(path), "%s/%s", tmpdir, name);

	assert_true(n > 0 && (size_t)n < sizeof(path));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* The errors as check-config prints them, in one string. */
static char *printed(const struct rb_config_errors *e, const char *file)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	rb_config_errors_print(e, file, f);
	fclose(f);
	return s;
}

static int load_mem(struct rb_config **out, const char *yaml,
		    struct rb_config_errors *e)
{
	char name[PATH_MAX + 16];

	snprintf(name, sizeof(name), "%s/config.yaml", tmpdir);
	return rb_config_load_mem(out, name, yaml, strlen(yaml), e);
}

static bool has_error(const struct rb_config_errors *e, int line,
		      const char *needle)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if ((!line || e->v[i].line == line) &&
		    strstr(e->v[i].msg, needle))
			return true;
	return false;
}

static void test_defaults(void **state)
{
	struct rb_config *cfg = NULL;
	const struct rb_policy *p;

	assert_int_equal(rb_config_defaults(&cfg), 0);
	assert_null(cfg->file);
	assert_string_equal(cfg->store_path, "./reviewbot.db");
	assert_null(cfg->store_url);
	assert_string_equal(cfg->outbox_maildir, "./outbox");
	assert_null(cfg->smtp.url);
	assert_string_equal(cfg->smtp_from, "reviewbot <reviewbot@localhost>");
	assert_int_equal(cfg->smtp.starttls, RB_STARTTLS_REQUIRED);
	assert_int_equal(cfg->rate_per_hour, 60);
	assert_int_equal(cfg->rate_per_recipient_hour, 10);
	assert_int_equal(cfg->rate_per_list_hour, 60);
	assert_int_equal(cfg->max_recipients, 20);
	assert_string_equal(cfg->model.opts.provider, "none");
	assert_int_equal(cfg->model.opts.max_findings, 3);
	assert_int_equal(cfg->model.opts.max_words, 400);
	assert_int_equal(cfg->model.opts.prompt_tokens, 48000);
	assert_int_equal(cfg->model.opts.prefetch_bytes, 100 * 1024);
	assert_string_equal(cfg->http_listen, "127.0.0.1:8080");
	assert_int_equal(cfg->max_message_size, 4u << 20);
	assert_int_equal(cfg->max_apply_bytes, 128u << 20);
	assert_int_equal(cfg->max_file_lines, 2000000);
	assert_true(cfg->apply_seconds == 4);
	assert_int_equal(cfg->max_job_attempts, 3);
	assert_int_equal(cfg->incomplete_wait_minutes, 60);
	assert_int_equal(cfg->apply_retry_minutes, -1); /* a fetch cycle */
	assert_int_equal(cfg->n_sources, 0);
	assert_int_equal(cfg->n_trees, 0);

	/* Every subsystem is off until it opts in (DESIGN.md fact 10). */
	p = rb_config_policy(cfg, "MEMORY MANAGEMENT");
	assert_ptr_equal(p, &cfg->policy_default);
	assert_int_equal(p->mode, RB_MODE_OFF);
	assert_int_equal(p->recipients,
			 RB_RCPT_AUTHOR | RB_RCPT_MAINTAINERS | RB_RCPT_LIST);
	assert_int_equal(p->min_severity, RB_FSEV_LOW);
	assert_int_equal(p->max_findings, 3);
	assert_false(p->send_when_empty);
	/* Apply failures are the admins' first (issue 34). */
	assert_int_equal(p->report_apply_failures, RB_AF_ADMINS);
	assert_int_equal(cfg->max_lists, 10);
	assert_int_equal(p->embargo_minutes, 0);
	rb_config_free(cfg);

	/* An empty file is the defaults, too. */
	assert_int_equal(load_mem(&cfg, "", NULL), 0);
	assert_string_equal(cfg->store_path, "./reviewbot.db");
	assert_int_equal(cfg->policy_default.mode, RB_MODE_OFF);
	rb_config_free(cfg);
}

static void test_full(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;
	const struct rb_source_config *s;
	const struct rb_policy *p, *d;
	char path[PATH_MAX], want[PATH_MAX + 32];
	int ret;

	data_path(path, sizeof(path), "full.yaml");
	ret = rb_config_load(&cfg, path, &e);
	if (ret) {
		char *msg = printed(&e, path);

		fail_msg("full.yaml: %s", msg);
	}
	assert_int_equal(e.n, 0);
	assert_string_equal(cfg->file, path);

	/* Relative paths are relative to the config's directory. */
	snprintf(want, sizeof(want), "%s/state/bot.db", datadir);
	assert_string_equal(cfg->store_path, want);
	assert_string_equal(cfg->store_url,
			    "postgresql://127.0.0.1:5432/reviewbot");

	assert_int_equal(cfg->n_sources, 4);
	s = &cfg->sources[0];
	assert_int_equal(s->type, RB_SRC_IMAP);
	assert_string_equal(s->name, "lists");
	assert_string_equal(s->url, "imaps://127.0.0.1:9993");
	assert_string_equal(s->user, "bot");
	assert_string_equal(s->password, "imap-test-password");
	assert_int_equal(s->n_mailboxes, 2);
	assert_string_equal(s->mailboxes[1], "linux-mm");
	assert_false(s->tls_verify);
	assert_false(s->starttls);
	assert_non_null(s->ca_file);
	assert_int_equal(s->poll_seconds, 60);
	s = &cfg->sources[1];
	assert_int_equal(s->type, RB_SRC_NNTP);
	assert_string_equal(s->name, "nntp1");
	assert_true(s->tls_verify);
	assert_int_equal(s->poll_seconds, 300);
	assert_int_equal(s->n_groups, 1);
	assert_int_equal(cfg->sources[2].type, RB_SRC_MAILDIR);
	assert_string_equal(cfg->sources[2].path, "/var/mail/bot");
	assert_int_equal(cfg->sources[3].type, RB_SRC_STDIN);

	assert_int_equal(cfg->n_trees, 2);
	assert_string_equal(cfg->trees[0].branch, "mm-unstable");
	assert_int_equal(cfg->trees[0].fetch_minutes, 15);
	assert_string_equal(cfg->trees[1].branch, "HEAD");
	assert_int_equal(cfg->trees[1].fetch_minutes, 60);
	assert_ptr_equal(rb_config_tree(cfg, "mainline"), &cfg->trees[1]);
	assert_null(rb_config_tree(cfg, "linux-next"));

	assert_string_equal(cfg->smtp.url, "smtp://127.0.0.1:2525");
	assert_string_equal(cfg->smtp_from, "Review Bot <bot@example.org>");
	/* First line only, without CR LF. */
	assert_string_equal(cfg->smtp.password, "smtp-test-password");
	assert_int_equal(cfg->smtp.starttls, RB_STARTTLS_REQUIRED);
	assert_int_equal(cfg->rate_per_hour, 30);
	assert_int_equal(cfg->rate_per_recipient_hour, 5);
	assert_int_equal(cfg->rate_per_list_hour, 25);
	assert_int_equal(cfg->max_recipients, 12);
	assert_string_equal(cfg->kill_switch_file, "/tmp/STOP");

	assert_string_equal(cfg->model.opts.provider, "anthropic");
	/* A file without a final newline is read whole. */
	assert_string_equal(cfg->model.opts.api_key, "model-test-key");
	assert_string_equal(cfg->model.opts.max_tokens_field,
			    "max_completion_tokens");
	assert_int_equal(cfg->model.opts.concurrency, 4);
	assert_true(cfg->model.opts.cost_per_mtok_in == 3.5);
	assert_true(cfg->model.opts.keep_uncertain);
	assert_int_equal(cfg->model.opts.max_words, 250);
	assert_int_equal(cfg->model.opts.prompt_tokens, 64000);
	assert_int_equal(cfg->model.opts.prefetch_bytes, 50000);

	d = &cfg->policy_default;
	assert_int_equal(d->min_severity, RB_FSEV_MEDIUM);
	assert_int_equal(cfg->n_policies, 2);
	p = rb_config_policy(cfg, "memory management");
	assert_string_equal(p->name, "MEMORY MANAGEMENT");
	assert_int_equal(p->mode, RB_MODE_ADVISORY);
	assert_int_equal(p->n_bases, 2);
	assert_string_equal(p->bases[0], "mm-unstable");
	assert_int_equal(p->recipients, RB_RCPT_AUTHOR | RB_RCPT_LIST);
	assert_int_equal(p->min_severity, RB_FSEV_HIGH);
	assert_true(p->send_when_empty);
	assert_int_equal(p->report_apply_failures, RB_AF_OFF);
	assert_int_equal(p->n_checkpatch_ignore, 2);
	assert_string_equal(p->blocking_text,
			    "Please answer each finding\nbefore this is "
			    "applied.\n");
	assert_int_equal(p->suppress_similar, 2);
	assert_true(p->require_dkim);
	/* Set here, so not inherited from the default. */
	assert_int_equal(p->embargo_minutes, 30);
	assert_string_equal(p->skip_authors[0], "akpm@linux-foundation.org");

	/* A list id, matched with or without its angle brackets. */
	p = rb_config_policy(cfg, "<linux-api.vger.kernel.org>");
	assert_string_equal(p->name, "linux-api.vger.kernel.org");
	assert_ptr_equal(p, rb_config_policy(cfg, "linux-api.vger.kernel.org"));
	assert_int_equal(p->mode, RB_MODE_SHADOW);

	assert_int_equal(cfg->n_admins, 2);
	assert_int_equal(cfg->n_list_ids, 2);
	assert_string_equal(cfg->list_ids[0], "linux-mm.kvack.org");
	assert_string_equal(cfg->known_bots[0], "lkp@intel.com");
	assert_string_equal(cfg->http_listen, "[::1]:9090");
	assert_int_equal(cfg->max_message_size, 512 * 1024);
	assert_int_equal(cfg->incomplete_wait_minutes, 120);
	assert_true(cfg->ack_verdicts);
	assert_true(cfg->reply_to_cover);
	assert_int_equal(cfg->apply_retry_minutes, 45);
	assert_int_equal(cfg->check.parallel, 3);
	assert_true(cfg->check.checkpatch_strict);
	rb_config_free(cfg);
}

/* Issue 32: the tree checkers a policy names, a section's build, and
 * the checkers.* keys. */
static void test_tree_checkers(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;
	const struct rb_policy *p;

	(void)state;
	assert_int_equal(
		load_mem(&cfg,
			 "checkers:\n"
			 "  build_each: false\n"
			 "  build_sparse: true\n"
			 "  series_budget_seconds: 900\n"
			 "  maintainers_fixes: false\n"
			 "  external_command: /usr/bin/true\n"
			 "  external_name: mine\n"
			 "policy:\n"
			 "  default:\n"
			 "    checkers: [build, sparse, kernel-doc, coccinelle,"
			 " cc-maintainers, external]\n"
			 "    build_options: [DEBUG_VM]\n"
			 "  subsystems:\n"
			 "    MEMORY MANAGEMENT:\n"
			 "      build_config: i386_defconfig\n"
			 "      build_options: [TRANSPARENT_HUGEPAGE=n]\n",
			 &e),
		0);
	assert_false(cfg->check.build_each);
	assert_true(cfg->check.build_sparse);
	assert_int_equal(cfg->check.series_budget_seconds, 900);
	assert_false(cfg->check.maint_fixes);
	assert_string_equal(cfg->check.external_cmd, "/usr/bin/true");
	assert_string_equal(cfg->check.external_name, "mine");
	p = rb_config_policy(cfg, "MEMORY MANAGEMENT");
	assert_int_equal(__builtin_popcount(p->checkers), 6);
	assert_string_equal(p->build_config, "i386_defconfig");
	assert_int_equal(p->n_build_options, 1);
	assert_string_equal(p->build_options[0], "TRANSPARENT_HUGEPAGE=n");
	p = rb_config_policy(cfg, "unknown");
	assert_null(p->build_config);
	assert_string_equal(p->build_options[0], "DEBUG_VM");
	rb_config_free(cfg);

	/* A checker that does not exist, an option that is not one. */
	assert_int_not_equal(load_mem(&cfg,
				      "policy:\n"
				      "  default:\n"
				      "    checkers: [smatch]\n",
				      &e),
			     0);
	rb_config_errors_release(&e);
	assert_int_not_equal(load_mem(&cfg,
				      "policy:\n"
				      "  default:\n"
				      "    build_options: [\"X; rm -rf /\"]\n",
				      &e),
			     0);
	rb_config_errors_release(&e);
}

/* Keys a subsystem leaves out come from policy.default. */
static void test_inheritance(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;
	const struct rb_policy *p;

	assert_int_equal(
		load_mem(&cfg,
			 "trees:\n"
			 "  - {name: a, path: /a}\n"
			 "  - {name: b, path: /b}\n"
			 "admins: [x@example.org]\n"
			 "policy:\n"
			 "  subsystems:\n"
			 "    NETWORKING [GENERAL]:\n"
			 "      mode: blocking\n"
			 "      bases: [b]\n"
			 "    MM: ~\n"
			 "  default:\n" /* after: order does not matter */
			 "    mode: shadow\n"
			 "    bases: [a, b]\n"
			 "    embargo_minutes: 45\n"
			 "    min_severity: high\n"
			 "    recipients: [maintainers]\n"
			 "    checkpatch_ignore: [LONG_LINE]\n"
			 "    blocking_text: Answer first.\n",
			 &e),
		0);
	p = rb_config_policy(cfg, "networking [general]");
	assert_string_equal(p->name, "NETWORKING [GENERAL]");
	assert_int_equal(p->mode, RB_MODE_BLOCKING);
	assert_int_equal(p->n_bases, 1);
	assert_string_equal(p->bases[0], "b");
	assert_int_equal(p->embargo_minutes, 45);
	assert_int_equal(p->min_severity, RB_FSEV_HIGH);
	assert_int_equal(p->recipients, RB_RCPT_MAINTAINERS);
	assert_int_equal(p->n_checkpatch_ignore, 1);
	assert_string_equal(p->blocking_text, "Answer first.");
	/* A subsystem with no keys is the default under its own name. */
	p = rb_config_policy(cfg, "MM");
	assert_string_equal(p->name, "MM");
	assert_int_equal(p->mode, RB_MODE_SHADOW);
	assert_int_equal(p->n_bases, 2);
	/* Deep copies: the default's lists are not shared. */
	assert_ptr_not_equal(p->bases, cfg->policy_default.bases);
	assert_ptr_equal(rb_config_policy(cfg, "unknown"),
			 &cfg->policy_default);
	assert_ptr_equal(rb_config_policy(cfg, NULL), &cfg->policy_default);
	rb_config_free(cfg);
}

/* Issue 36: shadow_to, a static Cc, subject prefixes and people. */
static void test_sub_maintainers(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;
	const struct rb_policy *p;

	(void)state;
	assert_int_equal(
		load_mem(&cfg,
			 "policy:\n"
			 "  default:\n"
			 "    mode: shadow\n"
			 "    shadow_to: maintainers\n" /* no admins needed */
			 "    prefixes: {RFC: off}\n"
			 "  subsystems:\n"
			 "    MM:\n"
			 "      mode: advisory\n"
			 "      cc: [mm-reviews@example.org]\n"
			 "      prefixes:\n"
			 "        RFC: shadow\n"
			 "        mm-hotfixes: blocking\n"
			 "people:\n"
			 "  ljs@example.org: none\n"
			 "  david@example.org: shadow\n"
			 "  akpm@example.org: all\n",
			 &e),
		0);
	p = rb_config_policy(cfg, "MM");
	assert_int_equal(p->shadow_to, RB_SHADOW_MAINTAINERS);
	assert_int_equal(p->n_cc, 1);
	assert_string_equal(p->cc[0], "mm-reviews@example.org");
	assert_int_equal(p->n_prefixes, 2);
	assert_string_equal(p->prefix_tags[1], "mm-hotfixes");
	assert_int_equal(p->prefix_modes[0], RB_MODE_SHADOW);
	assert_int_equal(p->prefix_modes[1], RB_MODE_BLOCKING);
	/* The default's prefixes are copied, not shared, and kept apart. */
	assert_int_equal(cfg->policy_default.n_prefixes, 1);
	assert_int_equal(cfg->policy_default.prefix_modes[0], RB_MODE_OFF);
	assert_int_equal(rb_config_person_mail(cfg, "LJS@example.org"),
			 RB_PERSON_NONE);
	assert_int_equal(rb_config_person_mail(cfg,
					       "Lorenzo <ljs+mm@example.org>"),
			 RB_PERSON_NONE);
	assert_int_equal(rb_config_person_mail(cfg, "david@example.org"),
			 RB_PERSON_SHADOW);
	assert_int_equal(rb_config_person_mail(cfg, "akpm@example.org"),
			 RB_PERSON_ALL);
	assert_int_equal(rb_config_person_mail(cfg, "someone@example.org"),
			 RB_PERSON_ALL);
	rb_config_free(cfg);

	assert_int_equal(load_mem(&cfg,
				  "policy:\n"
				  "  default:\n"
				  "    mode: shadow\n"
				  "    shadow_to: everyone\n"
				  "    prefixes: {PATCH: off, RFC: off,"
				  " \"a b\": off, rfc: shadow, mm: loud}\n"
				  "    cc: [not-an-address]\n"
				  "people:\n"
				  "  nobody: none\n"
				  "  x@example.org: sometimes\n",
				  &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 3, "shadow sends to the admins only"));
	assert_true(has_error(&e, 4,
			      "'everyone' is not one of: admins, "
			      "maintainers"));
	assert_true(has_error(&e, 5, "every patch has the PATCH prefix"));
	assert_true(has_error(&e, 5, "'loud' is not one of"));
	assert_true(has_error(&e, 5, "'a b' is not a subject prefix"));
	assert_true(has_error(&e, 5, "prefix 'rfc' is given twice"));
	assert_true(has_error(&e, 6, "not an email address"));
	assert_true(has_error(&e, 8, "'nobody' is not an email address"));
	assert_true(has_error(&e, 9,
			      "'sometimes' is not one of: all, "
			      "shadow, none"));
	rb_config_errors_release(&e);
}

/* The acceptance case: a misspelled key under a policy. */
static void test_misspelled_key(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;
	char path[PATH_MAX], want[PATH_MAX + 200], *out;

	data_path(path, sizeof(path), "mdoe.yaml");
	assert_int_equal(rb_config_load(&cfg, path, &e), -RB_ECONFIG);
	assert_null(cfg);
	assert_int_equal(e.n, 1);
	assert_int_equal(e.v[0].line, 5);
	assert_int_equal(e.v[0].col, 7);
	out = printed(&e, path);
	snprintf(want, sizeof(want),
		 "%s:5:7: policy.subsystems.MEMORY MANAGEMENT.mdoe: unknown "
		 "key (did you mean 'mode'?)\n",
		 path);
	assert_string_equal(out, want);
	free(out);
	/* The recorded reason names the first error too. */
	assert_non_null(strstr(rb_errmsg(), "mdoe.yaml:5:7: policy."));
	rb_config_errors_release(&e);
	assert_int_equal(e.n, 0);
}

static void test_missing_secret(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;
	char want[PATH_MAX + 200], *out;
	const char *conf;

	conf = write_tmp("secret.yaml",
			 "smtp:\n"
			 "  url: smtp://127.0.0.1:25\n"
			 "  user: bot\n"
			 "  password_file: nope/smtp-password\n");
	assert_int_equal(rb_config_load(&cfg, conf, &e), -RB_ECONFIG);
	assert_int_equal(e.n, 1);
	out = printed(&e, "secret.yaml");
	snprintf(want, sizeof(want),
		 "secret.yaml:4:18: smtp.password_file: cannot read "
		 "'%s/nope/smtp-password': No such file or directory\n",
		 tmpdir);
	assert_string_equal(out, want);
	free(out);
	rb_config_errors_release(&e);

	/* A directory is not a secret file; an empty file is an error. */
	write_tmp("empty-secret", "\n");
	assert_int_equal(load_mem(&cfg,
				  "model:\n"
				  "  provider: command\n"
				  "  command: ./m\n"
				  "  api_key_file: .\n"
				  "sources:\n"
				  "  - type: imap\n"
				  "    url: imap://127.0.0.1:143\n"
				  "    user: u\n"
				  "    password_file: empty-secret\n",
				  &e),
			 -RB_ECONFIG);
	assert_int_equal(e.n, 2);
	assert_true(has_error(&e, 4, "not a regular file"));
	assert_true(has_error(&e, 9, "empty-secret' is empty"));
	rb_config_errors_release(&e);
}

/* A secret's value reaches the struct, never a message. */
static void test_secret_never_printed(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;
	const char *yaml = "model:\n"
			   "  provider: openai\n"
			   "  url: http://127.0.0.1:8000/v1/chat/completions\n"
			   "  name: m\n"
			   "  api_key_env: RB_TEST_KEY\n"
			   "smtp:\n"
			   "  url: smtp://127.0.0.1:25\n"
			   "  user: u\n"
			   "  password_file: pw\n";
	char *out;

	write_tmp("pw", "Sup3rSecret-pw\n");
	setenv("RB_TEST_KEY", "Sup3rSecret-env", 1);
	assert_int_equal(load_mem(&cfg, yaml, &e), 0);
	assert_string_equal(cfg->model.opts.api_key, "Sup3rSecret-env");
	assert_string_equal(cfg->smtp.password, "Sup3rSecret-pw");
	rb_config_free(cfg);

	/* Now with errors all around the secrets. */
	cfg = NULL;
	assert_int_equal(load_mem(&cfg,
				  "model:\n"
				  "  provider: openai\n"
				  "  api_key_env: RB_TEST_KEY\n"
				  "  api_key_file: pw\n"
				  "  api_key: Sup3rSecret-inline\n"
				  "smtp:\n"
				  "  password_file: pw\n"
				  "  url: smtp://u:Sup3rSecret-url@127.0.0.1\n",
				  &e),
			 -RB_ECONFIG);
	out = printed(&e, "config.yaml");
	assert_null(strstr(out, "Sup3rSecret"));
	assert_non_null(strstr(out, "model.api_key: unknown key: secrets are "
				    "never written inline; use "
				    "'api_key_file'"));
	assert_non_null(strstr(out, "set api_key_env or api_key_file, not "
				    "both"));
	assert_non_null(strstr(out, "smtp.url: the URL holds a user name or "
				    "password"));
	assert_null(strstr(rb_errmsg(), "Sup3rSecret"));
	free(out);
	rb_config_errors_release(&e);

	unsetenv("RB_TEST_KEY");
	assert_int_equal(load_mem(&cfg,
				  "model:\n  provider: command\n"
				  "  command: x\n  api_key_env: RB_TEST_KEY\n",
				  &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 4,
			      "model.api_key_env: the environment variable "
			      "RB_TEST_KEY is not set"));
	rb_config_errors_release(&e);
}

/* model.tools: on by default where the provider calls tools natively. */
static void test_model_tools(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;

	(void)state;
	assert_int_equal(rb_config_defaults(&cfg), 0);
	assert_false(cfg->model.tools.enabled);
	assert_int_equal(cfg->model.tools.max_calls, 12);
	assert_int_equal(cfg->model.tools.max_bytes, 96 << 10);
	assert_int_equal(cfg->model.tools.verifier_calls, 16);
	assert_int_equal(cfg->model.tools.verifier_bytes, 128 << 10);
	assert_int_equal(cfg->model.tools.series_calls, 300);
	assert_int_equal(cfg->model.tools.series_bytes, 6 << 20);
	assert_int_equal(cfg->model.tools.max_result, 16 << 10);
	assert_int_equal(cfg->model.tools.max_seconds, 300);
	assert_int_equal(cfg->model.tools.max_rounds, 12);
	assert_int_equal(cfg->model.tools.max_tokens, 0);
	rb_config_free(cfg);

	cfg = NULL;
	assert_int_equal(load_mem(&cfg,
				  "model:\n"
				  "  provider: openai\n"
				  "  url: http://127.0.0.1:8000/v1/chat/"
				  "completions\n"
				  "  name: m\n",
				  &e),
			 0);
	assert_true(cfg->model.tools.enabled);
	assert_int_equal(cfg->model.tools.max_rounds, 12);
	rb_config_free(cfg);

	/* A command's program speaks the protocol only when told. */
	cfg = NULL;
	assert_int_equal(load_mem(&cfg,
				  "model:\n  provider: command\n"
				  "  command: ./m\n",
				  &e),
			 0);
	assert_false(cfg->model.tools.enabled);
	rb_config_free(cfg);

	cfg = NULL;
	assert_int_equal(load_mem(&cfg,
				  "model:\n  provider: command\n"
				  "  command: ./m\n"
				  "  tools:\n"
				  "    enabled: true\n"
				  "    max_calls: 5\n"
				  "    max_bytes: 4096\n"
				  "    max_result: 1000\n"
				  "    max_seconds: 10\n"
				  "    max_rounds: 3\n"
				  "    max_tokens: 50000\n"
				  "    verifier_calls: 7\n"
				  "    verifier_bytes: 8192\n"
				  "    series_calls: 40\n"
				  "    series_bytes: 65536\n",
				  &e),
			 0);
	assert_true(cfg->model.tools.enabled);
	assert_int_equal(cfg->model.tools.verifier_calls, 7);
	assert_int_equal(cfg->model.tools.verifier_bytes, 8192);
	assert_int_equal(cfg->model.tools.series_calls, 40);
	assert_int_equal(cfg->model.tools.series_bytes, 65536);
	assert_int_equal(cfg->model.tools.max_calls, 5);
	assert_int_equal(cfg->model.tools.max_bytes, 4096);
	assert_int_equal(cfg->model.tools.max_result, 1000);
	assert_int_equal(cfg->model.tools.max_seconds, 10);
	assert_int_equal(cfg->model.tools.max_rounds, 3);
	assert_int_equal(cfg->model.tools.max_tokens, 50000);
	rb_config_free(cfg);

	cfg = NULL;
	assert_int_equal(load_mem(&cfg,
				  "model:\n"
				  "  provider: anthropic\n"
				  "  url: http://127.0.0.1:8000/v1/messages\n"
				  "  name: m\n"
				  "  tools: {enabled: false}\n",
				  &e),
			 0);
	assert_false(cfg->model.tools.enabled);
	rb_config_free(cfg);

	cfg = NULL;
	assert_int_equal(load_mem(&cfg,
				  "model:\n"
				  "  tools:\n"
				  "    enable: true\n"
				  "    max_rounds: 65\n"
				  "    max_calls: 0\n"
				  "    max_bytes: lots\n",
				  &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 3, "model.tools.enable: unknown key"));
	assert_true(has_error(&e, 4,
			      "model.tools.max_rounds: 65 is out of range "
			      "(1 to 64)"));
	assert_true(has_error(&e, 5, "0 is out of range (1 to 1000)"));
	assert_true(has_error(&e, 6, "expected an integer, got 'lots'"));
	assert_int_equal(e.n, 4);
	rb_config_errors_release(&e);
}

/* model.focuses: the finder's passes; all five unless it says. */
static void test_model_focuses(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;

	(void)state;
	assert_int_equal(load_mem(&cfg,
				  "model:\n"
				  "  focuses: [locking, claims]\n",
				  &e),
			 0);
	assert_int_equal(cfg->model.n_focuses, 2);
	assert_string_equal(cfg->model.focuses[0], "locking");
	assert_string_equal(cfg->model.focuses[1], "claims");
	/* The defaults: two passes without the commit message, the
	 * planner and the prompt cache on. */
	assert_int_equal(cfg->model.opts.blind_focuses,
			 1u << rb_model_focus_index("correctness") |
				 1u << rb_model_focus_index("memory"));
	assert_true(cfg->model.opts.focus_planner);
	assert_true(cfg->model.opts.prompt_cache);
	assert_null(cfg->model.index_dir);
	rb_config_free(cfg);

	cfg = NULL;
	assert_int_equal(load_mem(&cfg,
				  "model:\n"
				  "  blind_focuses: []\n"
				  "  focus_planner: false\n"
				  "  prompt_cache: false\n"
				  "  index_dir: cache/code\n",
				  &e),
			 0);
	assert_int_equal(cfg->model.opts.blind_focuses, 0);
	assert_false(cfg->model.opts.focus_planner);
	assert_false(cfg->model.opts.prompt_cache);
	/* A path, against the config's directory. */
	assert_non_null(cfg->model.index_dir);
	assert_non_null(strstr(cfg->model.index_dir, "/cache/code"));
	assert_true(cfg->model.index_dir[0] == '/');
	rb_config_free(cfg);

	cfg = NULL;
	assert_int_equal(load_mem(&cfg,
				  "model:\n  blind_focuses: [claims, api, "
				  "memory]\n",
				  &e),
			 0);
	assert_int_equal(cfg->model.opts.blind_focuses,
			 1u << rb_model_focus_index("claims") |
				 1u << rb_model_focus_index("api") |
				 1u << rb_model_focus_index("memory"));
	rb_config_free(cfg);

	cfg = NULL;
	assert_int_equal(load_mem(&cfg, "model:\n  blind_focuses: [tone]\n",
				  &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 2, "'tone' is not a focus"));
	rb_config_errors_release(&e);

	cfg = NULL;
	assert_int_equal(load_mem(&cfg, "model:\n  focuses: [style]\n", &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 2,
			      "'style' is not a focus (correctness, "
			      "locking, memory, api, claims)"));
	rb_config_errors_release(&e);
}

/* Issue 33: the apply's budgets and the quarantine. */
static void test_limits(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;

	(void)state;
	assert_int_equal(load_mem(&cfg,
				  "limits:\n"
				  "  max_apply_bytes: 64M\n"
				  "  max_file_lines: 500000\n"
				  "  apply_seconds: 0.5\n"
				  "  max_job_attempts: 5\n",
				  &e),
			 0);
	assert_int_equal(cfg->max_apply_bytes, 64u << 20);
	assert_int_equal(cfg->max_file_lines, 500000);
	assert_true(cfg->apply_seconds == 0.5);
	assert_int_equal(cfg->max_job_attempts, 5);
	rb_config_free(cfg);

	cfg = NULL;
	assert_int_equal(load_mem(&cfg,
				  "limits:\n"
				  "  max_apply_bytes: 100K\n"
				  "  max_file_lines: 10\n"
				  "  apply_seconds: 0\n"
				  "  max_job_attempts: 0\n",
				  &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 2, "'100K' is out of range (1M to 64G)"));
	assert_true(has_error(&e, 3, "10 is out of range (1000 to"));
	assert_true(has_error(&e, 4, "0 is out of range (above 0, to 3600)"));
	assert_true(has_error(&e, 5, "0 is out of range (1 to 1000)"));
	rb_config_errors_release(&e);
}

static void test_wrong_types(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;

	assert_int_equal(load_mem(&cfg,
				  "store: [a]\n"
				  "outbox:\n"
				  "  rate_per_hour: {a: 1}\n"
				  "  max_recipients: \"12x\"\n"
				  "feedback:\n"
				  "  ack: perhaps\n"
				  "admins: x@example.org\n"
				  "model:\n"
				  "  name: [a, b]\n"
				  "  cost_per_mtok_in: cheap\n"
				  "policy:\n"
				  "  default:\n"
				  "    mode: sometimes\n"
				  "    min_severity: 3\n"
				  "    max_findings: 51\n",
				  &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 1, "store: expected a mapping, got a list"));
	assert_true(has_error(&e, 3,
			      "outbox.rate_per_hour: expected an integer, got "
			      "a mapping"));
	assert_true(has_error(&e, 4, "expected an integer, got '12x'"));
	assert_true(has_error(&e, 6,
			      "feedback.ack: expected true or false, got "
			      "'perhaps'"));
	assert_true(has_error(&e, 7, "admins: expected a list, got a string"));
	assert_true(has_error(&e, 9,
			      "model.name: expected a string, got a "
			      "list"));
	assert_true(has_error(&e, 10, "expected a number, got 'cheap'"));
	assert_true(has_error(&e, 13,
			      "policy.default.mode: 'sometimes' is not one "
			      "of: off, shadow, advisory, blocking"));
	assert_true(has_error(&e, 14, "'3' is not one of: info, low"));
	assert_true(has_error(&e, 15, "51 is out of range (0 to 50)"));
	assert_int_equal(e.n, 10);
	rb_config_errors_release(&e);
}

/* All errors are reported, in file order, not only the first. */
/*
 * Issue 34: configuration that cannot fail silently. A posting address
 * where a List-Id belongs is refused, with the List-Id it probably
 * means; so is a section whose mode no list lets it have.
 */
static void test_list_ids_and_policies(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;

	(void)state;
	assert_int_equal(load_mem(&cfg,
				  "list_ids: [linux-mm@kvack.org]\n"
				  "policy:\n"
				  "  subsystems:\n"
				  "    linux-api@vger.kernel.org:\n"
				  "      mode: advisory\n",
				  &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 1,
			      "'linux-mm@kvack.org' is a posting address, "
			      "not a List-Id"));
	assert_true(has_error(&e, 1, "did you mean 'linux-mm.kvack.org'?"));
	assert_true(has_error(&e, 4,
			      "did you mean "
			      "'linux-api.vger.kernel.org'?"));
	rb_config_errors_release(&e);

	/* The list in shadow, its only section advisory: never advisory. */
	memset(&e, 0, sizeof(e));
	assert_int_equal(load_mem(&cfg,
				  "admins: [a@example.org]\n"
				  "list_ids: [linux-mm.kvack.org]\n"
				  "policy:\n"
				  "  subsystems:\n"
				  "    linux-mm.kvack.org:\n"
				  "      mode: shadow\n"
				  "    MEMORY MANAGEMENT:\n"
				  "      mode: advisory\n",
				  &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 7,
			      "policy.subsystems.MEMORY MANAGEMENT: mode "
			      "advisory never takes effect"));
	assert_true(has_error(&e, 7, "(linux-mm.kvack.org: shadow)"));
	rb_config_errors_release(&e);

	/* Both shadow, or a list without an entry: fine. */
	memset(&e, 0, sizeof(e));
	assert_int_equal(load_mem(&cfg,
				  "admins: [a@example.org]\n"
				  "list_ids: [linux-mm.kvack.org, "
				  "linux-api.vger.kernel.org]\n"
				  "policy:\n"
				  "  subsystems:\n"
				  "    linux-mm.kvack.org:\n"
				  "      mode: shadow\n"
				  "    MEMORY MANAGEMENT:\n"
				  "      mode: advisory\n"
				  "      report_apply_failures: author\n",
				  &e),
			 0);
	assert_int_equal(cfg->policies[1].report_apply_failures, RB_AF_AUTHOR);
	assert_true(rb_config_is_list_policy(cfg, "linux-mm.kvack.org"));
	assert_false(rb_config_is_list_policy(cfg, "MEMORY MANAGEMENT"));
	rb_config_free(cfg);
	cfg = NULL;
	rb_config_errors_release(&e);

	/* report_apply_failures: off, admins, author; the old booleans. */
	memset(&e, 0, sizeof(e));
	assert_int_equal(load_mem(&cfg,
				  "policy:\n"
				  "  default:\n"
				  "    report_apply_failures: true\n"
				  "  subsystems:\n"
				  "    A:\n"
				  "      report_apply_failures: false\n"
				  "    B:\n"
				  "      report_apply_failures: everyone\n",
				  &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 8,
			      "'everyone' is not one of: off, admins, "
			      "author"));
	assert_int_equal(e.n, 1);
	rb_config_errors_release(&e);
}

static void test_multiple_errors(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;
	char path[PATH_MAX];
	size_t i;

	data_path(path, sizeof(path), "errors.yaml");
	assert_int_equal(rb_config_load(&cfg, path, &e), -RB_ECONFIG);
	assert_int_equal(e.n, 7);
	for (i = 1; i < e.n; i++)
		assert_true(e.v[i - 1].line <= e.v[i].line);
	assert_true(has_error(&e, 3, "store.path: expected a path"));
	assert_true(has_error(&e, 5, "outbox.rate_per_hour"));
	assert_true(has_error(&e, 6, "outbox.max_recipients: 0 is out of"));
	assert_true(has_error(&e, 8,
			      "smtp: user and password_file go "
			      "together"));
	assert_true(has_error(&e, 9, "smtp.password_file: cannot read"));
	assert_true(has_error(&e, 12, "policy.default.send_when_empty"));
	assert_true(has_error(&e, 13,
			      "policy.default.bases[0]: no tree named "
			      "'nowhere'"));
	rb_config_errors_release(&e);
}

static void test_sources_and_trees(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;

	assert_int_equal(load_mem(&cfg,
				  "sources:\n"
				  "  - type: imap\n" /* 2 */
				  "    url: nntp://127.0.0.1\n"
				  "    groups: [x]\n"
				  "  - type: mbox\n" /* 5 */
				  "    url: imap://127.0.0.1\n"
				  "  - type: pop3\n" /* 7 */
				  "  - name: dup\n" /* 8 */
				  "    type: stdin\n"
				  "  - name: dup\n" /* 10 */
				  "    type: eml\n"
				  "    path: a.eml\n"
				  "trees:\n"
				  "  - name: \"bad name\"\n" /* 14 */
				  "    path: /x\n"
				  "  - url: x\n" /* 16 */
				  "policy:\n"
				  "  default:\n"
				  "    mode: shadow\n" /* 19: admins is empty */
				  "    recipients: []\n", /* 20 */
				  &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 2, "sources[0]: missing key 'user'"));
	assert_true(has_error(&e, 2,
			      "sources[0]: missing key "
			      "'password_file'"));
	assert_true(has_error(&e, 3,
			      "sources[0].url: 'nntp://127.0.0.1' is "
			      "not a URL of the expected kind "
			      "(imap://, imaps://)"));
	assert_true(has_error(&e, 4,
			      "sources[0].groups: not used by a "
			      "source of type imap"));
	assert_true(has_error(&e, 5, "sources[1]: missing key 'path'"));
	assert_true(has_error(&e, 6,
			      "sources[1].url: not used by a source "
			      "of type mbox"));
	assert_true(has_error(&e, 7, "sources[2].type: 'pop3' is not one of"));
	assert_true(has_error(&e, 10, "the source name 'dup' is used twice"));
	assert_true(has_error(&e, 14,
			      "trees[0].name: 'bad name' is not a "
			      "tree name"));
	assert_true(has_error(&e, 16, "trees[1]: missing key 'name'"));
	assert_true(has_error(&e, 16, "trees[1]: missing key 'path'"));
	assert_true(has_error(&e, 19,
			      "policy.default.mode: shadow sends to "
			      "the admins only, but admins is empty"));
	assert_true(has_error(&e, 20, "policy.default.recipients: is empty"));
	assert_int_equal(e.n, 13);
	rb_config_errors_release(&e);
}

static void test_syntax_errors(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;
	char *deep;
	size_t i;
	clock_t t0;

	assert_int_equal(load_mem(&cfg, "store:\n  path: [a,\n  x: y\n", &e),
			 -RB_ECONFIG);
	assert_int_equal(e.n, 1);
	assert_true(e.v[0].line > 0);
	assert_non_null(strstr(e.v[0].msg, "YAML syntax error"));
	rb_config_errors_release(&e);

	assert_int_equal(load_mem(&cfg, "a: 1\n---\nb: 2\n", &e), -RB_ECONFIG);
	assert_true(has_error(&e, 1, "a: unknown key"));
	assert_true(has_error(&e, 3, "one YAML document"));
	rb_config_errors_release(&e);

	assert_int_equal(load_mem(&cfg, "store:\n  path: \"a\\0b\"\n", &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 2, "store.path: contains a NUL byte"));
	rb_config_errors_release(&e);

	/* Deep flow nesting is refused before libyaml slows down. */
	deep = malloc(400001);
	assert_non_null(deep);
	for (i = 0; i < 200000; i++) {
		deep[i] = '[';
		deep[400000 - 1 - i] = ']';
	}
	deep[400000] = '\0';
	t0 = clock();
	assert_int_equal(load_mem(&cfg, deep, &e), -RB_ECONFIG);
	assert_true(clock() - t0 < 2 * CLOCKS_PER_SEC);
	assert_true(has_error(&e, 1, "nested too deep"));
	free(deep);
	rb_config_errors_release(&e);
}

/* The key paths of a YAML document: "a.b", a list's items as "a[].b". */
struct doc_paths {
	char **v;
	size_t n;
};

static void doc_walk(yaml_document_t *d, yaml_node_t *n, char *path,
		     struct doc_paths *out)
{
	size_t len = strlen(path);
	yaml_node_pair_t *p;
	yaml_node_item_t *it;

	if (n->type == YAML_SEQUENCE_NODE) {
		snprintf(path + len, PATH_MAX - len, "[]");
		for (it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++)
			doc_walk(d, yaml_document_get_node(d, *it), path, out);
		path[len] = '\0';
		return;
	}
	if (n->type != YAML_MAPPING_NODE)
		return;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(d, p->key);

		snprintf(path + len, PATH_MAX - len, "%s%s", len ? "." : "",
			 (const char *)k->data.scalar.value);
		out->v = realloc(out->v, (out->n + 1) * sizeof(*out->v));
		assert_non_null(out->v);
		out->v[out->n++] = strdup(path);
		doc_walk(d, yaml_document_get_node(d, p->value), path, out);
		path[len] = '\0';
	}
}

struct key_check {
	struct doc_paths doc;
	const char *text; /* the file, for keys shown commented out */
	char missing[8192];
	size_t n_keys;
	bool in_list; /* the keys of a list's entries were named */
};

/* A key of the tables is in the file, or shown there commented out
 * ("  # url: ...", "#   - name: ..."). */
static void key_present(const char *path, void *arg)
{
	struct key_check *k = arg;
	const char *leaf = strrchr(path, '.'), *l;
	size_t i, n;

	k->n_keys++;
	k->in_list = k->in_list || !strcmp(path, "sources[].mailboxes");
	for (i = 0; i < k->doc.n; i++)
		if (!strcmp(k->doc.v[i], path))
			return;
	leaf = leaf ? leaf + 1 : path;
	n = strlen(leaf);
	for (l = k->text; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *s = l + strspn(l, " ");

		if (*s != '#')
			continue;
		s += 1 + strspn(s + 1, " ");
		if (!strncmp(s, "- ", 2))
			s += 2;
		if (!strncmp(s, leaf, n) && s[n] == ':')
			return;
	}
	snprintf(k->missing + strlen(k->missing),
		 sizeof(k->missing) - strlen(k->missing), " %s", path);
}

static void key_differs(const char *path, void *arg)
{
	char *out = arg;

	snprintf(out + strlen(out), 8192 - strlen(out), " %s", path);
}

/*
 * config.yaml at the top is the reference of every key and holds the
 * embedded defaults: loaded, it differs from rb_config_defaults() in no
 * key of the tables, and every key of the tables is in it (or shown
 * commented out, for those with no default).
 */
static void test_shipped_config(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL, *dflt = NULL;
	struct key_check k = { .missing = "" };
	const char *src = getenv("RB_SRC");
	char cwd[PATH_MAX], path[PATH_MAX], differs[8192] = "";
	yaml_parser_t parser;
	yaml_document_t doc;
	FILE *f;
	size_t i;
	long len;
	char *text;
	int ret;

	(void)state;
	/* Its relative paths (./reviewbot.db) are the defaults' when read
	 * from its own directory. */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(src ? src : ".."), 0);
	ret = rb_config_load(&cfg, "config.yaml", &e);
	if (ret)
		fail_msg("%s", printed(&e, "config.yaml"));
	assert_int_equal(rb_config_defaults(&dflt), 0);
	if (rb_config_diff(cfg, dflt, key_differs, differs))
		fail_msg("config.yaml differs from the defaults in:%s",
			 differs);
	assert_int_equal(rb_config_diff(cfg, cfg, NULL, NULL), 0);

	f = fopen("config.yaml", "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	assert_int_equal(chdir(cwd), 0);
	assert_true(yaml_parser_initialize(&parser));
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
				     (size_t)len);
	assert_true(yaml_parser_load(&parser, &doc));
	path[0] = '\0';
	doc_walk(&doc, yaml_document_get_root_node(&doc), path, &k.doc);
	k.text = text;
	rb_config_each_key(key_present, &k);
	if (k.missing[0])
		fail_msg("config.yaml lacks the keys:%s", k.missing);
	/* the tables are walked whole: sources[] and trees[] too */
	assert_true(k.in_list);
	assert_in_range(k.n_keys, 130, 1000);

	/* and a value that is not the default is named */
	cfg->model.opts.max_words++;
	differs[0] = '\0';
	assert_int_equal(rb_config_diff(cfg, dflt, key_differs, differs), 1);
	assert_string_equal(differs, " model.max_words");

	for (i = 0; i < k.doc.n; i++)
		free(k.doc.v[i]);
	free(k.doc.v);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	free(text);
	rb_config_free(dflt);
	rb_config_free(cfg);
}

/* URLs are parsed as libcurl parses them: a bad port is caught early. */
static void test_url_parse(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;

	assert_int_equal(load_mem(&cfg,
				  "smtp:\n"
				  "  url: smtp://127.0.0.1:99999\n"
				  "model:\n"
				  "  provider: openai\n"
				  "  name: m\n"
				  "  url: http://[::1/v1\n",
				  &e),
			 -RB_ECONFIG);
	assert_true(has_error(&e, 2, "smtp.url: the URL does not parse"));
	assert_true(has_error(&e, 6, "model.url: the URL does not parse"));
	rb_config_errors_release(&e);
	assert_int_equal(
		load_mem(&cfg,
			 "smtp:\n"
			 "  url: smtps://mail.example.org:465\n"
			 "model:\n"
			 "  provider: openai\n"
			 "  name: m\n"
			 "  url: http://[::1]:8000/v1/chat/completions\n",
			 &e),
		0);
	rb_config_free(cfg);
}

/* Runs a shell command in the temporary directory; fails the test if it
 * fails. */
static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
	char cmd[4096], full[4096 + PATH_MAX + 64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(cmd));
	n = snprintf(full, sizeof(full), "cd '%s' && (%s) >/dev/null 2>&1",
		     tmpdir, cmd);
	assert_true(n > 0 && (size_t)n < sizeof(full));
	if (system(full))
		fail_msg("failed: %s", cmd);
}

/*
 * check-config's look at the machine: a tree path that does not exist, a
 * directory that is not a git repository, a branch the repository lacks,
 * a misspelled MAINTAINERS section (with "did you mean"), a name that is
 * nothing like one, source paths that do not exist or are of the wrong
 * kind. A list id and a section in other case are accepted.
 */
static void test_check_system(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;
	char yaml[4096 + PATH_MAX];
	int n;

	sh("mkdir -p sys/plain sys/maildir/cur sys/maildir/new sys/maildir/tmp"
	   " && : >sys/in.mbox && git init -q -b master sys/tree && cd sys/tree"
	   " && printf 'RING BUFFER\\nM:\\tGrace <grace@example.org>\\n"
	   "F:\\tlib/ring.c\\n\\nTHE REST\\nF:\\t*\\n' >MAINTAINERS"
	   " && git add MAINTAINERS && git -c user.name=T"
	   " -c user.email=t@example.org commit -q -m init");
	n = snprintf(yaml, sizeof(yaml),
		     "trees:\n" /* 1 */
		     "  - name: demo\n" /* 2 */
		     "    path: %s/sys/tree\n" /* 3 */
		     "    branch: master\n" /* 4 */
		     "  - name: gone\n" /* 5 */
		     "    path: sys/nope\n" /* 6 */
		     "  - name: plain\n" /* 7 */
		     "    path: sys/plain\n" /* 8 */
		     "  - name: mm\n" /* 9 */
		     "    path: sys/tree\n" /* 10 */
		     "    branch: mm-unstable\n" /* 11 */
		     "sources:\n" /* 12 */
		     "  - type: mbox\n" /* 13 */
		     "    path: sys/in.mbox\n" /* 14 */
		     "  - type: mbox\n" /* 15 */
		     "    path: sys/none.mbox\n" /* 16 */
		     "  - type: maildir\n" /* 17 */
		     "    path: sys/in.mbox\n" /* 18 */
		     "  - type: maildir\n" /* 19 */
		     "    path: sys/maildir\n" /* 20 */
		     "  - type: eml\n" /* 21 */
		     "    path: sys/maildir\n" /* 22 */
		     "admins: [a@example.org]\n" /* 23 */
		     "list_ids: [<demo-list.example.org>]\n" /* 24 */
		     "policy:\n" /* 25 */
		     "  subsystems:\n" /* 26 */
		     "    RING BUFER:\n" /* 27 */
		     "      mode: shadow\n" /* 28 */
		     "    ring buffer:\n" /* 29 */
		     "      mode: shadow\n" /* 30 */
		     "    demo-list.example.org:\n" /* 31 */
		     "      mode: shadow\n" /* 32 */
		     "    NOTHING LIKE IT:\n" /* 33 */
		     "      mode: shadow\n" /* 34 */
		     "    demo-lst.example.org:\n" /* 35 */
		     "      mode: shadow\n", /* 36 */
		     tmpdir);
	assert_true(n > 0 && (size_t)n < sizeof(yaml));
	/* "RING BUFER" and "ring buffer" are two names, both load. */
	assert_int_equal(load_mem(&cfg, yaml, &e), 0);
	assert_int_equal(rb_config_check_system(cfg, &e), -RB_ECONFIG);
	{
		char *p = printed(&e, "c.yaml");

		print_message("%s", p);
		free(p);
	}
	assert_true(has_error(&e, 6, "trees[1].path: '"));
	assert_true(has_error(&e, 6, "sys/nope' does not exist"));
	assert_true(has_error(&e, 8, "trees[2].path: '"));
	assert_true(has_error(&e, 8, "is not a git repository"));
	assert_true(has_error(&e, 11,
			      "trees[3].branch: no branch "
			      "'mm-unstable' in '"));
	assert_true(has_error(&e, 16, "sources[1].path: '"));
	assert_true(has_error(&e, 16, "none.mbox' does not exist"));
	assert_true(has_error(&e, 18, "sources[2].path: '"));
	assert_true(has_error(&e, 18, "is not a directory (a Maildir)"));
	assert_true(has_error(&e, 22, "sources[4].path: '"));
	assert_true(has_error(&e, 22, "is a directory"));
	assert_true(has_error(&e, 27,
			      "policy.subsystems.RING BUFER: not a MAINTAINERS "
			      "section of the tree demo, nor one of list_ids "
			      "(did you mean 'RING BUFFER'?)"));
	assert_true(has_error(&e, 33,
			      "policy.subsystems.NOTHING LIKE IT: not "
			      "a MAINTAINERS section of the tree demo, "
			      "nor one of list_ids"));
	assert_false(has_error(&e, 33, "did you mean"));
	assert_true(has_error(&e, 35,
			      "(did you mean "
			      "'demo-list.example.org'?)"));
	/* Positions are exact, and the list is in file order. */
	assert_int_equal(e.v[0].line, 6);
	assert_int_equal(e.v[0].col, 11);
	assert_int_equal(e.n, 9);
	rb_config_free(cfg);
	rb_config_errors_release(&e);

	/* All good: no problem, nothing appended. */
	snprintf(yaml, sizeof(yaml),
		 "trees:\n"
		 "  - name: demo\n"
		 "    path: sys/tree\n"
		 "sources:\n"
		 "  - type: maildir\n"
		 "    path: sys/maildir\n"
		 "admins: [a@example.org]\n"
		 "policy:\n"
		 "  subsystems:\n"
		 "    RING BUFFER: {mode: shadow}\n"
		 "    THE REST: {mode: off}\n");
	assert_int_equal(load_mem(&cfg, yaml, &e), 0);
	assert_int_equal(rb_config_check_system(cfg, &e), 0);
	assert_int_equal(e.n, 0);
	rb_config_free(cfg);

	/* Without list_ids every list is accepted: a list id is not refuted,
	 * a section name still is. */
	assert_int_equal(load_mem(&cfg,
				  "trees:\n"
				  "  - name: demo\n"
				  "    path: sys/tree\n"
				  "admins: [a@example.org]\n"
				  "policy:\n  subsystems:\n"
				  "    linux-mm.kvack.org: {mode: shadow}\n"
				  "    RING BUFER: {mode: shadow}\n",
				  &e),
			 0);
	assert_int_equal(rb_config_check_system(cfg, &e), -RB_ECONFIG);
	assert_int_equal(e.n, 1);
	assert_true(has_error(&e, 8, "did you mean 'RING BUFFER'"));
	rb_config_free(cfg);
	rb_config_errors_release(&e);

	/* No tree: sections cannot be told, and are not checked. */
	assert_int_equal(load_mem(&cfg,
				  "admins: [a@example.org]\n"
				  "policy:\n  subsystems:\n"
				  "    ANYTHING: {mode: shadow}\n",
				  &e),
			 0);
	assert_int_equal(rb_config_check_system(cfg, &e), 0);
	rb_config_free(cfg);
}

static void test_load_or_defaults(void **state)
{
	struct rb_config_errors e = { 0 };
	struct rb_config *cfg = NULL;
	char cwd[PATH_MAX];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tmpdir), 0);
	unlink("config.yaml");
	assert_int_equal(rb_config_load_or_defaults(&cfg, NULL, &e), 0);
	assert_null(cfg->file);
	rb_config_free(cfg);

	write_tmp("config.yaml", "store:\n  path: here.db\n");
	assert_int_equal(rb_config_load_or_defaults(&cfg, NULL, &e), 0);
	assert_string_equal(cfg->file, "config.yaml");
	assert_string_equal(cfg->store_path, "./here.db");
	rb_config_free(cfg);

	assert_int_equal(rb_config_load_or_defaults(&cfg, "missing.yaml", &e),
			 -RB_ECONFIG);
	assert_int_equal(e.n, 1);
	assert_int_equal(e.v[0].line, 0);
	assert_string_equal(e.v[0].msg, "cannot read 'missing.yaml': No such "
					"file or directory");
	rb_config_errors_release(&e);
	unlink("config.yaml");
	assert_int_equal(chdir(cwd), 0);
}

static void remove_tmp(void)
{
	const char *names[] = { "secret.yaml", "empty-secret", "pw",
				"config.yaml" };
	char path[PATH_MAX + 32];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "rm -rf '%s/sys'", tmpdir);
	if (system(path))
		fprintf(stderr, "cannot remove %s/sys\n", tmpdir);
	rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_inheritance),
		cmocka_unit_test(test_misspelled_key),
		cmocka_unit_test(test_missing_secret),
		cmocka_unit_test(test_secret_never_printed),
		cmocka_unit_test(test_model_tools),
		cmocka_unit_test(test_model_focuses),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_multiple_errors),
		cmocka_unit_test(test_sources_and_trees),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_tree_checkers),
		cmocka_unit_test(test_shipped_config),
		cmocka_unit_test(test_load_or_defaults),
		cmocka_unit_test(test_sub_maintainers),
		cmocka_unit_test(test_url_parse),
		cmocka_unit_test(test_check_system),
		cmocka_unit_test(test_list_ids_and_policies),
	};
	const char *src = getenv("RB_SRC");
	int ret;

	snprintf(datadir, sizeof(datadir), "%s/tests/data/config",
		 src ? src : "..");
	snprintf(tmpdir, sizeof(tmpdir), "%s/rb-config-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	remove_tmp();
	return ret;
}
