// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until the config loader lands: fails visibly. */
#include <stdlib.h>
#include <string.h>

#include "bot/config.h"
#include "util/err.h"
#include "util/banned.h"

int rb_config_defaults(struct rb_config **out)
{
	struct rb_config *c = calloc(1, sizeof(*c));

	if (!c)
		return rb_err(RB_ENOMEM, "out of memory");
	c->store_path = strdup("./reviewbot.db");
	c->outbox_maildir = strdup("./outbox");
	c->smtp_from = strdup("reviewbot <reviewbot@localhost>");
	c->max_message_size = 32u << 20;
	*out = c;
	return 0;
}

int rb_config_load(struct rb_config **out, const char *path,
		   struct rb_config_errors *errs)
{
	(void)out;
	(void)errs;
	return rb_err(RB_ECONFIG, "%s: config loading is not implemented yet",
		      path);
}

int rb_config_load_mem(struct rb_config **out, const char *name,
		       const char *yaml, size_t len,
		       struct rb_config_errors *errs)
{
	(void)out;
	(void)yaml;
	(void)len;
	(void)errs;
	return rb_err(RB_ECONFIG, "%s: config loading is not implemented yet",
		      name);
}

void rb_config_free(struct rb_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->store_path);
	free(cfg->outbox_maildir);
	free(cfg->smtp_from);
	free(cfg);
}

void rb_config_errors_release(struct rb_config_errors *errs)
{
	(void)errs;
}

const struct rb_policy *rb_config_policy(const struct rb_config *cfg,
					 const char *name)
{
	(void)name;
	return &cfg->policy_default;
}

const struct rb_tree_config *rb_config_tree(const struct rb_config *cfg,
					    const char *name)
{
	(void)cfg;
	(void)name;
	return NULL;
}

const char *rb_mode_name(enum rb_mode m)
{
	static const char *const n[] = { "off", "shadow", "advisory",
					 "blocking" };
	return (unsigned)m <= RB_MODE_BLOCKING ? n[m] : "off";
}

const char *rb_severity_name(enum rb_severity s)
{
	static const char *const n[] = { "info", "low", "medium", "high",
					 "critical" };
	return (unsigned)s <= RB_SEV_CRITICAL ? n[s] : "info";
}

int rb_severity_parse(const char *s)
{
	int i;

	for (i = 0; i <= RB_SEV_CRITICAL; i++)
		if (!strcmp(s, rb_severity_name(i)))
			return i;
	return -1;
}
