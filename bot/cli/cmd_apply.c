// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_apply.c - "reviewbot apply": applies patch mails in order onto a
 * revision of a git repository, in memory (review/apply/apply.h), and prints
 * per patch "applied" with each hunk's offset or "failed" with the file,
 * the hunk and the reason. The repository is written only with
 * --write-tree (without --check). Exit 0 all applied, 1 one failed, 2
 * usage.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <git2.h>
#include <jansson.h>

#include "bot/cli/cli.h"
#include "mail/mbox.h"
#include "mail/message.h"
#include "review/apply/apply.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/banned.h"

#define RB_APPLY_MAX_INPUT (64u << 20)

/* One patch read from the command line, with the strings it owns. */
struct input {
	char *origin; /* "file.mbox:3" */
	char *subject;
	char *author_name;
	char *author_email;
	char *message;
	char *patch;
	size_t patch_len;
	int64_t date;
	int tz;
};

struct inputs {
	struct input *v;
	size_t n, cap;
};

static const char usage[] =
	"usage: reviewbot apply --tree REPO [--base REV] [--json] "
	"[--write-tree]\n"
	"                       [--fuzz N] [--no-3way] [--check] "
	"PATCH...\n\n"
	"Applies the patches (mbox, eml, or git diff / format-patch "
	"files) in order\n"
	"on REV (default HEAD) of REPO, in memory, as git apply "
	"would.\n\n"
	"  --tree REPO    the git repository\n"
	"  --base REV     the base revision (default HEAD)\n"
	"  --json         print the result as JSON\n"
	"  --write-tree   print the final tree id, and write the "
	"blobs, trees and\n"
	"                 commits of the series into REPO's object "
	"database (only\n"
	"                 with this option, and not with --check: "
	"otherwise nothing\n"
	"                 is ever written to REPO)\n"
	"  --fuzz N       like git apply -CN: keep at least N lines of "
	"context\n"
	"  --no-3way      no 3-way merge fallback (git apply's "
	"default)\n"
	"  --check        with --write-tree: print the tree id, "
	"write nothing\n\n"
	"Exit: 0 all applied, 1 a patch failed, 2 usage or bad "
	"input.\n";

static struct input *input_add(struct inputs *in)
{
	if (in->n == in->cap) {
		size_t ncap = in->cap ? in->cap * 2 : 8;
		struct input *nv = realloc(in->v, ncap * sizeof(*nv));

		if (!nv)
			return NULL;
		in->v = nv;
		in->cap = ncap;
	}
	memset(&in->v[in->n], 0, sizeof(in->v[0]));
	return &in->v[in->n++];
}

static void inputs_release(struct inputs *in)
{
	size_t i;

	for (i = 0; i < in->n; i++) {
		free(in->v[i].origin);
		free(in->v[i].subject);
		free(in->v[i].author_name);
		free(in->v[i].author_email);
		free(in->v[i].message);
		free(in->v[i].patch);
	}
	free(in->v);
}

/* The value of header @name in @raw (unfolded), or NULL; malloc'd. */
static char *header(const char *raw, size_t len, const char *name)
{
	size_t nlen = strlen(name), off = 0;
	struct rb_buf b = RB_BUF_INIT(1u << 16);

	while (off < len) {
		const char *nl = memchr(raw + off, '\n', len - off);
		size_t l = nl ? (size_t)(nl - raw - off) : len - off;
		const char *line = raw + off;

		if (!l || (l == 1 && line[0] == '\r'))
			break;
		if (l > nlen && line[nlen] == ':' &&
		    !strncasecmp(line, name, nlen)) {
			size_t s = nlen + 1;

			rb_buf_add(&b, line + s, l - s);
			off += l + 1;
			while (off < len &&
			       (raw[off] == ' ' || raw[off] == '\t')) {
				nl = memchr(raw + off, '\n', len - off);
				l = nl ? (size_t)(nl - raw - off) : len - off;
				rb_buf_add(&b, raw + off, l);
				off += l + 1;
			}
			{
				char *v = rb_buf_detach(&b, NULL);
				char *p = v, *e;

				while (*p == ' ' || *p == '\t')
					p++;
				memmove(v, p, strlen(p) + 1);
				e = v + strlen(v);
				while (e > v && (e[-1] == '\r' || e[-1] == ' '))
					*--e = '\0';
				return v;
			}
		}
		off += l + 1;
	}
	rb_buf_release(&b);
	return NULL;
}

