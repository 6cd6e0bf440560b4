#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The docs follow the program: every option of `schedhist --help` has an
# entry in the man page's OPTIONS section, written the same way
# ("-M, --metric NAME"), and the man page documents no option that --help
# lacks; every option the man page or the README uses on a schedhist
# command line exists; the man page and docs/report.schema.json name every
# JSON field render_json.c writes; the man page describes every exit status
# --help lists; `mandoc -T lint` (and man's groff warnings) are clean; the
# README names every metric. The Markdown docs (README, docs/, tests/README)
# use only real options too; the README stays a front door (under 300
# lines) and shows exactly the test command CI runs; every relative link
# of every Markdown file names a file that exists, and a #fragment a
# heading of it; every code block is closed; docs/architecture.md names
# every source file. Loads no BPF.
# MAN_PAGE, README and MD_FILES override the files checked (to try the
# test itself).
source "$(dirname "$0")/../lib.sh"

MAN_PAGE=${MAN_PAGE:-man/schedhist.8}
README=${README:-README.md}

command -v mandoc >/dev/null || skip "mandoc not installed (Debian package mandoc)"
[ -x "$SCHEDHIST" ] || fail "$SCHEDHIST not built (run make)"
[ -f "$MAN_PAGE" ] || fail "$MAN_PAGE missing"
[ -f "$README" ] || fail "$README missing"

errors=0
problem() { echo "docs_sync: $*"; errors=$((errors + 1)); }

help=$("$SCHEDHIST" --help) || fail "schedhist --help exited with $?"

# Lines of one section of --help ("Options:", "Metrics:"), up to a blank line.
help_section() { printf '%s\n' "$help" | sed -n "/^$1:\$/,/^\$/p" | sed '1d;/^$/d'; }

# Troff source lines of one man page section (.SH NAME), without the .SH line.
man_section() { sed -n "/^\\.SH \"\\{0,1\\}$1\"\\{0,1\\}\$/,/^\\.SH /p" "$MAN_PAGE" | sed '1d;/^\.SH /d'; }

