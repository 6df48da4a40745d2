#!/bin/bash
# t40-policy-repo: the policy repository without a server: init, show,
# edit (EDITOR is a script) with trailers, an invalid edit kept and resumed,
# check of revisions and files, log, diff, blame on a scripted history,
# rollback, and gq-policy(5) against the key table.
. "$(dirname "$0")/lib.sh"

R="$T_DIR/repo"
export GQ_POLICY_REPO="$R"
author() { # name email
	printf '[user]\n\tname = %s\n\temail = %s\n' "$1" "$2" >"$HOME/.gitconfig"
}
# editor SED-EXPR: an $EDITOR that applies one sed expression to the file.
editor() {
	printf '#!/bin/sh\nsed -i -e %s "$1"\n' "'$1'" >"$T_DIR/ed.sh"
	chmod +x "$T_DIR/ed.sh"
	export EDITOR="$T_DIR/ed.sh"
}

# No repository yet: a clear error and exit 2, as for a bad --repo (3 is
# for an unknown revision or key, and in gq(1) for no such job).
check_fail 2 "show without a repository fails" "$GQ" policy show
out=$("$GQ" policy check 2>&1); rc=$?
check_eq "check without a repository: exit 2, one line" "$rc $out" \
	"2 gq: no policy repository at '$R'; create one with 'gq policy init' or name another with --repo"
out=$("$GQ" policy show 2>&1)
check_match "the error says how to create one" "$out" "no policy repository at '$R'; create one with 'gq policy init'"

author "Ada Admin" ada@example.org
check "init creates the repository" "$GQ" policy init
check_fail 1 "init twice is refused" "$GQ" policy init
check_eq "init writes every key with a comment" \
	"$(grep -c '^	# ' "$R/policy.conf")" "$(grep -c '^	[a-zA-Z]* = ' "$R/policy.conf")"
out=$("$GQ" policy show)
check_match "show marks defaults" "$out" '^aging\.cap +0\.5 +\(default\)$'
check_eq "show lists every concrete key" "$(echo "$out" | grep -vc "^#")" 53

# An edit with trailers given as options.
editor 's/^\tcap = 0.5/\tcap = 0.3/'
out=$("$GQ" policy edit -m "Age less so P1 passes P2 less" --expected "P1 P95 wait under 4h" \
	--observe 7d --rollback-if "P2 P95 wait over 12h" 2>&1)
check_match "edit prints the semantic change" "$out" '^  aging\.cap: 0\.5 -> 0\.3$'
check_match "edit commits" "$out" '^committed [0-9a-f]{7}: Age less so P1 passes P2 less$'
out=$("$GQ" policy show)
check_match "the change is in force in HEAD" "$out" '^aging\.cap +0\.3$'
check_eq "the working tree follows HEAD" "$(grep -c '^	cap = 0.3$' "$R/policy.conf")" 1

# An invalid edit: refused, kept, and resumed by the next edit.
editor 's/^\tbase = 30$/\tbase = 300/'
out=$("$GQ" policy edit -m "break it" 2>&1); rc=$?
check_eq "an invalid edit exits 1" "$rc" 1
check_match "the error names file, key and reason" "$out" "policy.conf: tier\.\*\.base: tiers must be ordered P0 > P1 > P2 \(now 100, 300, 5\)"
check_match "the edit is kept" "$out" "your edit is kept in .*gq-policy-draft.conf"
check_eq "nothing was committed" "$("$GQ" policy log 2>/dev/null | grep -c '^commit ')" 2
editor 's/^\tbase = 300$/\tbase = 40/'
out=$("$GQ" policy edit -m "Raise P1" 2>&1)
check_match "the next edit resumes the kept one" "$out" "resuming the edit kept from last time"
check_match "and commits the fixed change" "$out" '^  tier\.P1\.base: 30 -> 40$'

# A syntax error names the line.
editor '3a\
[broken'
out=$("$GQ" policy edit -m x 2>&1)
check_match "a syntax error names file and line" "$out" "^gq: policy.conf:4: missing ']' in section header"
rm -f "$R/.git/gq-policy-draft.conf"

# Readline prompts read the summary and trailers from stdin when not a terminal.
author "Bob Boss" bob@example.org
editor 's/^\twaitLimit = 12h00m$/\twaitLimit = 10h/'
out=$(printf '\nP2 waits under 10h\n1d\nP0 slower\n' | "$GQ" policy edit 2>&1)
check_match "an empty summary takes the suggestion" "$out" '^committed [0-9a-f]{7}: Set tier\.P2\.waitLimit to 10h00m \(was 12h00m\)$'
log=$("$GQ" policy log -n 1 2>/dev/null)
check_match "log shows the author" "$log" '^Author: Bob Boss <bob@example.org>$'
check_match "log shows Expected" "$log" '^    Expected: P2 waits under 10h$'
check_match "log shows Observe" "$log" '^    Observe: 1d$'
check_match "log shows Rollback-if" "$log" '^    Rollback-if: P0 slower$'

