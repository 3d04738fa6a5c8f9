#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# t_accept_checks.sh - issue 32: the tree checkers of the 0-day robot and
# NIPA, through the running daemon ("reviewbot run": Dovecot in, the SMTP
# sink out) on linux 6.1. Probe patches, made here from the tree's own
# files (nothing of the kernel is kept in the project):
#   sparse   a __user pointer dereferenced directly (kernel/ksysfs.c):
#            one new sparse warning, at its line;
#   kdoc     a kernel-doc comment whose parameter names are wrong: one
#            kernel-doc finding;
#   bisect   3 patches; 2 calls a function that 3 adds: the mail of
#            patch 2 says that it breaks the build and 3 repairs it;
#   maint    an mm/ patch sent to linux-mm@ only: one cc-maintainers
#            finding naming the M: of MEMORY MANAGEMENT;
#   cocci    "if (p) kfree(p);": free/ifnullfree.cocci's report.
# The default policy (kernel/ksysfs.c is THE REST's, which never decides
# a home) runs build (each patch; sparse inside it), kernel-doc and
# coccinelle; MEMORY MANAGEMENT runs cc-maintainers. The new rules are
# turned on by the policies (bench/RESULTS-precision.md has their
# precision). The base build of the kernel objects is one for all
# series, kept in RB_KBUILD_CACHE (default ~/.cache/reviewbot/
# kbuild-accept) between runs: the first run on a machine builds the
# base's defconfig preparation (minutes on 2 cores), the next reuse it.
. "$(dirname "$0")/accept_lib.sh"
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
[ -d "$tree/.git" ] ||
	rb_skip "no kernel tree at $tree (scripts/setup-linux-tree.sh, or RB_LINUX_TREE)"
acc_need
acc_need_cmd bwrap bubblewrap
acc_need_cmd gcc gcc
acc_need_cmd make make
acc_need_cmd flex flex
acc_need_cmd bison bison
acc_need_cmd bc bc
acc_need_cmd sparse sparse
acc_need_cmd spatch coccinelle
[ -f /usr/include/libelf.h ] ||
	rb_skip "libelf.h not installed: install libelf-dev (scripts/install-deps.sh test)"
cache=${RB_KBUILD_CACHE:-$HOME/.cache/reviewbot/kbuild-accept}
mkdir -p "$cache" && chmod 0700 "$cache" ||
	rb_fail "cannot make the build cache $cache"
acc_helpers
acc_servers

