#!/bin/bash
# t88-output-files: gq submit -o/-e with %j, %A, %a, %x, %u and %%, relative
# to the job's working directory, an array's tasks each to their own file,
# gq logs finding them, and unknown patterns refused.
. "$(dirname "$0")/lib.sh"
server_start --gpus 4
"$GQ" clock --set '2030-01-01 09:00' >/dev/null
ME=$(id -un)
mkdir "$T_DIR/work" && cd "$T_DIR/work"

"$GQ" submit --name tr -o 'out-%j-%x-%u-%%.log' -- sh -c 'echo to stdout; echo to stderr >&2' >/dev/null
check "job 1 completes" wait_state 1 completed
check_eq "-o alone: both streams in the file, relative to the working directory" \
	"$(cat "$T_DIR/work/out-1-tr-$ME-%.log")" "to stdout
to stderr"
check_eq "gq logs reads the file" "$("$GQ" logs 1)" "to stdout
to stderr"

"$GQ" submit -o 'o-%j' --error "$T_DIR/e-%j" -- sh -c 'echo out; echo err >&2' >/dev/null
check "job 2 completes" wait_state 2 completed
check_eq "-o and -e: stdout to one" "$(cat "$T_DIR/work/o-2")" out
check_eq "stderr to the other (an absolute path as it is)" "$(cat "$T_DIR/e-2")" err
check_eq "gq logs --stderr reads -e's file" "$("$GQ" logs --stderr 2)" err

"$GQ" submit --array 0-2 -o 'arr-%A_%a.out' -e 'arr-%A_%3a.err' -- sh -c 'echo task $GQ_ARRAY_TASK_ID; echo e >&2' >/dev/null
check "the last task completes" wait_state 6 completed
check_eq "each task its own file (%A_%a)" "$(cat arr-3_0.out arr-3_1.out arr-3_2.out | tr '\n' ' ')" "task 0 task 1 task 2 "
check_eq "%3a pads the index" "$(ls arr-3_*.err | tr '\n' ' ')" "arr-3_000.err arr-3_001.err arr-3_002.err "
check_eq "gq logs of a task" "$("$GQ" logs 3_1)" "task 1"

# A script's #GQ lines take them too.
printf '#!/bin/sh\n#GQ -o from-script-%%j.txt\necho scripted\n' >s.sh
"$GQ" submit s.sh >/dev/null
check "job 7 completes" wait_state 7 completed
check_eq "#GQ -o" "$(cat from-script-7.txt)" scripted

for bad in 'x-%q' 'x-%' '%5' ''; do
	out=$("$GQ" submit -o "$bad" -- true 2>&1); rc=$?
	check_eq "-o '$bad': exit 2" "$rc" 2
	check_match "-o '$bad': says what is wrong" "$out" "^gq submit: --output: (unknown pattern|empty file name)"
done
out=$("$GQ" submit -e 'e-%Z' -- true 2>&1)
check_match "the unknown pattern is named" "$out" "unknown pattern '%Z' in 'e-%Z'; use %j, %A, %a, %x, %u or %%"
out=$(curl -s --unix-socket "$SERVER_SOCK" -d '{"argv":["true"],"output":"a%b"}' http://gq/v1/jobs)
check_match "the API refuses it too" "$out" "submission.output: unknown pattern '%b'"
finish
