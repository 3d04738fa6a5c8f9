#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_lookahead.sh - issue 18, look-ahead within a series, through
# "reviewbot run": the demo series grows a patch 4/4 that rewrites two
# lines patch 3/4 added. The model raises two findings on 3/4 (as in
# acc_model_ring_free): on "free(r->slots);", which 4/4 replaces with
# other code, so the finding is dropped (the series' tip no longer has
# it); and on "r->slots = NULL;", which 4/4 only re-indents, so the
# finding stays and says "Patch 4/4 changes this line again and keeps
# it." The store records the later patch of both. No extra apply: the
# parsed patches in memory tell.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_demo
acc_helpers
# The finder speaks on 3/4 only (its commit message), not on 4/4.
acc_model_script "$(acc_model_ring_free |
	sed 's/"match": "void ring_free(struct ring"/"match": "Pair ring_init() with a function that releases"/')"
grep -q '"match": "Pair ring_init' "$d/model.json" || rb_fail "model script"
acc_servers model
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory'
(
	set -e
	git clone -q "$d/demo/tree" "$d/work"
	cd "$d/work"
	export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.org
	export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.org
	export GIT_AUTHOR_DATE=2026-11-06T08:00:00Z GIT_COMMITTER_DATE=2026-11-06T08:00:00Z
	git am -q "$d"/demo/patches/000[1-3]-*.patch
	sed -i -e 's/^\tfree(r->slots);$/\tfree(r->slots); r->size = 0;/' \
		-e 's/^\tr->slots = NULL;$/\tr->slots  = NULL;/' lib/ring.c
	git commit -q -a -s -m "ring: ring_free() leaves an empty ring" \
		-m "A ring_push() after ring_free() must not store anything."
	git format-patch -q --cover-letter --thread=shallow --base=HEAD~4 \
		-o "$d/p4" HEAD~4..HEAD
	sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/ring: helpers, then an empty ring/' \
		-e 's/\*\*\* BLURB HERE \*\*\*/Four small changes./' \
		"$d/p4/0000-cover-letter.patch"
	for f in "$d"/p4/*.patch; do
		sed -e '0,/^Subject:/s//To: demo-list@example.org\nList-Id: <demo-list.example.org>\nSubject:/' "$f"
	done >"$d/four.mbox"
) || rb_fail "could not make the 4-patch series"
grep -q '^+.r->slots  = NULL;$' "$d/four.mbox" &&
	grep -q '^-.free(r->slots);$' "$d/four.mbox" ||
	rb_fail "patch 4/4 does not rewrite the two lines: $(sed -n '/4\/4/,$p' "$d/four.mbox")"
acc_start
acc_feed "$d/four.mbox" ""
acc_settle
acc_check "$d/four.mbox" <<'PY' || exit 1
m = acc.review_to(acc.msgid(sys.argv[1], 3))
b = acc.flat(m["body"])
acc.check("ring_free() leaves size, head and tail as they were" in b and
          "(Patch 4/4 changes this line again and keeps it.)" in b,
          "3/4: want the kept finding with its note:\n" + m["body"])
acc.check("does not free r itself" not in b,
          "3/4: the finding on the line 4/4 replaces is raised:\n" + m["body"])
r = acc.q("SELECT category, state, later_patch FROM findings WHERE"
          " checker = 'model' ORDER BY line")
acc.check(r == [("api-misuse", "dropped", 4), ("logic", "raised", 4)],
          "model findings in the store: %s" % r)
PY
echo "ok: the look-ahead drops what 4/4 replaces and notes what it keeps"
acc_stop
echo PASS
