#!/bin/bash
# t8b: an array's own id. gq why, gq show and gq eta on the id of an array
# (which names no job of its own) describe the array: its task range and
# throttle, how many tasks are pending, running, done, failed, cancelled,
# and for why the explanation of its next pending task, the same as gq why
# of that task; eta lists its pending tasks. An id that is neither a job
# nor an array is still exit 3.
. "$(dirname "$0")/lib.sh"
server_start --gpus 2
"$GQ" clock --set '2030-01-01 09:00' >/dev/null
cd "$T_DIR" || exit 1

check_eq "an array of 6 tasks, 2 at once" \
	"$("$GQ" submit --array 0-5%2 --gpus 1 --estimate 1h -- sleep 1000)" "submitted array job 1 (6 tasks)"
check "task 1_0 runs" wait_state 2 running
check "task 1_1 runs" wait_state 3 running
"$GQ" cancel 1_5 >/dev/null
"$GQ" why 1 >"$T_DIR/why"
check_eq "why of the array's id says the array first" "$(head -1 "$T_DIR/why")" \
	"Array #1: tasks 0-5%2 (6): 3 pending, 2 running, 0 done, 0 failed, 1 cancelled; at most 2 run at once (throttle %2)."
check_eq "then introduces its next pending task" "$(sed -n 2p "$T_DIR/why")" "Its next pending task is 1_2 (job 4):"
check_eq "whose explanation is gq why 1_2's" "$(tail -n +3 "$T_DIR/why")" "$("$GQ" why 1_2)"
check_eq "why --json: the counts and the next task's why" \
	"$("$GQ" why --json 1 | jq -c '[.array_id, .tasks, .ntasks, .throttle, .pending, .running, .done, .failed, .cancelled, .next_task.id, .next_task.explanation.reason]')" \
	'[1,"0-5%2",6,2,3,2,0,0,1,4,"throttle"]'
"$GQ" show 1 >"$T_DIR/show"
check_eq "show of the array's id: the same line" "$(head -1 "$T_DIR/show")" "$(head -1 "$T_DIR/why")"
check_eq "then a line per task" "$(tail -n +2 "$T_DIR/show" | awk '{print $1, $2, $3}' | tr '\n' ' ')" \
	"1_0 #2 running 1_1 #3 running 1_2 #4 pending 1_3 #5 pending 1_4 #6 pending 1_5 #7 cancelled "
check_eq "show --json has the counts, and no next task" \
	"$("$GQ" show --json 1 | jq -c '[.array_id, .pending, .cancelled, .next_task]')" '[1,3,1,null]'
check_eq "eta of the array's id: its pending tasks" \
	"$("$GQ" eta --json 1 | jq -c '[.[].id]')" '[4,5,6]'
check_fail 3 "an id that is neither a job nor an array is still no job" "$GQ" why 99
check_fail 3 "for show too" "$GQ" show 99
"$GQ" cancel 1 >/dev/null
check "the array's tasks end" wait_state 3 cancelled
check_match "an array with nothing pending says so" "$("$GQ" why 1)" "^Array #1: .* 0 pending, 0 running, 0 done, 0 failed, 6 cancelled.*
No task of it is pending\.$"
check_fail 1 "and eta has nothing to predict" "$GQ" eta 1
finish