# The probes: a scratch repository with the files at the tree's HEAD,
# each change committed and sent with git format-patch.
p=$d/probe
base_rev=$(git -C "$tree" rev-parse HEAD)
(
	set -e
	git init -q "$p"
	cd "$p"
	export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.org
	export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.org
	export GIT_AUTHOR_DATE=2026-11-02T11:00:00Z GIT_COMMITTER_DATE=2026-11-02T11:00:00Z
	mkdir -p kernel mm
	git -C "$tree" show "$base_rev:kernel/ksysfs.c" >kernel/ksysfs.c
	git -C "$tree" show "$base_rev:mm/mmzone.c" >mm/mmzone.c
	git add -A
	git commit -q -m base
	base=$(git rev-parse HEAD)
	# insert FILE ANCHOR-LINE TEXT: TEXT goes before the first ANCHOR.
	insert() {
		python3 - "$@" <<'PY'
import sys
f, anchor, text = sys.argv[1:4]
s = open(f).read()
i = s.index(anchor + "\n")
open(f, "w").write(s[:i] + text + s[i:])
PY
	}
	send() { # send NAME TO: the commits since base, as an mbox
		git format-patch -q --thread=shallow --stdout "$base"..HEAD |
			sed -e "s/^Subject: /To: $2\nList-Id: <demo-list.example.org>\nSubject: /" >"$d/$1.mbox"
		git reset -q --hard "$base"
	}
	# A prototype before each function: W=1 wants one (CONFIG_WERROR).
	insert kernel/ksysfs.c "int rcu_expedited;" \
		"int ksysfs_probe_get(int __user *p);
int ksysfs_probe_get(int __user *p)
{
	return *p;
}

"
	git commit -q -a -s -m "ksysfs: add ksysfs_probe_get()" -m "Read an int."
	grep -n 'return \*p;' kernel/ksysfs.c | cut -d: -f1 >"$d/sparse-line"
	send sparse linux-kernel@vger.kernel.org

	insert kernel/ksysfs.c "int rcu_expedited;" \
		"/**
 * ksysfs_probe_sum() - add two numbers
 * @x: the first number
 * @y: the second number
 *
 * Return: the sum of the two.
 */
int ksysfs_probe_sum(int a, int b);
int ksysfs_probe_sum(int a, int b)
{
	return a + b;
}

"
	git commit -q -a -s -m "ksysfs: add ksysfs_probe_sum()" -m "Add two."
	send kdoc linux-kernel@vger.kernel.org

	insert kernel/ksysfs.c "int rcu_expedited;" \
		"int ksysfs_probe_one(void);
int ksysfs_probe_one(void)
{
	return 1;
}

"
	git commit -q -a -s -m "ksysfs: add ksysfs_probe_one()" -m "One."
	insert kernel/ksysfs.c "int rcu_expedited;" \
		"int ksysfs_probe_two(void);
int ksysfs_probe_two(void)
{
	return ksysfs_probe_three() - 1;
}

"
	git commit -q -a -s -m "ksysfs: add ksysfs_probe_two()" -m "Two."
	insert kernel/ksysfs.c "int ksysfs_probe_two(void);" \
		"int ksysfs_probe_three(void);
int ksysfs_probe_three(void)
{
	return 3;
}

"
	git commit -q -a -s -m "ksysfs: add ksysfs_probe_three()" -m "Three."
	send bisect linux-kernel@vger.kernel.org

	insert kernel/ksysfs.c "#include <linux/capability.h>" \
		"#include <linux/slab.h>
"
	insert kernel/ksysfs.c "int rcu_expedited;" \
		"void ksysfs_probe_free(void *p);
void ksysfs_probe_free(void *p)
{
	if (p)
		kfree(p);
}

"
	git commit -q -a -s -m "ksysfs: add ksysfs_probe_free()" -m "Free."
	grep -n '^		kfree(p);' kernel/ksysfs.c | cut -d: -f1 >"$d/cocci-line"
	send cocci linux-kernel@vger.kernel.org

	sed -i 's|^struct pglist_data \*first_online_pgdat(void)$|/* The first node that is online. */\n&|' mm/mmzone.c
	git commit -q -a -s -m "mm: mmzone: say what first_online_pgdat() returns" \
		-m "A comment."
	send maint linux-mm@kvack.org
) || rb_fail "could not make the probe patches"
for f in sparse kdoc bisect cocci maint; do
	[ -s "$d/$f.mbox" ] || rb_fail "no $f probe"
done
[ "$(grep -c '^Subject: \[PATCH' "$d/bisect.mbox")" = 3 ] ||
	rb_fail "the bisect probe is not 3 patches"

cat >"$d/config.yaml" <<EOC
store:
  path: $d/rb.db
sources:
  - type: imap
    name: lists
    url: imap://127.0.0.1:$RB_IMAP_PORT
    user: bot
    password_file: $d/pass
    starttls: "off"
    poll_seconds: $ACC_POLL
smtp:
  url: smtp://127.0.0.1:$RB_SMTP_PORT
  from: reviewbot <reviewbot@example.org>
  starttls: "off"
list_ids: [demo-list.example.org]
trees:
  - name: linux-6.1
    path: $tree
    fetch_minutes: 0
outbox:
  maildir: $d/outbox
admins: [admin@example.org]
series:
  incomplete_wait_minutes: 0
checkers:
  build_cache_dir: $cache
  build_jobs: 2
  timeout_seconds: 1700
  parallel: 2
policy:
  default:
    mode: advisory
    checkers: [build, sparse, kernel-doc, coccinelle]
    rules:
      sparse-warning: on
      kernel-doc: on
      coccinelle: on
  subsystems:
    MEMORY MANAGEMENT:
      mode: advisory
      checkers: [cc-maintainers]
      rules:
        cc-maintainers: on
EOC
"$RB_BIN" check-config -c "$d/config.yaml" >"$d/check-config.log" 2>&1 ||
	rb_fail "the config is refused: $(cat "$d/check-config.log")"
acc_start

t0=$(date +%s)
for f in sparse kdoc bisect cocci maint; do
	acc_feed "$d/$f.mbox" ""
