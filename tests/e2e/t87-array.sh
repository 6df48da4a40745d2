#!/bin/bash
# t87-array: gq submit --array (ranges, steps, lists, a throttle), one id
# with tasks (42_7), the array environment, ls folding a pending array,
# cancel of a task and of the whole array, the throttle as a wait reason,
# and the bad inputs.
. "$(dirname "$0")/lib.sh"
server_start --gpus 4
"$GQ" clock --set '2030-01-01 09:00' >/dev/null
cd "$T_DIR"

check_eq "submit --array prints the array's id and its task count" \
	"$("$GQ" submit --array 0-2 --gpus 1 -- sh -c 'echo $GQ_ARRAY_JOB_ID $GQ_ARRAY_TASK_ID $SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID $GQ_JOB_ID')" \
	"submitted array job 1 (3 tasks)"
check "task 1_2 completes" wait_state 4 completed
check_eq "1_2 names the task's job" "$("$GQ" show --json 1_2 | jq -c '[.id, .array_id, .array_task]')" '[4,1,2]'
check_eq "a task sees the array's id and its index, Slurm's names too" "$("$GQ" logs 1_2)" "1 2 1 2 4"
check_eq "task 0's too" "$("$GQ" logs 1_0)" "1 0 1 0 2"

# A throttled array: at most 2 at once, the rest wait for the throttle.
out=$("$GQ" submit --json --array '0-9:3,20%2' --gpus 1 -- sleep 1000)
check_eq "submit --array --json gives the array's id" "$out" '{"id":5}'
check "task 5_0 runs" wait_state 6 running
check "task 5_3 runs" wait_state 7 running
check_eq "the others wait for the throttle" \
	"$("$GQ" why --json 5_9 | jq -c '[.reason, (.explanation.items[0] | .job, .used, .limit)]')" '["throttle",5,2,2]'
"$GQ" why 5_9 >"$T_DIR/why"
check_match "why says it in words" "$(cat "$T_DIR/why")" "Array #5 runs 2 tasks at once, as many as its throttle \(%2\) allows"
check_match "ls folds the pending tasks into one line" "$("$GQ" ls)" '5_\[6,9,20%2\] .*throttle \(2/2\)'
check_eq "the next two start when the first two end, the last after them" \
	"$("$GQ" ls --json | jq -c '[.[] | select(.array_id == 5 and .state == "pending") | .predicted_start - 1893488400]')" '[3600,3600,7200]'
check_eq "ls --json lists every task" "$("$GQ" ls --json | jq -c '[.[] | select(.array_id == 5) | .array_task]')" '[0,3,6,9,20]'

check_eq "history has one row per task, as sacct names them" \
	"$("$GQ" history --state completed | awk 'NR > 1 {print $1}' | tr '\n' ' ')" '1_0 1_1 1_2 '
check_eq "cancel 5_6 cancels one task" "$("$GQ" cancel 5_6)" "cancelled job 8"
check_eq "it is cancelled" "$(state 8)" cancelled
check_eq "cancel 5 cancels the whole array" "$("$GQ" cancel 5)" "cancelled job 5"
check "a running task ends" wait_state 6 cancelled
# The other running task stops on its own time too (CI once read it still
# stopping right after task 6 ended): wait for each.
check "every task ends" sh -c "for i in \$(seq 1 100); do [ \"\$('$GQ' ls --all --json | jq '[.[] | select(.array_id == 5 and .state != \"cancelled\")] | length')\" = 0 ] && exit 0; sleep 0.1; done; exit 1"

# The journal keeps arrays: after kill -9, the tasks, their indices and the
# throttle are all there, and the next id follows the last task.
"$GQ" submit --hold --array 3-5%1 -- true >/dev/null # array 11, tasks 12-14
kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
server_start --gpus 4
check_eq "after kill -9 the tasks are journalled" \
	"$("$GQ" ls --json | jq -c '[.[] | select(.array_id == 11) | [.id, .array_task]]')" '[[12,3],[13,4],[14,5]]'
check_eq "with their throttle" "$("$GQ" show --json 11_4 | jq -c '[.array_max, .held]')" '[1,true]'
check_match "show names the task" "$("$GQ" show 11_4)" 'array +task 11_4, at most 1 at once'
check_eq "ids go on after the array" "$("$GQ" submit --hold -- true)" "submitted job 15"
check_eq "release 11 releases every task" "$("$GQ" release 11)" "released job 11"
check "and they run one at a time" wait_state 14 completed

# Bad input: a clear line, exit 2.
for bad in '' '5-3' 'a-b' '1,,2' '0-15:0' '0-3%0' '0-1001' '1-2-3' '%4' '0-3%x' '3:2'; do
	out=$("$GQ" submit --array "$bad" -- true 2>&1); rc=$?
	check_eq "--array '$bad': exit 2" "$rc" 2
	check_match "--array '$bad': says so" "$out" "^gq submit: --array: bad array"
done
out=$("$GQ" submit --array 0-1001 -- true 2>&1)
check_match "the bound is named" "$out" "MaxArraySize 1001"
out=$("$GQ" cancel 99_1 2>&1); rc=$?
check_eq "no such task: exit 3" "$rc" 3
check_match "and says so" "$out" "no array task '99_1'"
out=$("$GQ" cancel 5_x 2>&1); rc=$?
check_eq "a malformed task id: exit 2" "$rc" 2
finish
