#!/bin/bash
# demo.sh REVIEWBOT [DIR] - the quick start's main job on the embedded
# defaults. With "--make-only DIR" it only writes the example tree and
# series into DIR (tests use that).
#
# Creates ./demo/tree, a small example git tree written by this project
# (a few C files, a MAINTAINERS file, a Makefile), and ./demo/series.mbox,
# a cover letter and 3 patches against it made with git format-patch; the
# second patch lacks its Signed-off-by, which the commit-message checker
# catches. Then runs the daemon once, "reviewbot run --once", with a
# config of three keys (the mbox as its source, the tree, every section
# advisory) and the embedded defaults for the rest (SQLite in
# ./demo/reviewbot.db, replies in the Maildir ./demo/outbox), and prints
# the reply, headers and body, from the outbox.
set -euo pipefail
make_only=
if [ "${1:-}" = --make-only ]; then
	make_only=1
	demo=$(realpath -m "${2:?usage: demo.sh --make-only DIR}")
else
	bin=$(realpath "${1:?usage: demo.sh REVIEWBOT}")
	demo=$(pwd)/demo
fi
rm -rf "$demo"
mkdir -p "$demo/tree"
cd "$demo/tree"

export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL="ada@example.org"
export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL="ada@example.org"
export GIT_AUTHOR_DATE="2026-11-02T10:00:00Z" GIT_COMMITTER_DATE="2026-11-02T10:00:00Z"
git init -q -b master .
git config commit.gpgsign false

cat >MAINTAINERS <<'M'
List of maintainers for the demo tree
-------------------------------------

Descriptions of section entries and preferred order
	M: *Mail* patches to: FullName <address@domain>

RING BUFFER
M:	Grace Hopper <grace@example.org>
R:	Alan Turing <alan@example.org>
L:	demo-list@example.org
S:	Maintained
F:	lib/ring.c
F:	include/ring.h

THE REST
M:	Ada Lovelace <ada@example.org>
L:	demo-list@example.org
S:	Maintained
F:	*
F:	*/
M
mkdir -p lib include
cat >include/ring.h <<'M'
/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RING_H
#define RING_H

struct ring {
	unsigned int head;
	unsigned int tail;
	unsigned int size;
	int *slots;
};

int ring_init(struct ring *r, unsigned int size);
int ring_push(struct ring *r, int v);
int ring_pop(struct ring *r, int *v);

#endif
M
cat >lib/ring.c <<'M'
// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include "../include/ring.h"

int ring_init(struct ring *r, unsigned int size)
{
	r->slots = calloc(size, sizeof(*r->slots));
	if (!r->slots)
		return -1;
	r->head = 0;
	r->tail = 0;
	r->size = size;
	return 0;
}

int ring_push(struct ring *r, int v)
{
	if (r->head - r->tail == r->size)
		return -1;
	r->slots[r->head % r->size] = v;
	r->head++;
	return 0;
}

int ring_pop(struct ring *r, int *v)
{
	if (r->head == r->tail)
		return -1;
	*v = r->slots[r->tail % r->size];
	r->tail++;
	return 0;
}
M
cat >Makefile <<'M'
CFLAGS += -Wall -Wextra -O2
lib/ring.o: lib/ring.c include/ring.h
M
git add -A
git commit -q -m "ring: a fixed-size ring buffer"

# The series: three commits, formatted, then the branch is reset.
cat >>lib/ring.c <<'M'

unsigned int ring_count(const struct ring *r)
{
	return r->head - r->tail;
}
M
sed -i 's/^int ring_pop(struct ring \*r, int \*v);/&\nunsigned int ring_count(const struct ring *r);/' include/ring.h
GIT_AUTHOR_DATE="2026-11-03T09:00:00Z" GIT_COMMITTER_DATE="2026-11-03T09:00:00Z" \
git commit -q -a -s -m "ring: add ring_count()

Callers open-code head - tail to learn how many slots are in use.
Give them a helper."

python3 - lib/ring.c <<'M'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("int ring_init(struct ring *r, unsigned int size)\n{\n",
	      "int ring_init(struct ring *r, unsigned int size)\n{\n"
	      "\tif (!size)\n\t\treturn -1;\n", 1)
open(p, "w").write(s)
M
GIT_AUTHOR_DATE="2026-11-03T09:01:00Z" GIT_COMMITTER_DATE="2026-11-03T09:01:00Z" \
git commit -q -a -m "ring: refuse a ring of size zero

ring_push() divides by the size, so a ring of size zero is a
division by zero waiting to happen."

cat >>lib/ring.c <<'M'

void ring_free(struct ring *r)
{
	free(r->slots);
	r->slots = NULL;
}
M
sed -i 's/^unsigned int ring_count(const struct ring \*r);/&\nvoid ring_free(struct ring *r);/' include/ring.h
GIT_AUTHOR_DATE="2026-11-03T09:02:00Z" GIT_COMMITTER_DATE="2026-11-03T09:02:00Z" \
git commit -q -a -s -m "ring: add ring_free()

Pair ring_init() with a function that releases the slots."

git format-patch -q --cover-letter --thread=shallow -o "$demo/patches" \
	--base=HEAD~3 HEAD~3..HEAD
sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/ring: small fixes and helpers/' \
	-e 's/\*\*\* BLURB HERE \*\*\*/Three small changes to the ring buffer./' \
	"$demo/patches/0000-cover-letter.patch"
# Add list headers as the list would, and make the mbox.
for f in "$demo"/patches/*.patch; do
	sed -e '0,/^Subject:/s//To: demo-list@example.org\nList-Id: <demo-list.example.org>\nSubject:/' "$f"
done >"$demo/series.mbox"
git reset -q --hard HEAD~3
[ -z "$make_only" ] || exit 0

cd "$demo"
rm -rf reviewbot.db reviewbot.db-* outbox
cat >config.yaml <<'EOF2'
# The demo's config: what is not here is the embedded default (the store
# ./reviewbot.db, replies written to the Maildir ./outbox, nothing sent).
sources:
  - type: mbox
    path: ./series.mbox
trees:
  - name: demo
    path: ./tree
    fetch_minutes: 0
policy:
  default:
    mode: advisory                # the embedded default is off: silent
EOF2
echo "== demo/config.yaml"
cat config.yaml
echo "== reviewbot run --once -c demo/config.yaml"
set +e
RB_NOW=1793700000 "$bin" run --once -c config.yaml 2>run.log
rc=$?
set -e
echo "== exit code: $rc (the daemon's log: demo/run.log)"
[ "$rc" -le 1 ] || tail -n 20 run.log >&2
n=$(ls "$demo"/outbox/new 2>/dev/null | wc -l)
echo "== $n mail(s) in the outbox $demo/outbox"
for f in "$demo"/outbox/new/*; do
	[ -f "$f" ] || continue
	echo
	echo "=================== $(basename "$f")"
	tr -d '\r' <"$f"
done
[ "$rc" -le 1 ]