done
acc_settle 1700
echo "the daemon reviewed the 5 probes in $(($(date +%s) - t0)) s"

acc_check "$d" "$(cat "$d/sparse-line")" "$(cat "$d/cocci-line")" <<'PY' || exit 1
d, sparse_line, cocci_line = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def series_of(name, n=0):
    return acc.msgid(os.path.join(d, name + ".mbox"), n)
def findings(name, checker):
    mid = series_of(name)
    return acc.q("SELECT f.file, f.line, f.patch_idx, f.state, f.category,"
                 " f.message FROM findings f JOIN patches p ON"
                 " p.series_id = f.series_id AND p.message_id = ?"
                 " WHERE f.checker = ? ORDER BY f.id",
                 mid.strip("<>"), checker)
problems = acc.q("SELECT checker, message FROM findings WHERE category ="
                 " 'checker-problem'")
acc.check(not problems, "checkers did not run: %s" % (problems,))

# sparse: one new warning, at the dereference.
r = findings("sparse", "sparse")
acc.check(len(r) == 1, "want one sparse finding, got %s" % (r,))
acc.check(r[0][:4] == ("kernel/ksysfs.c", sparse_line, 1, "raised") and
          "noderef" in r[0][5], "the sparse finding: %s, not"
          " kernel/ksysfs.c:%d dereference of noderef" % (r[0], sparse_line))
b = acc.flat(acc.review_to(series_of("sparse"))["body"])
acc.check("sparse reports a new warning" in b and "noderef" in b,
          "the sparse review:\n" + b)

# kernel-doc: one finding for the comment's wrong names.
r = findings("kdoc", "kernel-doc")
acc.check(len(r) == 1 and r[0][3] == "raised" and "Excess function"
          " parameter 'x'" in r[0][5] and "'a' not described" in r[0][5],
          "want one kernel-doc finding, got %s" % (r,))
b = acc.flat(acc.review_to(series_of("kdoc"))["body"])
acc.check("kernel-doc reports" in b, "the kernel-doc review:\n" + b)

# bisect: patch 2 breaks the build, 3 repairs it; the mail names 2.
r = findings("bisect", "build")
bis = [x for x in r if x[4] == "build-bisect"]
acc.check(len(bis) == 1 and bis[0][2] == 2 and bis[0][3] == "raised",
          "want one build-bisect finding on patch 2, got %s" % (r,))
acc.check("patch 2/3" in bis[0][5] and "patch 3/3" in bis[0][5] and
          "ksysfs_probe_three" in bis[0][5], "the finding: %s" % (bis,))
acc.check(not [x for x in r if x[4] != "build-bisect"],
          "the series' tip builds: no other build finding: %s" % (r,))
m = acc.review_to(series_of("bisect", 1))
b = acc.flat(m["body"])
acc.check("[PATCH 2/3]" in m["subject"] and "breaks at patch 2/3" in b and
          "patch 3/3 makes it build again" in b,
          "the mail of patch 2:\n%s\n%s" % (m["subject"], b))

# coccinelle: ifnullfree's report.
r = findings("cocci", "coccinelle")
acc.check(len(r) == 1 and r[0][:4] == ("kernel/ksysfs.c", cocci_line, 1,
          "raised") and "free/ifnullfree.cocci" in r[0][5] and
          "NULL check before some freeing functions" in r[0][5],
          "want ifnullfree's report at line %d, got %s" % (cocci_line, r))
b = acc.flat(acc.review_to(series_of("cocci"))["body"])
acc.check("ifnullfree.cocci" in b, "the coccinelle review:\n" + b)

# cc-maintainers: akpm, the M: of MEMORY MANAGEMENT, is not in To/Cc.
r = findings("maint", "cc-maintainers")
acc.check(len(r) == 1 and r[0][3] == "raised" and
          "akpm@linux-foundation.org" in r[0][5] and
          "linux-mm@kvack.org" not in r[0][5],
          "want one cc-maintainers finding naming akpm, got %s" % (r,))
b = acc.flat(acc.review_to(series_of("maint"))["body"])
acc.check("akpm@linux-foundation.org" in b and "Cc of the maintainers" in b,
          "the cc-maintainers review:\n" + b)
print("ok: sparse, kernel-doc, build of each patch, coccinelle and"
      " cc-maintainers through the daemon")
PY
acc_stop
echo PASS
