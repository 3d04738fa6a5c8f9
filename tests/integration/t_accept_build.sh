#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_build.sh - acceptance 7: the build check, turned on for one
# subsystem. The test's copy of the demo tree gets a kernel-shaped
# Makefile ("make O=DIR defconfig", "make O=DIR W=1 lib/ring.o") and a
# warning of its own in lib/ring.c. RING BUFFER's policy says checkers:
# [commit-msg, checkpatch, build]; THE REST keeps the default (no build).
# A RING BUFFER series whose patch 2/2 adds a comparison of int with
# unsigned int (-Wsign-compare, a W=1 warning) gets, from the running
# daemon, a review of 2/2 that reports the new warning at its file and
# line, quoting it, and nothing about the old warning; the review names
# the build among its checks. A series on THE REST with the same kind of
# warning is reviewed without a build.
. "$(dirname "$0")/accept_lib.sh"
acc_need
acc_need_cmd bwrap bubblewrap
acc_need_cmd gcc gcc
acc_need_cmd make make
acc_demo
acc_helpers
acc_servers

# The tree: a kernel-shaped Makefile, an old warning, THE REST's util.c.
(
	set -e
	cd "$d/demo/tree"
	export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.org
	export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.org
	export GIT_AUTHOR_DATE=2026-11-02T11:00:00Z GIT_COMMITTER_DATE=2026-11-02T11:00:00Z
	cat >Makefile <<'EOF'
# Kernel-shaped: "make O=DIR defconfig", then "make O=DIR W=1 dir/file.o".
O ?= .
defconfig:
	echo CONFIG_RING=y > $(O)/.config
%.o: %.c
	mkdir -p $(dir $(O)/$@)
	$(CC) -Wall $(if $(W),-Wextra) -c $< -o $(O)/$@
EOF
	# An old warning (unused parameter under W=1): never reported.
	cat >>lib/ring.c <<'EOF'

int ring_check(struct ring *r, int flags)
{
	return r->head - r->tail <= r->size;
}
EOF
	cat >lib/util.c <<'EOF'
// SPDX-License-Identifier: GPL-2.0
int util_sum(const int *v, int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}
EOF
	git add -A
	git commit -q -m "build: a kernel-shaped Makefile; util_sum()"
	base=$(git rev-parse HEAD)

	# The RING BUFFER series.
	cat >>lib/ring.c <<'EOF'

unsigned int ring_space(const struct ring *r)
{
	return r->size - (r->head - r->tail);
}
EOF
	git commit -q -a -s -m "ring: add ring_space()" \
		-m "How many slots are free."
	cat >>lib/ring.c <<'EOF'

int ring_fill(struct ring *r, const int *v, int n)
{
	int i;

	for (i = 0; i < n && i < ring_space(r); i++)
		ring_push(r, v[i]);
	return i;
}
EOF
	git commit -q -a -s -m "ring: add ring_fill()" \
		-m "Push as many values as fit."
	grep -n 'i < ring_space(r)' lib/ring.c | cut -d: -f1 >"$d/warn-line"
	git format-patch -q --cover-letter --thread=shallow --base="$base" \
		-o "$d/ring" "$base"..HEAD
	sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/ring: space and fill/' \
		-e 's/\*\*\* BLURB HERE \*\*\*/Two helpers./' \
		"$d/ring/0000-cover-letter.patch"
	git reset -q --hard "$base"

	# The series on THE REST: the same kind of warning in util.c.
	sed -i 's/^\tfor (i = 0; i < n; i++)$/\tfor (i = 0; i < n \&\& i < sizeof(s); i++)/' lib/util.c
	git commit -q -a -s -m "util: util_sum() of at most sizeof(int) values" \
		-m "Callers never pass more."
	git format-patch -q --thread --base="$base" -o "$d/rest" "$base"..HEAD
	git reset -q --hard "$base"
	for f in "$d"/ring/*.patch; do
		sed -e '0,/^Subject:/s//To: demo-list@example.org\nList-Id: <demo-list.example.org>\nSubject:/' "$f"
	done >"$d/ring.mbox"
	sed -e '0,/^Subject:/s//To: demo-list@example.org\nList-Id: <demo-list.example.org>\nSubject:/' \
		"$d"/rest/*.patch >"$d/rest.mbox"
) || rb_fail "could not make the tree and the series"
if ! grep -q 'i < ring_space(r)' "$d/ring.mbox" ||
	! grep -q 'sizeof(s)' "$d/rest.mbox"; then
	rb_fail "the series lack their warnings"
fi

mkdir -p "$d/build-cache"
acc_config '  default:
    mode: "off"
  subsystems:
    RING BUFFER:
      mode: advisory
      checkers: [commit-msg, checkpatch, build]
    THE REST:
      mode: advisory
      send_when_empty: true' "checkers:
  build_cache_dir: $d/build-cache
  build_jobs: 1
  timeout_seconds: 300"
acc_start

acc_feed "$d/ring.mbox" ""
acc_feed "$d/rest.mbox" ""
acc_settle 300

acc_check "$d/ring.mbox" "$d/rest.mbox" "$(cat "$d/warn-line")" <<'PY' || exit 1
ring, rest, line = sys.argv[1], sys.argv[2], int(sys.argv[3])
p2 = acc.msgid(ring, 2)
r = acc.q("SELECT f.file, f.line, f.patch_idx, f.state, f.message FROM"
          " findings f WHERE f.checker = 'build'")
acc.check(len(r) == 1, "want one build finding, got %s; series: %s" %
          (r, acc.q("SELECT id, state, detail FROM series")))
f = r[0]
acc.check(f[:4] == ("lib/ring.c", line, 2, "raised") and "signedness" in f[4]
          and "W=1" in f[4], "the build finding: %s, not lib/ring.c:%d in"
          " patch 2, a signedness warning" % (f, line))
ms = [m for m in acc.mails() if "ring: add ring_" in m["subject"]]
acc.check([m["in_reply_to"] for m in ms] == [p2],
          "want one review, of 2/2, got:\n" + acc.show(ms))
b = ms[0]["body"]
fb = acc.flat(b)
acc.check("Checks: commit message and build (defconfig)." in fb,
          "the review does not name the build among its checks:\n" + b)
acc.check(re.search(r"^> \+\tfor \(i = 0; i < n && i < ring_space\(r\);"
                    r" i\+\+\)$", b, re.M),
          "the review does not quote the line of the warning:\n" + b)
acc.check(re.search(r"\[F1\] \(medium\) With this series applied, W=1 reports"
                    r" a new warning here: \"[^\"]*different signedness",
                    fb), "the review does not report the warning:\n" + b)
acc.check("unused parameter" not in b and "flags" not in b,
          "the old warning is reported as new:\n" + b)
# THE REST: reviewed (send_when_empty), without a build.
pr = acc.msgid(rest, 0)
m = acc.review_to(pr)
fr = acc.flat(m["body"])
acc.check("Checks: commit message." in fr and "build" not in fr and
          "No findings." in fr, "THE REST's review:\n" + m["body"])
PY
echo "ok: the build runs for RING BUFFER only and reports the new warning at its line"
acc_stop
echo PASS
