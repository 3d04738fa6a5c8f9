#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_linux_mm_doc.sh - docs/LINUX-MM.md is right: every fenced yaml block
# passes "reviewbot check-config", offline; what it says of how policies
# combine is what check-config prints, and its min_severity is
# config.yaml's default. A block whose first line is
# "# /etc/reviewbot/config.yaml" is a whole config; one whose first line
# is "# KEY: in /etc/reviewbot/config.yaml" replaces the top-level keys it
# holds in the last whole config. /var/lib/reviewbot and /etc/reviewbot
# become scratch directories; the trees there are bare repositories with
# the branches the page names: clones of the linux 6.1 tree when it is
# set up (so the policy's section names are checked against the real
# MAINTAINERS), else a small tree whose MAINTAINERS has the sections
# linux 6.1 has for mm. The systemd units must run the binary where the
# README installs it. What section 8 quotes of check-config is what
# check-config prints.
set -eu
: "${RB_BIN:?}" "${RB_SRC:?}"
doc=$RB_SRC/docs/LINUX-MM.md
T=$(mktemp -d "${TMPDIR:-/tmp}/rb-mm-doc.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.org

# The configs, with local paths.
python3 - "$doc" "$T/cfg" "$T" <<'PY' || fail "cannot extract the yaml blocks"
import re, sys
doc, out, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(doc).read()
blocks = re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M)
if len(blocks) < 2:
    sys.exit(f"{doc}: {len(blocks)} yaml blocks, want at least 2")

def sections(yaml):
    """Top-level key -> its lines, in order."""
    keys, cur = {}, None
    for line in yaml.splitlines(keepends=True):
        m = re.match(r"([A-Za-z_]+):", line)
        if m:
            cur = m.group(1)
            keys[cur] = []
        if cur:
            keys[cur].append(line)
    return keys

base = None
import os
os.makedirs(out, exist_ok=True)
for i, b in enumerate(blocks):
    first = b.splitlines()[0]
    if first == "# /etc/reviewbot/config.yaml":
        base = sections(b)
        cfg = b
    else:
        m = re.match(r"# ([a-z_]+): in /etc/reviewbot/config\.yaml$", first)
        if not m or base is None:
            sys.exit(f"{doc}: yaml block {i + 1} starts with {first!r}, "
                     "neither a whole config nor a part of one")
        merged = dict(base)
        merged.update(sections(b))
        cfg = "".join("".join(v) for v in merged.values())
    cfg = cfg.replace("/var/lib/reviewbot", tmp + "/var")
    cfg = cfg.replace("/etc/reviewbot", tmp + "/etc")
    open(f"{out}/{i + 1}.yaml", "w").write(cfg)
PY

# The trees the page clones, with their branches.
mkdir -p "$T/var/trees" "$T/etc"
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
if [ -d "$tree/.git" ] && [ -f "$tree/MAINTAINERS" ]; then
	src=$tree
else
	echo "SKIP: section names against linux 6.1: no git tree at $tree (scripts/setup-linux-tree.sh); checked against a small MAINTAINERS"
	src=$T/small
	git init -q -b master "$src"
	printf '%s\n' "MEMORY HOT(UN)PLUG" "M:	David Hildenbrand <david@redhat.com>" \
		"L:	linux-mm@kvack.org" "S:	Maintained" \
		"F:	mm/memory_hotplug.c" "" \
		"MEMORY MANAGEMENT" "M:	Andrew Morton <akpm@linux-foundation.org>" \
		"L:	linux-mm@kvack.org" "S:	Maintained" "F:	mm/" "" \
		"SLAB ALLOCATOR" "M:	Vlastimil Babka <vbabka@suse.cz>" \
		"L:	linux-mm@kvack.org" "S:	Maintained" "F:	mm/slab*" \
		"F:	mm/slub.c" "" \
		"THE REST" "M:	Linus Torvalds <torvalds@linux-foundation.org>" \
		"F:	*" "F:	*/" >"$src/MAINTAINERS"
	git -C "$src" add MAINTAINERS
	git -C "$src" commit -q -m "MAINTAINERS"
fi
for r in mm linux-next linux; do
	git clone -q --bare --shared "$src" "$T/var/trees/$r.git"
done
for b in mm-new mm-unstable mm-stable; do
	git -C "$T/var/trees/mm.git" update-ref "refs/heads/$b" HEAD
done
for r in linux-next linux; do
	git -C "$T/var/trees/$r.git" update-ref refs/heads/master HEAD
done

# The IMAP source's secret (section 8), 0600 as a secret's file is.
printf 'not-a-real-password\n' >"$T/etc/imap-password"
chmod 600 "$T/etc/imap-password"

