// SPDX-License-Identifier: GPL-2.0-only
/*
 * config.c - loads config.yaml with libyaml's document API into the
 * validated struct rb_config.
 *
 * The walk is driven by tables of keys, one per mapping. Each mapping is
 * read in two passes: the first finds unknown and duplicate keys, the
 * second applies the known keys in table order, not in file order, so that
 * trees[] and admins are known when policy.bases and policy modes are
 * checked, and policy.default is known before the subsystems that inherit
 * from it. Every problem is recorded with the line and column of its node
 * and the key path ("policy.subsystems.MM.mode"); the walk goes on after
 * an error, so one run reports all of them.
 *
 * Secrets (*_file, *_env) are read here and kept in memory only; no
 * message ever holds a secret's value, and strings that could hold one
 * (URLs with a password) are refused.
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
#include "mail/addr.h"
#include "review/checks/rules.h"
#include "review/maint/maintainers.h"
#include "review/model/model.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

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

/* ---- errors ---------------------------------------------------------- */

static int errs_add(struct rb_config_errors *e, int line, int col, char *msg)
{
	struct rb_config_error *v;

	v = realloc(e->v, (e->n + 1) * sizeof(*v));
	if (!v) {
		free(msg);
		return -RB_ENOMEM;
	}
	e->v = v;
	v[e->n].line = line;
	v[e->n].col = col;
	v[e->n].msg = msg;
	e->n++;
	return 0;
}

static void add_msg(struct ctx *c, int line, int col, const char *fmt,
		    va_list ap) __attribute__((format(printf, 4, 0)));

static void add_msg(struct ctx *c, int line, int col, const char *fmt,
		    va_list ap)
{
	struct rb_buf b = RB_BUF_INIT(4096);
	char *msg;

	if (c->full)
		return;
	if (c->errs->n >= MAX_ERRORS) {
		c->full = true;
		msg = strdup("too many errors; the rest are not shown");
		if (!msg || errs_add(c->errs, 0, 0, msg))
			c->oom = true;
		return;
	}
	if (c->path.len)
		(void)rb_buf_printf(&b, "%s: ", c->path.ptr);
	(void)rb_buf_vprintf(&b, fmt, ap);
	msg = rb_buf_detach(&b, NULL);
	if (!msg || errs_add(c->errs, line, col, msg))
		c->oom = true;
}

/* Records a problem at node @n (NULL: no position) under the key path. */
static void cerr(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cerr(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	int line = 0, col = 0;

	if (n) {
		line = (int)n->start_mark.line + 1;
		col = (int)n->start_mark.column + 1;
	}
	va_start(ap, fmt);
	add_msg(c, line, col, fmt, ap);
	va_end(ap);
}

static void cerr_at(struct ctx *c, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void cerr_at(struct ctx *c, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_msg(c, line, col, fmt, ap);
	va_end(ap);
}

/* Where @n stands, for checks made after the load (check-config). */
static struct rb_config_pos pos_of(const yaml_node_t *n)
{
	struct rb_config_pos p = { 0, 0 };

	if (n) {
		p.line = (int)n->start_mark.line + 1;
		p.col = (int)n->start_mark.column + 1;
	}
	return p;
}

/* Copies @s for a message: control characters become '?', long is cut. */
static const char *shown(char *tmp, size_t size, const char *s)
{
	size_t i, j = 0;

	for (i = 0; s[i] && j + 4 < size; i++) {
		unsigned char ch = (unsigned char)s[i];

		tmp[j++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
	if (s[i]) {
		tmp[j++] = '.';
		tmp[j++] = '.';
		tmp[j++] = '.';
	}
	tmp[j] = '\0';
	return tmp;
}

/* ---- key path -------------------------------------------------------- */

static size_t path_key(struct ctx *c, const char *key)
{
	size_t old = c->path.len;
	char tmp[KEY_SHOW_MAX + 4];

	if (old)
		(void)rb_buf_putc(&c->path, '.');
	(void)rb_buf_puts(&c->path, shown(tmp, sizeof(tmp), key));
	return old;
}

static size_t path_index(struct ctx *c, size_t i)
{
	size_t old = c->path.len;

	(void)rb_buf_printf(&c->path, "[%zu]", i);
	return old;
}

static void path_pop(struct ctx *c, size_t old)
{
	rb_buf_truncate(&c->path, old);
}

/* ---- nodes ----------------------------------------------------------- */

static yaml_node_t *node(struct ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

static const char *kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SEQUENCE_NODE:
		return "a list";
	default:
		return "a string";
	}
}

/* True when @v is a sequence; else reports "expected a list@what". */
static bool is_list(struct ctx *c, const yaml_node_t *v, const char *what)
{
	if (v->type == YAML_SEQUENCE_NODE)
		return true;
	cerr(c, v, "expected a list%s, got %s", what, kind_name(v));
	return false;
}

static bool visit(struct ctx *c, const yaml_node_t *n)
{
	if (--c->budget >= 0)
		return true;
	if (!c->over_budget) {
		c->over_budget = true;
		cerr(c, n, "the document has too many nodes (aliases?)");
	}
	return false;
}

static bool is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") ||
	       !strcmp(v, "Null") || !strcmp(v, "NULL");
}

/*
 * The text of scalar @n, or NULL after recording why not: not a scalar, a
 * NUL byte, or a control character (only multi-line text may hold
 * newlines and tabs).
 */
static const char *text(struct ctx *c, const yaml_node_t *n, const char *want,
			bool multiline)
{
	const char *v;
	size_t i, len;

	if (n->type != YAML_SCALAR_NODE) {
		cerr(c, n, "expected %s, got %s", want, kind_name(n));
		return NULL;
	}
	v = (const char *)n->data.scalar.value;
	len = n->data.scalar.length;
	if (strlen(v) != len) {
		cerr(c, n, "contains a NUL byte");
		return NULL;
	}
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)v[i];

		if (multiline && (ch == '\n' || ch == '\t'))
			continue;
		if (ch < 0x20 || ch == 0x7f) {
			cerr(c, n, "contains a control character");
			return NULL;
		}
	}
	return v;
}

static char *xstrdup(struct ctx *c, const char *s)
{
	char *p = strdup(s);

	if (!p)
		c->oom = true;
	return p;
}

static void replace(char **dst, char *v)
{
	free(*dst);
	*dst = v;
}

static void strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int strv_push(char ***v, size_t *n, char *s)
{
	char **nv;

	if (!s)
		return -RB_ENOMEM;
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv) {
		free(s);
		return -RB_ENOMEM;
	}
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

/* ---- value checks ---------------------------------------------------- */

/*
 * A bare address (local@domain), as used for admins, known bots and skip
 * lists: no display name, no spaces, a domain of letters, digits, '-' and
 * '.'. Deliberately stricter than RFC 5322: these go into SMTP envelopes.
 */
static bool addr_ok(const char *s)
{
	const char *at = strrchr(s, '@'), *p;

	if (!at || at == s || !at[1] || strlen(s) > 254)
		return false;
	for (p = s; p < at; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f ||
		    strchr("<>()[],;:\\\"@", *p))
			return false;
	for (p = at + 1; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.')
			return false;
	return at[1] != '.' && p[-1] != '.';
}

/* "Name <addr>" or a bare address; used for smtp.from. */
static bool from_ok(const char *s)
{
	const char *lt = strrchr(s, '<'), *gt;
	char addr[256];
	size_t n;

	if (!lt)
		return addr_ok(s);
	gt = strchr(lt, '>');
	if (!gt || gt[1] || strchr(s, '>') != gt)
		return false;
	n = (size_t)(gt - lt - 1);
	if (n >= sizeof(addr))
		return false;
	memcpy(addr, lt + 1, n);
	addr[n] = '\0';
	return addr_ok(addr);
}

static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-/+", *s))
			return false;
	return true;
}

/*
 * The URL as libcurl, which connects to it, reads it: a port out of range,
 * a bad IPv6 address or a character a host cannot hold is caught here
 * rather than at the first connection.
 */
static bool url_parses(struct ctx *c, const yaml_node_t *n, const char *u)
{
	CURLU *h = curl_url();
	CURLUcode uc;

	if (!h) {
		c->oom = true;
		return false;
	}
	uc = curl_url_set(h, CURLUPART_URL, u, CURLU_NON_SUPPORT_SCHEME);
	curl_url_cleanup(h);
	if (uc == CURLUE_OUT_OF_MEMORY)
		c->oom = true;
	else if (uc)
		cerr(c, n, "the URL does not parse: %s", curl_url_strerror(uc));
	return !uc;
}

static bool bad_scheme(struct ctx *c, const yaml_node_t *n, const char *u,
		       const char *const *schemes)
{
	struct rb_buf b = RB_BUF_INIT(512);
	char tmp[80];
	size_t i;

	for (i = 0; schemes[i]; i++)
		(void)rb_buf_printf(&b, "%s%s://", i ? ", " : "", schemes[i]);
	cerr(c, n, "'%s' is not a URL of the expected kind (%s)",
	     shown(tmp, sizeof(tmp), u), b.ptr);
	rb_buf_release(&b);
	return false;
}

/*
 * Checks "scheme://host[:port][/rest]" against the NULL-terminated
 * @schemes. A user or password inside the URL is refused: the user has
 * its own key and a password only ever comes from a *_file key.
 */
static bool url_check(struct ctx *c, const yaml_node_t *n, const char *u,
		      const char *const *schemes)
{
	const char *sep = strstr(u, "://"), *host, *end, *p;
	size_t i, slen;

	for (p = u; *p; p++)
		if ((unsigned char)*p <= 0x20) {
			cerr(c, n, "a URL cannot contain spaces");
			return false;
		}
	if (!sep)
		return bad_scheme(c, n, u, schemes);
	slen = (size_t)(sep - u);
	for (i = 0; schemes[i]; i++)
		if (strlen(schemes[i]) == slen &&
		    !strncasecmp(u, schemes[i], slen))
			break;
	if (!schemes[i])
		return bad_scheme(c, n, u, schemes);
	host = sep + 3;
	end = host + strcspn(host, "/?#");
	if (memchr(host, '@', (size_t)(end - host))) {
		cerr(c, n,
		     "the URL holds a user name or password; use the user "
		     "and *_file keys instead");
		return false;
	}
	if (end == host || *host == ':') {
		cerr(c, n, "the URL has no host");
		return false;
	}
	return url_parses(c, n, u);
}

/* ---- paths and secrets ----------------------------------------------- */

/* @v relative to the config's directory; "~/" is $HOME. */
static char *resolve(struct ctx *c, const yaml_node_t *n, const char *v)
{
	struct rb_buf b = RB_BUF_INIT(PATH_MAX);
	const char *home;
	char *p;
	int ret;

	if (v[0] == '~' && (v[1] == '/' || !v[1])) {
		home = getenv("HOME");
		if (!home || !*home) {
			cerr(c, n, "'~' used but HOME is not set");
			return NULL;
		}
		ret = rb_buf_printf(&b, "%s%s", home, v + 1);
	} else if (v[0] == '/') {
		ret = rb_buf_puts(&b, v);
	} else {
		while (v[0] == '.' && v[1] == '/')
			v += 2;
		ret = rb_buf_printf(&b, "%s%s%s", c->dir,
				    strcmp(c->dir, "/") ? "/" : "", v);
	}
	if (ret) {
		rb_buf_release(&b);
		if (ret == -RB_ENOMEM)
			c->oom = true;
		else
			cerr(c, n, "the path is too long");
		return NULL;
	}
	p = rb_buf_detach(&b, NULL);
	if (!p)
		c->oom = true;
	return p;
}