# Troff to plain text, enough for our markup: fonts, \- \(xx \& \% \e, "\ ".
untroff() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\ / /g' -e 's/\\(aq/'"'"'/g' \
	    -e 's/\\(dq/"/g' -e 's/\\([a-z][a-z]//g' -e 's/\\[&%]//g' -e 's/\\c$//' \
	    -e 's/\\e/\\/g'
}

# "-M, --metric NAME" or "--cumulative": the option column of --help.
help_opts=$(help_section Options |
	grep -oE '^ +(-[[:alnum:]], )?--[a-z0-9-]+( [A-Z]+)?(  |$)' |
	sed -e 's/^ *//' -e 's/ *$//' | sort)
[ -n "$help_opts" ] || fail "no options found in schedhist --help"
help_longs=$(printf '%s\n' "$help_opts" | grep -oE -- '--[a-z0-9-]+' | sort -u)
help_shorts=$(printf '%s\n' "$help_opts" | grep -oE '^-[[:alnum:]]' | tr -d - | tr -d '\n')

# The tag line after each .TP of OPTIONS, as it renders.
man_opts=$(man_section OPTIONS | awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' |
	sed -E 's/^\.(B|I|BI|BR|IR|RB|RI|IB) //' | untroff | tr -d '"' |
	tr -s ' ' | sed -e 's/^ *//' -e 's/ *$//' | sort)
[ -n "$man_opts" ] || fail "no .TP entries in the OPTIONS section of $MAN_PAGE"

while IFS= read -r o; do
	grep -qxF -- "$o" <<<"$man_opts" ||
		problem "--help has '$o' but $MAN_PAGE's OPTIONS has no entry '$o'"
done <<<"$help_opts"
while IFS= read -r o; do
	grep -qxF -- "$o" <<<"$help_opts" ||
		problem "$MAN_PAGE's OPTIONS documents '$o', which --help does not have"
done <<<"$man_opts"

# Any long option named anywhere in the man page must exist.
while IFS= read -r o; do
	grep -qxF -- "$o" <<<"$help_longs" || problem "$MAN_PAGE mentions $o, which --help does not have"
done < <(grep -oE '\\-\\-[a-z]([a-z0-9]|\\?-)*' "$MAN_PAGE" | sed 's/\\//g' | sort -u)

# check_cmdlines WHERE: the options of every "schedhist ..." command line on
# stdin must exist (the words after "schedhist", up to a pipe or && or ;).
check_cmdlines() {
	local where=$1 line cmd w c
	while IFS= read -r line; do
		cmd=${line##*schedhist }
		cmd=${cmd%%|*}; cmd=${cmd%%&&*}; cmd=${cmd%%;*}; cmd=${cmd%%\`*}
		for w in $cmd; do
			case $w in
			--[a-z]*)
				w=${w%%=*}
				grep -qxF -- "$w" <<<"$help_longs" ||
					problem "$where: 'schedhist ... $w': no such option in --help" ;;
			-[[:alpha:]]*)
				for ((c = 1; c < ${#w}; c++)); do
					[[ $help_shorts == *"${w:c:1}"* ]] ||
						problem "$where: 'schedhist ... $w': no option -${w:c:1} in --help"
				done ;;
			esac
		done
	done < <(grep -E '(^|[ /`])schedhist ' | grep -vE '^\.\\"')
}
awk '/^\.EX/ { ex = 1; next } /^\.EE/ { ex = 0 } ex' "$MAN_PAGE" | untroff |
	check_cmdlines "$MAN_PAGE EXAMPLES"
# The Markdown docs beside the README: docs/*.md, docs/design/*.md, tests/README.md.
# shellcheck disable=SC2206 # the default list is globbed on purpose
md_files=(${MD_FILES:-$README docs/*.md docs/design/*.md tests/README.md})
for f in "${md_files[@]}"; do
	[ -f "$f" ] || { problem "$f missing"; continue; }
	# shellcheck disable=SC2094 # f is only read
	check_cmdlines "$f" <"$f"
done

# The README is a front door: the manual lives in man/ and docs/.
readme_lines=$(wc -l <"$README")
[ "$readme_lines" -lt 300 ] || problem "$README has $readme_lines lines (keep it under 300)"

# CI runs exactly the README's test command: the last command of .ci/run
# is a line of a code block of the README.
if [ -f .ci/run ]; then
	ci_cmd=$(grep -vE '^(#|set |cd |$)' .ci/run | tail -n 1)
	[ -n "$ci_cmd" ] || problem ".ci/run runs no command"
	grep -qxF -- "$ci_cmd" "$README" || problem ".ci/run runs '$ci_cmd', which $README does not show"
fi

# docs/architecture.md names every source file: user/*.c, user/*/*.c (and each header
# without a .c of its own), bpf/*, include/*.
arch=docs/architecture.md
if [ -f "$arch" ]; then
	for src in user/*.c user/*/*.c user/*/*.h bpf/* include/*; do
		[ -e "$src" ] || continue
		[[ $src == *.h && -e ${src%.h}.c ]] && continue
		grep -qF -- "\`${src##*/}\`" "$arch" || grep -qF -- "\`$src\`" "$arch" ||
			problem "$arch does not name $src"
	done
fi

# GitHub's anchor of each heading of a Markdown file (outside code blocks).
md_anchors() {
	awk '/^```/ { code = !code; next } !code && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
		tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}

# Every relative link [text](path#fragment) of every Markdown file resolves.
for f in "${md_files[@]}"; do
	[ -f "$f" ] || continue
	fences=$(grep -c '^```' "$f")
	[ $((fences % 2)) -eq 0 ] || problem "$f: $fences lines open or close a code block: one is not closed"
	dir=$(dirname "$f")
	while IFS= read -r link; do
		target=${link%%#*}
		frag=
		[[ $link == *"#"* ]] && frag=${link#*#}
		path=$f
		if [ -n "$target" ]; then
			path=$dir/$target
			[ -e "$path" ] || { problem "$f: link ($link): no file $path"; continue; }
		fi
		if [ -n "$frag" ] && [[ $path == *.md ]]; then
			md_anchors "$path" | grep -qxF -- "$frag" ||
				problem "$f: link ($link): $path has no heading '#$frag'"
		fi
	done < <(awk '/^```/ { code = !code; next } !code' "$f" |
		grep -oE '\]\([^) ]+\)' | sed -e 's/^](//' -e 's/)$//' |
		grep -vE '^(https?|mailto):')
done

# Sections the house style asks for.
for s in NAME SYNOPSIS DESCRIPTION OPTIONS METRICS OUTPUT EXAMPLES "EXIT STATUS" "SEE ALSO"; do
	grep -qE "^\\.SH \"?$s\"?\$" "$MAN_PAGE" || problem "$MAN_PAGE has no $s section"
done

# Exit codes: each one --help lists is a tag of EXIT STATUS.
exit_tags=$(man_section "EXIT STATUS" | awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' |
	sed -E 's/^\.B //' | tr -d '"')
codes=$(printf '%s\n' "$help" | grep -E '^Exit status:' | grep -oE '[0-9]+ [a-z]' | cut -d' ' -f1)
[ -n "$codes" ] || problem "--help lists no exit status"
for c in $codes; do
	grep -qx "$c" <<<"$exit_tags" || problem "$MAN_PAGE EXIT STATUS does not describe status $c"
done

# JSON: every field name render_json.c writes is documented in OUTPUT.
if [ -f user/output/render_json.c ]; then
	output=$(man_section OUTPUT | untroff)
	fields=$( { grep -oE '\\"[a-z0-9_]+\\":' user/output/render_json.c | tr -d '\\":'
		    grep -oE '\] = "[a-z0-9_]+"' user/output/render_json.c | cut -d'"' -f2; } | sort -u)
	[ -n "$fields" ] || problem "found no JSON field names in user/output/render_json.c"
	for f in $fields; do
		grep -qw -- "$f" <<<"$output" || problem "JSON field '$f' (user/output/render_json.c) not in $MAN_PAGE OUTPUT"
		grep -q "\"$f\": *{" docs/report.schema.json ||
			problem "JSON field '$f' (user/output/render_json.c) not in docs/report.schema.json"
	done
fi

# Metrics: every one --help lists is defined in METRICS and named in the README.
metrics=$(help_section Metrics | grep -oE '^  [a-z]+ ' | tr -d ' ')
[ -n "$metrics" ] || problem "no metrics found in --help"
metric_tags=$(man_section METRICS | awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' | sed -E 's/^\.B //')
for m in $metrics; do
	grep -qx "$m" <<<"$metric_tags" || problem "$MAN_PAGE METRICS does not define metric $m"
	grep -qw -- "$m" "$README" || problem "$README does not mention metric $m"
done

# Lint: mandoc, and groff's warnings through man(1) when it is installed.
lint=$(mandoc -T lint "$MAN_PAGE" 2>&1)
[ -z "$lint" ] || problem "mandoc -T lint $MAN_PAGE:"$'\n'"$lint"
if command -v man >/dev/null; then
	warn=$(MANWIDTH=80 man --warnings -l "$MAN_PAGE" 2>&1 >/dev/null)
	[ -z "$warn" ] || problem "man --warnings -l $MAN_PAGE:"$'\n'"$warn"
fi

[ "$errors" -eq 0 ] || fail "$errors mismatch(es) between --help, $MAN_PAGE and the Markdown docs"
echo "docs in sync: $(wc -l <<<"$help_opts") options, $(wc -w <<<"$metrics") metrics"
