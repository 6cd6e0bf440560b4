#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The tree keeps the layout docs/architecture.md describes
# (tests/layout_check.py): no cycle between modules, no include up the
# stage order, files of at most 600 lines and functions of at most 100
# unless a comment says why, no dates, commit hashes, result files, ns
# figures or instruction counts in source comments. Then the check is
# tried on planted breaches, so that it cannot pass by checking nothing.
# Loads no BPF.
source "$(dirname "$0")/../lib.sh"

check=tests/layout_check.py
[ -d "$OUTPUT/user" ] || fail "$OUTPUT/user not built (run make)"

out=$(OUTPUT=$OUTPUT python3 "$check" 2>&1) || fail "layout breaches:"$'\n'"$out"

# A copy of the tree with one breach of each kind must fail with each named.
copy=$TMP/tree
mkdir -p "$copy"
not_reports "$copy"	# sources, not reports
cp -r user include bpf "$copy"/
mkdir -p "$copy/out" && cp -r "$OUTPUT/user" "$copy/out/"
cd "$copy" || fail "cannot enter $copy"
printf '#include "output/render.h"\n' >>user/lib/log.c
printf '/* 2030-01-02: soak of build abcdef12 (bench/results/2030-01-02-0101.md) */\n' >>user/lib/log.h
printf '/* the miss costs 42 ns more */\n' >>include/schedhist.h
{ printf 'static int long_one(void)\n{\n'; for i in $(seq 101); do printf '\t;\n'; done
  printf '\treturn 0;\n}\n'; } >>user/lib/log.c
for i in $(seq 600); do printf '\n'; done >>user/lib/parse.c
printf '#include "lib/log.h"\n' >>user/lib/names.h
printf '#include "lib/names.h"\n' >>user/lib/log.h
planted=$(OUTPUT=out python3 "$OLDPWD/$check" 2>&1) && fail "planted breaches passed"
cd "$OLDPWD" || fail "cannot leave $copy"
for want in "user/lib/log.c: includes output/render.h, a later stage" \
	    "user/lib/log.h:.*a date" "user/lib/log.h:.*a commit hash" \
	    "user/lib/log.h:.*a result file" "include/schedhist.h:.*a figure in ns" \
	    "long_one() is 105 lines" "user/lib/parse.c: .* lines, over 600" \
	    "cycle between.*user/lib/log,.*user/lib/names"; do
	grep -q -- "$want" <<<"$planted" || fail "planted breach not found ($want):"$'\n'"$planted"
done
echo "layout: clean; planted breaches all found"