/*
 * Reads the secret in @path: its first line, without the line end. Only a
 * regular file is read (never a FIFO or a device, which could block).
 */
static char *read_secret(struct ctx *c, const yaml_node_t *n, const char *path)
{
	char buf[SECRET_MAX_SIZE + 1], *nl, *s = NULL;
	size_t len = 0;
	struct stat st;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		cerr(c, n, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		cerr(c, n, "cannot read '%s': not a regular file", path);
		goto out;
	}
	while (len < SECRET_MAX_SIZE) {
		r = read(fd, buf + len, SECRET_MAX_SIZE - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cerr(c, n, "cannot read '%s': %s", path,
			     strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	nl = memchr(buf, '\n', len);
	if (nl)
		*nl = '\0';
	len = strlen(buf);
	if (len && buf[len - 1] == '\r')
		buf[--len] = '\0';
	if (!len)
		cerr(c, n, "'%s' is empty (the secret is its first line)",
		     path);
	else
		s = xstrdup(c, buf);
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return s;
}

/* ---- the key tables -------------------------------------------------- */

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
	K_MAP, /* .sub / .nsub, on the object at .off */
	K_FN, /* .fn */
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
};

static void walk_map(struct ctx *c, yaml_node_t *n, const struct key *keys,
		     size_t nkeys, void *obj, check_fn check);

static size_t osa_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t d[KEY_SHOW_MAX + 1][KEY_SHOW_MAX + 1];

	if (la > KEY_SHOW_MAX || lb > KEY_SHOW_MAX)
		return SIZE_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			size_t cost = tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]);
			size_t m = d[i - 1][j] + 1;

			if (d[i][j - 1] + 1 < m)
				m = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < m)
				m = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < m)
				m = d[i - 2][j - 2] + 1;
			d[i][j] = m;
		}
	return d[la][lb];
}

static void unknown_key(struct ctx *c, const yaml_node_t *kn, const char *name,
			const struct key *keys, size_t nkeys)
{
	const char *best = NULL;
	size_t i, d, bestd = SIZE_MAX;
	char want[KEY_SHOW_MAX + 8];

	snprintf(want, sizeof(want), "%s_file", name);
	for (i = 0; i < nkeys; i++)
		if (!strcmp(keys[i].name, want)) {
			cerr(c, kn,
			     "unknown key: secrets are never written inline; "
			     "use '%s'",
			     want);
			return;
		}
	for (i = 0; i < nkeys; i++) {
		d = osa_distance(name, keys[i].name);
		if (d < bestd) {
			bestd = d;
			best = keys[i].name;
		}
	}
	if (best && (bestd <= 1 || (bestd == 2 && strlen(best) >= 6)))
		cerr(c, kn, "unknown key (did you mean '%s'?)", best);
	else
		cerr(c, kn, "unknown key");
}

/*
 * The text of scalar @v (@what it should be), or NULL for null, for what
 * text() refuses, and for an empty string, after recording why.
 */
static const char *nonempty_text(struct ctx *c, yaml_node_t *v,
				 const char *what, bool multi)
{
	const char *t;

	if (is_null(v))
		return NULL;
	t = text(c, v, what, multi);
	if (t && !*t) {
		cerr(c, v, "must not be empty");
		return NULL;
	}
	return t;
}

static void set_str(struct ctx *c, yaml_node_t *v, char **dst, bool multi)
{
	const char *t = nonempty_text(c, v, "a string", multi);

	if (t)
		replace(dst, xstrdup(c, t));
}

static void set_path(struct ctx *c, yaml_node_t *v, char **dst, int kind)
{
	const char *t;
	struct stat st;
	char *p;

	t = nonempty_text(c, v, "a path", false);
	if (!t)
		return;
	p = resolve(c, v, t);
	if (!p)
		return;
	if (kind == K_DIR && (stat(p, &st) || !S_ISDIR(st.st_mode))) {
		cerr(c, v, "'%s' is not a directory", p);
		free(p);
		return;
	}
	if (kind == K_FILE && access(p, R_OK)) {
		cerr(c, v, "cannot read '%s': %s", p, strerror(errno));
		free(p);
		return;
	}
	replace(dst, p);
}

static bool parse_long(const char *t, long *out)
{
	char *end;
	long l;

	if (!*t || isspace((unsigned char)*t))
		return false;
	errno = 0;
	l = strtol(t, &end, 10);
	if (errno || *end)
		return false;
	*out = l;
	return true;
}

static void set_int(struct ctx *c, yaml_node_t *v, int *dst, long min, long max)
{
	const char *t;
	char tmp[40];
	long l;

	if (is_null(v))
		return;
	t = text(c, v, "an integer", false);
	if (!t)
		return;
	if (!parse_long(t, &l)) {
		cerr(c, v, "expected an integer, got '%s'",
		     shown(tmp, sizeof(tmp), t));
		return;
	}
	if (l < min || l > max) {
		cerr(c, v, "%ld is out of range (%ld to %ld)", l, min, max);
		return;
	}
	*dst = (int)l;
}

static void set_double(struct ctx *c, yaml_node_t *v, double *dst, long min,
		       long max)
{
	const char *t;
	char tmp[40], *end;
	double d;

	if (is_null(v))
		return;
	t = text(c, v, "a number", false);
	if (!t)
		return;
	errno = 0;
	d = strtod(t, &end);
	if (!*t || *end || errno || !isfinite(d)) {
		cerr(c, v, "expected a number, got '%s'",
		     shown(tmp, sizeof(tmp), t));
		return;
	}
	if (d < (double)min || d > (double)max) {
		cerr(c, v, "%g is out of range (%ld to %ld)", d, min, max);
		return;
	}
	*dst = d;
}

static void set_bool(struct ctx *c, yaml_node_t *v, bool *dst)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	const char *t;
	char tmp[40];
	size_t i;

	if (is_null(v))
		return;
	t = text(c, v, "true or false", false);
	if (!t)
		return;
	for (i = 0; i < 3; i++) {
		if (!strcasecmp(t, yes[i])) {
			*dst = true;
			return;
		}
		if (!strcasecmp(t, no[i])) {
			*dst = false;
			return;
		}
	}
	cerr(c, v, "expected true or false, got '%s'",
	     shown(tmp, sizeof(tmp), t));
}

/* The index of @t in the NULL-terminated @names, or -1 after an error. */
static int pick(struct ctx *c, yaml_node_t *v, const char *const *names)
{
	struct rb_buf b = RB_BUF_INIT(512);
	const char *t;
	char tmp[40];
	int i;

	t = text(c, v, "a string", false);
	if (!t)
		return -1;
	for (i = 0; names[i]; i++)
		if (!strcmp(t, names[i]))
			return i;
	for (i = 0; names[i]; i++)
		(void)rb_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	cerr(c, v, "'%s' is not one of: %s", shown(tmp, sizeof(tmp), t), b.ptr);
	rb_buf_release(&b);
	return -1;
}

/* Reads a list of strings; @check (may be NULL) validates each item. */
/*
 * Calls @fn on each item of the list @v, at the item's path, once the item
 * is counted against the node budget. Returns false when the walk stopped
 * early: a bad node, the budget spent, or @fn returned false.
 */
static bool each_item(struct ctx *c, yaml_node_t *v,
		      bool (*fn)(struct ctx *c, yaml_node_t *n, void *arg),
		      void *arg)
{
	yaml_node_item_t *it;
	size_t i = 0, old;
	bool go;

	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++, i++) {
		yaml_node_t *n = node(c, *it);

		if (!n || !visit(c, n))
			return false;
		old = path_index(c, i);
		go = fn(c, n, arg);
		path_pop(c, old);
		if (!go)
			return false;
	}
	return true;
}

struct str_list {
	char **v;
	size_t n;
	item_fn check;
};

static bool str_item(struct ctx *c, yaml_node_t *n, void *arg)
{
	struct str_list *l = arg;
	const char *t = text(c, n, "a string", false);
	char *s;

	if (t && !*t) {
		cerr(c, n, "must not be empty");
	} else if (t) {
		s = l->check ? l->check(c, n, t) : xstrdup(c, t);
		if (s && strv_push(&l->v, &l->n, s))
			c->oom = true;
	}
	return true;
}

static void set_list(struct ctx *c, yaml_node_t *v, char ***vp, size_t *np,
		     item_fn check)
{
	struct str_list l = { .check = check };

	if (is_null(v)) {
		strv_free(*vp, *np);
		*vp = NULL;
		*np = 0;
		return;
	}
	if (!is_list(c, v, ""))
		return;
	each_item(c, v, str_item, &l);
	strv_free(*vp, *np);
	*vp = l.v;
	*np = l.n;
}

static char *addr_item(struct ctx *c, yaml_node_t *n, const char *t)
{
	char tmp[80];

	if (!addr_ok(t)) {
		cerr(c, n, "'%s' is not an email address (user@domain)",
		     shown(tmp, sizeof(tmp), t));
		return NULL;
	}
	return xstrdup(c, t);
}

/* A secret read from the file that @v names (mode checked by read_secret). */
static void set_secret_file(struct ctx *c, yaml_node_t *v, char **dst)
{
	const char *t;
	char *s;

	t = nonempty_text(c, v, "a path", false);
	if (!t)
		return;
	s = resolve(c, v, t);
	if (s) {
		char *secret = read_secret(c, v, s);

		if (secret) {
			rb_free_secret(*dst);
			*dst = secret;
		}
	}
	free(s);
}