n=0
for c in "$T"/cfg/*.yaml; do
	n=$((n + 1))
	"$RB_BIN" check-config -c "$c" >"$T/out" 2>"$T/err" ||
		fail "docs/LINUX-MM.md, yaml block $(basename "$c" .yaml): $(cat "$T/err")"
	grep -q "MEMORY MANAGEMENT: " "$T/out" ||
		fail "yaml block $(basename "$c" .yaml): no MEMORY MANAGEMENT policy"
done
echo "ok   $n yaml blocks of docs/LINUX-MM.md pass check-config"

# The page's modes: shadow first, then advisory.
grep -q "MEMORY MANAGEMENT: shadow" < <("$RB_BIN" check-config -c "$T/cfg/1.yaml") ||
	fail "the first config is not shadow mode"
grep -q "MEMORY MANAGEMENT: advisory" < <("$RB_BIN" check-config -c "$T/cfg/$n.yaml") ||
	fail "the last config is not advisory mode"

# What the page says of policies is what the code does (issue 34): the
# sentence check-config prints of how entries combine is on the page,
# word for word; the page never says "most restrictive" (policy.resolve:
# strictest, which it does not use); and it sets min_severity as
# config.yaml's default does.
"$RB_BIN" check-config -c "$T/cfg/1.yaml" >"$T/out" 2>"$T/err" ||
	fail "block 1: $(cat "$T/err")"
python3 - "$doc" "$T/out" "$RB_SRC/config.yaml" "$T"/cfg/*.yaml <<'PY' ||
import re, sys
doc, out, reference, *cfgs = sys.argv[1:]
flat = lambda t: " ".join(t.split())
text = flat(open(doc).read())
m = re.search(r"^how they combine \(policy\.resolve: home\): (.*)$",
              open(out).read(), re.M)
if not m:
    sys.exit("check-config does not say how the policies combine")
if flat(m.group(1)) not in text:
    sys.exit("the page does not say what check-config says of how policies "
             "combine: %r" % m.group(1))
if "most restrictive" in text and "strictest" not in "".join(
        open(c).read() for c in cfgs):
    sys.exit("the page says \"most restrictive\", but its configs resolve "
             "by the home section")
dflt = re.search(r"^  default:\n(?:    .*\n)*?    min_severity: (\w+)",
                 open(reference).read(), re.M)
if not dflt:
    sys.exit("config.yaml sets no default min_severity")
for c in cfgs:
    for v in re.findall(r"^\s+min_severity: (\w+)", open(c).read(), re.M):
        if v != dflt.group(1):
            sys.exit("%s: min_severity %s, config.yaml's default is %s"
                     % (c, v, dflt.group(1)))
PY
	fail "docs/LINUX-MM.md and the code disagree"
echo "ok   the page says how policies combine as check-config does, and min_severity as the default"

# A sub-maintainer's day (issue 36): what the page quotes of check-config
# for its last policy is what check-config prints for it, line by line;
# its people block is read as the page says.
"$RB_BIN" check-config -c "$T/cfg/$n.yaml" >"$T/out" 2>"$T/err" ||
	fail "block $n: $(cat "$T/err")"
python3 - "$doc" "$T/out" <<'PY' || fail "docs/LINUX-MM.md and check-config disagree on what a section decided"
import re, sys
doc, out = sys.argv[1:3]
text, got = open(doc).read(), open(out).read().splitlines()
m = re.search(r"`check-config` says what each section decided.*?\n```\n(.*?)```",
              text, re.S)
if not m:
    sys.exit("the page quotes nothing of check-config for section 8")
for line in m.group(1).splitlines():
    if line not in got:
        sys.exit("check-config does not print %r; it prints:\n%s" %
                 (line, "\n".join(got)))
PY
people=$(grep -l '^people:' "$T"/cfg/*.yaml | head -1)
[ -n "$people" ] || fail "the page has no people block"
"$RB_BIN" check-config -c "$people" >"$T/out" 2>"$T/err" || fail "$(cat "$T/err")"
grep -q "no-bot-mail@example.org gets no mail at all" "$T/out" &&
	grep -q "private-reader@example.org gets reviews in private copies only" "$T/out" ||
	fail "the people block is not read as the page says: $(cat "$T/out")"
echo "ok   a sub-maintainer's day: check-config says what the page says"

# The units run what "cmake --install build --prefix /usr/local" installs.
grep -q -- '--prefix /usr/local' "$RB_SRC/README.md" ||
	fail "README.md no longer installs to /usr/local"
for u in "$RB_SRC"/contrib/*.service; do
	grep -E '^Exec' "$u" | grep -v '/bin/kill' | grep -qv '/usr/local/bin/reviewbot ' &&
		fail "$u: an Exec line does not run /usr/local/bin/reviewbot"
	grep -qF "$(basename "$u")" "$doc" || fail "$doc does not name $(basename "$u")"
done
echo "ok   the systemd units run /usr/local/bin/reviewbot"