/* "Name <addr>" into its parts. */
static void split_from(struct input *in, const char *from)
{
	const char *lt = strchr(from, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	if (lt && gt) {
		size_t n = (size_t)(lt - from);

		while (n && from[n - 1] == ' ')
			n--;
		if (n >= 2 && from[0] == '"' && from[n - 1] == '"') {
			from++;
			n -= 2;
		}
		in->author_name = strndup(from, n);
		in->author_email = strndup(lt + 1, (size_t)(gt - lt - 1));
	} else {
		in->author_email = strdup(from);
	}
}

/* The subject without "[PATCH ...]" tags, for the commit message. */
static const char *subject_title(const char *s)
{
	while (*s == '[') {
		const char *e = strchr(s, ']');

		if (!e)
			break;
		s = e + 1;
		while (*s == ' ')
			s++;
	}
	return s;
}

/*
 * Takes what apply needs from a mail: through rb_message_parse() when it
 * can, else from the raw headers, with the whole body as the patch text
 * (the diff parser skips the prose around the diff, as git apply does).
 */
static int from_mail(struct input *in, const char *raw, size_t len)
{
	struct rb_message *m = NULL;
	struct rb_buf msg = RB_BUF_INIT(1u << 20);
	const char *body;
	char *from, *date;

	if (!rb_message_parse(&m, raw, len, NULL) && m->patch) {
		in->subject = strdup(m->subject_raw ? m->subject_raw : "");
		in->author_name = m->from.name ? strdup(m->from.name) : NULL;
		in->author_email = m->from.addr ? strdup(m->from.addr) : NULL;
		in->date = m->date;
		in->patch = malloc(m->patch_len + 1);
		if (in->patch) {
			memcpy(in->patch, m->patch, m->patch_len);
			in->patch[m->patch_len] = '\0';
		}
		in->patch_len = m->patch_len;
		rb_buf_printf(&msg, "%s\n\n%s",
			      m->subject.title ? m->subject.title : "",
			      m->commit_msg ? m->commit_msg : "");
		in->message = rb_buf_detach(&msg, NULL);
		rb_message_free(m);
		return in->patch ? 0 : -RB_ENOMEM;
	}
	rb_message_free(m);
	rb_err_clear();
	in->subject = header(raw, len, "Subject");
	if (!in->subject)
		in->subject = strdup("");
	from = header(raw, len, "From");
	if (from) {
		split_from(in, from);
		free(from);
	}
	date = header(raw, len, "Date");
	if (date) {
		time_t t = curl_getdate(date, NULL);

		in->date = t > 0 ? (int64_t)t : 0;
		free(date);
	}
	body = strstr(raw, "\n\n");
	body = body ? body + 2 : raw + len;
	in->patch_len = len - (size_t)(body - raw);
	in->patch = strndup(body, in->patch_len);
	{
		const char *sep = strstr(body, "\n---\n");
		size_t n = sep ? (size_t)(sep - body) + 1 : 0;

		rb_buf_printf(&msg, "%s\n\n", subject_title(in->subject));
		rb_buf_add(&msg, body, n);
	}
	in->message = rb_buf_detach(&msg, NULL);
	return in->patch && in->message ? 0 : -RB_ENOMEM;
}

static int on_mail(const char *raw, size_t len, const char *origin,
		   void *payload)
{
	struct inputs *ins = payload;
	struct input *in = input_add(ins);

	if (!in)
		return -RB_ENOMEM;
	in->origin = strdup(origin);
	if (!raw)
		return rb_err(RB_ETOOBIG, "%s: message too big (%zu bytes)",
			      origin, len);
	return from_mail(in, raw, len);
}

/*
 * A file is a bare patch (not a mail) when its first line is neither an
 * mbox "From " line nor a header ("Name: value"): "diff --git", "---",
 * the output of git mailinfo, a diffstat...
 */
static bool is_raw_diff(const char *p, size_t len)
{
	size_t i = 0;

	if (len >= 5 && !memcmp(p, "From ", 5))
		return false;
	while (i < len && p[i] != ':' && p[i] != '\n' && p[i] != ' ' &&
	       p[i] != '\t')
		i++;
	return !(i > 0 && i < len && p[i] == ':');
}

static int read_input(struct inputs *ins, const char *path)
{
	struct rb_buf b = RB_BUF_INIT(RB_APPLY_MAX_INPUT);
	int ret;

	ret = rb_read_file(&b, path);
	if (ret)
		goto out;
	if (is_raw_diff(b.ptr, b.len)) {
		struct input *in = input_add(ins);

		if (!in) {
			ret = -RB_ENOMEM;
			goto out;
		}
		in->origin = strdup(path);
		in->subject = strdup(path);
		in->patch_len = b.len;
		in->patch = rb_buf_detach(&b, NULL);
		goto out;
	}
	ret = rb_mail_walk(path, RB_APPLY_MAX_INPUT, on_mail, ins);
out:
	rb_buf_release(&b);
	return ret;
}

static void oid_hex(char *out, const git_oid *oid)
{
	git_oid_tostr(out, GIT_OID_HEXSZ + 1, oid);
}

static void print_text(const struct rb_apply_result *r,
		       const struct inputs *ins, bool write_tree)
{
	char hex[GIT_OID_HEXSZ + 1];
	size_t i, j, k;

	for (i = 0; i < ins->n; i++) {
		const struct rb_apply_patch_result *pr = &r->patches[i];

		if (pr->applied) {
			printf("%zu/%zu %s: applied\n", i + 1, ins->n,
			       ins->v[i].subject);
			for (j = 0; j < pr->n_files; j++) {
				const struct rb_apply_file_result *f =
					&pr->files[j];

				if (f->merged)
					printf("  %s: applied with a 3-way "
					       "merge\n",
					       f->path);
				for (k = 0; k < f->n_hunks; k++)
					printf("  %s: hunk #%zu at line %u "
					       "(offset %d)%s\n",
					       f->path, k + 1, f->hunks[k].line,
					       f->hunks[k].offset,
					       f->hunks[k].context_dropped ?
						       " with fuzz" :
						       "");
			}
		} else if (r->failed_patch == i + 1) {
			printf("%zu/%zu %s: failed: %s\n", i + 1, ins->n,
			       ins->v[i].subject, r->reason);
			if (r->failed_file)
				printf("  file: %s\n", r->failed_file);
			if (r->failed_hunk)
				printf("  hunk: #%zu\n", r->failed_hunk);
		} else {
			printf("%zu/%zu %s: not tried\n", i + 1, ins->n,
			       ins->v[i].subject);
		}
	}
	if (r->setuid)
		printf("warning: the series sets a setuid/setgid mode on %s\n",
		       r->setuid_path ? r->setuid_path : "a file");
	if (write_tree && r->ok) {
		oid_hex(hex, &r->tree);
		printf("%s\n", hex);
	}
}

static void print_json(const struct rb_apply_result *r,
		       const struct inputs *ins)
{
	char hex[GIT_OID_HEXSZ + 1];
	json_t *root = json_object(), *pa = json_array();
	size_t i, j, k;
	char *s;

	json_object_set_new(root, "ok", json_boolean(r->ok));
	oid_hex(hex, &r->base);
	json_object_set_new(root, "base", json_string(hex));
	oid_hex(hex, &r->tree);
	json_object_set_new(root, "tree", json_string(hex));
	oid_hex(hex, &r->commit);
	json_object_set_new(root, "commit", json_string(hex));
	for (i = 0; i < ins->n; i++) {
		const struct rb_apply_patch_result *pr = &r->patches[i];
		json_t *p = json_object(), *fa = json_array();

		json_object_set_new(
			p, "origin",
			json_string(ins->v[i].origin ? ins->v[i].origin : ""));
		json_object_set_new(p, "subject",
				    json_stringn(ins->v[i].subject,
						 strlen(ins->v[i].subject)));
		json_object_set_new(p, "applied", json_boolean(pr->applied));
		if (pr->applied) {
			oid_hex(hex, &pr->tree);
			json_object_set_new(p, "tree", json_string(hex));
			oid_hex(hex, &pr->commit);
			json_object_set_new(p, "commit", json_string(hex));
		}
		for (j = 0; j < pr->n_files; j++) {
			const struct rb_apply_file_result *f = &pr->files[j];
			json_t *fo = json_object(), *ha = json_array();

			json_object_set_new(fo, "path", json_string(f->path));
			json_object_set_new(fo, "merged",
					    json_boolean(f->merged));
			for (k = 0; k < f->n_hunks && pr->applied; k++)
				json_array_append_new(
					ha,
					json_pack(
						"{s:i,s:i,s:i}", "line",
						(int)f->hunks[k].line, "offset",
						(int)f->hunks[k].offset, "fuzz",
						(int)f->hunks[k]
							.context_dropped));
			json_object_set_new(fo, "hunks", ha);
			json_array_append_new(fa, fo);
		}
		json_object_set_new(p, "files", fa);
		json_array_append_new(pa, p);
	}
	json_object_set_new(root, "patches", pa);
	if (!r->ok)
		json_object_set_new(root, "failure",
				    json_pack("{s:s,s:i,s:s?,s:i,s:s}", "kind",
					      rb_apply_fail_name(r->fail),
					      "patch", (int)r->failed_patch,
					      "file", r->failed_file, "hunk",
					      (int)r->failed_hunk, "reason",
					      r->reason ? r->reason : ""));
	json_object_set_new(root, "setuid", json_boolean(r->setuid));
	json_object_set_new(root, "merged", json_boolean(r->merged));
	s = json_dumps(root, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	if (s)
		printf("%s\n", s);
	free(s);
	json_decref(root);
}

/* What the command line asks of "reviewbot apply". */
struct apply_args {
	struct rb_apply_opts opts;
	const char *tree, *base;
	bool json, write_tree, check, no3way;
};

/* --fuzz N: like git apply -CN. */
static int parse_fuzz(const char *arg, void *to)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || v < 0 || v > 1000) {
		fprintf(stderr, "reviewbot apply: bad --fuzz '%s'\n", arg);
		return -1;
	}
	*(int *)to = (int)v;
	return 0;
}

