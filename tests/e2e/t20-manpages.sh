#!/bin/bash
# t20-manpages: every command in gq's table has a man page whose SYNOPSIS
# is exactly the usage `gq CMD -h` prints, `gq help CMD` prints that page,
# and every page renders with groff without a warning. No server needed.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$T_SRC/../.." && pwd)

cmds=$("$GQ" __complete commands)
check_match "the table lists submit, run, ls, show, why, eta and help" "$(echo $cmds)" '^submit run ls show why eta .* help '
for c in $cmds; do
	page="$ROOT/man/gq-$c.1"
	[ -f "$page" ] || page="$ROOT/man/gq-$c.8"
	if [ ! -f "$page" ]; then t_report 1 "gq $c has a man page"; continue; fi
	t_report 0 "gq $c has a man page"
	# The first paragraph of SYNOPSIS as text, white space squeezed (later
	# paragraphs may list subcommands).
	syn=$(awk -f "$ROOT/man/totext.awk" "$page" | awk '/^SYNOPSIS$/{on=1;next} on&&(/^[A-Z]/||/^$/){exit} on' |
		tr -s ' \n' '  ' | sed 's/^ //; s/ $//')
	usage=$("$GQ" "$c" -h | head -1 | sed 's/^usage: //')
	check_eq "gq $c -h matches the SYNOPSIS of gq-$c(1)" "$usage" "$syn"
	check_eq "gq help $c prints gq-$c(1)" "$("$GQ" help "$c")" "$(awk -f "$ROOT/man/totext.awk" "$page")"
	if command -v groff >/dev/null; then
		w=$(groff -man -ww -z "$page" 2>&1)
		check_eq "gq-$c(1) renders without warnings" "$w" ""
	fi
done
check_eq "gq help prints gq(1)" "$("$GQ" help)" "$(awk -f "$ROOT/man/totext.awk" "$ROOT/man/gq.1")"
# Every command of the table is in gq(1)'s COMMANDS.
g=$("$GQ" help)
for c in $cmds; do check_match "gq(1) names '$c'" "$g" "(^|[ ,])$c(,|\$| )"; done
# Every page, gq(1) and sections 5, 7 and 8 included, renders with groff -ww
# without a warning (groff comes with `make deps`).
if command -v groff >/dev/null; then
	for page in "$ROOT"/man/*.[1578]; do
		w=$(groff -man -ww -z "$page" 2>&1)
		check_eq "$(basename "$page") renders with groff -ww -man without warnings" "$w" ""
	done
else
	t_report 1 "groff is installed (make deps)"
fi
# A tag without its .TP runs into the entry before it, which no warning
# says: every command starts a line of gq(1)'s COMMANDS, and every option
# of an OPTIONS section written as a tag with its value (.BI --X " V")
# is one gq __complete offers (it reads the rendered tags).
for c in $cmds; do check_match "gq(1) has an entry of its own for '$c'" "$g" "^       ([a-z]+, )*$c(,| |\$)"; done
for c in $cmds; do
	page="$ROOT/man/gq-$c.1"
	[ -f "$page" ] || page="$ROOT/man/gq-$c.8"
	tags=$(awk '/^\.SH/{on=($2=="OPTIONS");rs=0} /^\.RS/{rs++} /^\.RE/{if(rs)rs--}
		on && !rs && /^\.BI \\-/{w=$2; gsub(/\\/, "", w); print w}' "$page")
	flags=" $("$GQ" __complete flags "$c" | tr '\n' ' ')"
	missing=""
	for t in $tags; do case "$flags" in *" $t "*) ;; *) missing="$missing $t" ;; esac; done
	check_eq "every option tag of gq-$c's OPTIONS is an entry of its own" "$missing" ""
done
# -h lists the options of the page.
check_match "gq submit -h lists --gpu-type" "$("$GQ" submit -h)" '^       --gpu-type MODEL$'
check_eq "gq __complete flags logs" "$("$GQ" __complete flags logs | tr '\n' ' ')" "-f --follow --stderr "
finish
