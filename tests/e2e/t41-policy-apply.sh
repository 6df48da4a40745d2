#!/bin/bash
# t41-policy-apply: the change workflow against a real gq serve, whose
# policy repository is the default one under its state directory:
# init (by the server) -> edit -> check (impact preview naming exactly the
# jobs that move) -> apply -> log; an invalid commit (made with plain git,
# as an admin might) is refused with an event saying why and the last good
# policy stays; rollback restores the order the change had altered, and the
# job that starts when GPUs free up is the one the restored order puts first.
. "$(dirname "$0")/lib.sh"

printf '[user]\n\tname = Ada Admin\n\temail = ada@example.org\n' >"$HOME/.gitconfig"
editor() { # sed expression applied by $EDITOR
	printf '#!/bin/sh\nsed -i -e %s "$1"\n' "'$1'" >"$T_DIR/ed.sh"
	chmod +x "$T_DIR/ed.sh"
	export EDITOR="$T_DIR/ed.sh"
}
server_start --gpus 8 || { t_report 1 "server starts"; finish; }
export GQ_POLICY_REPO="$SERVER_STATE/policy"
jq_() { jq -r "$@"; }

# The server created its repository with the default policy.
out=$("$GQ" policy log)
check_match "the server created the repository" "$out" "^    Start the policy from gq's defaults$"
check_match "and applied it at start-up" "$out" '^    Applied: .* by scheduler$'

# Two queues, so that fair share can order jobs of one tier.
editor '$a\
[queue "q1"]\
	quota = 8\
[queue "q2"]\
	quota = 8'
check "edit adds two queues" "$GQ" policy edit -m "Add queues q1 and q2"
out=$("$GQ" policy apply 2>&1)
check_match "apply puts it in force" "$out" '^applied [0-9a-f]{7}: the server.s policy in force is [0-9a-f]{40}$'

# A constructed queue: J0 holds 6 of the 8 GPUs in q1 (an 8-GPU P1 job could never pass the headroom) for 10 minutes (so q1 has
# used GPU time and q2 none), A waits in q1 for an hour, B arrives in q2.
j0=$("$GQ" submit --json --gpus 6 --tier P1 --queue q1 -- sleep 600 | jq_ .id)
for _ in $(seq 1 100); do
	[ "$("$GQ" show --json "$j0" | jq_ .state)" = running ] && break; sleep 0.05
done
"$GQ" clock +10m >/dev/null
a=$("$GQ" submit --json --gpus 6 --tier P1 --queue q1 -- sleep 600 | jq_ .id)
"$GQ" clock +1h >/dev/null
b=$("$GQ" submit --json --gpus 6 --tier P1 --queue q2 -- sleep 600 | jq_ .id)

# Switching aging off makes A (weight 36 from aging) and B (30) tie at 30;
# then fair share puts B (q2 used nothing) first: exactly A and B move.
editor 's/^\tcap = 0.5$/\tcap = 0/'
check "edit switches aging off" "$GQ" policy edit -m "No aging" --expected "q2 first" \
	--observe 1h --rollback-if "A starves"
cap0=$("$GQ" policy log -n 1 --json | jq_ '.[0].commit')
out=$("$GQ" policy check --json)
check_eq "the preview names exactly the jobs that move" \
	"$(echo "$out" | jq -c '[.impact.moves[] | [.job, .old_position, .new_position, .old_weight, .new_weight]]')" \
	"[[$b,2,1,30,30],[$a,1,2,36,30]]"
out=$("$GQ" policy check)
check_match "the text preview says the same" "$out" "^  #$a P1 moves 1 -> 2 \(weight 36 -> 30\)$"
check "apply the change" "$GQ" policy apply
out=$("$GQ" policy check --json HEAD~1)
check_eq "in force, B is ahead of A" \
	"$(echo "$out" | jq -c '[.impact.moves[] | [.job, .old_position, .new_position]]')" \
	"[[$a,2,1],[$b,1,2]]"