/* A secret from the environment variable that @v names. */
static void set_secret_env(struct ctx *c, yaml_node_t *v, char **dst)
{
	const char *t, *p, *val;

	if (is_null(v))
		return;
	t = text(c, v, "an environment variable name", false);
	if (!t)
		return;
	for (p = t; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			break;
	if (!*t || *p || isdigit((unsigned char)*t)) {
		char tmp[40];

		cerr(c, v, "'%s' is not an environment variable name",
		     shown(tmp, sizeof(tmp), t));
		return;
	}
	val = getenv(t);
	if (!val || !*val) {
		cerr(c, v, "the environment variable %s is %s", t,
		     val ? "empty" : "not set");
		return;
	}
	rb_free_secret(*dst);
	*dst = xstrdup(c, val);
}

static void apply_key(struct ctx *c, const struct key *k, yaml_node_t *v,
		      void *obj)
{
	char *base = obj;
	const char *t;
	int i;

	switch (k->type) {
	case K_STR:
	case K_TEXT:
		set_str(c, v, (char **)(base + k->off), k->type == K_TEXT);
		break;
	case K_PATH:
	case K_DIR:
	case K_FILE:
		set_path(c, v, (char **)(base + k->off), k->type);
		break;
	case K_URL:
		if (is_null(v))
			break;
		t = text(c, v, "a URL", false);
		if (t && url_check(c, v, t, k->aux))
			replace((char **)(base + k->off), xstrdup(c, t));
		break;
	case K_INT:
		set_int(c, v, (int *)(base + k->off), k->min, k->max);
		break;
	case K_DOUBLE:
		set_double(c, v, (double *)(base + k->off), k->min, k->max);
		break;
	case K_BOOL:
		set_bool(c, v, (bool *)(base + k->off));
		break;
	case K_STARTTLS: {
		static const char *const st[] = { "off", "required", NULL };

		if (is_null(v))
			break;
		i = pick(c, v, st);
		if (i >= 0)
			*(bool *)(base + k->off) = i == 1;
		break;
	}
	case K_ENUM:
		if (is_null(v))
			break;
		i = pick(c, v, k->aux);
		if (i >= 0)
			*(int *)(base + k->off) = i;
		break;
	case K_CHOICE:
		if (is_null(v))
			break;
		i = pick(c, v, k->aux);
		if (i >= 0)
			replace((char **)(base + k->off),
				xstrdup(c, ((const char *const *)k->aux)[i]));
		break;
	case K_STRLIST:
	case K_ADDRLIST:
		set_list(c, v, (char ***)(base + k->off),
			 (size_t *)(base + k->noff),
			 k->type == K_ADDRLIST ? addr_item : k->item);
		break;
	case K_SECRET_FILE:
		set_secret_file(c, v, (char **)(base + k->off));
		break;
	case K_SECRET_ENV:
		set_secret_env(c, v, (char **)(base + k->off));
		break;
	case K_MAP:
		walk_map(c, v, k->sub, k->nsub, base + k->off, k->check);
		break;
	case K_FN:
		k->fn(c, v, obj);
		break;
	}
}

/*
 * Reads mapping @n with @keys into @obj: unknown and duplicate keys are
 * reported, then known keys are applied in table order. @check then sees
 * the value node of each key that was present (NULL for the others).
 */
static void walk_map(struct ctx *c, yaml_node_t *n, const struct key *keys,
		     size_t nkeys, void *obj, check_fn check)
{
	yaml_node_t *kn_seen[MAX_KEYS] = { NULL }, *seen[MAX_KEYS] = { NULL };
	yaml_node_pair_t *p;
	size_t i, old;

	if (!visit(c, n))
		return;
	if (!is_null(n) && n->type != YAML_MAPPING_NODE) {
		cerr(c, n, "expected a mapping, got %s", kind_name(n));
		return; /* and no check: it would only repeat this */
	}
	if (n->type == YAML_MAPPING_NODE)
		for (p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *kn = node(c, p->key);
			yaml_node_t *vn = node(c, p->value);
			const char *name;

			if (!kn || !vn || !visit(c, kn))
				break;
			if (kn->type != YAML_SCALAR_NODE) {
				cerr(c, kn, "a key must be a string, not %s",
				     kind_name(kn));
				continue;
			}
			name = (const char *)kn->data.scalar.value;
			for (i = 0; i < nkeys; i++)
				if (!strcmp(keys[i].name, name))
					break;
			old = path_key(c, name);
			if (i == nkeys)
				unknown_key(c, kn, name, keys, nkeys);
			else if (seen[i])
				cerr(c, kn, "duplicate key (first at line %d)",
				     (int)kn_seen[i]->start_mark.line + 1);
			else {
				kn_seen[i] = kn;
				seen[i] = vn;
			}
			path_pop(c, old);
		}
	for (i = 0; i < nkeys; i++) {
		if (!seen[i])
			continue;
		old = path_key(c, keys[i].name);
		apply_key(c, &keys[i], seen[i], obj);
		path_pop(c, old);
	}
	if (check && !c->over_budget)
		check(c, n, obj, seen);
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define KEY(n, t, T, f, ...)                                                 \
	{                                                                    \
		.name = (n), .type = (t), .off = offsetof(T, f), __VA_ARGS__ \
	}

/* ---- policies -------------------------------------------------------- */

static const char *const mode_names[] = { "off", "shadow", "advisory",
					  "blocking", NULL };
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

	if (is_null(v))
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
	i = pick(c, v, apply_notice_names);
	if (i >= 0)
		p->report_apply_failures = (enum rb_apply_notice)i;
}

static void policy_bases(struct ctx *c, yaml_node_t *v, void *obj)
{
	struct rb_policy *p = obj;
	size_t before = c->errs->n, i;
	yaml_node_item_t *it;

	set_list(c, v, &p->bases, &p->n_bases, NULL);
	if (c->errs->n != before || v->type != YAML_SEQUENCE_NODE)
		return;
	/* Each base must name a tree; report at the item that does not. */
	for (it = v->data.sequence.items.start, i = 0;
	     it < v->data.sequence.items.top && i < p->n_bases; it++, i++) {
		size_t j, old;

		for (j = 0; j < i; j++)
			if (!strcmp(p->bases[j], p->bases[i]))
				break;
		old = path_index(c, i);
		if (j < i)
			cerr(c, node(c, *it), "tree '%s' is listed twice",
			     p->bases[i]);
		else if (!rb_config_tree(c->cfg, p->bases[i]))
			cerr(c, node(c, *it),
			     "no tree named '%s' in trees[] (%zu defined)",
			     p->bases[i], c->cfg->n_trees);
		path_pop(c, old);
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

	if (is_null(v))
		return;
	if (v->type != YAML_MAPPING_NODE) {
		cerr(c, v,
		     "expected a mapping of rule names to on or off, got %s",
		     kind_name(v));
		return;
	}
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	strv_free(p->rule_names, p->n_rules);
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
		yaml_node_t *kn = node(c, pr->key), *vn = node(c, pr->value);
		const char *name;
		char tmp[80];
		size_t old;

		if (!kn || !vn || !visit(c, kn) || !visit(c, vn))
			return;
		name = text(c, kn, "a rule name", false);
		if (!name)
			continue;
		old = path_key(c, name);
		if (!rb_rule_name_valid(name)) {
			cerr(c, kn,
			     "'%s' is not a rule (a commit-msg category such as "
			     "subject-length, checkpatch:TYPE, or a wildcard "
			     "such as checkpatch:*)",
			     shown(tmp, sizeof(tmp), name));
		} else {
			bool on = false;
			size_t before = c->errs->n;

			set_bool(c, vn, &on);
			if (c->errs->n == before) {
				p->rule_names[p->n_rules] = xstrdup(c, name);
				p->rule_on[p->n_rules++] = on;
			}
		}
		path_pop(c, old);
	}
}

static bool recipient_item(struct ctx *c, yaml_node_t *n, void *arg)
{
	static const char *const names[] = { "author", "maintainers", "list",
					     NULL };
	int k = pick(c, n, names);

	if (k >= 0)
		*(unsigned int *)arg |= 1u << k;
	return k >= 0;
}

static void policy_recipients(struct ctx *c, yaml_node_t *v, void *obj)
{
	struct rb_policy *p = obj;
	unsigned int bits = 0;

	if (!is_list(c, v, ""))
		return;
	if (!each_item(c, v, recipient_item, &bits))
		return;
	if (!bits) {
		cerr(c, v,
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
		cerr(c, n,
		     "'%s' is not a checkpatch type (like LONG_LINE or "
		     "SPDX_LICENSE_TAG)",
		     shown(tmp, sizeof(tmp), t));
		return NULL;
	}
	return xstrdup(c, t);
}

/* The checkers a policy may name (review/checks/checks.h has them all). */
static const char *const policy_checker_names[] = {
	"commit-msg", "checkpatch",	"build",    "sparse", "kernel-doc",
	"coccinelle", "cc-maintainers", "external", NULL
};

static char *checker_item(struct ctx *c, yaml_node_t *n, const char *t)
{
	char tmp[80];
	size_t i;

	for (i = 0; policy_checker_names[i]; i++)
		if (!strcmp(t, policy_checker_names[i]))
			return xstrdup(c, t);
	cerr(c, n,
	     "'%s' is not a checker; one of commit-msg, checkpatch, build, "
	     "sparse, kernel-doc, coccinelle, cc-maintainers, external",
	     shown(tmp, sizeof(tmp), t));
	return NULL;
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
		cerr(c, n,
		     "'%s' is not a kernel config option (like "
		     "CONFIG_TRANSPARENT_HUGEPAGE or DEBUG_VM=y)",
		     shown(tmp, sizeof(tmp), t));
		return NULL;
	}
	return xstrdup(c, t);
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

	if (is_null(v))
		return;
	if (v->type != YAML_MAPPING_NODE) {
		cerr(c, v,
		     "expected a mapping of subject prefixes to modes, got %s",
		     kind_name(v));
		return;
	}
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	strv_free(p->prefix_tags, p->n_prefixes);
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
		yaml_node_t *kn = node(c, pr->key), *vn = node(c, pr->value);
		const char *tag, *s;
		char tmp[80];
		size_t old;
		int m;

		if (!kn || !vn || !visit(c, kn) || !visit(c, vn))
			return;
		tag = text(c, kn, "a subject prefix", false);
		if (!tag)
			continue;
		old = path_key(c, tag);
		for (s = tag; *s; s++)
			if (!isalnum((unsigned char)*s) && !strchr("-_.", *s))
				break;
		for (i = 0; !*s && i < p->n_prefixes; i++)
			if (!strcasecmp(p->prefix_tags[i], tag))
				break;
		if (!*tag || *s) {
			cerr(c, kn,
			     "'%s' is not a subject prefix (a word such as RFC "
			     "or mm-hotfixes)",
			     shown(tmp, sizeof(tmp), tag));
		} else if (i < p->n_prefixes) {
			cerr(c, kn, "prefix '%s' is given twice", tag);
		} else if (!strcasecmp(tag, "PATCH")) {
			cerr(c, kn,
			     "every patch has the PATCH prefix: set the "
			     "entry's mode instead");
		} else if ((m = pick(c, vn, mode_names)) >= 0) {
			p->prefix_tags[p->n_prefixes] = xstrdup(c, tag);
			p->prefix_modes[p->n_prefixes++] = (enum rb_mode)m;
		}
		path_pop(c, old);
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
		old = path_key(c, "mode");
		cerr(c, seen[0],
		     "shadow sends to the admins only, but admins is empty");
		path_pop(c, old);
	}
}

