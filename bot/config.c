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
#include "bot/config_priv.h"
#include "mail/addr.h"
#include "mail/message.h"
#include "review/apply/apply.h"
#include "review/checks/checks.h"
#include "review/checks/rules.h"
#include "review/maint/maintainers.h"
#include "review/model/model.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

/* ---- errors ---------------------------------------------------------- */

int rb_cfg_errs_add(struct rb_config_errors *e, int line, int col, char *msg)
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
		if (!msg || rb_cfg_errs_add(c->errs, 0, 0, msg))
			c->oom = true;
		return;
	}
	if (c->path.len)
		(void)rb_buf_printf(&b, "%s: ", c->path.ptr);
	(void)rb_buf_vprintf(&b, fmt, ap);
	msg = rb_buf_detach(&b, NULL);
	if (!msg || rb_cfg_errs_add(c->errs, line, col, msg))
		c->oom = true;
}

/* Records a problem at node @n (NULL: no position) under the key path. */
void rb_cfg_cerr(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

void rb_cfg_cerr(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
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
struct rb_config_pos rb_cfg_pos_of(const yaml_node_t *n)
{
	struct rb_config_pos p = { 0, 0 };

	if (n) {
		p.line = (int)n->start_mark.line + 1;
		p.col = (int)n->start_mark.column + 1;
	}
	return p;
}

/* Copies @s for a message: control characters become '?', long is cut. */
const char *rb_cfg_shown(char *tmp, size_t size, const char *s)
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

size_t rb_cfg_path_key(struct ctx *c, const char *key)
{
	size_t old = c->path.len;
	char tmp[KEY_SHOW_MAX + 4];

	if (old)
		(void)rb_buf_putc(&c->path, '.');
	(void)rb_buf_puts(&c->path, rb_cfg_shown(tmp, sizeof(tmp), key));
	return old;
}

size_t rb_cfg_path_index(struct ctx *c, size_t i)
{
	size_t old = c->path.len;

	(void)rb_buf_printf(&c->path, "[%zu]", i);
	return old;
}

void rb_cfg_path_pop(struct ctx *c, size_t old)
{
	rb_buf_truncate(&c->path, old);
}

/* ---- nodes ----------------------------------------------------------- */

yaml_node_t *rb_cfg_node(struct ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

const char *rb_cfg_kind_name(const yaml_node_t *n)
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
bool rb_cfg_is_list(struct ctx *c, const yaml_node_t *v, const char *what)
{
	if (v->type == YAML_SEQUENCE_NODE)
		return true;
	rb_cfg_cerr(c, v, "expected a list%s, got %s", what,
		    rb_cfg_kind_name(v));
	return false;
}

bool rb_cfg_visit(struct ctx *c, const yaml_node_t *n)
{
	if (--c->budget >= 0)
		return true;
	if (!c->over_budget) {
		c->over_budget = true;
		rb_cfg_cerr(c, n, "the document has too many nodes (aliases?)");
	}
	return false;
}

bool rb_cfg_is_null(const yaml_node_t *n)
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
const char *rb_cfg_text(struct ctx *c, const yaml_node_t *n, const char *want,
			bool multiline)
{
	const char *v;
	size_t i, len;

	if (n->type != YAML_SCALAR_NODE) {
		rb_cfg_cerr(c, n, "expected %s, got %s", want,
			    rb_cfg_kind_name(n));
		return NULL;
	}
	v = (const char *)n->data.scalar.value;
	len = n->data.scalar.length;
	if (strlen(v) != len) {
		rb_cfg_cerr(c, n, "contains a NUL byte");
		return NULL;
	}
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)v[i];

		if (multiline && (ch == '\n' || ch == '\t'))
			continue;
		if (ch < 0x20 || ch == 0x7f) {
			rb_cfg_cerr(c, n, "contains a control character");
			return NULL;
		}
	}
	return v;
}

char *rb_cfg_xstrdup(struct ctx *c, const char *s)
{
	char *p = strdup(s);

	if (!p)
		c->oom = true;
	return p;
}

void rb_cfg_replace(char **dst, char *v)
{
	free(*dst);
	*dst = v;
}

void rb_cfg_strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int rb_cfg_strv_push(char ***v, size_t *n, char *s)
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
bool rb_cfg_addr_ok(const char *s)
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
bool rb_cfg_from_ok(const char *s)
{
	const char *lt = strrchr(s, '<'), *gt;
	char addr[256];
	size_t n;

	if (!lt)
		return rb_cfg_addr_ok(s);
	gt = strchr(lt, '>');
	if (!gt || gt[1] || strchr(s, '>') != gt)
		return false;
	n = (size_t)(gt - lt - 1);
	if (n >= sizeof(addr))
		return false;
	memcpy(addr, lt + 1, n);
	addr[n] = '\0';
	return rb_cfg_addr_ok(addr);
}

bool rb_cfg_name_ok(const char *s)
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
		rb_cfg_cerr(c, n, "the URL does not parse: %s",
			    curl_url_strerror(uc));
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
	rb_cfg_cerr(c, n, "'%s' is not a URL of the expected kind (%s)",
		    rb_cfg_shown(tmp, sizeof(tmp), u), b.ptr);
	rb_buf_release(&b);
	return false;
}