# Two variables in one commit: check warns.
editor 's/^\tgrace = 5m$/\tgrace = 2m/; s/^\tcooldown = 10m$/\tcooldown = 20m/'
"$GQ" policy edit -m "Two at once" >/dev/null 2>&1
out=$("$GQ" policy check 2>&1)
check_match "check validates HEAD" "$out" '^HEAD \([0-9a-f]{7}\): valid$'
check_match "check warns about two variables" "$out" 'warning: this change touches 2 policy variables'
out=$("$GQ" policy check HEAD~1 2>&1)
check_eq "one variable: no warning" "$(echo "$out" | grep -c warning)" 0

# check FILE
sed 's/^\tcap = 0.3$/\tcap = abc/' "$R/policy.conf" >"$T_DIR/bad.conf"
out=$("$GQ" policy check "$T_DIR/bad.conf" 2>&1); rc=$?
check_eq "check of an invalid file exits 1" "$rc" 1
line=$(grep -n '^	cap = abc$' "$T_DIR/bad.conf" | cut -d: -f1)
check_eq "check names file and line" "$out" "gq: $T_DIR/bad.conf:$line: aging.cap: not a number: 'abc'"
check_fail 3 "check of an unknown revision exits 3" "$GQ" policy check nosuchrev

# diff: semantic and textual.
out=$("$GQ" policy diff HEAD~2 HEAD)
check_match "diff shows both semantic changes" "$out" '^  preempt\.grace: 5m -> 2m$'
check_match "diff shows the textual diff" "$out" '^\+	cooldown = 20m$'

# blame
out=$("$GQ" policy blame aging.cap)
check_match "blame: value" "$out" '^aging\.cap = 0\.3$'
check_match "blame: the commit and author" "$out" '^set by [0-9a-f]{7} Ada Admin <ada@example.org> '
check_match "blame: why" "$out" '^    Age less so P1 passes P2 less$'
check_match "blame: before" "$out" '^    before: 0\.5$'
check_match "blame: expected" "$out" '^    Expected: P1 P95 wait under 4h$'
out=$("$GQ" policy blame tier.P2.waitLimit)
check_match "blame finds Bob's change" "$out" '^set by [0-9a-f]{7} Bob Boss'
out=$("$GQ" policy blame aging.step)
check_match "an untouched key is blamed on init" "$out" "Start the policy from gq's defaults"
check_fail 3 "blame of an unknown key exits 3" "$GQ" policy blame aging.nope

# An edit that only reformats is no change: nothing is committed (t44).
editor 's/^\tcap = 0.3$/\tCAP   =   0.30/'
check_eq "a reformatting edit commits nothing" "$("$GQ" policy edit -m "Reformat" 2>&1)" \
	"no change to the policy; nothing committed"
out=$("$GQ" policy blame aging.cap)
check_match "blame stays where it was" "$out" '^    Age less so P1 passes P2 less$'

# rollback to the first commit, without a server.
first=$("$GQ" policy log 2>/dev/null | grep '^commit ' | tail -1 | cut -c8-14)
out=$("$GQ" policy rollback --no-apply "$first" 2>&1)
check_match "rollback commits" "$out" "^committed [0-9a-f]{7}: roll back to $first \(4 commits reverted\)$"
check_match "defaults are back" "$("$GQ" policy show)" '^aging\.cap +0\.5 +\(default\)$'
log=$("$GQ" policy log -n 1 2>/dev/null)
check_match "rollback names what it reverts" "$log" '^    Reverts: [0-9a-f]{12} Age less so P1 passes P2 less$'
check_match "rollback names its target" "$log" "^    Rollback-to: $first"
check_fail 1 "rolling back to the same content is refused" "$GQ" policy rollback --no-apply "$first"

# export slurm, parsed back.
editor 's/^\tcap = 0.5$/\tcap = 0.3/; s/^\tbase = 5$/\tbase = 6/; $a\
[department "research"]\
	gpuHours = 5000\
[queue "exp"]\
	department = research\
	quota = 16\
	borrow = 8\
	window = 20:00-08:00'
