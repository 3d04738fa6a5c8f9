# verdict_lib.sh - shared staging for the t_sec_verdict_*.sh tests: the
# demo tree, single patches by other people, replies to our reviews, and
# queries. Sourced after ../integration/lib.sh; uses $d.

# one_patch NAME EMAIL DATE FILE SUBJECT SIGNOFF(0|1) OUT [TRAILERS]: one
# [PATCH] mail changing FILE, posted to the demo list, written to OUT;
# TRAILERS (e.g. a Fixes: line) end the commit message.
one_patch()
{
	(
		cd "$d/demo/tree"
		export GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2 GIT_AUTHOR_DATE=$3
		export GIT_COMMITTER_NAME=$1 GIT_COMMITTER_EMAIL=$2 GIT_COMMITTER_DATE=$3
		echo "/* $5 */" >>"$4"
		if [ "$6" = 1 ]; then
			git commit -q -s -a -m "$5" -m "$1 wants a note here." \
				${8:+-m "$8"}
		else
			git commit -q -a -m "$5" -m "$1 wants a note here." \
				${8:+-m "$8"}
		fi
		git format-patch -q -1 --stdout HEAD |
			sed -e '0,/^Subject:/s//To: demo-list@example.org\nList-Id: <demo-list.example.org>\nSubject:/'
		git reset -q --hard HEAD~1
	) >"$7"
}

# Ada's demo series again as v2: new Message-IDs, later dates, "v2",
# and 2/3 and 3/3 changed by one line each, so that they are reviewed
# again (a part with the same patch-id as v1 is not: issue 18).
ada_v2()
{
	sed -e 's/^Message-Id: <\(.*\)>/Message-Id: <v2-\1>/' \
		-e 's/^In-Reply-To: <\(.*\)>/In-Reply-To: <v2-\1>/' \
		-e 's/^References: <\(.*\)>/References: <v2-\1>/' \
		-e 's/^Subject: \[PATCH \([0-9]\)/Subject: [PATCH v2 \1/' \
		-e 's/^Date: .*/Date: Wed, 4 Nov 2026 07:00:00 +0000/' \
		-e 's/^+\tif (!size)$/+\tif (size == 0)/' \
		-e 's/^+void ring_free(struct ring \*r);$/+void ring_free(struct ring *ring);/' \
		"$d/demo/series.mbox"
}

q()
{
	python3 -c 'import sqlite3,sys; print("\n".join("|".join(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$d/rb.db" "$1"
}

# sob_state AUTHOR: the state of the missing Signed-off-by finding in the
# newest series whose author is AUTHOR.
sob_state()
{
	q "SELECT f.state FROM findings f JOIN series s ON s.id = f.series_id WHERE s.author = '$1' AND f.category = 'signed-off-by' ORDER BY s.version DESC, f.id DESC LIMIT 1"
}

# sob_review AUTHOR [CATEGORY]: "REVIEW-MSGID FID" of that finding (or of
# the first of CATEGORY) in a review.
sob_review()
{
	q "SELECT f.review_msgid || ' ' || f.fid FROM findings f JOIN series s ON s.id = f.series_id WHERE s.author = '$1' AND f.category = '${2:-signed-off-by}' AND f.fid IS NOT NULL ORDER BY f.id LIMIT 1"
}

# cat_state AUTHOR CATEGORY: the state of the first finding of CATEGORY
# in the newest series of AUTHOR.
cat_state()
{
	q "SELECT f.state FROM findings f JOIN series s ON s.id = f.series_id WHERE s.author = '$1' AND f.category = '$2' ORDER BY s.version DESC, f.id LIMIT 1"
}

# reply NAME FROM REVIEW BODY: a reply to our review REVIEW into $d/NAME.
reply()
{
	printf 'From: %s\nTo: reviewbot <reviewbot@localhost>\nSubject: Re: [PATCH] review\nDate: Thu, 5 Nov 2026 10:00:00 +0000\nMessage-ID: <%s@example.org>\nIn-Reply-To: %s\nReferences: %s\n\n%b' \
		"$2" "$1" "$3" "$3" "$4" >"$d/$1"
}

# feed FILE...: appends mails to the source's mbox and runs one pass of
# the daemon ("reviewbot run --once"). With RB_SEC_FEED=review, runs
# "reviewbot review" on the files instead: reviewbot before 39d46b2 judged
# verdicts only there, so the attack shows on it too.
feed()
{
	if [ "${RB_SEC_FEED:-run}" = review ]; then
		"$RB_BIN" review -c "$d/config.yaml" "$@" >>"$d/run.log" 2>&1 ||
			[ $? -eq 1 ] || rb_fail "review: $(tail -5 "$d/run.log")"
		return
	fi
	local f
	for f in "$@"; do
		head -c 5 "$f" | grep -q '^From ' ||
			printf 'From rb@test Thu Jan  1 00:00:00 1970\n'
		cat "$f"
		printf '\n'
	done >>"$d/in.mbox"
	"$RB_BIN" run -c "$d/config.yaml" --once >>"$d/run.log" 2>&1 ||
		rb_fail "run: $(tail -5 "$d/run.log")"
}