/*
 * Checks "scheme://host[:port][/rest]" against the NULL-terminated
 * @schemes. A user or password inside the URL is refused: the user has
 * its own key and a password only ever comes from a *_file key.
 */
bool rb_cfg_url_check(struct ctx *c, const yaml_node_t *n, const char *u,
		      const char *const *schemes)
{
	const char *sep = strstr(u, "://"), *host, *end, *p;
	size_t i, slen;

	for (p = u; *p; p++)
		if ((unsigned char)*p <= 0x20) {
			rb_cfg_cerr(c, n, "a URL cannot contain spaces");
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
		rb_cfg_cerr(
			c, n,
			"the URL holds a user name or password; use the user "
			"and *_file keys instead");
		return false;
	}
	if (end == host || *host == ':') {
		rb_cfg_cerr(c, n, "the URL has no host");
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
			rb_cfg_cerr(c, n, "'~' used but HOME is not set");
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
			rb_cfg_cerr(c, n, "the path is too long");
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
		rb_cfg_cerr(c, n, "cannot read '%s': %s", path,
			    strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rb_cfg_cerr(c, n, "cannot read '%s': not a regular file", path);
		goto out;
	}
	while (len < SECRET_MAX_SIZE) {
		r = read(fd, buf + len, SECRET_MAX_SIZE - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rb_cfg_cerr(c, n, "cannot read '%s': %s", path,
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
		rb_cfg_cerr(c, n,
			    "'%s' is empty (the secret is its first line)",
			    path);
	else
		s = rb_cfg_xstrdup(c, buf);
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return s;
}

size_t rb_cfg_osa_distance(const char *a, const char *b)
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
			rb_cfg_cerr(
				c, kn,
				"unknown key: secrets are never written inline; "
				"use '%s'",
				want);
			return;
		}
	for (i = 0; i < nkeys; i++) {
		d = rb_cfg_osa_distance(name, keys[i].name);
		if (d < bestd) {
			bestd = d;
			best = keys[i].name;
		}
	}
	if (best && (bestd <= 1 || (bestd == 2 && strlen(best) >= 6)))
		rb_cfg_cerr(c, kn, "unknown key (did you mean '%s'?)", best);
	else
		rb_cfg_cerr(c, kn, "unknown key");
}

/*
 * The text of scalar @v (@what it should be), or NULL for null, for what
 * text() refuses, and for an empty string, after recording why.
 */
static const char *nonempty_text(struct ctx *c, yaml_node_t *v,
				 const char *what, bool multi)
{
	const char *t;

	if (rb_cfg_is_null(v))
		return NULL;
	t = rb_cfg_text(c, v, what, multi);
	if (t && !*t) {
		rb_cfg_cerr(c, v, "must not be empty");
		return NULL;
	}
	return t;
}

static void set_str(struct ctx *c, yaml_node_t *v, char **dst, bool multi)
{
	const char *t = nonempty_text(c, v, "a string", multi);

	if (t)
		rb_cfg_replace(dst, rb_cfg_xstrdup(c, t));
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
		rb_cfg_cerr(c, v, "'%s' is not a directory", p);
		free(p);
		return;
	}
	if (kind == K_FILE && access(p, R_OK)) {
		rb_cfg_cerr(c, v, "cannot read '%s': %s", p, strerror(errno));
		free(p);
		return;
	}
	rb_cfg_replace(dst, p);
}

bool rb_cfg_parse_long(const char *t, long *out)
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

	if (rb_cfg_is_null(v))
		return;
	t = rb_cfg_text(c, v, "an integer", false);
	if (!t)
		return;
	if (!rb_cfg_parse_long(t, &l)) {
		rb_cfg_cerr(c, v, "expected an integer, got '%s'",
			    rb_cfg_shown(tmp, sizeof(tmp), t));
		return;
	}
	if (l < min || l > max) {
		rb_cfg_cerr(c, v, "%ld is out of range (%ld to %ld)", l, min,
			    max);
		return;
	}
	*dst = (int)l;
}

