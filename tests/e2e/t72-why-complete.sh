#!/bin/bash
# t72: gq why says every blocker (issue #16): a job held and --after
# another hears of both; a queue quota and a department quota that both
# block are both said, with used / limit rounded so that a limit never
# looks unmet (2.35 GPU-hours of 2 is not "2 of its 2"); a P0 reminder and
# its deadline, then the downgrade, in gq why and gq show; and when the
# job is looked at again, in the text.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[tier "P0"]
	waitLimit = 30d
[department "lab"]
	gpuHours = 2
	gpuHoursAction = stop
[queue "lab"]
	department = lab
	quota = 1
	borrow = 0'

a=$(sub --gpus 6 --tier P0 --estimate 4h --time-limit 8h -- $LONG)
check "a P0 holds 6 GPUs" wait_state "$a" running
l=$(sub --gpus 1 --queue lab --estimate 4h --time-limit 8h -- $LONG)
check "a lab job holds its queue's one GPU" wait_state "$l" running
h=$(sub --gpus 4 --estimate 1h --hold --after "$a" -- $LONG)
p=$(sub --gpus 4 --tier P0 --estimate 1h -- $LONG)
clock +1m
why=$("$GQ" why "$h")
check_match "held and --after: both reasons, in DESIGN's order" "$why" "^Pending: held; also dependency"
check_match "and both their numbers" "$why" "Held by [^ ]+ at $HM\. Waits for #$a to succeed \(afterok; it is running, expected to end $HM\)\."
check_match "re-evaluation in the text" "$why" "Looked at again when it is released\."
check_match "a P0 job: when it is looked at again" "$("$GQ" why "$p")" "Looked at again when #$a ends \($HM\)\."

clock +2h20m
clock +1m
q=$(sub --gpus 1 --queue lab -- $LONG)
clock +1m
why=$("$GQ" why "$q")
check_match "queue and department quota: one reason, said once" "$why" "^Pending: quota; also priority\."
check_match "the queue's numbers" "$why" "Queue lab holds 1 GPU of its limit 1; it needs 1 more\."
check_match "the department's, used rounded up" "$why" "Department lab used 2\.4 of its 2 GPU-hours this month\."
check_match "looked at again when the policy changes, not at a job's end" "$why" "Looked at again when the policy or the nodes change\."
check_eq "blocks names quota once" "$("$GQ" why --json "$q" | jq -c .explanation.blocks)" '["quota","priority"]'
check_eq "the JSON has both items" "$("$GQ" why --json "$q" | jq -c '[.explanation.items[] | select(.reason == "quota") | .detail]')" '["queue","dept"]'

# p was reminded when the clock passed 2 h; downgraded 30 min after that.
why=$("$GQ" why "$p")
check_match "the P0 reminder and its deadline, in gq why" "$why" \
	"P0 reminder sent at $HM: unless confirmed by $HM \(gq confirm $p\), it is downgraded to P1\."
check_match "and in gq show" "$("$GQ" show "$p")" "P0 reminder sent at $HM: unless confirmed by"
clock +30m
why=$("$GQ" why "$p")
check_match "the downgrade, in gq why" "$why" "Downgraded from P0 at $HM: not confirmed within 30m\."
check_match "and in gq show" "$("$GQ" show "$p")" "Downgraded from P0 at $HM: not confirmed within 30m\."
finish
