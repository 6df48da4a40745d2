#!/bin/bash
# t44-policy-edit: gq policy edit commits only a change of the policy (a
# no-op edit commits nothing and says so), warns of a key set twice (check
# and edit, with both lines), discards a kept draft (edit --discard), and
# blame steps over commits check refuses (no "before: not defined").
. "$(dirname "$0")/lib.sh"

R="$T_DIR/repo"
export GQ_POLICY_REPO="$R"
printf '[user]\n\tname = Ada Admin\n\temail = ada@example.org\n' >"$HOME/.gitconfig"
editor() { # SED-EXPR: an $EDITOR that applies it to the file
	printf '#!/bin/sh\nsed -i -e %s "$1"\n' "'$1'" >"$T_DIR/ed.sh"
	chmod +x "$T_DIR/ed.sh"
	export EDITOR="$T_DIR/ed.sh"
}
commits() { git -C "$R" rev-list --count HEAD; }
check "init" "$GQ" policy init
editor 's/^\tcap = 0.5/\tcap = 0.3/'
check "a first change commits" "$GQ" policy edit -m "Age less"
n=$(commits)

# Comments, whitespace, a default spelled out: the same policy.
editor '1i\
# a comment of no consequence
s/^\tcap = 0.3/\tcap   =    0.30   # the same/
s/^\t# step = 0.1$/\tstep = 0.1/'
out=$("$GQ" policy edit -m "Cosmetics" 2>&1); rc=$?
check_eq "a no-op edit says so" "$out" "no change to the policy; nothing committed"
check_eq "and exits 0" "$rc" 0
check_eq "nothing is committed" "$(commits)" "$n"
check_fail 1 "and no draft is left to resume" test -e "$R/.git/gq-policy-draft.conf"

# A key set twice: both lines named, in check and in edit; the last wins.
printf '[aging]\n\tcap = 0.4\n' >>"$R/policy.conf"
first=$(grep -n '^	cap = 0.3' "$R/policy.conf" | cut -d: -f1)
last=$(wc -l <"$R/policy.conf")
want="gq: warning: $R/policy.conf:$first and $last: 'aging.cap' is set twice; the last value (line $last) is the one used"
out=$("$GQ" policy check "$R/policy.conf" 2>&1 >/dev/null)
check_eq "check warns of the key set twice, one line" "$out" "$want"
git -C "$R" checkout -q policy.conf
editor '$a\
[aging]\
	cap = 0.4'
out=$("$GQ" policy edit -m "Cap 0.4" 2>&1)
check_match "edit warns too" "$out" "^gq: warning: policy.conf:$first and $((last)): 'aging.cap' is set twice; the last value \(line $last\) is the one used$"
check_match "and commits the last value" "$out" '^  aging\.cap: 0\.3 -> 0\.4$'
check_match "check of the commit warns" "$("$GQ" policy check 2>&1 >/dev/null)" "^gq: warning: [0-9a-f]{7}:policy.conf:$first and $last: 'aging.cap' is set twice"

# A kept draft can be discarded.
editor 's/^\tbase = 30$/\tbase = 300/'
check_fail 1 "an invalid edit is refused" "$GQ" policy edit -m "break"
check "and kept" test -e "$R/.git/gq-policy-draft.conf"
check_eq "edit --discard drops it" "$("$GQ" policy edit --discard)" \
	"discarded the kept edit; the next 'gq policy edit' starts from HEAD"
check_fail 1 "it is gone" test -e "$R/.git/gq-policy-draft.conf"
check_match "a second discard: nothing to discard, exit 1" "$("$GQ" policy edit --discard 2>&1)" "^gq: no kept edit to discard \(none at '.*gq-policy-draft.conf'\)$"
check_fail 1 "exit 1" "$GQ" policy edit --discard
check_fail 2 "discard with a summary is a usage error" "$GQ" policy edit --discard -m x
editor 's/^\tbase = 30$/\tbase = 31/'
out=$("$GQ" policy edit -m "P1 31" 2>&1)
check_match "the next edit starts from HEAD, not the draft" "$out" '^  tier\.P1\.base: 30 -> 31$'

# A commit check refuses (made with git directly), then one that fixes it:
# blame steps over the refused one.
sed -i 's/^\tbase = 31$/\tbase = abc/' "$R/policy.conf"
git -C "$R" commit -qam "direct: broken"
check_fail 1 "check refuses it" "$GQ" policy check
sed -i 's/^\tbase = abc$/\tbase = 32/' "$R/policy.conf"
git -C "$R" commit -qam "direct: fixed"
out=$("$GQ" policy blame aging.cap)
check_match "blame: the commit that set it" "$out" '^    Cap 0\.4$'
check_match "blame: what it was before" "$out" '^    before: 0\.3$'
out=$("$GQ" policy blame tier.P1.base)
check_match "blame of the key the refused commit broke: the fix" "$out" '^    direct: fixed$'
check_match "before it: the last value in force, not 'not defined'" "$out" '^    before: 31$'
finish
