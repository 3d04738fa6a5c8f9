#!/bin/bash
# fuzz_code_c.seeds.sh DIR - seeds for the C recogniser: functions of
# the linux 6.1 tree when it is there (RB_LINUX_TREE), read with git
# from the tree's objects, and heads written out here otherwise.
set -eu
dir=$1
tree=${RB_LINUX_TREE:-$HOME/.cache/reviewbot/linux-6.1}
n=0
seed() {
	n=$((n + 1))
	printf '%b' "$1" > "$dir/c$n"
}
if [ -d "$tree/.git" ]; then
	for f in mm/huge_memory.c mm/mempolicy.c include/linux/mm.h \
		kernel/bpf/helpers.c fs/xfs/libxfs/xfs_attr.c; do
		# A symbol of 12 bytes, then 16 KiB of the file.
		{ printf '\x0czap_huge_pmd'
		  git -C "$tree" show "HEAD:$f" 2>/dev/null | head -c 16384
		} > "$dir/tree-${f//\//-}" || true
	done
fi
seed '\x0czap_huge_pmdint zap_huge_pmd(struct mmu_gather *tlb, struct vm_area_struct *vma,\n\t\t pmd_t *pmd, unsigned long addr)\n{\n\treturn 1;\n}\n'
seed '\x17set_mempolicy_home_nodeSYSCALL_DEFINE4(set_mempolicy_home_node, unsigned long, start,\n\t\tunsigned long, flags)\n{\n\treturn 0;\n}\n'
seed '\x04a_fnint\na_fn(a, b)\n\tint a;\n\tchar *b;\n{\n\treturn a;\n}\n'
seed '\x01x__printf(1, 4)\nstruct x *f(const char *fmt,\n\t int n, ...)\n{\n}\n'
seed '\x04HUGE#define HUGE(x) \\\n\tdo { \\\n\t} while (0)\nstruct s {\n\tint n;\n};\n'
seed '\x03foostatic inline void foo(void) { }\nstatic DEFINE_SPINLOCK(foo);\n'
seed '\x00{\n}\n}\n{\n(\n)\n'
seed '\x02ab\\\n\\\n\\\n#define ab \\\n'
# An indented blank last line with no newline: body_open() once read the
# byte after it (found by this target in CI).
seed '\x00int f(void)\n\t'