# An invalid commit made with plain git is refused by the server.
( cd "$GQ_POLICY_REPO" && sed -i 's/^\tcap = 0$/\tcap = abc/' policy.conf &&
	git -c user.name=Eve -c user.email=eve@example.org commit -qam "Break aging" )
out=$("$GQ" policy apply 2>&1); rc=$?
check_eq "applying an invalid commit exits 1" "$rc" 1
line=$(grep -n '^	cap = abc$' "$GQ_POLICY_REPO/policy.conf" | cut -d: -f1)
check_match "the server says why, with file and line" "$out" \
	"the server refused [0-9a-f]{7}: [0-9a-f]{7}:policy.conf:$line: aging.cap: not a number: 'abc'"
bad=$(cd "$GQ_POLICY_REPO" && git rev-parse HEAD)
ev=$("$GQ" events --json | jq -c '[.[] | select(.kind == "policy")] | last')
check_eq "a refusal event names the commit and the reason" "$(echo "$ev" | jq_ .reason)" \
	"refused $bad: ${bad:0:7}:policy.conf:$line: aging.cap: not a number: 'abc'"
out=$("$GQ" policy check --json "$cap0")
check_eq "the last good policy stays in force" "$(echo "$out" | jq_ .impact.policy_in_force)" "$cap0"
out=$("$GQ" policy log -n 1)
check_match "log shows the refusal" "$out" "^    Refused: .* by admin:[a-z0-9_-]+: ${bad:0:7}:policy.conf:$line"

# A restart with the invalid HEAD: the revision applied last is in force
# again, and HEAD, never applied, is not tried.
nev=$("$GQ" events --json | jq '[.[] | select(.kind == "policy")] | length')
server_stop
server_start --gpus 8 || { t_report 1 "server restarts"; finish; }
check_eq "at start-up the unapplied HEAD is not tried (no policy event)" \
	"$("$GQ" events --json | jq '[.[] | select(.kind == "policy")] | length')" "$nev"
out=$("$GQ" policy check --json "$cap0")
check_eq "and the last good policy is in force after the restart" \
	"$(echo "$out" | jq_ .impact.policy_in_force)" "$cap0"

# Roll back to the policy before "No aging": A is first again.
before=$("$GQ" policy log --json | jq_ '.[2].commit')
out=$("$GQ" policy rollback "${before:0:7}" 2>&1)
check_match "rollback commits" "$out" "^committed [0-9a-f]{7}: roll back to ${before:0:7} \(2 commits reverted\)$"
check_match "and applies" "$out" '^applied [0-9a-f]{7}'
out=$("$GQ" policy check --json "$cap0")
check_eq "the order changes back: A ahead of B" \
	"$(echo "$out" | jq -c '[.impact.moves[] | [.job, .old_position, .new_position]]')" \
	"[[$b,2,1],[$a,1,2]]"
"$GQ" cancel "$j0" >/dev/null
"$GQ" clock +5m >/dev/null # past the grace period, whatever the process did
for _ in $(seq 1 100); do
	[ "$("$GQ" show --json "$a" | jq_ .state)" = running ] && break; sleep 0.05
done
check_eq "when the GPUs free up, A starts" "$("$GQ" show --json "$a" | jq_ .state)" running
check_eq "and B waits" "$("$GQ" show --json "$b" | jq_ .state)" pending

# log: who, what, why, expected, applied when.
log=$("$GQ" policy log --json)
check_eq "every commit but the refused one was applied" \
	"$(echo "$log" | jq -c '[.[] | [.summary, ([.applied[] | .applied] | any)]]')" \
	"[[\"Roll back to ${before:0:7}: Add queues q1 and q2\",true],[\"Break aging\",false],[\"No aging\",true],[\"Add queues q1 and q2\",true],[\"Start the policy from gq's defaults\",true]]"
check_eq "trailers are kept" "$(echo "$log" | jq -c '.[2].trailers')" \
	'[{"key":"Expected","value":"q2 first"},{"key":"Observe","value":"1h"},{"key":"Rollback-if","value":"A starves"}]'
finish