void rb_cfg_set_double(struct ctx *c, yaml_node_t *v, double *dst, long min,
		       long max)
{
	const char *t;
	char tmp[40], *end;
	double d;

	if (rb_cfg_is_null(v))
		return;
	t = rb_cfg_text(c, v, "a number", false);
	if (!t)
		return;
	errno = 0;
	d = strtod(t, &end);
	if (!*t || *end || errno || !isfinite(d)) {
		rb_cfg_cerr(c, v, "expected a number, got '%s'",
			    rb_cfg_shown(tmp, sizeof(tmp), t));
		return;
	}
	if (d < (double)min || d > (double)max) {
		rb_cfg_cerr(c, v, "%g is out of range (%ld to %ld)", d, min,
			    max);
		return;
	}
	*dst = d;
}

void rb_cfg_set_bool(struct ctx *c, yaml_node_t *v, bool *dst)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	const char *t;
	char tmp[40];
	size_t i;

	if (rb_cfg_is_null(v))
		return;
	t = rb_cfg_text(c, v, "true or false", false);
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
	rb_cfg_cerr(c, v, "expected true or false, got '%s'",
		    rb_cfg_shown(tmp, sizeof(tmp), t));
}

/* The index of @t in the NULL-terminated @names, or -1 after an error. */
int rb_cfg_pick(struct ctx *c, yaml_node_t *v, const char *const *names)
{
	struct rb_buf b = RB_BUF_INIT(512);
	const char *t;
	char tmp[40];
	int i;

	t = rb_cfg_text(c, v, "a string", false);
	if (!t)
		return -1;
	for (i = 0; names[i]; i++)
		if (!strcmp(t, names[i]))
			return i;
	for (i = 0; names[i]; i++)
		(void)rb_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	rb_cfg_cerr(c, v, "'%s' is not one of: %s",
		    rb_cfg_shown(tmp, sizeof(tmp), t), b.ptr);
	rb_buf_release(&b);
	return -1;
}

/* Reads a list of strings; @check (may be NULL) validates each item. */
/*
 * Calls @fn on each item of the list @v, at the item's path, once the item
 * is counted against the node budget. Returns false when the walk stopped
 * early: a bad node, the budget spent, or @fn returned false.
 */
bool rb_cfg_each_item(struct ctx *c, yaml_node_t *v,
		      bool (*fn)(struct ctx *c, yaml_node_t *n, void *arg),
		      void *arg)
{
	yaml_node_item_t *it;
	size_t i = 0, old;
	bool go;

	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++, i++) {
		yaml_node_t *n = rb_cfg_node(c, *it);

		if (!n || !rb_cfg_visit(c, n))
			return false;
		old = rb_cfg_path_index(c, i);
		go = fn(c, n, arg);
		rb_cfg_path_pop(c, old);
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
	const char *t = rb_cfg_text(c, n, "a string", false);
	char *s;

	if (t && !*t) {
		rb_cfg_cerr(c, n, "must not be empty");
	} else if (t) {
		s = l->check ? l->check(c, n, t) : rb_cfg_xstrdup(c, t);
		if (s && rb_cfg_strv_push(&l->v, &l->n, s))
			c->oom = true;
	}
	return true;
}