static const struct key policy_keys[] = {
	KEY("mode", K_ENUM, struct rb_policy, mode, .aux = mode_names),
	KEY("bases", K_FN, struct rb_policy, bases, .fn = policy_bases),
	KEY("recipients", K_FN, struct rb_policy, recipients,
	    .fn = policy_recipients),
	KEY("embargo_minutes", K_INT, struct rb_policy, embargo_minutes,
	    .min = 0, .max = 7 * 24 * 60),
	KEY("min_severity", K_ENUM, struct rb_policy, min_severity,
	    .aux = rb_fsev_names),
	KEY("max_findings", K_INT, struct rb_policy, max_findings, .min = 0,
	    .max = 50),
	KEY("send_when_empty", K_BOOL, struct rb_policy, send_when_empty),
	KEY("report_apply_failures", K_FN, struct rb_policy,
	    report_apply_failures, .fn = policy_apply_notice),
	KEY("skip_authors", K_ADDRLIST, struct rb_policy, skip_authors,
	    .noff = offsetof(struct rb_policy, n_skip_authors)),
	KEY("checkpatch_ignore", K_STRLIST, struct rb_policy, checkpatch_ignore,
	    .noff = offsetof(struct rb_policy, n_checkpatch_ignore),
	    .item = checkpatch_item),
	KEY("checkers", K_STRLIST, struct rb_policy, checkers,
	    .noff = offsetof(struct rb_policy, n_checkers),
	    .item = checker_item),
	KEY("build_config", K_STR, struct rb_policy, build_config),
	KEY("build_options", K_STRLIST, struct rb_policy, build_options,
	    .noff = offsetof(struct rb_policy, n_build_options),
	    .item = kconfig_item),
	KEY("incomplete", K_ENUM, struct rb_policy, incomplete,
	    .aux = incomplete_names),
	KEY("rules", K_FN, struct rb_policy, rule_names, .fn = policy_rules),
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
	    .fn = policy_prefixes),
};

static void policy_release(struct rb_policy *p)
{
	free(p->name);
	strv_free(p->bases, p->n_bases);
	strv_free(p->skip_authors, p->n_skip_authors);
	strv_free(p->checkpatch_ignore, p->n_checkpatch_ignore);
	strv_free(p->checkers, p->n_checkers);
	free(p->build_config);
	strv_free(p->build_options, p->n_build_options);
	strv_free(p->rule_names, p->n_rules);
	free(p->rule_on);
	free(p->blocking_text);
	free(p->templates_dir);
	strv_free(p->cc, p->n_cc);
	strv_free(p->prefix_tags, p->n_prefixes);
	free(p->prefix_modes);
	memset(p, 0, sizeof(*p));
}

static int strv_dup(char ***out, char **v, size_t n)
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
			strv_free(nv, i);
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
	dst->checkers = dst->rule_names = dst->cc = dst->prefix_tags = NULL;
	dst->rule_on = NULL;
	dst->prefix_modes = NULL;
	dst->n_bases = dst->n_skip_authors = dst->n_checkpatch_ignore = 0;
	dst->n_checkers = dst->n_rules = dst->n_cc = dst->n_prefixes = 0;
	dst->build_config = NULL;
	dst->build_options = NULL;
	dst->n_build_options = 0;
	ret = str_dup(&dst->name, name);
	if (!ret)
		ret = str_dup(&dst->build_config, src->build_config);
	if (!ret) {
		ret = strv_dup(&dst->build_options, src->build_options,
			       src->n_build_options);
		dst->n_build_options = ret ? 0 : src->n_build_options;
	}
	if (!ret)
		ret = str_dup(&dst->blocking_text, src->blocking_text);
	if (!ret)
		ret = str_dup(&dst->templates_dir, src->templates_dir);
	if (!ret) {
		ret = strv_dup(&dst->bases, src->bases, src->n_bases);
		dst->n_bases = ret ? 0 : src->n_bases;
	}
	if (!ret) {
		ret = strv_dup(&dst->skip_authors, src->skip_authors,
			       src->n_skip_authors);
		dst->n_skip_authors = ret ? 0 : src->n_skip_authors;
	}
	if (!ret) {
		ret = strv_dup(&dst->checkpatch_ignore, src->checkpatch_ignore,
			       src->n_checkpatch_ignore);
		dst->n_checkpatch_ignore = ret ? 0 : src->n_checkpatch_ignore;
	}
	if (!ret) {
		ret = strv_dup(&dst->checkers, src->checkers, src->n_checkers);
		dst->n_checkers = ret ? 0 : src->n_checkers;
	}
	if (!ret) {
		ret = strv_dup(&dst->cc, src->cc, src->n_cc);
		dst->n_cc = ret ? 0 : src->n_cc;
	}
	if (!ret && src->n_prefixes) {
		ret = strv_dup(&dst->prefix_tags, src->prefix_tags,
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
		ret = strv_dup(&dst->rule_names, src->rule_names, src->n_rules);
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
		policy_release(dst);
	return ret;
}

static void policy_default(struct ctx *c, yaml_node_t *v, void *obj)
{
	walk_map(c, v, policy_keys, ARRAY_SIZE(policy_keys),
		 &c->cfg->policy_default, policy_check);
}

/* "<list.id>" without the brackets, as List-Id: writes it. */
static const char *strip_list_id(const char *name, char *tmp, size_t size)
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

	if (is_null(v))
		return;
	if (v->type != YAML_MAPPING_NODE) {
		cerr(c, v, "expected a mapping of subsystem names, got %s",
		     kind_name(v));
		return;
	}
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = node(c, p->key), *vn = node(c, p->value);
		struct rb_policy *np, pol;
		const char *name;
		char tmp[256];
		size_t i, old;

		if (!kn || !vn || !visit(c, kn))
			return;
		if (kn->type != YAML_SCALAR_NODE) {
			cerr(c, kn, "a subsystem name must be a string, not %s",
			     kind_name(kn));
			continue;
		}
		old = path_key(c, (const char *)kn->data.scalar.value);
		name = text(c, kn, "a subsystem name", false);
		if (name)
			name = strip_list_id(name, tmp, sizeof(tmp));
		if (!name || !*name) {
			if (name)
				cerr(c, kn, "a subsystem name is empty");
			path_pop(c, old);
			continue;
		}
		/* A MAINTAINERS section name holds no '@'; a List-Id neither. */
		if (!strpbrk(name, " \t") &&
		    posting_address(c, kn, name, strlen(name),
				    "policies for a list")) {
			path_pop(c, old);
			continue;
		}
		for (i = 0; i < cfg->n_policies; i++)
			if (!strcasecmp(cfg->policies[i].name, name))
				break;
		if (i < cfg->n_policies || !strcasecmp(name, "default")) {
			cerr(c, kn, "subsystem '%s' is defined twice", name);
			path_pop(c, old);
			continue;
		}
		if (policy_copy(&pol, &cfg->policy_default, name)) {
			c->oom = true;
			path_pop(c, old);
			return;
		}
		walk_map(c, vn, policy_keys, ARRAY_SIZE(policy_keys), &pol,
			 policy_check);
		pol.pos = pos_of(kn);
		np = realloc(cfg->policies,
			     (cfg->n_policies + 1) * sizeof(*np));
		if (!np) {
			policy_release(&pol);
			c->oom = true;
			path_pop(c, old);
			return;
		}
		np[cfg->n_policies++] = pol;
		cfg->policies = np;
		path_pop(c, old);
	}
}

static void policy_resolve(struct ctx *c, yaml_node_t *v, void *obj)
{
	const char *t = text(c, v, "home or strictest", false);
	char tmp[40];

	if (!t)
		return;
	if (!strcmp(t, "home") || !strcmp(t, "strictest")) {
		c->cfg->policy_strictest = !strcmp(t, "strictest");
		return;
	}
	cerr(c, v, "'%s' is not a way to resolve a policy; home or strictest",
	     shown(tmp, sizeof(tmp), t));
}

static const struct key policy_section_keys[] = {
	/* default before subsystems, which inherit from it */
	{ .name = "default", .type = K_FN, .fn = policy_default },
	{ .name = "subsystems", .type = K_FN, .fn = policy_subsystems },
	{ .name = "resolve", .type = K_FN, .fn = policy_resolve },
	KEY("catch_all", K_STRLIST, struct rb_config, catch_all,
	    .noff = offsetof(struct rb_config, n_catch_all)),
};

/* ---- sources --------------------------------------------------------- */

static const char *const source_type_names[] = { "imap",    "nntp", "mbox",
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
	int i = pick(c, v, source_type_names);

	if (i >= 0) {
		r->s.type = (enum rb_source_type)i;
		r->type_ok = true;
	}
}

