/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config_priv.h - what the three parts of the config loader share:
 * config.c (the engine: the walk over the key tables, the value checks,
 * errors, loading), config_keys.c (the key tables and the readers of the
 * keys that need more than a table entry) and config_check.c
 * (check-config's look at the machine). Private to bot/.
 */
#ifndef RB_BOT_CONFIG_PRIV_H
#define RB_BOT_CONFIG_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "bot/config.h"
#include "util/buf.h"

#define CONFIG_MAX_SIZE (1u << 20) /* a config is hand-written */
#define SECRET_MAX_SIZE 65536
#define MAX_ERRORS 100
/* Aliases share nodes, so a small file can stand for a huge tree. */
#define NODE_BUDGET 200000
#define KEY_SHOW_MAX 64 /* bytes of a key shown in a message */
#define MAX_KEYS 64
/*
 * libyaml's scanner slows down with the flow nesting depth (measured: 32000
 * levels of '[' took 1.3 s, 100000 took 34 s under ASan); a config needs
 * five levels.
 */
#define MAX_DEPTH 64
/* The loader looks each alias up in a list of all anchors. */
#define MAX_ANCHORS 1000

struct ctx {
	yaml_document_t *doc;
	struct rb_config *cfg;
	struct rb_config_errors *errs;
	const char *dir; /* the config file's directory */
	struct rb_buf path; /* key path of the node being read */
	long budget;
	bool oom;
	bool full; /* MAX_ERRORS reached */
	bool over_budget;
};

enum ktype {
	K_STR, /* one line of text */
	K_TEXT, /* may hold newlines */
	K_PATH, /* resolved against the config's directory */
	K_DIR, /* a path that must be an existing directory */
	K_FILE, /* a path that must be a readable file */
	K_URL, /* .aux: the NULL-terminated schemes */
	K_INT,
	K_DOUBLE,
	K_BOOL,
	K_STARTTLS, /* "required" (true) or "off" (false) */
	K_ENUM, /* .aux: the NULL-terminated names; an int is stored */
	K_CHOICE, /* .aux: the NULL-terminated names; a string is stored */
	K_STRLIST, /* .noff: the count */
	K_ADDRLIST, /* same, each a bare address */
	K_SECRET_FILE,
	K_SECRET_ENV,
	K_LONG, /* as K_INT, into a long */
	K_SIZE, /* as K_INT, into a size_t */
	K_MAP, /* .sub / .nsub, on the object at .off */
	K_FN, /* .fn; .store: what it keeps at .off */
};

/*
 * What a K_FN key keeps at .off, for rb_config_diff() (the other types
 * say it themselves): S_COUNT compares only the count at .noff (a list
 * of entries: sources, trees, subsystems, people, rules, prefixes).
 */
enum kstore {
	S_NONE,
	S_STR,
	S_INT,
	S_UINT,
	S_LONG,
	S_SIZE,
	S_DOUBLE,
	S_BOOL,
	S_STRV, /* char ** at .off, its count at .noff */
	S_COUNT,
};

struct key;
/*
 * Validates one item of a list of strings and returns the string to keep
 * (malloc'd), or NULL after recording why.
 */
typedef char *(*item_fn)(struct ctx *c, yaml_node_t *item, const char *t);
typedef void (*key_fn)(struct ctx *c, yaml_node_t *v, void *obj);
typedef void (*check_fn)(struct ctx *c, yaml_node_t *map, void *obj,
			 yaml_node_t *const *seen);

struct key {
	const char *name;
	enum ktype type;
	size_t off;
	size_t noff;
	long min, max;
	const void *aux;
	key_fn fn;
	item_fn item; /* K_STRLIST: checks each item, or NULL */
	const struct key *sub;
	size_t nsub;
	check_fn check; /* K_MAP: runs after the mapping was read */
	enum kstore store; /* K_FN */
	/* K_FN reading a list of mappings with the keys of .sub (sources,
	 * trees): named "key[].sub" by rb_config_each_key() */
	bool list;
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define KEY(n, t, T, f, ...)                                                 \
	{                                                                    \
		.name = (n), .type = (t), .off = offsetof(T, f), __VA_ARGS__ \
	}

bool rb_cfg_addr_ok(const char *s);
void rb_cfg_cerr(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool rb_cfg_each_item(struct ctx *c, yaml_node_t *v,
		      bool (*fn)(struct ctx *c, yaml_node_t *n, void *arg),
		      void *arg);
int rb_cfg_errs_add(struct rb_config_errors *e, int line, int col, char *msg);
void rb_cfg_errs_sort(struct rb_config_errors *e, size_t from);
bool rb_cfg_from_ok(const char *s);
bool rb_cfg_is_list(struct ctx *c, const yaml_node_t *v, const char *what);
bool rb_cfg_is_null(const yaml_node_t *n);
const char *rb_cfg_kind_name(const yaml_node_t *n);
bool rb_cfg_name_ok(const char *s);
yaml_node_t *rb_cfg_node(struct ctx *c, int id);
size_t rb_cfg_osa_distance(const char *a, const char *b);
bool rb_cfg_parse_long(const char *t, long *out);
size_t rb_cfg_path_index(struct ctx *c, size_t i);
size_t rb_cfg_path_key(struct ctx *c, const char *key);
void rb_cfg_path_pop(struct ctx *c, size_t old);
int rb_cfg_pick(struct ctx *c, yaml_node_t *v, const char *const *names);
void rb_cfg_policy_release(struct rb_policy *p);
struct rb_config_pos rb_cfg_pos_of(const yaml_node_t *n);
void rb_cfg_replace(char **dst, char *v);
void rb_cfg_set_bool(struct ctx *c, yaml_node_t *v, bool *dst);
void rb_cfg_set_double(struct ctx *c, yaml_node_t *v, double *dst, long min,
		       long max);
void rb_cfg_set_list(struct ctx *c, yaml_node_t *v, char ***vp, size_t *np,
		     item_fn check);
const char *rb_cfg_shown(char *tmp, size_t size, const char *s);
void rb_cfg_source_release(struct rb_source_config *s);
extern const char *const rb_cfg_source_type_names[];
const char *rb_cfg_strip_list_id(const char *name, char *tmp, size_t size);
int rb_cfg_strv_dup(char ***out, char **v, size_t n);
void rb_cfg_strv_free(char **v, size_t n);
int rb_cfg_strv_push(char ***v, size_t *n, char *s);
const char *rb_cfg_text(struct ctx *c, const yaml_node_t *n, const char *want,
			bool multiline);
extern const struct key rb_cfg_top_keys[];
void rb_cfg_tree_release(struct rb_tree_config *t);
bool rb_cfg_url_check(struct ctx *c, const yaml_node_t *n, const char *u,
		      const char *const *schemes);
bool rb_cfg_visit(struct ctx *c, const yaml_node_t *n);
void rb_cfg_walk_map(struct ctx *c, yaml_node_t *n, const struct key *keys,
		     size_t nkeys, void *obj, check_fn check);
char *rb_cfg_xstrdup(struct ctx *c, const char *s);

/*
 * A list of names read into *@dst, bit @index(name) for each (an unknown
 * name, -1, is reported as "'NAME' is not @what"); null and [] give 0.
 * False, and *@dst untouched, when @v is not a list (reported).
 */
bool rb_cfg_set_bits(struct ctx *c, yaml_node_t *v, unsigned int *dst,
		     int (*index)(const char *name), const char *what);

extern const size_t rb_cfg_n_top_keys;

#endif