void rb_cfg_set_list(struct ctx *c, yaml_node_t *v, char ***vp, size_t *np,
		     item_fn check)
{
	struct str_list l = { .check = check };

	if (rb_cfg_is_null(v)) {
		rb_cfg_strv_free(*vp, *np);
		*vp = NULL;
		*np = 0;
		return;
	}
	if (!rb_cfg_is_list(c, v, ""))
		return;
	rb_cfg_each_item(c, v, str_item, &l);
	rb_cfg_strv_free(*vp, *np);
	*vp = l.v;
	*np = l.n;
}

struct bits_list {
	unsigned int bits;
	int (*index)(const char *name);
	const char *what;
};

static bool bits_item(struct ctx *c, yaml_node_t *n, void *arg)
{
	struct bits_list *l = arg;
	const char *t = rb_cfg_text(c, n, "a string", false);
	char tmp[80];
	int i;

	if (t && !*t)
		rb_cfg_cerr(c, n, "must not be empty");
	else if (t && (i = l->index(t)) < 0)
		rb_cfg_cerr(c, n, "'%s' is not %s",
			    rb_cfg_shown(tmp, sizeof(tmp), t), l->what);
	else if (t)
		l->bits |= 1u << i;
	return true;
}

bool rb_cfg_set_bits(struct ctx *c, yaml_node_t *v, unsigned int *dst,
		     int (*index)(const char *name), const char *what)
{
	struct bits_list l = { .index = index, .what = what };

	if (!rb_cfg_is_null(v) && !rb_cfg_is_list(c, v, ""))
		return false;
	if (!rb_cfg_is_null(v))
		rb_cfg_each_item(c, v, bits_item, &l);
	*dst = l.bits;
	return true;
}