static void source_start(struct ctx *c, yaml_node_t *v, void *obj)
{
	static const char *const names[] = { "new", "all", NULL };
	struct source_read *r = obj;
	int i = pick(c, v, names);

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

	s->pos = pos_of(map);
	s->path_pos = pos_of(seen[SK_PATH]);
	if (!seen[SK_TYPE]) {
		cerr(c, map,
		     "missing key 'type' (imap, nntp, mbox, maildir, eml or "
		     "stdin)");
		return;
	}
	if (!r->type_ok) /* the type itself was bad: already reported */
		return;
	tn = source_type_names[s->type];
	for (i = 0; i < ARRAY_SIZE(source_keys); i++) {
		if (!seen[i] || (source_allowed[s->type] & B(i)))
			continue;
		old = path_key(c, source_keys[i].name);
		cerr(c, seen[i], "not used by a source of type %s", tn);
		path_pop(c, old);
	}
	if (s->type == RB_SRC_IMAP || s->type == RB_SRC_NNTP) {
		if (!seen[SK_URL])
			cerr(c, map, "missing key 'url' (needed by type %s)",
			     tn);
		else if (s->url) {
			old = path_key(c, "url");
			if (!url_check(c, seen[SK_URL], s->url,
				       s->type == RB_SRC_IMAP ? imap_schemes :
								nntp_schemes))
				replace(&s->url, NULL);
			path_pop(c, old);
		}
	}
	if (s->type == RB_SRC_IMAP) {
		if (!seen[SK_USER])
			cerr(c, map,
			     "missing key 'user' (needed by type imap)");
		if (!seen[SK_PASSWORD_FILE])
			cerr(c, map,
			     "missing key 'password_file' (needed by type "
			     "imap)");
		if (!s->n_mailboxes &&
		    strv_push(&s->mailboxes, &s->n_mailboxes, strdup("INBOX")))
			c->oom = true;
	}
	if (s->type == RB_SRC_NNTP) {
		if (!seen[SK_GROUPS] || !s->n_groups)
			cerr(c, map,
			     "missing key 'groups' (needed by type nntp)");
		if (!seen[SK_USER] != !seen[SK_PASSWORD_FILE])
			cerr(c, map,
			     "user and password_file go together (or neither, "
			     "for an anonymous server)");
	}
	if (s->type == RB_SRC_MBOX || s->type == RB_SRC_MAILDIR ||
	    s->type == RB_SRC_EML) {
		if (!seen[SK_PATH])
			cerr(c, map, "missing key 'path' (needed by type %s)",
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

	if (is_null(v))
		return;
	if (!is_list(c, v, l->what))
		return;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++, i++) {
		yaml_node_t *n = node(c, *it);
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
		old = path_index(c, i);
		name = l->item(c, n, i, arr + *np * l->size);
		for (j = 0; name && j < *np; j++) {
			memcpy(&other, arr + j * l->size + l->name_off,
			       sizeof(other));
			if (other && !strcmp(other, name)) {
				cerr(c, n, "the %s name '%s' is used twice",
				     l->noun, name);
				break;
			}
		}
		(*np)++;
		path_pop(c, old);
		if (c->over_budget)
			return;
	}
}

static void source_release(struct rb_source_config *s)
{
	free(s->name);
	free(s->url);
	free(s->user);
	rb_free_secret(s->password);
	strv_free(s->mailboxes, s->n_mailboxes);
	strv_free(s->groups, s->n_groups);
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

	walk_map(c, n, source_keys, ARRAY_SIZE(source_keys), &r, source_check);
	if (!r.s.name) {
		char tmp[32];

		snprintf(tmp, sizeof(tmp), "%s%zu", source_type_names[r.s.type],
			 i);
		r.s.name = xstrdup(c, tmp);
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

	t->pos = pos_of(map);
	t->path_pos = pos_of(seen[1]);
	t->branch_pos = pos_of(seen[3]);
	if (!seen[0])
		cerr(c, map, "missing key 'name'");
	else if (t->name && !name_ok(t->name)) {
		old = path_key(c, "name");
		cerr(c, seen[0],
		     "'%s' is not a tree name (letters, digits, '.', '_', "
		     "'-', '/', '+')",
		     shown(tmp, sizeof(tmp), t->name));
		path_pop(c, old);
		replace(&t->name, NULL);
	}
	if (!seen[1])
		cerr(c, map, "missing key 'path' (a local git repository)");
	if (t->branch && (t->branch[0] == '-' || strchr(t->branch, ' '))) {
		old = path_key(c, "branch");
		cerr(c, seen[3], "'%s' is not a ref name",
		     shown(tmp, sizeof(tmp), t->branch));
		path_pop(c, old);
	}
}

static void tree_release(struct rb_tree_config *t)
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
	walk_map(c, n, tree_keys, ARRAY_SIZE(tree_keys), t, tree_check);
	if (!t->branch)
		t->branch = xstrdup(c, "HEAD");
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

	if (is_null(v))
		return;
	t = text(c, v, "a URL", false);
	if (t && url_check(c, v, t, pg))
		replace(&c->cfg->store_url, xstrdup(c, t));
}

static const struct key store_keys[] = {
	KEY("path", K_PATH, struct rb_config, store_path),
	{ .name = "url", .type = K_FN, .fn = store_url },
};

static void smtp_from(struct ctx *c, yaml_node_t *v, void *obj)
{
	const char *t;
	char tmp[80];

	if (is_null(v))
		return;
	t = text(c, v, "an address", false);
	if (!t)
		return;
	if (!from_ok(t)) {
		cerr(c, v,
		     "'%s' is not an address ('Name <user@domain>' or "
		     "'user@domain')",
		     shown(tmp, sizeof(tmp), t));
		return;
	}
	replace(&c->cfg->smtp_from, xstrdup(c, t));
}

static const char *const smtp_schemes[] = { "smtp", "smtps", NULL };

enum { MK_URL, MK_FROM, MK_USER, MK_PASSWORD_FILE };

static const struct key smtp_keys[] = {
	[MK_URL] = KEY("url", K_URL, struct rb_config, smtp_url,
		       .aux = smtp_schemes),
	[MK_FROM] = { .name = "from", .type = K_FN, .fn = smtp_from },
	[MK_USER] = KEY("user", K_STR, struct rb_config, smtp_user),
	[MK_PASSWORD_FILE] = KEY("password_file", K_SECRET_FILE,
				 struct rb_config, smtp_password),
	KEY("starttls", K_STARTTLS, struct rb_config, smtp_starttls),
	KEY("ca_file", K_FILE, struct rb_config, smtp_ca_file),
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
		cerr(c, map,
		     "missing key 'url' (or remove smtp to write replies to "
		     "outbox.maildir)");
	if (!seen[MK_USER] != !seen[MK_PASSWORD_FILE])
		cerr(c, map,
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
		cerr(c, n,
		     "'%s' is not a focus (correctness, locking, memory, "
		     "api, claims)",
		     shown(tmp, sizeof(tmp), t));
		return NULL;
	}
	r = strdup(t);
	if (!r)
		c->oom = true;
	return r;
}

static const struct key model_keys[] = {
	[OK_PROVIDER] = KEY("provider", K_CHOICE, struct rb_model_config,
			    provider, .aux = provider_names),
	[OK_URL] = KEY("url", K_URL, struct rb_model_config, url,
		       .aux = http_schemes),
	[OK_NAME] = KEY("name", K_STR, struct rb_model_config, name),
	[OK_KEY_ENV] = KEY("api_key_env", K_SECRET_ENV, struct rb_model_config,
			   api_key),
	[OK_KEY_FILE] = KEY("api_key_file", K_SECRET_FILE,
			    struct rb_model_config, api_key),
	[OK_COMMAND] = KEY("command", K_STR, struct rb_model_config, command),
	{ .name = "tools",
	  .type = K_MAP,
	  .off = offsetof(struct rb_model_config, tools),
	  .sub = tools_keys,
	  .nsub = ARRAY_SIZE(tools_keys),
	  .check = tools_check },
	KEY("max_tokens_field", K_CHOICE, struct rb_model_config,
	    max_tokens_field, .aux = tokens_field_names),
	KEY("max_tokens", K_INT, struct rb_model_config, max_tokens, .min = 1,
	    .max = 1000000),
	KEY("timeout_seconds", K_INT, struct rb_model_config, timeout_seconds,
	    .min = 1, .max = 3600),
	KEY("concurrency", K_INT, struct rb_model_config, concurrency, .min = 1,
	    .max = 64),
	KEY("max_retries", K_INT, struct rb_model_config, max_retries, .min = 0,
	    .max = 20),
	KEY("cost_per_mtok_in", K_DOUBLE, struct rb_model_config,
	    cost_per_mtok_in, .min = 0, .max = 1000000),
	KEY("cost_per_mtok_out", K_DOUBLE, struct rb_model_config,
	    cost_per_mtok_out, .min = 0, .max = 1000000),
	KEY("keep_uncertain", K_BOOL, struct rb_model_config, keep_uncertain),
	KEY("max_findings", K_INT, struct rb_model_config, max_findings,
	    .min = 0, .max = 50),
	KEY("max_words", K_INT, struct rb_model_config, max_words, .min = 10,
	    .max = 10000),
	KEY("prompt_tokens", K_INT, struct rb_model_config, prompt_tokens,
	    .min = 1000, .max = 1000000),
	KEY("prefetch_bytes", K_INT, struct rb_model_config, prefetch_bytes,
	    .min = 0, .max = 4 << 20),
	KEY("focuses", K_STRLIST, struct rb_model_config, focuses,
	    .noff = offsetof(struct rb_model_config, n_focuses),
	    .item = focus_item),
	KEY("blind_focuses", K_STRLIST, struct rb_model_config, blind_focuses,
	    .noff = offsetof(struct rb_model_config, n_blind_focuses),
	    .item = focus_item),
	KEY("focus_planner", K_BOOL, struct rb_model_config, focus_planner),
	KEY("prompt_cache", K_BOOL, struct rb_model_config, prompt_cache),
	KEY("index_dir", K_PATH, struct rb_model_config, index_dir),
};

static void model_check(struct ctx *c, yaml_node_t *map, void *obj,
			yaml_node_t *const *seen)
{
	struct rb_model_config *m = obj;
	const char *p = m->provider;

	/*
	 * Tools are on by default where the provider speaks tool calling
	 * natively; a command's program gets the JSON protocol only when the
	 * config says so, since an older program expects the plain prompt.
	 */
	if (!m->tools.enabled_set)
		m->tools.enabled =
			p && (!strcmp(p, "openai") || !strcmp(p, "anthropic"));
	if (seen[OK_KEY_ENV] && seen[OK_KEY_FILE]) {
		size_t old = path_key(c, "api_key_file");

		cerr(c, seen[OK_KEY_FILE],
		     "set api_key_env or api_key_file, not both");
		path_pop(c, old);
	}
	if (!p)
		return;
	if (!strcmp(p, "openai") || !strcmp(p, "anthropic")) {
		if (!seen[OK_URL])
			cerr(c, map,
			     "missing key 'url' (needed by provider %s)", p);
		if (!seen[OK_NAME])
			cerr(c, map,
			     "missing key 'name' (needed by provider %s)", p);
	} else if (!strcmp(p, "command") && !seen[OK_COMMAND]) {
		cerr(c, map,
		     "missing key 'command' (needed by provider command)");
	}
}

static void http_listen(struct ctx *c, yaml_node_t *v, void *obj)
{
	const char *t, *colon;
	char tmp[80];
	long port;

	if (is_null(v)) {
		replace(&c->cfg->http_listen, NULL);
		return;
	}
	t = text(c, v, "host:port", false);
	if (!t)
		return;
	if (!strcmp(t, "off")) {
		replace(&c->cfg->http_listen, NULL);
		return;
	}
	colon = strrchr(t, ':');
	if (!colon || colon == t || !parse_long(colon + 1, &port) || port < 1 ||
	    port > 65535 || strchr(t, ' ') ||
	    (t[0] == '[' && colon[-1] != ']')) {
		cerr(c, v,
		     "'%s' is not host:port (like 127.0.0.1:8080 or "
		     "[::1]:8080), or off",
		     shown(tmp, sizeof(tmp), t));
		return;
	}
	replace(&c->cfg->http_listen, xstrdup(c, t));
}

/* A size in bytes, or with K, M, G, into *@out when in @lo..@hi. */
static void set_size(struct ctx *c, yaml_node_t *v, size_t *out,
		     unsigned long long lo, unsigned long long hi,
		     const char *range)
{
	const char *t;
	char tmp[40], *end;
	unsigned long long n, mul = 1;

	if (is_null(v))
		return;
	t = text(c, v, "a size", false);
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
		cerr(c, v, "'%s' is out of range (%s)",
		     shown(tmp, sizeof(tmp), t), range);
		return;
	}
	*out = (size_t)(n * mul);
	return;
bad:
	cerr(c, v,
	     "expected a size in bytes (like 33554432, 32M or 512K), "
	     "got '%s'",
	     shown(tmp, sizeof(tmp), t));
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
		cerr(c, n,
		     "'%s' is a posting address, not a List-Id: %s are matched "
		     "against the List-Id header, which never holds '@' (did "
		     "you mean '%s'?)",
		     shown(tmp, sizeof(tmp), t), where, id);
	} else {
		cerr(c, n,
		     "'%s' is not a List-Id: %s are matched against the "
		     "List-Id header (like linux-mm.kvack.org)",
		     shown(tmp, sizeof(tmp), t), where);
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

	set_double(c, v, &d, 0, 3600);
	if (d == 0)
		cerr(c, v, "0 is out of range (above 0, to 3600)");
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
		cerr(c, n, "'%s' is not a list id (like linux-mm.kvack.org)",
		     shown(tmp, sizeof(tmp), t));
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
	if (is_null(v))
		return;
	if (v->type != YAML_MAPPING_NODE) {
		cerr(c, v,
		     "expected a mapping of addresses to all, shadow or none, "
		     "got %s",
		     kind_name(v));
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
		yaml_node_t *kn = node(c, pr->key), *vn = node(c, pr->value);
		const char *a;
		char tmp[80];
		size_t old;
		int m;

		if (!kn || !vn || !visit(c, kn) || !visit(c, vn))
			return;
		a = text(c, kn, "an email address", false);
		if (!a)
			continue;
		old = path_key(c, a);
		for (i = 0; i < cfg->n_people; i++)
			if (!strcasecmp(cfg->people[i].addr, a))
				break;
		if (!addr_ok(a))
			cerr(c, kn,
			     "'%s' is not an email address (user@domain)",
			     shown(tmp, sizeof(tmp), a));
		else if (i < cfg->n_people)
			cerr(c, kn, "'%s' is given twice", a);
		else if ((m = pick(c, vn, names)) >= 0) {
			cfg->people[cfg->n_people].addr = xstrdup(c, a);
			cfg->people[cfg->n_people++].mail =
				(enum rb_person_mail)m;
		}
		path_pop(c, old);
	}
}

