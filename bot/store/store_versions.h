/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store_versions.h - the versions of a series in the store (schema 7):
 * which stored series is the previous version, each reviewed part's
 * patch-id, and what became of a finding on a later version.
 */
#ifndef RB_BOT_STORE_VERSIONS_H
#define RB_BOT_STORE_VERSIONS_H

#include <stdbool.h>
#include <stdint.h>

struct rb_store;

/* Where a previous version was found, strongest first. */
struct rb_prev_query {
	const char *series_id; /* the new version */
	int version;
	const char *assembled; /* series.previous from assembly, or NULL */
	const char *b4_link; /* the Message-ID of b4's "Link to vN:", or NULL */
	const char *author;
	const char *title;
};

/*
 * The stored series that is the previous version: assembly's link, the
 * series holding b4's link, the same change-id, else the same title with
 * a lower version (the newest such). Except for assembly's link, which
 * follows b4's rules, the previous version must have the same author: a
 * mail cannot name another author's series as its v1 and so reach that
 * series' findings and verdicts. *@id is owned by the
 * caller; *@how is static ("assembly", "b4-link", "change-id",
 * "author-title"). -RB_ENOTFOUND when there is none.
 */
int rb_store_previous_version(struct rb_store *st,
			      const struct rb_prev_query *q, char **id,
			      int *version, const char **how);

/* Records the link (inside the caller's transaction). */
int rb_store_link_version(struct rb_store *st, const char *series_id,
			  const char *previous_id, int previous_version,
			  const char *how);

/* The previous version of @series_id as recorded, or -RB_ENOTFOUND. */
int rb_store_linked_version(struct rb_store *st, const char *series_id,
			    char **previous_id, int *previous_version);

/* Records part @idx's patch-id; @unchanged_since is the version it was
 * not reviewed again for, 0 when it was reviewed. */
int rb_store_put_patch_id(struct rb_store *st, const char *series_id, int idx,
			  const char *patch_id, int unchanged_since);

/* Calls @fn with each recorded part of @series_id. */
int rb_store_each_patch_id(struct rb_store *st, const char *series_id,
			   int (*fn)(int idx, const char *patch_id,
				     int unchanged_since, void *payload),
			   void *payload);

/* A finding raised on an earlier version, as the re-check needs it. */
struct rb_prior_finding {
	int64_t id;
	char *fid; /* "F2" in its mail, or NULL */
	int patch_idx;
	char *checker, *category, *file, *code, *fingerprint;
	int line;
	int version; /* of the series it was raised on */
	bool judged; /* an authorised verdict names it */
};

/*
 * The findings raised (shown in a mail) on @series_id and not yet fixed,
 * with whether anybody allowed to judge did. *@out is owned by the
 * caller (rb_prior_findings_free()).
 */
int rb_store_prior_findings(struct rb_store *st, const char *series_id,
			    int version, struct rb_prior_finding **out,
			    size_t *n);
void rb_prior_findings_free(struct rb_prior_finding *v, size_t n);

/* Finding @id was fixed in version @version (its line gone or changed). */
int rb_store_finding_fixed(struct rb_store *st, int64_t id, int version);

/* The finding of @series_id on part @patch_idx with @fingerprint repeats
 * finding @prior_id (0: none); @later_patch (0: none) changes its line
 * again. */
int rb_store_finding_versions(struct rb_store *st, const char *series_id,
			      int patch_idx, const char *fingerprint,
			      int64_t prior_id, int later_patch);

/* stats: findings whose line a later version fixed (outcome "fixed"),
 * over all raised findings, per checker or per subsystem. */
enum rb_fixed_group { RB_FIXED_ALL, RB_FIXED_CHECKER, RB_FIXED_SUBSYSTEM };
int rb_store_report_fixed_later(struct rb_store *st, enum rb_fixed_group by,
				int (*fn)(const char *group, int64_t n,
					  void *payload),
				void *payload);

/* stats: series linked to a previous version; parts with a patch-id;
 * parts not reviewed again because they were unchanged. */
int rb_store_report_versions(struct rb_store *st, int64_t *linked,
			     int64_t *parts, int64_t *unchanged);

#endif
