#!/bin/bash
# t45-window-action: queue.NAME.windowAction says what a queue's window
# does at its start to a running job that cannot checkpoint: requeue (the
# default, as before: stopped, its work lost) or finish (it runs to its
# end). Checkpointable jobs are checkpoint-preempted either way, and
# nothing of a paused queue starts in the window.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[preempt]
	cooldown = 1m
[queue "exp"]
	department = default
	window = 20:00-08:00
[queue "night"]
	department = default
	window = 20:00-08:00
	windowAction = finish'

check_eq "the key and its default, in policy show" \
	"$("$GQ" policy --repo "$P_REPO" show | grep -E '^queue\.(exp|night)\.windowAction' | tr -s ' ')" \
	"queue.exp.windowAction requeue (default)
queue.night.windowAction finish"
"$GQ" clock --set "2030-01-01 19:00" >/dev/null
req=$(sub --gpus 2 --tier P2 --queue exp -- $LONG)
fin=$(sub --gpus 2 --tier P2 --queue night -- $LONG)
ck=$(sub --gpus 2 --tier P2 --queue night --checkpointable -- $LONG)
check "at 19:00 the three run" wait_state "$ck" running
check_eq "all of them" "$(states "$req" "$fin")" "$req:running $fin:running"
"$GQ" checkpoint "$ck" >/dev/null
clock +1h
check "at 20:00, requeue: the job that cannot checkpoint is stopped and pending" wait_state "$req" pending
check "finish: the checkpointable job of night is still preempted" wait_state "$ck" pending
check_eq "finish: the one that cannot checkpoint runs on" "$(state "$fin")" running
check_eq "the records: the two stopped, by the window" "$(records | sort)" "$(printf '%s 0 window\n%s 0 window' "$req" "$ck" | sort)"
late=$(sub --gpus 1 --tier P0 --queue night -- $LONG)
clock +1m
check_eq "nothing new of night starts in the window" "$(state "$late")" pending
check_match "and says why" "$("$GQ" why "$late")" "^Pending: window"
check_eq "the finishing job still runs a minute later" "$(state "$fin")" running
"$GQ" cancel "$fin" "$late" >/dev/null
finish