static const struct key http_keys[] = {
	{ .name = "listen", .type = K_FN, .fn = http_listen },
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
	{ .name = "max_message_size", .type = K_FN, .fn = max_message_size },
	{ .name = "max_apply_bytes", .type = K_FN, .fn = max_apply_bytes },
	KEY("max_file_lines", K_INT, struct rb_config, max_file_lines,
	    .min = 1000, .max = 1000000000),
	{ .name = "apply_seconds", .type = K_FN, .fn = apply_seconds },
	KEY("max_job_attempts", K_INT, struct rb_config, max_job_attempts,
	    .min = 1, .max = 1000),
};
/* series.fetch_url: a public-inbox inbox over HTTP(S), such as lore's
 * https://lore.kernel.org/all/ (mail/inbox.h). */
static void fetch_url(struct ctx *c, yaml_node_t *v, void *obj)
{
	const char *t;
	char tmp[80];

	if (is_null(v)) {
		replace(&c->cfg->fetch_url, NULL);
		return;
	}
	t = text(c, v, "a URL", false);
	if (!t)
		return;
	if ((strncmp(t, "https://", 8) && strncmp(t, "http://", 7)) ||
	    strpbrk(t, " \t?#")) {
		cerr(c, v,
		     "'%s' is not an http(s) URL of a public-inbox inbox (like "
		     "https://lore.kernel.org/all/)",
		     shown(tmp, sizeof(tmp), t));
		return;
	}
	replace(&c->cfg->fetch_url, xstrdup(c, t));
}

static const struct key series_keys[] = {
	KEY("incomplete_wait_minutes", K_INT, struct rb_config,
	    incomplete_wait_minutes, .min = 0, .max = 7 * 24 * 60),
	{ .name = "fetch_url", .type = K_FN, .fn = fetch_url },
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
static const struct key checkers_keys[] = {
	KEY("parallel", K_INT, struct rb_config, checkers_parallel, .min = 1,
	    .max = 64),
	KEY("checkpatch_strict", K_BOOL, struct rb_config, checkpatch_strict),
	KEY("timeout_seconds", K_INT, struct rb_config, checkers_timeout,
	    .min = 10, .max = 24 * 3600),
	KEY("build_config", K_STR, struct rb_config, build_config),
	KEY("build_options", K_STRLIST, struct rb_config, build_options,
	    .noff = offsetof(struct rb_config, n_build_options),
	    .item = kconfig_item),
	KEY("build_jobs", K_INT, struct rb_config, build_jobs, .min = 1,
	    .max = 256),
	KEY("build_mem_mb", K_INT, struct rb_config, build_mem_mb, .min = 256,
	    .max = 1024 * 1024),
	KEY("build_cache_dir", K_PATH, struct rb_config, build_cache_dir),
	KEY("build_each", K_BOOL, struct rb_config, build_each),
	KEY("build_sparse", K_BOOL, struct rb_config, build_sparse),
	KEY("series_budget_seconds", K_INT, struct rb_config, series_budget,
	    .min = 0, .max = 24 * 3600),
	KEY("maintainers_fixes", K_BOOL, struct rb_config, maint_fixes),
	KEY("external_command", K_STR, struct rb_config, external_command),
	KEY("external_name", K_STR, struct rb_config, external_name),
};

#define SECTION(n, keys, ...)                              \
	{                                                  \
		.name = (n), .type = K_MAP, .sub = (keys), \
		.nsub = ARRAY_SIZE(keys), __VA_ARGS__      \
	}

/* In the order they are applied: what others refer to comes first. */
static const struct key top_keys[] = {
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
	{ .name = "people", .type = K_FN, .fn = read_people },
	{ .name = "trees", .type = K_FN, .fn = read_trees },
	{ .name = "sources", .type = K_FN, .fn = read_sources },
	SECTION("smtp", smtp_keys, .check = smtp_check),
	SECTION("outbox", outbox_keys),
	SECTION("model", model_keys, .off = offsetof(struct rb_config, model),
		.check = model_check),
	SECTION("series", series_keys),
	SECTION("feedback", feedback_keys),
	SECTION("review", review_keys),
	SECTION("checkers", checkers_keys),
	SECTION("policy", policy_section_keys),
};

/* ---- public ---------------------------------------------------------- */

static void policy_defaults(struct rb_policy *p)
{
	p->mode = RB_MODE_OFF; /* every subsystem is off until it opts in */
	p->recipients = RB_RCPT_AUTHOR | RB_RCPT_MAINTAINERS | RB_RCPT_LIST;
	p->embargo_minutes = 0;
	/*
	 * low: checker findings (checkpatch, build warnings) are mostly low
	 * and they are the cheap, precise part; max_findings keeps it short.
	 */
	p->min_severity = RB_FSEV_LOW;
	p->max_findings = 3;
	p->send_when_empty = false;
	p->report_apply_failures = RB_AF_ADMINS;
	p->incomplete = RB_INC_REVIEW_PREFIX;
	p->suppress_similar = 0;
	p->require_dkim = true; /* a From: alone is anyone's (issue 33) */
}

int rb_config_defaults(struct rb_config **out)
{
	static char *blind[] = { "correctness", "memory" };
	struct rb_config *c = calloc(1, sizeof(*c));

	if (!c)
		return rb_err(RB_ENOMEM, "out of memory");
	c->store_path = strdup("./reviewbot.db");
	c->outbox_maildir = strdup("./outbox");
	c->smtp_from = strdup("reviewbot <reviewbot@localhost>");
	c->smtp_starttls = true;
	c->rate_per_hour = 60;
	c->rate_per_recipient_hour = 10;
	c->rate_per_list_hour = 60;
	c->max_recipients = 20;
	c->max_lists = 10;
	c->model.provider = strdup("none");
	c->model.max_tokens_field = strdup("max_tokens");
	c->model.max_tokens = 4096;
	c->model.timeout_seconds = 120;
	c->model.concurrency = 4;
	c->model.max_retries = 3;
	c->model.max_findings = 3;
	c->model.max_words = 400;
	c->model.prompt_tokens = RB_MODEL_PROMPT_TOKENS;
	c->model.prefetch_bytes = RB_MODEL_PREFETCH_BYTES;
	c->model.tools.max_calls = 12;
	c->model.tools.max_bytes = 96 << 10;
	c->model.tools.verifier_calls = 16;
	c->model.tools.verifier_bytes = 128 << 10;
	c->model.tools.series_calls = 300;
	c->model.tools.series_bytes = 6 << 20;
	c->model.focus_planner = true;
	c->model.prompt_cache = true;
	/* The author's framing steers every pass that reads it: two do not. */
	c->model.n_blind_focuses =
		strv_dup(&c->model.blind_focuses, blind, ARRAY_SIZE(blind)) ?
			0 :
			ARRAY_SIZE(blind);
	c->model.tools.max_result = 16 << 10;
	c->model.tools.max_seconds = 300;
	c->model.tools.max_rounds = 12;
	policy_defaults(&c->policy_default);
	c->policy_default.name = strdup("default");
	c->http_listen = strdup("127.0.0.1:8080");
	c->http_thread_url = strdup("https://lore.kernel.org/r/");
	c->max_message_size = 4u << 20; /* RB_MSG_DEFAULT_MAX */
	c->max_apply_bytes = (size_t)128 << 20; /* RB_APPLY_MAX_BYTES */
	c->max_file_lines = 2000000; /* RB_APPLY_MAX_FILE_LINES */
	c->apply_seconds = 4; /* RB_APPLY_MAX_WORK */
	c->max_job_attempts = 3;
	c->incomplete_wait_minutes = 60;
	c->apply_retry_minutes = -1;
	c->parallel_series = 4;
	c->earlier_replies = true;
	c->checkers_parallel = 2;
	c->checkers_timeout = 600;
	c->fetch_timeout_seconds = 30;
	c->build_jobs = 2;
	c->build_mem_mb = 4096;
	c->build_each = true;
	c->maint_fixes = true;
	if (!c->store_path || !c->outbox_maildir || !c->smtp_from ||
	    !c->model.provider || !c->model.max_tokens_field ||
	    !c->model.blind_focuses || !c->policy_default.name ||
	    !c->http_listen || !c->http_thread_url) {
		rb_config_free(c);
		return rb_err(RB_ENOMEM, "out of memory");
	}
	*out = c;
	return 0;
}

void rb_config_free(struct rb_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	free(cfg->file);
	free(cfg->store_path);
	free(cfg->store_url);
	for (i = 0; i < cfg->n_sources; i++)
		source_release(&cfg->sources[i]);
	free(cfg->sources);
	for (i = 0; i < cfg->n_trees; i++)
		tree_release(&cfg->trees[i]);
	free(cfg->trees);
	free(cfg->smtp_url);
	free(cfg->smtp_from);
	free(cfg->smtp_user);
	rb_free_secret(cfg->smtp_password);
	free(cfg->smtp_ca_file);
	free(cfg->outbox_maildir);
	free(cfg->kill_switch_file);
	free(cfg->model.provider);
	free(cfg->model.url);
	free(cfg->model.name);
	rb_free_secret(cfg->model.api_key);
	free(cfg->model.command);
	free(cfg->model.index_dir);
	free(cfg->model.max_tokens_field);
	strv_free(cfg->model.focuses, cfg->model.n_focuses);
	strv_free(cfg->model.blind_focuses, cfg->model.n_blind_focuses);
	policy_release(&cfg->policy_default);
	for (i = 0; i < cfg->n_policies; i++)
		policy_release(&cfg->policies[i]);
	free(cfg->policies);
	strv_free(cfg->admins, cfg->n_admins);
	for (i = 0; i < cfg->n_people; i++)
		free(cfg->people[i].addr);
	free(cfg->people);
	strv_free(cfg->list_ids, cfg->n_list_ids);
	strv_free(cfg->known_bots, cfg->n_known_bots);
	free(cfg->http_listen);
	free(cfg->http_thread_url);
	free(cfg->fetch_url);
	strv_free(cfg->catch_all, cfg->n_catch_all);
	free(cfg->build_config);
	strv_free(cfg->build_options, cfg->n_build_options);
	free(cfg->build_cache_dir);
	free(cfg->external_command);
	free(cfg->external_name);
	free(cfg);
}

void rb_config_errors_release(struct rb_config_errors *errs)
{
	size_t i;

	if (!errs)
		return;
	for (i = 0; i < errs->n; i++)
		free(errs->v[i].msg);
	free(errs->v);
	errs->v = NULL;
	errs->n = 0;
}

void rb_config_errors_print(const struct rb_config_errors *e, const char *file,
			    FILE *f)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		if (e->v[i].line > 0)
			fprintf(f, "%s:%d:%d: %s\n", file, e->v[i].line,
				e->v[i].col, e->v[i].msg);
		else
			fprintf(f, "%s: %s\n", file, e->v[i].msg);
	}
}

