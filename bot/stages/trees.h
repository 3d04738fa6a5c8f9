/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trees.h - fetching the configured trees. A tree with a url, a branch
 * (not HEAD) and fetch_minutes is fetched from that url (an admin's
 * choice, never a mail's) and its local branch moved to the fetched head
 * (review/apply/base.h rb_base_fetch()). When a branch was last fetched is the
 * mtime of a stamp in the repository's git directory,
 * "reviewbot-fetched-<branch>" (the branch %-encoded), touched after each
 * fetch of that branch: the daemon between jobs and the review stage
 * before an apply-failure notice read the same clock, and so do several
 * workers sharing one clone, across restarts. Not FETCH_HEAD: one clone
 * of mm.git serves three trees (mm-new, mm-unstable, mm-stable), and a
 * fetch of one branch says nothing about the others. Every attempt,
 * failed or not, touches "reviewbot-tried-<branch>" first, and a branch
 * is due only when both stamps are older than fetch_minutes; a fetch
 * lasts at most the tree's fetch_timeout_seconds (issue 33: a remote
 * that is down was fetched again by every series that did not apply,
 * and one that stalled held the worker for minutes).
 */
#ifndef RB_BOT_TREES_H
#define RB_BOT_TREES_H

#include <stdbool.h>
#include <stdint.h>

#include <git2.h>

struct rb_tree_config;
struct rb_pipeline;

/* @t has a url, a branch other than HEAD and fetch_minutes > 0. */
bool rb_tree_fetchable(const struct rb_tree_config *t);

/* When @branch of @repo was last fetched (its stamp's mtime): 0, or
 * -RB_ENOTFOUND when it never was. */
int rb_tree_fetched_at(int64_t *out, git_repository *repo, const char *branch);

/* @t is fetchable, its last attempt (in @repo) is at least fetch_minutes
 * before @now, and so is its last fetch, or it never was fetched. */
bool rb_tree_due(const struct rb_tree_config *t, git_repository *repo,
		 int64_t now);

/*
 * Fetches @t's branch into @repo (opened on t->path) and moves
 * refs/heads/<branch> to the fetched head, *out. Logs tree.fetched or
 * tree.fetch_failed. 0, -RB_EAGAIN (the remote is down), -RB_ENOTFOUND,
 * -RB_EIO.
 */
int rb_tree_fetch(git_oid *out, git_repository *repo,
		  const struct rb_tree_config *t, const char *who);

/*
 * The fetch stage (role worker, before the jobs; with p->fetch_trees,
 * which "reviewbot run" sets): each worker keeps its own copies of the
 * configured trees and fetches them itself. A fetchable tree is fetched
 * when fetch_minutes passed since this process last tried it
 * (p->tree_tried) and its stamps say it is due; its local branch moves
 * to the fetched head, which the next review uses. A failed fetch is
 * logged and tried again after the interval; the review goes on with
 * what the tree has. Always 0.
 */
int rb_trees_fetch_step(struct rb_pipeline *p);

#endif