/*
 * Reads the patches in @paths into @ins and *out (which borrows @ins'
 * strings). Prints the reason and returns -1 when a file cannot be read
 * or holds no patch.
 */
static int read_patches(struct rb_apply_patch **out, struct inputs *ins,
			char **paths, int n)
{
	struct rb_apply_patch *patches;
	size_t k;
	int i;

	for (i = 0; i < n; i++) {
		if (read_input(ins, paths[i])) {
			fprintf(stderr, "reviewbot apply: %s: %s\n", paths[i],
				rb_errmsg());
			return -1;
		}
	}
	if (!ins->n) {
		fprintf(stderr, "reviewbot apply: no patches in the input\n");
		return -1;
	}
	patches = calloc(ins->n, sizeof(*patches));
	if (!patches)
		return -1;
	for (k = 0; k < ins->n; k++) {
		patches[k].patch = ins->v[k].patch;
		patches[k].len = ins->v[k].patch_len;
		patches[k].author_name = ins->v[k].author_name;
		patches[k].author_email = ins->v[k].author_email;
		patches[k].date = ins->v[k].date;
		patches[k].tz_offset = ins->v[k].tz;
		patches[k].message = ins->v[k].message;
	}
	*out = patches;
	return 0;
}

/* Applies @patches on the tree and prints the result; an exit code. */
static int apply_and_print(const struct apply_args *a, const struct inputs *ins,
			   const struct rb_apply_patch *patches)
{
	struct rb_apply_result *res = NULL;
	git_repository *repo = NULL;
	git_object *obj = NULL, *rev = NULL;
	int ret = RB_EXIT_USAGE;

	if (git_repository_open_ext(&repo, a->tree, 0, NULL) < 0) {
		fprintf(stderr, "reviewbot apply: %s: not a git repository\n",
			a->tree);
		goto out;
	}
	if (git_revparse_single(&rev, repo, a->base) < 0 ||
	    git_object_peel(&obj, rev, GIT_OBJECT_COMMIT) < 0) {
		fprintf(stderr, "reviewbot apply: %s: no commit '%s'\n",
			a->tree, a->base);
		goto out;
	}
	if (rb_apply_series(&res, repo, git_object_id(obj), patches, ins->n,
			    &a->opts)) {
		fprintf(stderr, "reviewbot apply: %s\n", rb_errmsg());
		ret = RB_EXIT_FAIL;
		goto out;
	}
	/* The one write to a repository, asked for on the command line. */
	if (a->write_tree && !a->check && res->ok &&
	    rb_apply_result_write(res, repo)) {
		fprintf(stderr, "reviewbot apply: %s\n", rb_errmsg());
		ret = RB_EXIT_FAIL;
		goto out;
	}
	if (a->json)
		print_json(res, ins);
	else
		print_text(res, ins, a->write_tree);
	ret = res->ok ? RB_EXIT_OK : RB_EXIT_FAIL;
out:
	rb_apply_result_free(res);
	git_object_free(obj);
	git_object_free(rev);
	git_repository_free(repo);
	return ret;
}

