// SPDX-License-Identifier: GPL-2.0-only
/*
 * dkim.c - DKIM verification (RFC 6376) with libopendkim. See dkim.h.
 *
 * The whole message goes through dkim_chunk(), which splits header and
 * body itself; DKIM_LIBFLAGS_FIXCRLF lets it read the LF line endings the
 * store may hold. Every signature is looked at: one that passes and is
 * aligned with From: is enough (a list may add its own signature, and
 * vger rewrites nothing that the author's domain signed).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <opendkim/dkim.h>

#include "mail/dkim.h"
#include "util/err.h"
#include "util/banned.h"

bool rb_dkim_aligned(const char *d, const char *from_addr)
{
	const char *dom = from_addr ? strrchr(from_addr, '@') : NULL;
	size_t ld, lf;

	if (!d || !*d || !dom || !dom[1])
		return false;
	dom++;
	ld = strlen(d);
	lf = strlen(dom);
	if (ld == lf)
		return !strcasecmp(d, dom);
	/* A parent domain: "example.org" covers "mail.example.org". */
	return lf > ld && dom[lf - ld - 1] == '.' &&
	       !strcasecmp(dom + lf - ld, d);
}

int rb_dkim_verify(struct rb_dkim_result *out, const char *raw, size_t len,
		   const char *from_addr, const char *key_file)
{
	struct rb_dkim_result r = { 0 };
	DKIM_LIB *lib = NULL;
	DKIM *dkim = NULL;
	DKIM_SIGINFO **sigs = NULL;
	DKIM_STAT st;
	unsigned int flags = DKIM_LIBFLAGS_FIXCRLF;
	int nsigs = 0, i, ret = 0;

	lib = dkim_init(NULL, NULL);
	if (!lib)
		return rb_err(RB_ENOMEM, "dkim: cannot initialise libopendkim");
	if (dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_FLAGS, &flags,
			 sizeof(flags)) != DKIM_STAT_OK) {
		ret = rb_err(RB_EINVAL, "dkim: cannot set the library flags");
		goto out;
	}
	if (key_file) {
		dkim_query_t q = DKIM_QUERY_FILE;

		if (dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_QUERYMETHOD, &q,
				 sizeof(q)) != DKIM_STAT_OK ||
		    dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_QUERYINFO,
				 (void *)key_file,
				 strlen(key_file)) != DKIM_STAT_OK) {
			ret = rb_err(RB_EINVAL, "dkim: cannot use key file %s",
				     key_file);
			goto out;
		}
	}
	dkim = dkim_verify(lib, (const unsigned char *)"reviewbot", NULL, &st);
	if (!dkim) {
		ret = rb_err(RB_ENOMEM, "dkim: %s", dkim_getresultstr(st));
		goto out;
	}
	st = dkim_chunk(dkim, (unsigned char *)raw, len);
	if (st == DKIM_STAT_OK)
		st = dkim_chunk(dkim, NULL, 0);
	if (st == DKIM_STAT_OK || st == DKIM_STAT_NOSIG)
		st = dkim_eom(dkim, NULL);
	if (dkim_getsiglist(dkim, &sigs, &nsigs) != DKIM_STAT_OK || !nsigs) {
		snprintf(r.reason, sizeof(r.reason), "no DKIM signature");
		goto done;
	}
	for (i = 0; i < nsigs; i++) {
		const char *d = (const char *)dkim_sig_getdomain(sigs[i]);
		unsigned int f = dkim_sig_getflags(sigs[i]);
		int bh = dkim_sig_getbh(sigs[i]);

		snprintf(r.domain, sizeof(r.domain), "%s", d ? d : "");
		if (!(f & DKIM_SIGFLAG_PASSED) || bh != DKIM_SIGBH_MATCH) {
			int e = dkim_sig_geterror(sigs[i]);

			if (bh == DKIM_SIGBH_MISMATCH)
				snprintf(r.reason, sizeof(r.reason),
					 "DKIM body hash mismatch (d=%s)",
					 r.domain);
			else if (e != DKIM_SIGERROR_OK)
				snprintf(r.reason, sizeof(r.reason),
					 "DKIM signature d=%s: %s", r.domain,
					 dkim_sig_geterrorstr(e));
			else
				snprintf(r.reason, sizeof(r.reason),
					 "DKIM signature d=%s fails", r.domain);
			continue;
		}
		if (!rb_dkim_aligned(d, from_addr)) {
			snprintf(r.reason, sizeof(r.reason),
				 "DKIM signature d=%s is not the From: domain",
				 r.domain);
			continue;
		}
		r.pass = true;
		r.reason[0] = '\0';
		break;
	}
done:
	*out = r;
out:
	if (dkim)
		dkim_free(dkim);
	dkim_close(lib);
	return ret;
}