static char *addr_item(struct ctx *c, yaml_node_t *n, const char *t)
{
	char tmp[80];

	if (!rb_cfg_addr_ok(t)) {
		rb_cfg_cerr(c, n, "'%s' is not an email address (user@domain)",
			    rb_cfg_shown(tmp, sizeof(tmp), t));
		return NULL;
	}
	return rb_cfg_xstrdup(c, t);
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

	if (rb_cfg_is_null(v))
		return;
	t = rb_cfg_text(c, v, "an environment variable name", false);
	if (!t)
		return;
	for (p = t; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			break;
	if (!*t || *p || isdigit((unsigned char)*t)) {
		char tmp[40];

		rb_cfg_cerr(c, v, "'%s' is not an environment variable name",
			    rb_cfg_shown(tmp, sizeof(tmp), t));
		return;
	}
	val = getenv(t);
	if (!val || !*val) {
		rb_cfg_cerr(c, v, "the environment variable %s is %s", t,
			    val ? "empty" : "not set");
		return;
	}
	rb_free_secret(*dst);
	*dst = rb_cfg_xstrdup(c, val);
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
		if (rb_cfg_is_null(v))
			break;
		t = rb_cfg_text(c, v, "a URL", false);
		if (t && rb_cfg_url_check(c, v, t, k->aux))
			rb_cfg_replace((char **)(base + k->off),
				       rb_cfg_xstrdup(c, t));
		break;
	case K_INT:
		set_int(c, v, (int *)(base + k->off), k->min, k->max);
		break;
	case K_SIZE: {
		int n = (int)*(size_t *)(base + k->off);

		set_int(c, v, &n, k->min, k->max);
		*(size_t *)(base + k->off) = (size_t)n;
		break;
	}
	case K_LONG: {
		int n = (int)*(long *)(base + k->off);

		set_int(c, v, &n, k->min, k->max);
		*(long *)(base + k->off) = n;
		break;
	}
	case K_DOUBLE:
		rb_cfg_set_double(c, v, (double *)(base + k->off), k->min,
				  k->max);
		break;
	case K_BOOL:
		rb_cfg_set_bool(c, v, (bool *)(base + k->off));
		break;
	case K_STARTTLS: {
		static const char *const st[] = { "off", "required", NULL };

		if (rb_cfg_is_null(v))
			break;
		i = rb_cfg_pick(c, v, st);
		if (i >= 0)
			*(bool *)(base + k->off) = i == 1;
		break;
	}
	case K_ENUM:
		if (rb_cfg_is_null(v))
			break;
		i = rb_cfg_pick(c, v, k->aux);
		if (i >= 0)
			*(int *)(base + k->off) = i;
		break;
	case K_CHOICE:
		if (rb_cfg_is_null(v))
			break;
		i = rb_cfg_pick(c, v, k->aux);
		if (i >= 0)
			rb_cfg_replace(
				(char **)(base + k->off),
				rb_cfg_xstrdup(
					c, ((const char *const *)k->aux)[i]));
		break;
	case K_STRLIST:
	case K_ADDRLIST:
		rb_cfg_set_list(c, v, (char ***)(base + k->off),
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
		rb_cfg_walk_map(c, v, k->sub, k->nsub, base + k->off, k->check);
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
void rb_cfg_walk_map(struct ctx *c, yaml_node_t *n, const struct key *keys,
		     size_t nkeys, void *obj, check_fn check)
{
	yaml_node_t *kn_seen[MAX_KEYS] = { NULL }, *seen[MAX_KEYS] = { NULL };
	yaml_node_pair_t *p;
	size_t i, old;

	if (!rb_cfg_visit(c, n))
		return;
	if (!rb_cfg_is_null(n) && n->type != YAML_MAPPING_NODE) {
		rb_cfg_cerr(c, n, "expected a mapping, got %s",
			    rb_cfg_kind_name(n));
		return; /* and no check: it would only repeat this */
	}
	if (n->type == YAML_MAPPING_NODE)
		for (p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *kn = rb_cfg_node(c, p->key);
			yaml_node_t *vn = rb_cfg_node(c, p->value);
			const char *name;

			if (!kn || !vn || !rb_cfg_visit(c, kn))
				break;
			if (kn->type != YAML_SCALAR_NODE) {
				rb_cfg_cerr(c, kn,
					    "a key must be a string, not %s",
					    rb_cfg_kind_name(kn));
				continue;
			}
			name = (const char *)kn->data.scalar.value;
			for (i = 0; i < nkeys; i++)
				if (!strcmp(keys[i].name, name))
					break;
			old = rb_cfg_path_key(c, name);
			if (i == nkeys)
				unknown_key(c, kn, name, keys, nkeys);
			else if (seen[i])
				rb_cfg_cerr(c, kn,
					    "duplicate key (first at line %d)",
					    (int)kn_seen[i]->start_mark.line +
						    1);
			else {
				kn_seen[i] = kn;
				seen[i] = vn;
			}
			rb_cfg_path_pop(c, old);
		}
	for (i = 0; i < nkeys; i++) {
		if (!seen[i])
			continue;
		old = rb_cfg_path_key(c, keys[i].name);
		apply_key(c, &keys[i], seen[i], obj);
		rb_cfg_path_pop(c, old);
	}
	if (check && !c->over_budget)
		check(c, n, obj, seen);
}

/* ---- the tables as data: every key, and what differs ---------------- */

struct key_walk {
	struct rb_buf path;
	void (*fn)(const char *path, void *arg);
	void *arg;
	size_t n;
};

static void each_key(struct key_walk *w, const struct key *keys, size_t n)
{
	size_t i, old;

	for (i = 0; i < n; i++) {
		old = w->path.len;
		if (rb_buf_printf(&w->path, "%s%s", old ? "." : "",
				  keys[i].name))
			continue;
		if (keys[i].sub && keys[i].type == K_FN && keys[i].list)
			rb_buf_puts(&w->path, "[]");
		if (keys[i].sub)
			each_key(w, keys[i].sub, keys[i].nsub);
		else
			w->fn(w->path.ptr, w->arg);
		rb_buf_truncate(&w->path, old);
	}
}

void rb_config_each_key(void (*fn)(const char *path, void *arg), void *arg)
{
	struct key_walk w = { .path = RB_BUF_INIT(4096), .fn = fn, .arg = arg };

	each_key(&w, rb_cfg_top_keys, rb_cfg_n_top_keys);
	rb_buf_release(&w.path);
}

static enum kstore store_of(const struct key *k)
{
	switch (k->type) {
	case K_INT:
	case K_ENUM:
		return S_INT;
	case K_LONG:
		return S_LONG;
	case K_SIZE:
		return S_SIZE;
	case K_DOUBLE:
		return S_DOUBLE;
	case K_BOOL:
	case K_STARTTLS:
		return S_BOOL;
	case K_STRLIST:
	case K_ADDRLIST:
		return S_STRV;
	case K_MAP:
		return S_NONE;
	case K_FN:
		return k->store;
	default:
		return S_STR;
	}
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_value(const struct key *k, const char *a, const char *b)
{
	const size_t o = k->off;
	size_t na, nb, i;

	switch (store_of(k)) {
	case S_NONE:
		return true;
	case S_STR:
		return same_str(*(char *const *)(a + o),
				*(char *const *)(b + o));
	case S_INT:
		return *(const int *)(a + o) == *(const int *)(b + o);
	case S_UINT:
		return *(const unsigned *)(a + o) == *(const unsigned *)(b + o);
	case S_LONG:
		return *(const long *)(a + o) == *(const long *)(b + o);
	case S_SIZE:
		return *(const size_t *)(a + o) == *(const size_t *)(b + o);
	case S_DOUBLE:
		return *(const double *)(a + o) == *(const double *)(b + o);
	case S_BOOL:
		return *(const bool *)(a + o) == *(const bool *)(b + o);
	case S_COUNT:
		return *(const size_t *)(a + k->noff) ==
		       *(const size_t *)(b + k->noff);
	case S_STRV:
		na = *(const size_t *)(a + k->noff);
		nb = *(const size_t *)(b + k->noff);
		for (i = 0; na == nb && i < na; i++)
			if (!same_str((*(char **const *)(a + o))[i],
				      (*(char **const *)(b + o))[i]))
				return false;
		return na == nb;
	}
	return true;
}

static void diff_keys(struct key_walk *w, const struct key *keys, size_t n,
		      const char *a, const char *b)
{
	size_t i, old;

	for (i = 0; i < n; i++) {
		const struct key *k = &keys[i];

		old = w->path.len;
		if (rb_buf_printf(&w->path, "%s%s", old ? "." : "", k->name))
			continue;
		if (k->type == K_MAP) {
			diff_keys(w, k->sub, k->nsub, a + k->off, b + k->off);
		} else if (!same_value(k, a, b)) {
			w->n++;
			if (w->fn)
				w->fn(w->path.ptr, w->arg);
		}
		rb_buf_truncate(&w->path, old);
	}
}

size_t rb_config_diff(const struct rb_config *a, const struct rb_config *b,
		      void (*fn)(const char *path, void *arg), void *arg)
{
	struct key_walk w = { .path = RB_BUF_INIT(4096), .fn = fn, .arg = arg };

	diff_keys(&w, rb_cfg_top_keys, rb_cfg_n_top_keys, (const char *)a,
		  (const char *)b);
	rb_buf_release(&w.path);
	return w.n;
}

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
	p->checkers = RB_CHECKERS_DEFAULT;
}

int rb_config_defaults(struct rb_config **out)
{
	struct rb_config *c = calloc(1, sizeof(*c));

	if (!c)
		return rb_err(RB_ENOMEM, "out of memory");
	c->store_path = strdup("./reviewbot.db");
	c->outbox_maildir = strdup("./outbox");
	c->smtp_from = strdup("reviewbot <reviewbot@localhost>");
	c->smtp = (struct rb_smtp_opts)RB_SMTP_OPTS_INIT;
	c->rate_per_hour = 60;
	c->rate_per_recipient_hour = 10;
	c->rate_per_list_hour = 60;
	c->max_recipients = 20;
	c->max_lists = 10;
	/* The model's defaults are its own; the config owns their strings. */
	c->model.opts = (struct rb_model_opts)RB_MODEL_OPTS_INIT;
	c->model.opts.provider = strdup(c->model.opts.provider);
	c->model.opts.max_tokens_field = strdup(c->model.opts.max_tokens_field);
	/* model.tools: the bot's limits per pass (bot/stages/model_setup.c). */
	c->model.tools.max_calls = 12;
	c->model.tools.max_bytes = 96 << 10;
	c->model.tools.verifier_calls = 16;
	c->model.tools.verifier_bytes = 128 << 10;
	c->model.tools.series_calls = 300;
	c->model.tools.series_bytes = 6 << 20;
	c->model.tools.max_result = 16 << 10;
	c->model.tools.max_seconds = 300;
	c->model.tools.max_rounds = 12;
	policy_defaults(&c->policy_default);
	c->policy_default.name = strdup("default");
	c->http_listen = strdup("127.0.0.1:8080");
	c->http_thread_url = strdup("https://lore.kernel.org/r/");
	/* The message parser's and the apply's own defaults. */
	c->max_message_size = RB_MSG_DEFAULT_MAX;
	c->max_apply_bytes = RB_APPLY_MAX_BYTES;
	c->max_file_lines = RB_APPLY_MAX_FILE_LINES;
	c->apply_seconds = (double)RB_APPLY_MAX_WORK / RB_APPLY_WORK_PER_SECOND;
	c->max_job_attempts = 3;
	c->incomplete_wait_minutes = 60;
	c->apply_retry_minutes = -1;
	c->parallel_series = 4;
	c->check = (struct rb_check_opts)RB_CHECK_OPTS_INIT;
	c->earlier_replies = true;
	c->fetch_timeout_seconds = 30;
	if (!c->store_path || !c->outbox_maildir || !c->smtp_from ||
	    !c->model.opts.provider || !c->model.opts.max_tokens_field ||
	    !c->policy_default.name || !c->http_listen || !c->http_thread_url) {
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
		rb_cfg_source_release(&cfg->sources[i]);
	free(cfg->sources);
	for (i = 0; i < cfg->n_trees; i++)
		rb_cfg_tree_release(&cfg->trees[i]);
	free(cfg->trees);
	free((char *)cfg->smtp.url);
	free(cfg->smtp_from);
	free((char *)cfg->smtp.user);
	rb_free_secret((char *)cfg->smtp.password);
	free((char *)cfg->smtp.ca_file);
	free(cfg->outbox_maildir);
	free(cfg->kill_switch_file);
	free((char *)cfg->model.opts.provider);
	free((char *)cfg->model.opts.url);
	free((char *)cfg->model.opts.name);
	rb_free_secret((char *)cfg->model.opts.api_key);
	free((char *)cfg->model.opts.command);
	free((char *)cfg->model.opts.max_tokens_field);
	free(cfg->model.index_dir);
	rb_cfg_strv_free(cfg->model.focuses, cfg->model.n_focuses);
	rb_cfg_policy_release(&cfg->policy_default);
	for (i = 0; i < cfg->n_policies; i++)
		rb_cfg_policy_release(&cfg->policies[i]);
	free(cfg->policies);
	rb_cfg_strv_free(cfg->admins, cfg->n_admins);
	for (i = 0; i < cfg->n_people; i++)
		free(cfg->people[i].addr);
	free(cfg->people);
	rb_cfg_strv_free(cfg->list_ids, cfg->n_list_ids);
	rb_cfg_strv_free(cfg->known_bots, cfg->n_known_bots);
	free(cfg->http_listen);
	free(cfg->http_thread_url);
	free(cfg->fetch_url);
	rb_cfg_strv_free(cfg->catch_all, cfg->n_catch_all);
	/* The runner's options borrow; the config owns what it read. */
	free((char *)cfg->check.build_config);
	rb_cfg_strv_free(cfg->check.build_options, cfg->check.n_build_options);
	free((char *)cfg->check.build_cache_dir);
	free((char *)cfg->check.external_cmd);
	free((char *)cfg->check.external_name);
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
void rb_cfg_errs_sort(struct rb_config_errors *e, size_t from)
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
			rb_cfg_shown(tmp, sizeof(tmp), p->name),
			rb_mode_name(p->mode),
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
		rb_cfg_cerr(&c, NULL, "the file is larger than %u bytes",
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
		rb_cfg_walk_map(&c, yaml_document_get_root_node(&doc),
				rb_cfg_top_keys, rb_cfg_n_top_keys, cfg, NULL);
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
		rb_cfg_errs_sort(e, n0);
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
		if (errs && (!msg || rb_cfg_errs_add(errs, 0, 0, msg)))
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
	name = rb_cfg_strip_list_id(name, tmp, sizeof(tmp));
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
	return (unsigned int)t <= RB_SRC_STDIN ? rb_cfg_source_type_names[t] :
						 "?";
}
