#!/bin/bash
# t89: per-user limits. One user may hold 6 GPUs at once, 4 of them in
# queue train: a job past either limit waits with the reason user_limit and
# its numbers, though GPUs are free, and starts when one of the user's jobs
# ends; the prediction says so. A request larger than a limit could ever
# allow is refused; so is a submission past the jobs one user may have
# pending or running (6, 3 in train), with HTTP 429 and exit 2, an array
# counting its tasks.
# shellcheck disable=SC2086 # $LONG is a command line
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[user]
	maxGpus = 6
	maxJobs = 6
[queue "train"]
	department = default
	userMaxGpus = 4
	userMaxJobs = 3'
"$GQ" clock --set '2030-01-01 09:00' >/dev/null
me=$(id -un)

a=$(sub --gpus 4 --queue train --estimate 1h -- $LONG)
check "a 4-GPU job of train runs" wait_state "$a" running
b=$(sub --gpus 2 --queue train -- $LONG)
clock +1m
check_eq "2 more GPUs in train wait, though 4 are free" "$(state "$b")" pending
"$GQ" why "$b" >"$T_DIR/why-b"
check_match "the reason is the user's limit in the queue, with its numbers" "$(cat "$T_DIR/why-b")" \
	"^Pending: user_limit\. User $me holds 4 GPUs of the 4 one user may hold in queue train; it needs 2 more\."
check_match "it is looked at again when the user's job ends" "$(cat "$T_DIR/why-b")" "#$a ends"
check_match "its likely start is then, and says why" "$(cat "$T_DIR/why-b")" \
	"Likely start 10:00 when its owner has room under the per-user GPU limit"
check_eq "why --json has the numbers" \
	"$("$GQ" why --json "$b" | jq -c '[.reason, (.explanation.items[0] | .detail, .need, .used, .limit)]')" \
	'["user_limit","queue",2,4,4]'
check_match "ls gives the short reason" "$("$GQ" ls)" "user_limit \(4/4\)"

c=$(sub --gpus 2 -- $LONG)
check "a 2-GPU job of another queue runs: 6 GPUs in all" wait_state "$c" running
d=$(sub --gpus 1 -- $LONG)
clock +1m
check_eq "one more GPU anywhere waits, 2 are free" "$(state "$d")" pending
check_match "the overall limit says so" "$("$GQ" why "$d")" \
	"^Pending: user_limit\. User $me holds 6 GPUs of the 6 one user may hold; it needs 1 more\."

check_fail 2 "a request over the queue's user limit is refused" "$GQ" submit --gpus 5 --queue train -- true
check_match "with the key that forbids it" "$("$GQ" submit --gpus 5 --queue train -- true 2>&1)" \
	"^gq: needs 5 GPUs, one user's jobs of queue 'train' may hold at most 4 \(queue\.train\.userMaxGpus\)"
check_match "and over the overall one" "$("$GQ" submit --gpus 7 -- true 2>&1)" \
	"^gq: needs 7 GPUs, one user's jobs may hold at most 6 \(user\.maxGpus\): ask for fewer GPUs$"

e=$(sub --gpus 1 --queue train -- $LONG)
check_eq "a third job of train is accepted" "$(state "$e")" pending
check_fail 2 "a fourth is refused" "$GQ" submit --gpus 1 --queue train -- true
check_eq "with the numbers and the key" "$("$GQ" submit --gpus 1 --queue train -- true 2>&1)" \
	"gq: user '$me' has 3 jobs pending or running in queue 'train', the most queue.train.userMaxJobs allows is 3: wait for some to end or cancel some"
check_eq "the API answers 429 with the code limit" \
	"$(curl -s -w ' %{http_code}' --unix-socket "$SERVER_SOCK" -X POST --data-binary '{"argv":["true"],"cwd":"/tmp","queue":"train"}' http://gq/v1/jobs | sed 's/^\(.*\) \([0-9]*\)$/\2 \1/' | { read -r st body; echo "$st $(echo "$body" | jq -r .error.code)"; })" \
	"429 limit"
check_eq "an array counts its tasks: 5 jobs and 2 tasks are past 6" \
	"$("$GQ" submit --array 0-1 -- true 2>&1; echo "exit $?")" \
	"gq: user '$me' has 5 jobs pending or running, the most user.maxJobs allows is 6; the array adds 2: wait for some to end or cancel some
exit 2"
f=$(sub --gpus 1 -- $LONG)
check_eq "one more job is the sixth, accepted" "$(state "$f")" pending
check_eq "nothing refused was queued" "$("$GQ" ls --json | jq length)" 6

"$GQ" cancel "$a" >/dev/null
check "when the train job ends, the waiting one starts" wait_state "$b" running
check "so do the next two in the order (default's fair share first), up to 6 GPUs" \
	wait_state "$f" running
check_eq "the last waits for the overall limit" \
	"$("$GQ" why --json "$e" | jq -c '[.reason, (.explanation.items[0] | .detail, .used, .limit)]')" \
	'["user_limit","all",6,6]'

# A submission's size: 1 MiB by default (user.maxSubmitBytes).
check_match "the default bound of a submission's size is 1 MiB" "$(GQ_POLICY_REPO="$P_REPO" "$GQ" policy show)" \
	'(^|\n)user\.maxSubmitBytes +1048576 +\(default\)'
n0=$("$GQ" ls --json | jq length)
python3 -c 'import json; print(json.dumps({"argv": ["true", "x" * 1100000], "held": True}))' >"$T_DIR/big.json"
out=$(curl -s -w ' %{http_code}' --unix-socket "$SERVER_SOCK" --data-binary "@$T_DIR/big.json" http://gq/v1/jobs)
check_match "a 1.1 MB submission is refused with 400, saying why" "$out" \
	"the submission takes [0-9]+ bytes, over the policy's user.maxSubmitBytes \(1048576\); pass big inputs as files.* 400$"
check_eq "nothing refused was queued" "$("$GQ" ls --json | jq length)" "$n0"
finish