/* Sorts the errors from @from on by position; stable (insertion sort). */
static void errs_sort(struct rb_config_errors *e, size_t from)
{
	size_t i, j;

	for (i = from + 1; i < e->n; i++) {
		struct rb_config_error t = e->v[i];

		for (j = i; j > from && (e->v[j - 1].line > t.line ||
					 (e->v[j - 1].line == t.line &&
					  e->v[j - 1].col > t.col));
		     j--)
			e->v[j] = e->v[j - 1];
		e->v[j] = t;
	}
}

static void syntax_error(struct ctx *c, const yaml_parser_t *p,
			 const char *yaml, size_t len)
{
	int line = (int)p->problem_mark.line + 1;
	int col = (int)p->problem_mark.column + 1;
	size_t i;

	if (p->error == YAML_MEMORY_ERROR) {
		c->oom = true;
		return;
	}
	if (p->error == YAML_READER_ERROR) {
		/* The reader gives a byte offset, not a mark. */
		line = 1;
		col = 1;
		for (i = 0; i < p->problem_offset && i < len; i++) {
			if (yaml[i] == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
	}
	if (p->context)
		cerr_at(c, line, col, "YAML syntax error: %s %s (line %d)",
			p->problem ? p->problem : "error", p->context,
			(int)p->context_mark.line + 1);
	else
		cerr_at(c, line, col, "YAML syntax error: %s",
			p->problem ? p->problem : "error");
}

/*
 * A first pass over the events that stops at MAX_DEPTH levels or
 * MAX_ANCHORS anchors or aliases, before the loader builds the tree. A syntax error is left to the loader,
 * which reports it the same way.
 */
static bool depth_ok(struct ctx *c, const char *yaml, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0, anchors = 0;
	bool done = false;
	const char *why = NULL;

	if (!yaml_parser_initialize(&p)) {
		c->oom = true;
		return false;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)yaml, len);
	while (!done && yaml_parser_parse(&p, &ev)) {
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
			anchors += !!ev.data.sequence_start.anchor;
			if (++depth > MAX_DEPTH)
				why = "nested too deep";
			break;
		case YAML_MAPPING_START_EVENT:
			anchors += !!ev.data.mapping_start.anchor;
			if (++depth > MAX_DEPTH)
				why = "nested too deep";
			break;
		case YAML_SCALAR_EVENT:
			anchors += !!ev.data.scalar.anchor;
			break;
		case YAML_ALIAS_EVENT:
			anchors++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		if (!why && anchors > MAX_ANCHORS)
			why = "too many anchors and aliases";
		if (why) {
			cerr_at(c, (int)ev.start_mark.line + 1,
				(int)ev.start_mark.column + 1,
				"%s (at most %d levels, %d anchors and aliases)",
				why, MAX_DEPTH, MAX_ANCHORS);
			done = true;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return !why;
}

static char *dir_of(const char *name)
{
	const char *slash = strrchr(name, '/');

	if (!slash)
		return strdup(".");
	if (slash == name)
		return strdup("/");
	return strndup(name, (size_t)(slash - name));
}

/* The entry of policy.subsystems named @name (no case), or NULL. */
static const struct rb_policy *entry_named(const struct rb_config *cfg,
					   const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_policies; i++)
		if (!strcasecmp(cfg->policies[i].name, name))
			return &cfg->policies[i];
	return NULL;
}

bool rb_config_is_list_policy(const struct rb_config *cfg, const char *name)
{
	size_t i;

	if (!cfg->n_list_ids)
		return strchr(name, '.') && !strpbrk(name, " \t");
	for (i = 0; i < cfg->n_list_ids; i++)
		if (!strcasecmp(cfg->list_ids[i], name))
			return true;
	return false;
}

/*
 * How a list's entry and a section's combine (bot/stages/scope.h): the
 * section's own entry decides, but the mode of the list's entry is the
 * most a series from that list gets. When mail is read from listed
 * lists only, and each has an entry, a section whose mode is above all
 * of theirs can never have it: refused, since nothing else would say so.
 */
static void policy_combinations(struct ctx *c)
{
	const struct rb_config *cfg = c->cfg;
	const struct rb_policy *cap = NULL;
	char tmp[80];
	size_t i;

	if (!cfg->n_list_ids)
		return;
	for (i = 0; i < cfg->n_list_ids; i++) {
		const struct rb_policy *e = entry_named(cfg, cfg->list_ids[i]);

		if (!e)
			return; /* a list without an entry caps nothing */
		if (!cap || e->mode > cap->mode)
			cap = e;
	}
	for (i = 0; i < cfg->n_policies; i++) {
		const struct rb_policy *p = &cfg->policies[i];

		if (rb_config_is_list_policy(cfg, p->name) ||
		    p->mode <= cap->mode)
			continue;
		cerr_at(c, p->pos.line, p->pos.col,
			"policy.subsystems.%s: mode %s never takes effect: a "
			"series gets at most the mode of the list it came from, "
			"and %s %s (%s: %s); give the list mode %s, or the "
			"section mode %s",
			shown(tmp, sizeof(tmp), p->name), rb_mode_name(p->mode),
			cfg->n_list_ids > 1 ? "the most any list in list_ids "
					      "has is" :
					      "list_ids' only list has",
			rb_mode_name(cap->mode), cap->name,
			rb_mode_name(cap->mode), rb_mode_name(p->mode),
			rb_mode_name(cap->mode));
	}
}

int rb_config_load_mem(struct rb_config **out, const char *name,
		       const char *yaml, size_t len,
		       struct rb_config_errors *errs)
{
	struct rb_config_errors local = { 0 };
	struct rb_config_errors *e = errs ? errs : &local;
	struct ctx c = { .errs = e, .budget = NODE_BUDGET };
	struct rb_config *cfg = NULL;
	yaml_parser_t parser;
	yaml_document_t doc, doc2;
	bool have_parser = false, have_doc = false;
	size_t n0 = e->n;
	char *dir = NULL;
	int ret;

	rb_buf_init(&c.path, 4096);
	ret = rb_config_defaults(&cfg);
	if (ret)
		goto out;
	cfg->file = strdup(name);
	dir = dir_of(name);
	if (!cfg->file || !dir) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	c.cfg = cfg;
	c.dir = dir;
	if (len > CONFIG_MAX_SIZE) {
		cerr(&c, NULL, "the file is larger than %u bytes",
		     CONFIG_MAX_SIZE);
		goto check;
	}
	if (!depth_ok(&c, yaml, len))
		goto check;
	if (!yaml_parser_initialize(&parser)) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	have_parser = true;
	yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
	if (!yaml_parser_load(&parser, &doc)) {
		syntax_error(&c, &parser, yaml, len);
		goto check;
	}
	have_doc = true;
	c.doc = &doc;
	if (yaml_document_get_root_node(&doc)) {
		walk_map(&c, yaml_document_get_root_node(&doc), top_keys,
			 ARRAY_SIZE(top_keys), cfg, NULL);
		if (!yaml_parser_load(&parser, &doc2)) {
			syntax_error(&c, &parser, yaml, len);
		} else {
			yaml_node_t *r = yaml_document_get_root_node(&doc2);

			if (r)
				cerr_at(&c, (int)r->start_mark.line + 1,
					(int)r->start_mark.column + 1,
					"a config holds one YAML document, "
					"this is a second one");
			yaml_document_delete(&doc2);
		}
	}
	if (e->n == n0)
		policy_combinations(&c);
check:
	if (c.oom) {
		ret = rb_err(RB_ENOMEM, "out of memory");
		goto out;
	}
	if (e->n > n0) {
		errs_sort(e, n0);
		if (e->v[n0].line > 0)
			ret = rb_err(RB_ECONFIG, "%s:%d:%d: %s%s", name,
				     e->v[n0].line, e->v[n0].col, e->v[n0].msg,
				     e->n - n0 > 1 ? " (and more)" : "");
		else
			ret = rb_err(RB_ECONFIG, "%s: %s%s", name, e->v[n0].msg,
				     e->n - n0 > 1 ? " (and more)" : "");
		goto out;
	}
	*out = cfg;
	cfg = NULL;
	ret = 0;
out:
	if (have_doc)
		yaml_document_delete(&doc);
	if (have_parser)
		yaml_parser_delete(&parser);
	rb_buf_release(&c.path);
	rb_config_free(cfg);
	free(dir);
	rb_config_errors_release(&local);
	return ret;
}

/*
 * Reads a regular file of at most CONFIG_MAX_SIZE bytes into @out; on
 * failure writes the reason into @why and returns -RB_ECONFIG.
 */
static int read_config_file(struct rb_buf *out, struct rb_buf *why,
			    const char *path)
{
	char tmp[65536];
	struct stat st;
	int fd, ret = 0;
	ssize_t r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		(void)rb_buf_printf(why, "cannot read '%s': %s", path,
				    strerror(errno));
		return -RB_ECONFIG;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		(void)rb_buf_printf(why, "cannot read '%s': not a regular file",
				    path);
		ret = -RB_ECONFIG;
		goto out;
	}
	for (;;) {
		r = read(fd, tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			(void)rb_buf_printf(why, "cannot read '%s': %s", path,
					    strerror(errno));
			ret = -RB_ECONFIG;
			goto out;
		}
		if (r == 0)
			break;
		ret = rb_buf_add(out, tmp, (size_t)r);
		if (ret == -RB_ETOOBIG) {
			(void)rb_buf_printf(why, "'%s' is larger than %u bytes",
					    path, CONFIG_MAX_SIZE);
			ret = -RB_ECONFIG;
		}
		if (ret)
			goto out;
	}
out:
	close(fd);
	return ret;
}

int rb_config_load(struct rb_config **out, const char *path,
		   struct rb_config_errors *errs)
{
	struct rb_buf b = RB_BUF_INIT(CONFIG_MAX_SIZE);
	struct rb_buf why = RB_BUF_INIT(4096);
	char *msg;
	int ret;

	ret = read_config_file(&b, &why, path);
	if (!ret) {
		ret = rb_config_load_mem(out, path, b.ptr, b.len, errs);
	} else if (ret == -RB_ECONFIG) {
		ret = rb_err(RB_ECONFIG, "%s", why.ptr);
		msg = rb_buf_detach(&why, NULL);
		if (errs && (!msg || errs_add(errs, 0, 0, msg)))
			ret = rb_err(RB_ENOMEM, "out of memory");
		else if (!errs)
			free(msg);
	}
	rb_buf_release(&b);
	rb_buf_release(&why);
	return ret;
}

int rb_config_load_or_defaults(struct rb_config **out, const char *path_or_null,
			       struct rb_config_errors *errs)
{
	if (path_or_null)
		return rb_config_load(out, path_or_null, errs);
	if (!access("config.yaml", F_OK))
		return rb_config_load(out, "config.yaml", errs);
	return rb_config_defaults(out);
}

const struct rb_policy *rb_config_policy(const struct rb_config *cfg,
					 const char *name)
{
	char tmp[256];
	size_t i;

	if (!name)
		return &cfg->policy_default;
	name = strip_list_id(name, tmp, sizeof(tmp));
	/* MAINTAINERS section names are matched without regard to case. */
	for (i = 0; i < cfg->n_policies; i++)
		if (!strcasecmp(cfg->policies[i].name, name))
			return &cfg->policies[i];
	return &cfg->policy_default;
}

const struct rb_tree_config *rb_config_tree(const struct rb_config *cfg,
					    const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_trees; i++)
		if (cfg->trees[i].name && !strcmp(cfg->trees[i].name, name))
			return &cfg->trees[i];
	return NULL;
}