int cmd_apply(int argc, char **argv)
{
	struct apply_args a = { .opts = RB_APPLY_OPTS_INIT, .base = "HEAD" };
	const struct rb_cli_opt cli[] = {
		{ "tree", 't', &a.tree },
		{ "base", 'b', &a.base },
		{ "json", 'j', .flag = &a.json },
		{ "write-tree", 'w', .flag = &a.write_tree },
		{ "fuzz", 'C', .parse = parse_fuzz, .to = &a.opts.fuzz },
		{ "no-3way", '3', .flag = &a.no3way },
		{ "check", 'c', .flag = &a.check },
		{ 0 },
	};
	const struct rb_cli_args args = { usage, cli, .needs_operands = true };
	struct inputs ins = { 0 };
	struct rb_apply_patch *patches = NULL;
	int ret;

	ret = rb_cli_parse(&args, argc, argv);
	if (ret != RB_CLI_GO)
		return ret;
	if (!a.tree) {
		fputs(usage, stderr);
		return RB_EXIT_USAGE;
	}
	if (a.no3way)
		a.opts.three_way = false;
	rb_log_set_quiet(1);
	ret = RB_EXIT_USAGE;
	if (!read_patches(&patches, &ins, argv + optind, argc - optind))
		ret = apply_and_print(&a, &ins, patches);
	free(patches);
	inputs_release(&ins);
	return ret;
}
