#!/bin/bash
# t77-depend: dependency kinds as Slurm users write them (afterok,
# afterany, afternotok; a plain id is afterok), and a dependency that can
# never be met: refused at submit when it is already so, else the job is
# cancelled by gq serve at its next pass (Slurm's kill_invalid_depend),
# with an event and an end reason that say why, in show, why and ls --all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0'
a=$(sub --gpus 8 -- $LONG)
check "a holds every GPU" wait_state "$a" running
plain=$(sub --after "$a" -- true)
ok=$(sub --after "afterok:$a" -- true)
any=$(sub --dependency "afterany:$a" -- true)
notok=$(sub --after "afternotok:$a" -- true)
chain=$(sub --after "$ok,afterany:$any" -- true)

check_eq "a plain id is afterok, the list an old client sends" "$("$GQ" show --json "$plain" | jq -c .deps)" "[$a]"
check_eq "the kinds on the wire" "$("$GQ" show --json "$chain" | jq -c .deps)" "[$ok,{\"id\":$any,\"kind\":\"afterany\"}]"
check_match "show: each with its kind" "$("$GQ" show "$chain")" "after +#$ok \(afterok\), #$any \(afterany\)"
check_match "why: afterok waits for success" "$("$GQ" why "$ok")" "Waits for #$a to succeed \(afterok; it is running, expected to end $HM\)"
check_match "why: afterany waits for the end" "$("$GQ" why "$any")" "Waits for #$a to end \(afterany; it is running, expected to end $HM\)"
check_match "why: afternotok waits for a failure" "$("$GQ" why "$notok")" "Waits for #$a to fail \(afternotok; it is running, expected to end $HM\)"

# An old client's plain list, and the object form, through the API.
out=$(api POST /v1/jobs "{\"argv\":[\"true\"],\"deps\":[$a,{\"id\":$a,\"kind\":\"afternotok\"}]}")
api_id=$(echo "$out" | jq -r .id)
check_eq "the API takes both forms" "$("$GQ" show --json "$api_id" | jq -c .deps)" "[$a,{\"id\":$a,\"kind\":\"afternotok\"}]"
check_match "the API refuses an unknown kind" "$(api POST /v1/jobs "{\"argv\":[\"true\"],\"deps\":[{\"id\":$a,\"kind\":\"after\"}]}")" "submission.deps\[0\]: expected"

"$GQ" cancel "$a" >/dev/null
check "the dependency ends cancelled" wait_state "$a" cancelled
check "afterok on a cancelled job: cancelled" wait_state "$ok" cancelled
check "a plain id likewise" wait_state "$plain" cancelled
check "afterany: runs" wait_state "$any" completed
check "afternotok: runs" wait_state "$notok" completed
check "and a job after a cancelled one is cancelled in turn" wait_state "$chain" cancelled
why="dependency #$a was cancelled: afterok can never be met"
check_eq "the event says why" "$("$GQ" events --json --job "$ok" | jq -r '.[] | select(.to == "cancelled") | .reason + " " + .actor')" "$why scheduler"
check_eq "so does the end reason" "$("$GQ" show --json "$ok" | jq -r .end_reason)" "$why"
check_match "in gq show" "$("$GQ" show "$ok")" "end reason +$why"
check_match "in gq why" "$("$GQ" why "$ok")" "is cancelled since $HM, because $why; it waits for nothing"
check_match "in gq ls --all" "$("$GQ" ls --all | grep "^ *$ok ")" "$why"
check_match "the chain names its own dependency" "$("$GQ" show "$chain")" "end reason +dependency #$ok was cancelled: afterok can never be met"

# Already unmeetable at submit: refused, not accepted to be cancelled.
f=$(sub -- false)
check "a job fails" wait_state "$f" failed
s=$(sub -- true)
check "a job succeeds" wait_state "$s" completed
check_fail 2 "afterok on a failed job: refused" "$GQ" submit --after "afterok:$f" -- true
check_match "saying why" "$("$GQ" submit --after "$f" -- true 2>&1)" "^gq: dependency '$f' failed \(exit 1\): afterok can never be met"
check_match "afternotok on a success" "$("$GQ" submit --after "afternotok:$s" -- true 2>&1)" "dependency '$s' succeeded: afternotok can never be met"
check "afternotok on a failure: accepted and run" wait_state "$(sub --after "afternotok:$f" -- true)" completed
check_fail 2 "an id that never existed" "$GQ" submit --after "afterany:9999" -- true
check_match "an unknown kind" "$("$GQ" submit --after "after:$s" -- true 2>&1)" "^gq submit: --after: 'after:$s': kind 'after' is not one gq knows; use afterok, afterany or afternotok; see 'gq submit -h'$"
check_fail 2 "singleton: refused" "$GQ" submit --after singleton -- true
check_match "Slurm's ? (any of): refused, not guessed" "$("$GQ" submit --after "afterok:$s?afterany:$f" -- true 2>&1)" "'\?' \(any of\)"
check_match "an id without its number" "$("$GQ" submit --after "afterany:$s:" -- true 2>&1)" "'' is not a job id"

# gq update --after takes the kinds too.
b=$(sub --gpus 8 -- $LONG)
check "b runs" wait_state "$b" running
u=$(sub --after "$b" -- true)
check_eq "update --after with a kind" "$("$GQ" update "$u" --after "afternotok:$b")" "updated job $u"
check_eq "the kind is kept" "$("$GQ" show --json "$u" | jq -c .deps)" "[{\"id\":$b,\"kind\":\"afternotok\"}]"
check_fail 2 "update to an unmeetable dependency: refused" "$GQ" update "$u" --dependency "afternotok:$s"
"$GQ" cancel "$b" >/dev/null
check "it runs once b is cancelled" wait_state "$u" completed
finish
