#!/bin/bash
# t8c: arrays in gq top. A started task shows as its name (1_0), not as a
# bare job id, in the Running view and the Queue view; the pending tasks of
# an array fold into one row of the Queue view, as gq ls folds them
# (1_[2-5%2]), and a lone job stays a row of its own.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/top-lib.sh"

server_start --gpus 2 || { t_report 1 "server starts"; finish; }
"$GQ" submit --array 0-5%2 --gpus 1 --name sweep -- sleep 1000 >/dev/null
"$GQ" submit --gpus 1 --name lone -- sleep 1000 >/dev/null
wait_state 2 running
wait_state 3 running
check_match "gq ls folds the pending tasks" "$("$GQ" ls)" '^ *1_\[2-5%2\] '

top_start 120 24 --view running
check "a running task shows as 1_0" wait_screen '^ +1_0 +'
check "and 1_1" wait_screen '^ +1_1 +'
check_eq "no bare job id for them" "$(screen_raw | grep -Ec '^ +(2|3) +[a-z]')" 0
keys 1
check "the Queue view folds the array's pending tasks into one row" \
	wait_screen '^ +1 +1_\[2-5% +root .* throttle +1_\[2-5%2\] sweep$'
check "the lone job has its own row, at its place in the order" wait_screen '^ +5 +8 +root .* lone$'
check_eq "and no other row" "$(screen_raw | grep -Ec '^ +[0-9]+ +[0-9]')" 2
top_stop
finish