/* @a and @b (bare) are one mailbox: no case, the local part cut at a
 * '+' (a+tag@x reaches a@x), so that a spelling never gets round what a
 * person asked for. */
static bool same_person(const char *a, const char *b)
{
	const char *at_a = strrchr(a, '@'), *at_b = strrchr(b, '@');
	size_t la, lb;

	if (!at_a || !at_b || strcasecmp(at_a, at_b))
		return false;
	la = strcspn(a, "+@");
	lb = strcspn(b, "+@");
	return la == lb && !strncasecmp(a, b, la);
}

enum rb_person_mail rb_config_person_mail(const struct rb_config *cfg,
					  const char *addr)
{
	struct rb_addr a = { 0 };
	enum rb_person_mail m = RB_PERSON_ALL;
	size_t i;

	if (!addr || !cfg->n_people)
		return RB_PERSON_ALL;
	if (rb_addr_parse(&a, addr) || !a.addr) {
		rb_addr_release(&a);
		rb_err_clear();
		return RB_PERSON_ALL;
	}
	for (i = 0; i < cfg->n_people; i++)
		if (same_person(cfg->people[i].addr, a.addr)) {
			m = cfg->people[i].mail;
			break;
		}
	rb_addr_release(&a);
	return m;
}

const char *rb_source_type_name(enum rb_source_type t)
{
	return (unsigned int)t <= RB_SRC_STDIN ? source_type_names[t] : "?";
}

/* ---- what the config names on this machine (check-config) ------------ */

struct sys {
	const struct rb_config *cfg;
	struct rb_config_errors *errs;
	size_t n0; /* errors before the check */
	bool oom;
};

static void serr(struct sys *s, struct rb_config_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void serr(struct sys *s, struct rb_config_pos pos, const char *fmt, ...)
{
	struct rb_buf b = RB_BUF_INIT(4096);
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	(void)rb_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	msg = rb_buf_detach(&b, NULL);
	if (!msg || errs_add(s->errs, pos.line, pos.col, msg))
		s->oom = true;
}

/* The message for a path that cannot be used; NULL when it exists. */
static const char *path_problem(const char *path, struct stat *st)
{
	if (!stat(path, st))
		return NULL;
	return errno == ENOENT ? "does not exist" : strerror(errno);
}

/*
 * Opens trees[@i] the way the daemon does (git_repository_open, then the
 * branch through git_revparse_single, peeled to a commit). Returns the
 * repository, or NULL after recording why not.
 */
static git_repository *sys_tree(struct sys *s, size_t i)
{
	const struct rb_tree_config *t = &s->cfg->trees[i];
	git_object *obj = NULL, *commit = NULL;
	git_repository *repo = NULL;
	const char *why, *ref = t->branch ? t->branch : "HEAD";
	char tmp[1024], tmp2[1024];
	struct stat st;

	if (!t->path)
		return NULL;
	why = path_problem(t->path, &st);
	if (!why && !S_ISDIR(st.st_mode))
		why = "is not a directory";
	if (why) {
		serr(s, t->path_pos, "trees[%zu].path: '%s' %s", i,
		     shown(tmp, sizeof(tmp), t->path), why);
		return NULL;
	}
	if (git_repository_open(&repo, t->path) < 0) {
		serr(s, t->path_pos,
		     "trees[%zu].path: '%s' is not a git repository (git clone "
		     "--bare URL PATH makes one)",
		     i, shown(tmp, sizeof(tmp), t->path));
		return NULL;
	}
	if (git_revparse_single(&obj, repo, ref) < 0 ||
	    git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		if (!strcmp(ref, "HEAD"))
			serr(s,
			     t->branch_pos.line ? t->branch_pos : t->path_pos,
			     "trees[%zu].%s: HEAD of '%s' is not a commit (an "
			     "empty repository?)",
			     i, t->branch_pos.line ? "branch" : "path",
			     shown(tmp, sizeof(tmp), t->path));
		else
			serr(s, t->branch_pos,
			     "trees[%zu].branch: no branch '%s' in '%s'%s", i,
			     shown(tmp, sizeof(tmp), ref),
			     shown(tmp2, sizeof(tmp2), t->path),
			     t->url ? " (fetch it once: git fetch URL "
				      "BRANCH:BRANCH)" :
				      "");
		git_object_free(obj);
		git_repository_free(repo);
		return NULL;
	}
	git_object_free(commit);
	git_object_free(obj);
	return repo;
}

static void sys_sources(struct sys *s)
{
	const struct rb_config *cfg = s->cfg;
	char tmp[1024];
	size_t i;

	for (i = 0; i < cfg->n_sources; i++) {
		const struct rb_source_config *src = &cfg->sources[i];
		const char *why;
		struct stat st;

		if (!src->path ||
		    (src->type != RB_SRC_MBOX && src->type != RB_SRC_MAILDIR &&
		     src->type != RB_SRC_EML))
			continue;
		why = path_problem(src->path, &st);
		if (!why && src->type == RB_SRC_MAILDIR && !S_ISDIR(st.st_mode))
			why = "is not a directory (a Maildir)";
		if (!why && src->type != RB_SRC_MAILDIR && S_ISDIR(st.st_mode))
			why = "is a directory (type maildir reads a Maildir)";
		if (why)
			serr(s, src->path_pos, "sources[%zu].path: '%s' %s", i,
			     shown(tmp, sizeof(tmp), src->path), why);
	}
}

/*
 * A list id of list_ids; with none configured (every list accepted), any
 * name shaped like one (a dot, no space), which no MAINTAINERS can refute.
 */
static bool is_list_id(const struct rb_config *cfg, const char *name)
{
	char tmp[256];
	size_t i;

	if (!cfg->n_list_ids)
		return strchr(name, '.') && !strpbrk(name, " \t");

	for (i = 0; i < cfg->n_list_ids; i++)
		if (!strcasecmp(strip_list_id(cfg->list_ids[i], tmp,
					      sizeof(tmp)),
				name))
			return true;
	return false;
}

/* A close name for a typo: 1 edit, or 2 in a name of 8 or more. */
static void closer(const char *name, const char *cand, const char **best,
		   size_t *bestd)
{
	size_t d = osa_distance(name, cand);

	if (d < *bestd && (d <= 1 || (d <= 2 && strlen(name) >= 8))) {
		*bestd = d;
		*best = cand;
	}
}

/* Each policy.subsystems key against the sections of @m[0..@n). */
static void sys_sections(struct sys *s, struct rb_maint **m, const char **names,
			 size_t n)
{
	const struct rb_config *cfg = s->cfg;
	struct rb_buf trees = RB_BUF_INIT(4096);
	char tmp[80], tmp2[80];
	size_t i, j, k;

	for (k = 0; k < n; k++)
		(void)rb_buf_printf(&trees, "%s%s", k ? ", " : "", names[k]);
	for (i = 0; i < cfg->n_policies; i++) {
		const char *name = cfg->policies[i].name, *best = NULL;
		size_t bestd = SIZE_MAX;
		bool found = is_list_id(cfg, name);

		for (k = 0; k < n && !found; k++)
			for (j = 0; j < rb_maint_nsections(m[k]); j++)
				if (!strcasecmp(
					    rb_maint_section_at(m[k], j)->name,
					    name)) {
					found = true;
					break;
				}
		if (found)
			continue;
		for (k = 0; k < n; k++)
			for (j = 0; j < rb_maint_nsections(m[k]); j++)
				closer(name, rb_maint_section_at(m[k], j)->name,
				       &best, &bestd);
		for (j = 0; j < cfg->n_list_ids; j++)
			closer(name, cfg->list_ids[j], &best, &bestd);
		if (best)
			serr(s, cfg->policies[i].pos,
			     "policy.subsystems.%s: not a MAINTAINERS section "
			     "of %s %s, nor one of list_ids (did you mean "
			     "'%s'?)",
			     shown(tmp, sizeof(tmp), name),
			     n > 1 ? "the trees" : "the tree",
			     trees.ptr ? trees.ptr : "",
			     shown(tmp2, sizeof(tmp2), best));
		else
			serr(s, cfg->policies[i].pos,
			     "policy.subsystems.%s: not a MAINTAINERS section "
			     "of %s %s, nor one of list_ids",
			     shown(tmp, sizeof(tmp), name),
			     n > 1 ? "the trees" : "the tree",
			     trees.ptr ? trees.ptr : "");
	}
	rb_buf_release(&trees);
}

int rb_config_check_system(const struct rb_config *cfg,
			   struct rb_config_errors *errs)
{
	struct sys s = { .cfg = cfg, .errs = errs, .n0 = errs->n };
	struct rb_maint_cache *cache = NULL;
	struct rb_maint **m = NULL;
	const char **names = NULL;
	size_t i, n = 0;
	int ret;

	sys_sources(&s);
	if (cfg->n_trees) {
		m = calloc(cfg->n_trees, sizeof(*m));
		names = calloc(cfg->n_trees, sizeof(*names));
		if (!m || !names || rb_maint_cache_new(&cache)) {
			s.oom = true;
			goto out;
		}
	}
	for (i = 0; i < cfg->n_trees; i++) {
		git_repository *repo = sys_tree(&s, i);

		if (!repo)
			continue;
		git_repository_free(repo);
		/* A tree without MAINTAINERS (a test tree) names no section. */
		ret = rb_maint_cache_get(
			&m[n], cache, cfg->trees[i].path,
			cfg->trees[i].branch ? cfg->trees[i].branch : "HEAD");
		if (ret == -RB_ENOMEM)
			s.oom = true;
		if (!ret)
			names[n++] = cfg->trees[i].name;
	}
	if (n)
		sys_sections(&s, m, names, n);
out:
	for (i = 0; i < n; i++)
		rb_maint_free(m[i]);
	free(m);
	free(names);
	rb_maint_cache_free(cache);
	if (s.oom)
		return rb_err(RB_ENOMEM, "out of memory");
	if (errs->n == s.n0)
		return 0;
	errs_sort(errs, s.n0);
	return rb_err(RB_ECONFIG, "%zu problem(s) on this machine",
		      errs->n - s.n0);
}