"$GQ" policy edit -m "Queue exp for research" >/dev/null 2>&1
"$GQ" policy export slurm >"$T_DIR/slurm.txt"
# Every line is a comment, a slurm.conf KEY=VALUE line or a sacctmgr command.
bad=$(grep -Ev '^(#.*|## .*|[A-Za-z]+=[^ ]*( [A-Za-z]+=[^ ]*)*|sacctmgr -i (add|modify) [a-z]+ ([A-Za-z0-9_]+|where [a-z]+=[^ ]+)( set( [A-Za-z/]+=[^ ]+)+)?|)$' "$T_DIR/slurm.txt")
check_eq "every exported line parses" "$bad" ""
conf() { sed -n "s/^$1=\([^ ]*\).*/\1/p" "$T_DIR/slurm.txt"; }
check_eq "QOS weight" "$(conf PriorityWeightQOS)" 100000
check_eq "age weight: P2 fully aged, 6 x 0.3 of P0's 100" "$(conf PriorityWeightAge)" 1800
check_eq "max age: 3 steps of 30m" "$(conf PriorityMaxAge)" 01:30:00
qos() { sed -n "s/^sacctmgr -i modify qos $1 set .*$2=\([^ ]*\).*/\1/p" "$T_DIR/slurm.txt"; }
check_eq "P0 priority" "$(qos p0 Priority)" 1000
check_eq "P2 priority" "$(qos p2 Priority)" 60
check_eq "P1 preempts P2" "$(qos p1 Preempt)" p2
check_eq "P2 usage factor is its price" "$(qos p2 UsageFactor)" 0.3
check_eq "exp quota + borrowing" "$(qos q_exp GrpTRES)" gres/gpu=24
check_match "department quota in GPU-minutes" "$(cat "$T_DIR/slurm.txt")" '^sacctmgr -i modify account research set GrpTRESMins=gres/gpu=300000$'
check_match "the partition of exp" "$(cat "$T_DIR/slurm.txt")" '^PartitionName=exp Nodes=ALL Default=NO AllowQos=p0,p1,p2 QOS=q_exp$'
check_match "the window is a comment" "$(cat "$T_DIR/slurm.txt")" '^# gq: queue exp pauses daily 20:00-08:00'
check_match "the borrowing rule is a comment" "$(cat "$T_DIR/slurm.txt")" '^# gq: queue exp has a quota of 16 GPUs and may borrow 8 more'

# A kept edit whose base moved: resuming it warns.
editor 's/^\tbase = 30$/\tbase = 300/'
"$GQ" policy edit -m x >/dev/null 2>&1
"$GQ" policy rollback --no-apply HEAD~1 >/dev/null 2>&1
editor 's/^\tbase = 300$/\tbase = 31/'
out=$("$GQ" policy edit -m "P1 31" 2>&1)
check_match "resuming an edit after HEAD moved warns" "$out" 'warning: HEAD moved since that edit began \(from [0-9a-f]{7} to [0-9a-f]{7}\)'
check_match "and the edit is committed" "$out" '^committed [0-9a-f]{7}: P1 31$'
out=$("$GQ" policy log --json -n 1 2>/dev/null)
check_eq "log --json without a server: applied is null" "$(echo "$out" | jq -c '.[0].applied')" null

# Bad command lines: one line, exit 2.
for a in "" "nosuch" "--bogus show" "log -n abc" "log -n" "review --window abc HEAD" \
	"review --window 0 HEAD" "export yaml" "blame" "show a b" "diff a b c" "init extra" \
	"rollback" "edit extra" "apply a b"; do
	out=$("$GQ" policy $a 2>&1); rc=$?
	check_eq "bad command line '$a': exit 2 and one line" "$rc $(echo "$out" | wc -l)" "2 1"
done

# Completion words, and the bash completion using them.
check_eq "subcommands come from the SYNOPSIS" "$("$GQ" __complete subcommands policy | tr '\n' ' ')" \
	"show check edit diff log blame apply rollback review export keys init "
check_match "policy keys complete" "$("$GQ" __complete policy-keys | tr '\n' ' ')" ' aging\.cap .* queue\.default\.quota '
out=$(bash -c '. "$1/completions/gq.bash"; COMP_WORDS=("$2" policy bl); COMP_CWORD=2; _gq; echo "${COMPREPLY[*]}"' \
	sh "$T_SRC/../.." "$GQ")
check_eq "bash completes a policy subcommand" "$out" "blame"
out=$(bash -c '. "$1/completions/gq.bash"; COMP_WORDS=("$2" policy blame aging.c); COMP_CWORD=3; _gq; echo "${COMPREPLY[*]}"' \
	sh "$T_SRC/../.." "$GQ")
check_eq "bash completes a policy key after blame" "$out" "aging.cap"

# gq-policy(5) lists exactly the key table.
man5="$T_SRC/../../man/gq-policy.5"
sed -n '/^\.\\" keys: begin/,/^\.\\" keys: end/p' "$man5" | sed '1d;$d' >"$T_DIR/man-keys"
"$GQ" policy keys --roff >"$T_DIR/table-keys"
if d=$(diff -u "$T_DIR/table-keys" "$T_DIR/man-keys"); then t_report 0 "gq-policy(5) matches the key table"; else
	t_report 1 "gq-policy(5) matches the key table (regenerate with 'gq policy keys --roff')"
	printf '%s\n' "$d" | sed 's/^/#   /' | head -20
fi
finish
